/**
 * A namespace whose queues hold every state the queue-state metrics tell apart, for the metrics
 * tests: `jobs` with 2 visible messages, 1 in flight (received, vt 60 s) and 1 delayed (120 s);
 * `jobs-dlq` (a dead-letter queue is a queue) with 1 visible; `idle`, empty and paused. `jobs`
 * has a rate limit of 10/s (burst 5) and 300/min: 5 per second at the tightest, and a concurrency
 * limit of 3, of which its message in flight holds one lease. What the metrics
 * must show follows from it (expectedSamples), except the age of the oldest visible message and
 * the next due time, which depend on the server's clock: the tests bound those. One Worker's
 * heartbeat is on `jobs` (a consumer), beside a second one's that expires at once (swept or not by
 * the first one's beat, it is never counted).
 */
import type RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { beatJson, lookAndBeat } from "../../lib/operations/consumer-beat";

export interface SeededQueues {
  /** The id of the message the next receive on `jobs` gets (the oldest visible one). */
  jobsHead: string;
  /** The id of the received (in-flight) message of `jobs`: its score is the queue's next due time. */
  jobsInFlight: string;
  /** The id of the one message of `jobs-dlq`. */
  deadLetter: string;
}

export async function seedQueues(rsmq: RedisSMQ): Promise<SeededQueues> {
  for (const qname of ["jobs", "jobs-dlq", "idle"]) await rsmq.createQueueAsync({ qname });
  // A concurrency limit of 3 before the receive: the received message holds one lease of it.
  await rsmq.setConcurrencyAsync({ qname: "jobs", max: 3 });
  const first = await rsmq.sendMessageAsync({ qname: "jobs", message: "first" });
  const jobsHead = await rsmq.sendMessageAsync({ qname: "jobs", message: "second" });
  await rsmq.sendMessageAsync({ qname: "jobs", message: "third" });
  const received = await rsmq.receiveMessageAsync({ qname: "jobs", vt: 60 });
  if (!("id" in received) || received.id !== first) throw new Error("the seed expected to receive the first message");
  await rsmq.sendMessageAsync({ qname: "jobs", message: "later", delay: 120 });
  const deadLetter = await rsmq.sendMessageAsync({ qname: "jobs-dlq", message: "dead" });
  await rsmq.setRateLimitAsync({
    qname: "jobs",
    limits: [
      { max: 10, perMs: 1000, burst: 5 },
      { max: 300, perMs: 60_000 },
    ],
  });
  await rsmq.pauseQueueAsync({ qname: "idle" });
  const { layout, run } = internalsOf(rsmq);
  const beat = (workerId: string, ttlMs: number): Promise<unknown> =>
    run(() => lookAndBeat(layout, "jobs", { workerId, json: beatJson("seed", 1, 1, 0), ttlMs }));
  await beat("seedWorkerGone00", 1);
  // Expired 1 ms after its beat on the server's clock: wait until it is, or a reading that follows
  // within that millisecond (pipelined calls on a fast server) counts it.
  for (let looks = 0; (await rsmq.listConsumersAsync({ qname: "jobs" })).some(({ id }) => id === "seedWorkerGone00"); looks++) {
    if (looks === 1000) throw new Error("the seed's expired heartbeat stayed live for 1000 looks");
  }
  await beat("seedWorkerLive00", 3_600_000);
  return { jobsHead, jobsInFlight: first, deadLetter };
}

/** The samples of the seeded queues whose values do not depend on the clock, as the text format writes them. */
export function expectedSamples(prefix = ""): Record<string, number> {
  return {
    [`${prefix}rsmq_queue_messages{queue="idle",state="visible"}`]: 0,
    [`${prefix}rsmq_queue_messages{queue="idle",state="in_flight"}`]: 0,
    [`${prefix}rsmq_queue_messages{queue="idle",state="delayed"}`]: 0,
    [`${prefix}rsmq_queue_messages{queue="jobs",state="visible"}`]: 2,
    [`${prefix}rsmq_queue_messages{queue="jobs",state="in_flight"}`]: 1,
    [`${prefix}rsmq_queue_messages{queue="jobs",state="delayed"}`]: 1,
    [`${prefix}rsmq_queue_messages{queue="jobs-dlq",state="visible"}`]: 1,
    [`${prefix}rsmq_queue_messages{queue="jobs-dlq",state="in_flight"}`]: 0,
    [`${prefix}rsmq_queue_messages{queue="jobs-dlq",state="delayed"}`]: 0,
    [`${prefix}rsmq_queue_oldest_visible_age_seconds{queue="idle"}`]: 0,
    [`${prefix}rsmq_queue_sent_messages_total{queue="idle"}`]: 0,
    [`${prefix}rsmq_queue_sent_messages_total{queue="jobs"}`]: 4,
    [`${prefix}rsmq_queue_sent_messages_total{queue="jobs-dlq"}`]: 1,
    [`${prefix}rsmq_queue_received_messages_total{queue="idle"}`]: 0,
    [`${prefix}rsmq_queue_received_messages_total{queue="jobs"}`]: 1,
    [`${prefix}rsmq_queue_received_messages_total{queue="jobs-dlq"}`]: 0,
    [`${prefix}rsmq_queue_expired_messages_total{queue="idle"}`]: 0,
    [`${prefix}rsmq_queue_expired_messages_total{queue="jobs"}`]: 0,
    [`${prefix}rsmq_queue_expired_messages_total{queue="jobs-dlq"}`]: 0,
    [`${prefix}rsmq_queue_paused{queue="idle"}`]: 1,
    [`${prefix}rsmq_queue_paused{queue="jobs"}`]: 0,
    [`${prefix}rsmq_queue_paused{queue="jobs-dlq"}`]: 0,
    [`${prefix}rsmq_queue_rate_limit_per_second{queue="jobs"}`]: 5,
    [`${prefix}rsmq_queue_concurrency_limit{queue="jobs"}`]: 3,
    [`${prefix}rsmq_queue_leased{queue="jobs"}`]: 1,
    [`${prefix}rsmq_queue_consumers{queue="idle"}`]: 0,
    [`${prefix}rsmq_queue_consumers{queue="jobs"}`]: 1,
    [`${prefix}rsmq_queue_consumers{queue="jobs-dlq"}`]: 0,
  };
}

/** The samples whose values depend on the clock: the oldest visible ages and the next due time. */
export const CLOCK_SAMPLES = [
  'rsmq_queue_oldest_visible_age_seconds{queue="jobs"}',
  'rsmq_queue_oldest_visible_age_seconds{queue="jobs-dlq"}',
  'rsmq_queue_next_due_timestamp_seconds{queue="jobs"}',
];
