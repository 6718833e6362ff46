/**
 * `rsmq.redis.commands` against the server's own count: on a redis-server of the test's own, the
 * commands an instance's telemetry counted, by kind, equal what INFO commandstats says its client
 * sent (scripts by EVALSHA, EVALSHA_RO and EVAL; the wake subscription's SUBSCRIBE and PING), for
 * a Worker's idle window and for a send, receive and delete. Without the option, the same calls
 * send the same commands: telemetry costs none.
 */
import { expect } from "chai";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { readCommandStats } from "../../lib/cli/redis/command-stats";
import type { CommandCounts } from "../../lib/cli/redis/command-stats";
import { script } from "../../lib/scripts/script-files";
import type { ScriptName } from "../../lib/scripts/script-files";
import { IN_PROCESS_METRICS } from "../../lib/telemetry/metric-names";
import { otelSdk, sumWhere } from "../support/otel";
import { startLocalRedis } from "../support/redis-server";
import type { TestRedis } from "../support/redis-server";
import { uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";
import { waitFor } from "../support/worker";

runsOn("single");

/** The commands an rsmq-next client sends for its work (the connection's own HELLO, CLIENT, SELECT and QUIT left out). */
const LIBRARY_COMMANDS = ["evalsha", "evalsha_ro", "eval", "eval_ro", "ping", "subscribe", "unsubscribe", "smembers"];

function sent(stats: CommandCounts, names: readonly string[] = LIBRARY_COMMANDS): number {
  return names.reduce((sum, name) => sum + (stats[name] ?? 0), 0);
}

describe("telemetry: the Redis commands counted, against INFO commandstats", () => {
  let server: TestRedis;
  let probe: RedisClientType;
  let ns: string;

  before(async function () {
    this.timeout(20_000);
    server = await startLocalRedis();
    probe = createClient({ url: server.url }) as RedisClientType;
    probe.on("error", () => undefined);
    await probe.connect();
  });
  after(async () => {
    await probe.quit();
    await server.close();
  });

  beforeEach(async () => {
    ns = uniqueNs();
    const admin = new RedisSMQ({ url: server.url, ns });
    await admin.createQueueAsync({ qname: "q" });
    await admin.quitAsync();
    // Cached beforehand, so that no NOSCRIPT (an EVALSHA and an EVAL) makes a window's count depend on the order of the tests.
    const names: ScriptName[] = [
      "sendMessage",
      "receiveMessage",
      "deleteMessage",
      "deleteMessages",
      "nextDue",
      "lookAndBeat",
      "removeConsumer",
      "listSchedules",
    ];
    for (const name of names)
      for (const body of [script(name), script(name).flagged]) await probe.sendCommand(["SCRIPT", "LOAD", body.source]);
    await probe.sendCommand(["CONFIG", "RESETSTAT"]);
  });

  /** Runs `work` on a new instance with `telemetry` (and quits it); the server's counts after it, and the instance's own. */
  async function countDuring(
    telemetry: boolean,
    work: (rsmq: RedisSMQ) => Promise<void>,
  ): Promise<{ stats: CommandCounts; counted: (kind?: string) => Promise<number> }> {
    const sdk = otelSdk();
    const rsmq = new RedisSMQ({ url: server.url, ns, telemetry: telemetry ? { meterProvider: sdk.meterProvider, tracing: false } : false });
    try {
      await work(rsmq);
    } finally {
      await rsmq.quitAsync();
    }
    const stats = await readCommandStats(probe);
    const metric = (await sdk.metrics()).get(IN_PROCESS_METRICS.commands.otel);
    await sdk.shutdown();
    return { stats, counted: async (kind) => sumWhere(metric, kind === undefined ? {} : { "messaging.rsmq.kind": kind }) };
  }

  it("a Worker's idle window: its receive, its looks and the subscription's SUBSCRIBE and PINGs, by kind", async function () {
    this.timeout(20_000);
    const { stats, counted } = await countDuring(true, async (rsmq) => {
      const worker = new RedisSMQ.Worker(rsmq, { qname: "q", maxIdleSleepMs: 250, handler: () => undefined });
      let looks = 0;
      worker.on("look", () => (looks += 1));
      worker.start();
      await waitFor(() => looks >= 4, "four looks");
      await worker.stop();
    });
    // A look is read-only (EVALSHA_RO) unless it carries the heartbeat (EVALSHA); the heartbeat
    // entry's removal at stop is housekeeping, and so is the read of the queue's schedules at
    // start (read-only, EVALSHA_RO).
    const scheduleReads = 1;
    const beats = (await counted("look")) - (sent(stats, ["evalsha_ro", "eval_ro"]) - scheduleReads);
    expect(beats).to.be.at.least(1);
    expect(await counted("look")).to.be.at.least(4);
    expect((await counted("receive")) + beats + 1).to.equal(sent(stats, ["evalsha", "eval"]));
    expect(await counted("housekeeping")).to.equal(sent(stats, ["ping", "subscribe", "unsubscribe"]) + 1 + scheduleReads);
    expect(stats.ping ?? 0, "the subscription's health checks").to.be.at.least(1);
    expect(await counted()).to.equal(sent(stats));
  });

  it("a send, a receive and a delete: one command each, as the server counts them", async () => {
    const { stats, counted } = await countDuring(true, async (rsmq) => {
      await rsmq.sendMessageAsync({ qname: "q", message: "m" });
      const received = await rsmq.receiveMessageAsync({ qname: "q" });
      await rsmq.deleteMessageAsync({ qname: "q", id: (received as { id: string }).id });
      await rsmq.listQueuesAsync();
    });
    expect({ send: await counted("send"), receive: await counted("receive"), settle: await counted("settle") }).to.deep.equal({
      send: 1,
      receive: 1,
      settle: 1,
    });
    expect(await counted("housekeeping")).to.equal(1);
    expect(sent(stats)).to.equal(4);
    expect(await counted()).to.equal(sent(stats));
  });

  it("without the option, the same calls send exactly the same commands", async () => {
    const calls = async (rsmq: RedisSMQ): Promise<void> => {
      await rsmq.sendMessageAsync({ qname: "q", message: "m" });
      const received = await rsmq.receiveMessageAsync({ qname: "q" });
      await rsmq.deleteMessageAsync({ qname: "q", id: (received as { id: string }).id });
    };
    const off = (await countDuring(false, calls)).stats;
    await probe.sendCommand(["CONFIG", "RESETSTAT"]);
    const on = (await countDuring(true, calls)).stats;
    const scripts = (stats: CommandCounts) => ({ evalsha: stats.evalsha, eval: stats.eval ?? 0, evalsha_ro: stats.evalsha_ro ?? 0 });
    expect(scripts(off)).to.deep.equal({ evalsha: 3, eval: 0, evalsha_ro: 0 });
    expect(scripts(on)).to.deep.equal(scripts(off));
  });
});
