/**
 * The command line's contract outside any one command: exit codes for usage errors (2), an
 * unreachable Redis (1, with a message that names the fix, quickly: no endless retrying),
 * REDIS_URL / RSMQ_NS, help and version, plain output when piped, and that `require("rsmq-next")`
 * never loads the command line.
 */
import { expect } from "chai";
import { spawnSync } from "child_process";
import { mkdtempSync, readFileSync, rmSync } from "fs";
import { tmpdir } from "os";
import * as path from "path";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, testRedis, uniqueNs } from "../support/server";
import { startLocalRedis } from "../support/redis-server";
import { at, json, runCli, unusedPort } from "../support/cli";
import type { CliResult } from "../support/cli";
import { SilentListener } from "../support/silent-listener";
import { runsOn } from "../support/targets";

runsOn("single");

const ROOT = path.resolve(__dirname, "../../..");

describe("CLI: usage, exit codes, connection errors", () => {
  describe("usage errors exit with code 2 and say what is wrong", () => {
    const cases = [
      ["an unknown command", ["frobnicate"], "unknown command 'frobnicate'"],
      ["an unknown option", ["queues", "--colour"], "unknown option '--colour'"],
      ["a missing argument", ["send"], "missing required argument 'qname'"],
      ["another command's option", ["create", "q", "--max-deliveries", "3"], "--max-deliveries is an option of `worker`"],
      [
        "a command's option before the command",
        ["--vt", "5", "create", "q"],
        "--vt is an option of `create`, `set`, `receive`, `worker`: put it after the command",
      ],
      ["no command at all", [], "Usage: rsmq-next"],
      ["a --url that is no URL", ["--url", "localhost:6379", "queues"], 'invalid --url "localhost:6379"'],
      ["a --url of another protocol", ["--url", "http://127.0.0.1:6379", "queues"], "it must start with redis:// or rediss://"],
    ] as const;
    // The processes are independent: run them side by side, check each in its own test.
    let results: Map<string, CliResult>;
    before(async () => {
      results = new Map(await Promise.all(cases.map(async ([what, args]) => [what, await runCli(args)] as const)));
    });
    for (const [what, , message] of cases) {
      it(what, () => {
        const result = results.get(what)!;
        expect(result.code, result.stderr).to.equal(2);
        expect(result.stdout).to.equal("");
        expect(result.stderr).to.include(message);
      });
    }
  });

  it("--help prints the commands and examples (exit 0); --version the package version", async () => {
    const [help, version, short] = await Promise.all([runCli(["--help"]), runCli(["--version"]), runCli(["-V"])]);
    expect(help.code).to.equal(0);
    for (const command of [
      "queues",
      "create",
      "set",
      "delete-queue",
      "purge",
      "stats",
      "pause",
      "resume",
      "rate-limit",
      "send",
      "receive",
      "pop",
      "delete",
      "peek",
      "dlq",
      "redrive",
      "worker",
      "demo",
    ]) {
      expect(help.stdout).to.match(new RegExp(`^  ${command} `, "m"));
    }
    expect(help.stdout).to.include("Exit codes: 0 success, 1 failure");
    const { version: expected } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
    expect([version.code, version.stdout]).to.deep.equal([0, `${expected}\n`]);
    expect([short.code, short.stdout]).to.deep.equal([0, `${expected}\n`]);
  });

  describe("a server that answers but refuses the connection's settings: the cause and the fix, exit code 1", () => {
    const server = (): URL => new URL(testRedis().url);

    it("a password for a server that has none", async () => {
      const { hostname: host, port } = server();
      const result = await runCli(["--url", `redis://:s3cret@${host}:${port}`, "queues"]);
      expect(result.code, result.stderr).to.equal(1);
      expect(result.stderr).to.include(`Redis at redis://:***@${host}:${port} has no password set, but --url gives one`);
      expect(result.stderr).to.include(`hint: leave the password out of --url (redis://${host}:${port})`);
      expect(result.stderr).not.to.include("s3cret");
    });

    it("no password for a server that wants one", async () => {
      const guarded = await startLocalRedis({ args: ["--requirepass", "s3cret"] });
      try {
        const result = await runCli(["--url", guarded.url, "queues"]);
        expect(result.code, result.stderr).to.equal(1);
        expect(result.stderr).to.include(`Redis at ${guarded.url} wants a password`);
        expect(result.stderr).to.include(`hint: give it in --url: redis://:<password>@127.0.0.1:${guarded.port}`);
      } finally {
        await guarded.close();
      }
    });

    it("a database number the server does not have (/99)", async () => {
      const { hostname: host, port } = server();
      const result = await runCli(["--url", `redis://${host}:${port}/99`, "queues"]);
      expect(result.code, result.stderr).to.equal(1);
      expect(result.stderr).to.include(`database 99 does not exist on Redis at redis://${host}:${port}/99`);
      expect(result.stderr).to.include(
        "hint: a database number runs from 0 to the server's `databases` setting minus 1 (0 to 15 by default)",
      );
    });

    it("rediss:// (TLS) for a server that speaks plain TCP, within the connect timeout", async () => {
      const { hostname: host, port } = server();
      const result = await runCli(["--url", `rediss://${host}:${port}`, "queues"], { timeoutMs: 10_000 });
      expect(result.code, `${result.signal} ${result.stderr}`).to.equal(1);
      expect(result.stderr).to.include(`Redis at rediss://${host}:${port} speaks plain TCP, not TLS`);
      expect(result.stderr).to.include(`hint: use redis://${host}:${port} for this server`);
      expect(result.stderr).not.to.include("redis-server");
    });
  });

  describe("an unreachable Redis: exit code 1 and a message naming the server and the fix", () => {
    const commands = [["queues"], ["send", "q", "x"], ["stats", "q", "--watch"], ["worker", "q", "--exec", "cat"]];
    let port: number;
    let results: CliResult[];
    before(async () => {
      port = await unusedPort();
      results = await Promise.all(commands.map((args) => runCli(["--url", `redis://127.0.0.1:${port}`, ...args], { timeoutMs: 10_000 })));
    });
    commands.forEach((args, i) => {
      it(args.join(" "), () => {
        const result = results[i];
        expect(result.code, `${result.signal} ${result.stderr}`).to.equal(1);
        expect(result.stderr).to.include(`cannot reach Redis at redis://127.0.0.1:${port}: is it running? (connection refused)`);
        expect(result.stderr).to.include("point --url (or REDIS_URL) at your server");
        expect(result.stdout).to.equal("");
      });
    });

    describe("a server that accepts the connection and never answers (a stuck proxy, a wrong port)", () => {
      const silentCommands = [
        ["queues"],
        ["send", "q", "x"],
        ["receive", "q"],
        ["stats", "q", "--watch"],
        ["worker", "q", "--exec", "cat"],
      ];
      let listener: SilentListener;
      let silentResults: CliResult[];
      before(async function () {
        this.timeout(40_000);
        listener = await SilentListener.start();
        // The kill bound is far above the documented 2 s (room for a loaded machine): a process still running then hangs.
        silentResults = await Promise.all(silentCommands.map((args) => runCli(["--url", listener.url, ...args], { timeoutMs: 25_000 })));
      });
      after(() => listener.close());
      silentCommands.forEach((args, i) => {
        it(`${args.join(" ")}: exit code 1, naming the silence and the fix`, () => {
          const result = silentResults[i];
          expect(result.code, `${result.signal} ${result.stderr}`).to.equal(1);
          expect(result.stderr).to.include(`Redis at ${listener.url} accepted the connection but did not answer within 2 s`);
          expect(result.stderr).to.include("hint: check that --url (or REDIS_URL) is the port of a Redis server");
          expect(result.stderr).not.to.include("TypeError");
          expect(result.stdout).to.equal("");
        });
      });

      it("--cluster queues: exit code 1, naming no answer in time", async function () {
        this.timeout(40_000);
        const result = await runCli(["--cluster", "--url", listener.url, "queues"], { timeoutMs: 25_000 });
        expect(result.code, `${result.signal} ${result.stderr}`).to.equal(1);
        expect(result.stderr).to.include(`cannot reach Redis at ${listener.url}: is it running? (no answer in time)`);
        expect(result.stdout).to.equal("");
      });

      it("demo: says the server there is silent (and, with no redis-server to start, how to get one)", async function () {
        this.timeout(40_000);
        const emptyPath = mkdtempSync(path.join(tmpdir(), "no-redis-"));
        try {
          const result = await runCli(["--url", listener.url, "demo"], { env: { PATH: emptyPath }, timeoutMs: 25_000 });
          expect(result.code, `${result.signal} ${result.stderr}`).to.equal(1);
          expect(result.stderr).to.include(
            `no Redis answers at ${listener.url} (it accepted the connection but did not answer within 1.5 s), and there is no redis-server on PATH`,
          );
        } finally {
          rmSync(emptyPath, { recursive: true, force: true });
        }
      });
    });

    it("hides the password of the URL in the message", async () => {
      const port = await unusedPort();
      const result = await runCli(["--url", `redis://user:s3cret@127.0.0.1:${port}`, "queues"]);
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include(`redis://user:***@127.0.0.1:${port}`);
      expect(result.stderr).not.to.include("s3cret");
    });
  });

  it("reads REDIS_URL and RSMQ_NS from the environment", async () => {
    const ns = uniqueNs("cli");
    const rsmq = new RedisSMQ(connectionOptions(ns));
    try {
      await rsmq.createQueueAsync({ qname: "from-env" });
      const result = await runCli(["--json", "queues"], { env: { REDIS_URL: testRedis().url, RSMQ_NS: ns } });
      expect(result.code).to.equal(0);
      expect(json(result).map((row: { qname: string }) => row.qname)).to.deep.equal(["from-env"]);
    } finally {
      await rsmq.quitAsync();
    }
  });

  it("takes the global options after the command too", async () => {
    const ns = uniqueNs("cli");
    const result = await runCli(["queues", ...at(ns), "--json"]);
    expect(result.code).to.equal(0);
    expect(json(result)).to.deep.equal([]);
  });

  it("writes no colour codes when piped, and colours with FORCE_COLOR", async () => {
    const ns = uniqueNs("cli");
    const [plain, coloured] = await Promise.all([
      runCli([...at(ns), "stats", "nope"]),
      runCli([...at(ns), "stats", "nope"], { env: { FORCE_COLOR: "1" } }),
    ]);
    expect(plain.stderr).not.to.include("\x1b[");
    expect(coloured.stderr).to.include("\x1b[31merror:\x1b[39m");
  });

  it("require('rsmq-next') loads no command-line module (the library's only dependency is redis)", () => {
    const probe = `
      require(${JSON.stringify(path.join(ROOT, "dist/index.js"))});
      const loaded = Object.keys(require.cache).filter((file) => /[\\\\/](cli|commander|picocolors|cli-progress)[\\\\/]/.test(file));
      process.stdout.write(JSON.stringify(loaded));
    `;
    const result = spawnSync(process.execPath, ["-e", probe], { encoding: "utf8" });
    expect(result.status, result.stderr).to.equal(0);
    expect(JSON.parse(result.stdout)).to.deep.equal([]);
    expect(readFileSync(path.join(ROOT, "lib/index.ts"), "utf8")).not.to.match(/from "\.\/cli/);
  });
});
