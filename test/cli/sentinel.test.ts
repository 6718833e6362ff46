/**
 * `--sentinel host:port,... --name <primary>` against a real Sentinel set-up whose data nodes ask
 * for a password: the commands reach the primary the sentinels name (and the new one after a
 * failover), `worker` closes the ioredis client it opened, and the mistakes (a bad list, a wrong
 * name, --url or --cluster beside --sentinel, a password option without it, ioredis missing) end
 * with a message saying what to do.
 */
import { expect } from "chai";
import * as path from "path";
import { runCli } from "../support/cli";
import { startSentinelSetup } from "../support/sentinel";
import type { SentinelSetup } from "../support/sentinel";
import { freePort } from "../support/redis-server";
import { uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

const PASSWORD = "s3cret-sentinel";

describe("rsmq-next --sentinel", function () {
  // A failover may first wait out a sentinel's TILT mode (up to 35 s, see support/sentinel.ts).
  this.timeout(70_000);
  let setup: SentinelSetup;
  let ns: string;

  before(async () => {
    setup = await startSentinelSetup({ password: PASSWORD });
  });
  after(() => setup?.close());
  beforeEach(() => (ns = uniqueNs("cli")));

  const sentinels = (): string => setup.sentinels.map(({ host, port }) => `${host}:${port}`).join(",");
  const cli = (args: string[], input?: string) =>
    runCli(["--sentinel", sentinels(), "--name", setup.masterName, "--password", PASSWORD, "--ns", ns, ...args], { input });

  it("creates, sends, reads and consumes through the primary the sentinels name", async () => {
    expect((await cli(["create", "q"])).code).to.equal(0);
    const sent = await cli(["--json", "send", "q"], "hello\n");
    expect(sent.code, sent.stderr).to.equal(0);
    const primary = await setup.primary();
    expect(await setup.run(primary, ["ZCARD", `${ns}:q`])).to.equal(1);

    const worker = await cli(["worker", "q", "--exec", "cat", "--until-empty"]);
    expect(worker.code, worker.stderr).to.equal(0);
    expect(worker.stdout).to.equal("hello");
    expect(worker.stderr).to.include(`sentinels ${sentinels()} (primary "${setup.masterName}")`);
    expect(worker.stderr).to.include("stopped: 1 message handled");
  });

  it("reaches the new primary after a failover", async () => {
    expect((await cli(["create", "q"])).code).to.equal(0);
    const old = await setup.killPrimary();
    const promoted = await setup.waitForNewPrimary(old);
    const sent = await cli(["send", "q"], "after\n");
    expect(sent.code, sent.stderr).to.equal(0);
    expect(await setup.run(promoted, ["ZCARD", `${ns}:q`])).to.equal(1);
    const queues = await cli(["--json", "queues"]);
    expect(queues.code, queues.stderr).to.equal(0);
    expect(JSON.parse(queues.stdout)).to.have.length(1);
  });

  it("a name the sentinels do not know: exit 1 at once, saying to check --name", async () => {
    const result = await runCli(["--sentinel", sentinels(), "--name", "nosuchprimary", "--password", PASSWORD, "queues"]);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include(`the sentinels ${sentinels()} (primary "nosuchprimary") know no primary named "nosuchprimary"`);
    expect(result.stderr).to.include("--name must be the name");
  });

  it("sentinels that do not answer: exit 1 after the bound, naming them", async () => {
    const nobody = `127.0.0.1:${await freePort()}`;
    const result = await runCli(["--sentinel", nobody, "queues"]);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include(`cannot reach the primary through the sentinels ${nobody} (primary "mymaster") within 5000 ms`);
  });

  it("usage errors (exit 2), before any connection: a bad list, --url or --cluster beside it, a password option without it", async () => {
    const bad = await runCli(["--sentinel", "127.0.0.1:notaport", "queues"]);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.include('invalid sentinel "127.0.0.1:notaport" in --sentinel');
    const withUrl = await runCli(["--sentinel", sentinels(), "--url", "redis://127.0.0.1:6379", "queues"]);
    expect(withUrl.code).to.equal(2);
    expect(withUrl.stderr).to.include("--sentinel and --url cannot be used together");
    const withCluster = await runCli(["--sentinel", sentinels(), "--cluster", "queues"]);
    expect(withCluster.code).to.equal(2);
    expect(withCluster.stderr).to.include("--sentinel and --cluster cannot be used together");
    const passwordAlone = await runCli(["--password", "x", "queues"]);
    expect(passwordAlone.code).to.equal(2);
    expect(passwordAlone.stderr).to.include("--password applies to --sentinel only");
  });

  it("without ioredis installed: exit 1, saying to npm install ioredis", async () => {
    const hide = path.resolve(__dirname, "../support/hide-ioredis.js");
    const result = await runCli(["--sentinel", sentinels(), "queues"], { env: { NODE_OPTIONS: `--require ${hide}` } });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include("--sentinel needs ioredis, which is not installed");
    expect(result.stderr).to.include("npm install ioredis");
  });
});
