/**
 * The queue-state metrics of a real namespace (lib/queue-state/'s reading, made into
 * families): every state counted as Redis holds it, dead-letter queues included; the age of the
 * oldest visible message from its id and the server's clock; the next due time the earliest
 * hidden score; rsmq's totalsent and totalrecv; the controls (pause, rate limit, block) as stored
 * in each queue's `:Q`. A list of queues reads only those. One reading
 * for all queues is one read-only script call on one server; reads asked for together share one.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { renderExposition } from "../../lib/telemetry/exposition/exposition";
import { queueStateFamilies } from "../../lib/telemetry/exposition/queue-state-families";
import { QueueStateReader } from "../../lib/queue-state/queue-state-reader";
import { sentAt } from "../../lib/operations/message-reply";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { internalsOf } from "../../lib/internals";
import { parseExposition, prometheusMissing, promtoolCheck } from "../support/prometheus";
import { expectedSamples, seedQueues } from "../support/queue-state-seed";
import type { SeededQueues } from "../support/queue-state-seed";
import { CommandWatch } from "../support/retry";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("metrics: the queue state read from Redis", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  let seeded: SeededQueues;

  beforeEach(async () => {
    ns = uniqueNs("metrics");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    seeded = await seedQueues(rsmq);
  });
  afterEach(() => cleanup.run());

  it("every queue of the namespace: the states, the ages and the next due time by the server's clock, rsmq's counters", async () => {
    const reading = await new QueueStateReader(rsmq).read();
    const samples = parseExposition(renderExposition(queueStateFamilies(reading)));
    const exact = Object.fromEntries(
      [...samples].filter(([name]) => !/oldest_visible_age_seconds\{queue="(jobs|jobs-dlq)"\}|next_due/.test(name)),
    );
    expect(exact).to.deep.equal(expectedSamples());
    // now - the send time in the id, by the clock of the script that read it, to the ms. The id
    // has microseconds and `now` whole ms, so a message sent in the reading's own ms would come
    // out at -1 ms: an age is never below 0.
    const ageOf = (id: string) => Math.max(0, Math.round(reading.now - sentAt(id))) / 1000;
    expect(samples.get('rsmq_queue_oldest_visible_age_seconds{queue="jobs"}')).to.equal(ageOf(seeded.jobsHead));
    expect(samples.get('rsmq_queue_oldest_visible_age_seconds{queue="jobs-dlq"}')).to.equal(ageOf(seeded.deadLetter));
    const inFlightScore = await client.zScore(keysOf(ns, "jobs").messages, seeded.jobsInFlight);
    expect(samples.get('rsmq_queue_next_due_timestamp_seconds{queue="jobs"}')).to.equal(inFlightScore! / 1000);
    expect([...samples.keys()].filter((name) => name.includes("next_due"))).to.deep.equal([
      'rsmq_queue_next_due_timestamp_seconds{queue="jobs"}',
    ]);
  });

  it("the controls as stored in :Q: a pause in force, one whose until passed, a restore; a limit; a block in force and one past", async () => {
    const now = (await new QueueStateReader(rsmq).read()).now;
    const fields = (qname: string, values: Record<string, string>) => client.hSet(keysOf(ns, qname).hash, values);
    await fields("jobs", { paused: `${now - 5000}::s`, ratelimit: "r;10/1000/5,300/60000/0", rlblock: String(now + 3_600_000) });
    await fields("jobs-dlq", { paused: `${now - 5000}:${now - 1}:s`, ratelimit: "p;3/1000/0", rlblock: String(now - 1) });
    await fields("idle", { paused: `${now - 5000}::r` });
    const reading = await new QueueStateReader(rsmq).read();
    const controls = reading.queues.map(({ qname, paused, rateLimit, rateLimitedUntil }) => ({
      qname,
      paused,
      rateLimit,
      rateLimitedUntil,
    }));
    expect(controls).to.deep.equal([
      { qname: "idle", paused: { since: now - 5000, hard: true, restoring: true }, rateLimit: null, rateLimitedUntil: null },
      {
        qname: "jobs",
        paused: { since: now - 5000, hard: false },
        rateLimit: {
          mode: "receive",
          limits: [
            { max: 10, perMs: 1000, burst: 5 },
            { max: 300, perMs: 60000, burst: 0 },
          ],
        },
        rateLimitedUntil: now + 3_600_000,
      },
      { qname: "jobs-dlq", paused: null, rateLimit: { mode: "pace", limits: [{ max: 3, perMs: 1000, burst: 0 }] }, rateLimitedUntil: null },
    ]);
    const samples = parseExposition(renderExposition(queueStateFamilies(reading)));
    expect(Object.fromEntries([...samples].filter(([name]) => /_paused|_rate_limit/.test(name)))).to.deep.equal({
      'rsmq_queue_paused{queue="idle"}': 0,
      'rsmq_queue_paused{queue="jobs"}': 1,
      'rsmq_queue_paused{queue="jobs-dlq"}': 0,
      'rsmq_queue_rate_limit_per_second{queue="jobs"}': 5,
      'rsmq_queue_rate_limit_per_second{queue="jobs-dlq"}': 3,
      'rsmq_queue_rate_limited_until_timestamp_seconds{queue="jobs"}': (now + 3_600_000) / 1000,
    });
  });

  it("a list of queues: only those that exist of them", async () => {
    const reading = await new QueueStateReader(rsmq, { queues: ["jobs-dlq", "nosuch"] }).read();
    expect(reading.queues.map((queue) => queue.qname)).to.deep.equal(["jobs-dlq"]);
  });

  it("promtool check metrics parses a real namespace's text", async () => {
    const missing = prometheusMissing();
    if (missing) throw new Error(missing);
    const checked = await promtoolCheck(renderExposition(queueStateFamilies(await new QueueStateReader(rsmq).read())));
    expect(checked, checked.output).to.deep.equal({ code: 0, output: "" });
  });

  it("a reading is one read-only script call on one server (the registry and one per queue on a cluster); reads asked together share it", async () => {
    const reader = new QueueStateReader(rsmq);
    await reader.read(); // learns the queues
    const watch = await CommandWatch.open();
    cleanup.add(() => watch.close());
    const [a, b] = await Promise.all([reader.read(), reader.read()]);
    expect(a).to.equal(b);
    const calls = (await watch.clientCalls(["queueStates"])).map((call) => call.split(" ").slice(1).join(" ")).sort();
    expect(calls).to.deep.equal(
      internalsOf(rsmq).layout.registryWithQueues
        ? ["evalsha_ro queueStates"]
        : ["evalsha_ro queueStates", "evalsha_ro queueStates", "evalsha_ro queueStates", "smembers"],
    );
  });
});
