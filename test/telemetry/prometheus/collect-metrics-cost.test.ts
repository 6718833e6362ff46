/**
 * What collectMetrics with `queueState` costs Redis, counted at the server (INFO commandstats of
 * a redis-server of this suite's own): a scrape of the registry is exactly one queueStates call
 * for every queue (one EVALSHA_RO and the commands the script runs), whatever the number of
 * queue-state metrics it fills, schedules on two queues included; no scrape, no command: nothing
 * runs on a timer.
 */
import { expect } from "chai";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import * as promClient from "prom-client";
import RedisSMQ = require("../../../lib/index");
import { collectMetrics } from "../../../lib/telemetry/prometheus";
import { startRedisServer } from "../../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../../lib/cli/redis/redis-server";
import { countsBetween, readCommandStats } from "../../../lib/cli/redis/command-stats";
import { parseExposition } from "../../support/prometheus";
import { seedQueues } from "../../support/queue-state-seed";
import { serverTimePassed } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("single");

/** The commands lua/queueStates-n.lua runs for the seeded queues (TIME left out: the test reads it too). */
const INSIDE_THE_SCRIPT = ["smembers", "hmget", "zcard", "zcount", "zrangebyscore", "zrange", "hexists"];

describe("collectMetrics: its cost at the server", function () {
  this.timeout(30_000);
  let redis: RedisServerProcess;
  let counter: RedisClientType;
  let rsmq: RedisSMQ;
  let registry: promClient.Registry;

  before(async () => {
    redis = await startRedisServer();
    counter = createClient({ url: redis.url });
    await counter.connect();
    rsmq = new RedisSMQ({ host: redis.host, port: redis.port, ns: "promcost" });
    await seedQueues(rsmq);
    registry = new promClient.Registry();
    collectMetrics(rsmq, { registry, queueState: true });
    await registry.metrics(); // learns the queues
  });

  after(async () => {
    await rsmq?.quitAsync();
    await counter?.quit();
    await redis?.stop();
  });

  async function commandsSince(before: Awaited<ReturnType<typeof readCommandStats>>) {
    return countsBetween(before, await readCommandStats(counter), ["info", "time"]);
  }

  it("one scrape of the registry: one EVALSHA_RO for every queue, and nothing else", async () => {
    const before = await readCommandStats(counter);
    await registry.metrics();
    const commands = await commandsSince(before);
    expect(Object.keys(commands).sort()).to.deep.equal(["evalsha_ro", ...INSIDE_THE_SCRIPT].sort());
    expect([commands.evalsha_ro, commands.smembers]).to.deep.equal([1, 1]);
  });

  it("schedules on two queues: one scrape is still one EVALSHA_RO, their series included", async () => {
    await rsmq.upsertScheduleAsync({ qname: "jobs", name: "hourly", every: 3_600_000, message: "hourly" });
    await rsmq.upsertScheduleAsync({ qname: "jobs", name: "nightly", cron: "0 2 * * *", tz: "Europe/Berlin", message: "nightly" });
    await rsmq.upsertScheduleAsync({ qname: "idle", name: "ping", every: 60_000, message: "ping" });
    const before = await readCommandStats(counter);
    const text = await registry.metrics();
    const commands = await commandsSince(before);
    expect(Object.keys(commands).sort()).to.deep.equal(["evalsha_ro", ...INSIDE_THE_SCRIPT].sort());
    expect([commands.evalsha_ro, commands.smembers]).to.deep.equal([1, 1]);
    const sent = [...parseExposition(text)].filter(([name]) => name.startsWith("rsmq_schedule_sent_total"));
    expect(sent).to.deep.equal([
      ['rsmq_schedule_sent_total{queue="idle",schedule="ping"}', 0],
      ['rsmq_schedule_sent_total{queue="jobs",schedule="hourly"}', 0],
      ['rsmq_schedule_sent_total{queue="jobs",schedule="nightly"}', 0],
    ]);
  });

  it("no scrape: no command", async () => {
    const before = await readCommandStats(counter);
    await serverTimePassed(counter, 2000);
    expect(await commandsSince(before)).to.deep.equal({});
  });
});
