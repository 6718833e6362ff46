/**
 * A pass of `npm test` that runs no test fails the run, with the reason: the cluster pass skipped
 * whole by its root hook (no Redis 7+), or a `--grep` that matches nothing. Before, mocha exited
 * 0 with "0 passing" and .ci/run reported success.
 */
import { expect } from "chai";
import { spawn } from "child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import * as path from "path";
import { emptyPassReason, readSummary } from "../support/pass-summary";
import { runsOn } from "../support/targets";

runsOn("single");

const root = path.resolve(__dirname, "../../..");

/** Runs `node args` in the package root; resolves with the exit code and stdout and stderr together. */
function runNode(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, output }));
  });
}

describe("a pass in which no test ran fails npm test", () => {
  describe("reading mocha's summary", () => {
    it("reads the counts, colour codes and all", () => {
      const output =
        "  \u001b[92m 12 passing\u001b[0m\u001b[90m (3s)\u001b[0m\n\u001b[36m  2 pending\u001b[0m\n\u001b[31m  1 failing\u001b[0m\n";
      expect(readSummary(output)).to.deep.equal({ passing: 12, failing: 1, pending: 2 });
      expect(emptyPassReason("single-server", output)).to.equal(undefined);
    });

    it("lets a pass with only failures through (its exit code fails it)", () => {
      expect(emptyPassReason("cluster", "  0 passing (1s)\n  3 failing\n")).to.equal(undefined);
    });

    it("fails a pass whose tests were all skipped, naming the pass and the root hook's reason", () => {
      const output = [
        "  Skipping every Redis Cluster test: redis-cli is not Redis 7+ (redis-cli 6.2.14); the cluster tests need cluster-port",
        "",
        "  0 passing (409ms)",
        "  844 pending",
      ].join("\n");
      expect(emptyPassReason("cluster", output)).to.equal(
        "the cluster pass ran no test (0 passing, 844 pending): Skipping every Redis Cluster test: " +
          "redis-cli is not Redis 7+ (redis-cli 6.2.14); the cluster tests need cluster-port",
      );
    });

    it("fails a pass with no test at all, and one that printed no summary", () => {
      expect(emptyPassReason("ioredis", "\n  0 passing (9ms)\n")).to.match(
        /^the ioredis pass ran no test \(0 passing, 0 pending\): .*--grep/,
      );
      expect(emptyPassReason("ioredis", "")).to.equal("the ioredis pass printed no mocha summary, so no test is known to have run");
    });
  });

  describe("on real runs", () => {
    let fakeTools: string;
    before(() => {
      // A redis-cli older than 7 first on PATH: what the cluster pass's root hook checks.
      fakeTools = mkdtempSync(path.join(tmpdir(), "rsmq-next-old-redis-cli-"));
      writeFileSync(path.join(fakeTools, "redis-cli"), '#!/bin/sh\necho "redis-cli 6.2.14"\n');
      chmodSync(path.join(fakeTools, "redis-cli"), 0o755);
    });
    after(() => rmSync(fakeTools, { recursive: true, force: true }));

    it("the cluster pass without Redis 7+: mocha exits 0, and the check names the skip", async function () {
      this.timeout(60_000);
      const mocha = path.join(root, "node_modules/mocha/bin/mocha.js");
      const { code, output } = await runNode(
        [
          mocha,
          "--config",
          ".mocharc.json",
          "--timeout",
          "30000",
          "build/test/operations/next-due.test.js",
          "--grep",
          "receiveMessageOrNextDue reports an empty queue",
        ],
        { RSMQ_TEST_TARGET: "cluster", PATH: `${fakeTools}${path.delimiter}${process.env.PATH ?? ""}` },
      );
      expect(code, output).to.equal(0);
      expect(emptyPassReason("cluster", output)).to.equal(
        "the cluster pass ran no test (0 passing, 1 pending): Skipping every Redis Cluster test: " +
          "redis-cli is not Redis 7+ (redis-cli 6.2.14); the cluster tests need cluster-port",
      );
    });

    it("npm test with a --grep that matches nothing exits 1, saying so for each of its six passes", async function () {
      this.timeout(120_000);
      // Side by side, as CI runs them (a shared server would run them one after the other, stopping at the first).
      const sideBySide = { REDIS_URL: undefined, TEST_REDIS: undefined, RSMQ_TEST_SERIAL: undefined };
      const runPasses = path.join(root, "build/test/support/run-passes.js");
      const { code, output } = await runNode([runPasses, "--grep", "no test has this title"], sideBySide);
      expect(code, output).to.equal(1);
      for (const pass of [
        "single-server",
        "processes (single-server)",
        "cluster",
        "ioredis6",
        "noderedis6-resp3",
        "cluster-noderedis6-resp3",
      ]) {
        expect(output, output).to.include(`npm test fails: the ${pass} pass ran no test (0 passing, 0 pending)`);
      }
    });
  });
});
