/**
 * What `rsmq-next metrics` costs Redis, counted at the server (INFO commandstats of a redis-server
 * of this suite's own, so no other test's commands are in it): a scrape is exactly one
 * queueStates call for every queue (one EVALSHA_RO, and the commands the script runs inside it),
 * and nobody scraping is nothing at all. With Redis gone, a scrape is answered 503 with the reason
 * on one line, at once, and the exporter heals when Redis is back; on a link gone silent, within
 * the command timeout.
 */
import { expect } from "chai";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../../lib/index");
import { startRedisServer } from "../../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../../lib/cli/redis/redis-server";
import { countsBetween, readCommandStats } from "../../../lib/cli/redis/command-stats";
import { startCli } from "../../support/cli";
import { send } from "../../support/dashboard";
import { parseExposition } from "../../support/prometheus";
import { seedQueues } from "../../support/queue-state-seed";
import { SilentProxy } from "../../support/silent-proxy";
import { connectionOptions, testRedis, uniqueNs } from "../../support/server";
import { serverTimePassed, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("single");

/** The commands lua/queueStates-n.lua runs, for the seeded queues (TIME is left out: the test reads it too). */
const INSIDE_THE_SCRIPT = ["smembers", "hmget", "zcard", "zcount", "zrangebyscore", "zrange", "hexists"];
const ADDRESS = /^metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)$/m;

describe("metrics exporter: its cost at the server, and Redis going away", function () {
  this.timeout(60_000);
  let redis: RedisServerProcess;
  let counter: RedisClientType;
  let rsmq: RedisSMQ;
  let running: ReturnType<typeof startCli>;
  let url: string;

  before(async () => {
    redis = await startRedisServer();
    counter = createClient({ url: redis.url });
    counter.on("error", () => undefined);
    await counter.connect();
    rsmq = new RedisSMQ({ host: redis.host, port: redis.port, ns: "cost" });
    rsmq.on("error", () => undefined); // Redis goes away in the last test
    await seedQueues(rsmq);
    running = startCli(["--url", redis.url, "--ns", "cost", "metrics", "--port", "0"], { timeoutMs: 60_000 });
    await waitFor(() => ADDRESS.test(running.output().stdout) || running.child.exitCode !== null, "the address on stdout");
    url = ADDRESS.exec(running.output().stdout)![1];
  });

  after(async () => {
    running?.child.kill("SIGKILL");
    await rsmq?.quitAsync().catch(() => undefined);
    await counter?.quit().catch(() => undefined);
    await redis?.stop();
  });

  /** Client commands the server ran since `before` (the test's own INFO and TIME left out). */
  async function commandsSince(before: Awaited<ReturnType<typeof readCommandStats>>) {
    return countsBetween(before, await readCommandStats(counter), ["info", "time"]);
  }

  it("one scrape is one EVALSHA_RO for every queue of the namespace, and nothing else", async () => {
    expect((await send(url)).status).to.equal(200); // the first scrape learns the queues
    const before = await readCommandStats(counter);
    const scrape = await send(url);
    expect(scrape.status).to.equal(200);
    expect(parseExposition(scrape.text).get('rsmq_queue_messages{queue="jobs",state="visible"}')).to.equal(2);
    const commands = await commandsSince(before);
    expect(Object.keys(commands).sort()).to.deep.equal(["evalsha_ro", ...INSIDE_THE_SCRIPT].sort());
    expect(commands.evalsha_ro).to.equal(1);
    expect(commands.smembers, "the registry, read inside the script").to.equal(1);
  });

  it("nobody scraping: no command at all", async () => {
    const before = await readCommandStats(counter);
    await serverTimePassed(counter, 3000);
    expect(await commandsSince(before)).to.deep.equal({});
  });

  it("Redis gone: 503 with the reason on one line, at once; back to 200 when Redis is back", async () => {
    const port = redis.port;
    await counter.quit();
    await redis.stop();
    const startedAt = Date.now();
    const down = await send(url);
    expect(Date.now() - startedAt).to.be.below(2000);
    expect(down.status).to.equal(503);
    expect(down.headers["content-type"]).to.equal("text/plain; charset=utf-8");
    expect(down.text).to.match(/^rsmq-next: cannot read the queues from Redis: [^\n]+\n$/);
    redis = await startRedisServer({ port });
    counter = createClient({ url: redis.url });
    counter.on("error", () => undefined);
    await counter.connect();
    await waitFor(async () => (await send(url)).status === 200, "a scrape answered 200 again", 15_000);
    expect(running.child.exitCode).to.equal(null);
  });
});

/** The exporter's --command-timeout in the silent-link test. */
const COMMAND_TIMEOUT_MS = 1_500;

describe("metrics exporter: a silent link to Redis", function () {
  this.timeout(60_000);
  let proxy: SilentProxy;
  let running: ReturnType<typeof startCli>;

  before(async () => {
    proxy = await SilentProxy.start(testRedis());
    const ns = uniqueNs("silentmetrics");
    const rsmq = new RedisSMQ({ ...connectionOptions(ns) });
    await seedQueues(rsmq);
    await rsmq.quitAsync();
    // A bound shorter than the default 10 s, given as a user gives it: the test waits for it.
    running = startCli(
      ["--url", `redis://127.0.0.1:${proxy.port}`, "--ns", ns, "--command-timeout", String(COMMAND_TIMEOUT_MS), "metrics", "--port", "0"],
      {
        timeoutMs: 60_000,
      },
    );
    await waitFor(() => ADDRESS.test(running.output().stdout) || running.child.exitCode !== null, "the address on stdout");
  });

  after(async () => {
    running?.child.kill("SIGKILL");
    await proxy?.close();
  });

  it("a scrape on a link that stopped answering is answered 503 within the command timeout (--command-timeout), not left hanging", async () => {
    const url = ADDRESS.exec(running.output().stdout)![1];
    expect((await send(url)).status).to.equal(200);
    proxy.silence();
    const startedAt = Date.now();
    const answer = await send(url);
    expect(answer.status, answer.text).to.equal(503);
    expect(answer.text).to.match(/^rsmq-next: cannot read the queues from Redis: [^\n]+\n$/);
    const waited = Date.now() - startedAt;
    expect(waited).to.be.at.least(COMMAND_TIMEOUT_MS - 100);
    expect(waited).to.be.below(COMMAND_TIMEOUT_MS + 5_000);
    // The link is replaced (a new flow through the proxy works), and the scrapes heal.
    await waitFor(async () => (await send(url)).status === 200, "a scrape answered 200 again", 20_000);
  });
});
