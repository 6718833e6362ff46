/**
 * `rsmq-next dashboard` against the test server: it prints the address it listens on (--port 0
 * picks a free one), serves the API read-only unless --read-write, asks for basic authentication
 * with --auth, warns when bound beyond loopback without --auth, and on SIGTERM closes everything
 * and ends by that signal, by itself.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, uniqueNs } from "../support/server";
import { at, startCli } from "../support/cli";
import { post, send } from "../support/dashboard";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const ADDRESS = /^dashboard: (http:\/\/127\.0\.0\.1:\d+\/) \((read-only|read-write)\)$/m;

describe("CLI: dashboard", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let running: ReturnType<typeof startCli> | undefined;

  beforeEach(async () => {
    ns = uniqueNs("clidash");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "jobs" });
  });
  afterEach(async () => {
    running?.child.kill("SIGKILL");
    running = undefined;
    await rsmq.quitAsync();
  });

  /** Starts the dashboard on a free port; resolves its URL once it printed it. */
  async function start(...args: string[]): Promise<string> {
    running = startCli([...at(ns), "dashboard", "--port", "0", ...args], { timeoutMs: 30_000 });
    const started = running;
    await waitFor(() => ADDRESS.test(started.output().stdout) || started.child.exitCode !== null, "the address on stdout");
    const match = ADDRESS.exec(started.output().stdout);
    expect(match, started.output().stderr).not.to.equal(null);
    return match![1];
  }

  it("--port 0: prints the address it listens on; read-only by default; SIGTERM ends it by that signal, by itself", async () => {
    const url = await start();
    expect(running!.output().stdout).to.include("(read-only)");
    const queues = await send(`${url}api/queues`);
    expect(queues.status, queues.text).to.equal(200);
    expect(queues.json.readOnly).to.equal(true);
    expect(queues.json.queues.map((queue: { qname: string }) => queue.qname)).to.deep.equal(["jobs"]);
    expect((await post(`${url}api/queues/jobs/messages`, { message: "x" })).status).to.equal(405);
    running!.child.kill("SIGTERM");
    const result = await running!.finished;
    expect([result.code, result.signal], result.stderr).to.deep.equal([null, "SIGTERM"]);
    expect(result.stderr).not.to.include("error");
  });

  it("closes an open live-update stream on SIGTERM instead of waiting for it", async () => {
    const url = await start("--interval", "0.2");
    const { openStream } = await import("../support/dashboard");
    const stream = await openStream(`${url}api/stream`);
    await waitFor(() => stream.text().includes("event: queues"), "an event");
    running!.child.kill("SIGTERM");
    const result = await running!.finished;
    expect(result.signal, result.stderr).to.equal("SIGTERM");
    stream.close();
  });

  it("--read-write: the actions work", async () => {
    const url = await start("--read-write");
    expect(running!.output().stdout).to.include("(read-write)");
    const sent = await post(`${url}api/queues/jobs/messages`, { message: "hello" });
    expect(sent.status, sent.text).to.equal(201);
    expect((await rsmq.getQueueAttributesAsync({ qname: "jobs" })).msgs).to.equal(1);
  });

  it("--auth user:password: 401 with WWW-Authenticate without or with wrong credentials, 200 with them", async () => {
    const url = await start("--auth", "ops:s3cret:with-colon");
    const basic = (credentials: string): Record<string, string> => ({
      Authorization: `Basic ${Buffer.from(credentials).toString("base64")}`,
    });
    for (const headers of [{}, basic("ops:wrong"), basic("ops:s3cret:with-colo"), basic("other:s3cret:with-colon")]) {
      const refused = await send(`${url}api/queues`, { headers });
      expect(refused.status).to.equal(401);
      expect(refused.headers["www-authenticate"]).to.match(/^Basic realm=/);
    }
    const allowed = await send(`${url}api/queues`, { headers: basic("ops:s3cret:with-colon") });
    expect(allowed.status, allowed.text).to.equal(200);
  });

  it("warns on stderr when bound beyond loopback without --auth, and not with it", async () => {
    running = startCli([...at(ns), "dashboard", "--port", "0", "--host", "0.0.0.0"], { timeoutMs: 30_000 });
    const first = running;
    await waitFor(() => first.output().stderr.includes("without --auth"), "the warning");
    expect(first.output().stdout).to.match(/^dashboard: http:\/\/0\.0\.0\.0:\d+\/ \(read-only\)$/m);
    first.child.kill("SIGTERM");
    await first.finished;
    running = startCli([...at(ns), "dashboard", "--port", "0", "--host", "0.0.0.0", "--auth", "a:b"], { timeoutMs: 30_000 });
    const second = running;
    await waitFor(() => second.output().stdout.includes("dashboard: "), "the address");
    expect(second.output().stderr).not.to.include("without --auth");
  });

  it("bad flags are usage errors (exit 2) before anything listens", async () => {
    for (const flags of [
      ["--auth", "nocolon"],
      ["--port", "70000"],
      ["--interval", "0.01"],
      ["--auth", ":pw"],
    ]) {
      running = startCli([...at(ns), "dashboard", ...flags]);
      const result = await running.finished;
      expect(result.code, `${flags.join(" ")}: ${result.stderr}`).to.equal(2);
    }
  });
});
