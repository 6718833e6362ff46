/**
 * The text format as written by hand (lib/telemetry/exposition/exposition.ts) and the queue-state families of
 * a reading (lib/telemetry/exposition/queue-state-families.ts), on made-up readings: escaping of label values
 * and HELP text, the special values, the `hidden_unsplit` state past the hidden messages a reading
 * splits, the next due time absent when nothing is hidden, the controls (paused 0/1, the tightest
 * rate limit, a block's end, the concurrency limit and its leases, the consumers), the schedules'
 * series (one per schedule, the next run absent while paused or ended). promtool parses what is
 * written.
 */
import { expect } from "chai";
import { escapeLabelValue, formatValue, renderExposition } from "../../../lib/telemetry/exposition/exposition";
import { queueStateFamilies } from "../../../lib/telemetry/exposition/queue-state-families";
import type { QueueRow } from "../../../lib/queue-state/read-shapes";
import type { ScheduleInfo } from "../../../lib/types";
import { parseExposition, prometheusMissing, promtoolCheck } from "../../support/prometheus";
import { runsOn } from "../../support/targets";

runsOn("single");

function row(qname: string, figures: Partial<QueueRow>): QueueRow {
  return {
    qname,
    visible: 0,
    inFlight: 0,
    delayed: 0,
    total: 0,
    partial: false,
    oldestAgeMs: null,
    nextDueAt: null,
    dueWithin: { "1m": 0, "10m": 0, "1h": 0 },
    totalsent: 0,
    sentPerSecond: null,
    totalrecv: 0,
    receivedPerSecond: null,
    totalexpired: 0,
    vt: 30,
    delay: 0,
    maxsize: 65536,
    retention: 0,
    expireTo: null,
    paused: null,
    rateLimit: null,
    rateLimitedUntil: null,
    concurrency: null,
    leased: null,
    consumers: 0,
    schedules: 0,
    created: 0,
    modified: 0,
    deadLetterQueue: null,
    isDeadLetterQueue: false,
    ...figures,
  };
}

function schedule(name: string, figures: Partial<ScheduleInfo>): ScheduleInfo {
  return {
    name,
    every: 60_000,
    tz: "UTC",
    anchor: 0,
    message: "m",
    priority: 0,
    catchup: "latest",
    catchupWindowMs: 86_400_000,
    overlap: "allow",
    paused: false,
    ended: false,
    createdAt: 0,
    updatedAt: 0,
    lastRunAt: null,
    lastSentAt: null,
    lastId: null,
    nextRunAt: null,
    count: 0,
    missed: 0,
    overlapped: 0,
    ...figures,
  };
}

describe("metrics: the text exposition format", () => {
  it('escapes \\, " and newline in label values, \\ and newline in HELP text', () => {
    expect(escapeLabelValue('a\\b"c\nd')).to.equal('a\\\\b\\"c\\nd');
    const text = renderExposition([
      { name: "x_total", help: "one\\two\nthree", type: "counter", samples: [{ labels: { l: 'q"\\\n' }, value: 1 }] },
    ]);
    expect(text).to.equal('# HELP x_total one\\\\two\\nthree\n# TYPE x_total counter\nx_total{l="q\\"\\\\\\n"} 1\n');
  });

  it("writes NaN and the infinities as Prometheus reads them, a family without samples as HELP and TYPE only, nothing as nothing", () => {
    expect([NaN, Infinity, -Infinity, 1.5, 0].map(formatValue)).to.deep.equal(["NaN", "+Inf", "-Inf", "1.5", "0"]);
    expect(renderExposition([{ name: "g", help: "h", type: "gauge", samples: [] }])).to.equal("# HELP g h\n# TYPE g gauge\n");
    expect(renderExposition([])).to.equal("");
  });

  it("a reading's families: states, age in seconds, next due as Unix seconds (absent when none is hidden), rsmq's counters", () => {
    const reading = {
      now: 1_700_000_000_000,
      queues: [
        row("a", {
          visible: 2,
          inFlight: 1,
          delayed: 3,
          total: 6,
          oldestAgeMs: 1500,
          nextDueAt: 1_700_000_030_250,
          totalsent: 9,
          totalrecv: 4,
          totalexpired: 7,
        }),
        row("b", {}),
      ],
    };
    const samples = Object.fromEntries(parseExposition(renderExposition(queueStateFamilies(reading))));
    expect(samples).to.deep.equal({
      'rsmq_queue_messages{queue="a",state="visible"}': 2,
      'rsmq_queue_messages{queue="a",state="in_flight"}': 1,
      'rsmq_queue_messages{queue="a",state="delayed"}': 3,
      'rsmq_queue_messages{queue="b",state="visible"}': 0,
      'rsmq_queue_messages{queue="b",state="in_flight"}': 0,
      'rsmq_queue_messages{queue="b",state="delayed"}': 0,
      'rsmq_queue_oldest_visible_age_seconds{queue="a"}': 1.5,
      'rsmq_queue_oldest_visible_age_seconds{queue="b"}': 0,
      'rsmq_queue_next_due_timestamp_seconds{queue="a"}': 1_700_000_030.25,
      'rsmq_queue_sent_messages_total{queue="a"}': 9,
      'rsmq_queue_sent_messages_total{queue="b"}': 0,
      'rsmq_queue_received_messages_total{queue="a"}': 4,
      'rsmq_queue_received_messages_total{queue="b"}': 0,
      'rsmq_queue_expired_messages_total{queue="a"}': 7,
      'rsmq_queue_expired_messages_total{queue="b"}': 0,
      'rsmq_queue_paused{queue="a"}': 0,
      'rsmq_queue_paused{queue="b"}': 0,
      'rsmq_queue_consumers{queue="a"}': 0,
      'rsmq_queue_consumers{queue="b"}': 0,
    });
  });

  it("the concurrency limit and the leases only for a queue with a limit; the consumers for every queue", () => {
    const reading = {
      now: 1_700_000_000_000,
      queues: [row("a", { concurrency: 3, leased: 2, consumers: 4 }), row("b", { concurrency: 10, leased: 0 }), row("c", {})],
    };
    const samples = parseExposition(renderExposition(queueStateFamilies(reading)));
    const fleet = [...samples].filter(([name]) => /_concurrency|_leased|_consumers/.test(name));
    expect(Object.fromEntries(fleet)).to.deep.equal({
      'rsmq_queue_concurrency_limit{queue="a"}': 3,
      'rsmq_queue_concurrency_limit{queue="b"}': 10,
      'rsmq_queue_leased{queue="a"}': 2,
      'rsmq_queue_leased{queue="b"}': 0,
      'rsmq_queue_consumers{queue="a"}': 4,
      'rsmq_queue_consumers{queue="b"}': 0,
      'rsmq_queue_consumers{queue="c"}': 0,
    });
  });

  it("the controls: paused 1 (0 while a hard pause's restore runs), the tightest limit per second, a block's end in Unix seconds", () => {
    const rateLimit = {
      mode: "receive" as const,
      limits: [
        { max: 10, perMs: 1000, burst: 5 },
        { max: 300, perMs: 60_000, burst: 0 },
      ],
    };
    const reading = {
      now: 1_700_000_000_000,
      queues: [
        row("a", { paused: { since: 1, hard: false }, rateLimit, rateLimitedUntil: 1_700_000_002_500 }),
        row("b", {
          paused: { since: 1, hard: true, restoring: true },
          rateLimit: { mode: "pace", limits: [{ max: 3, perMs: 1000, burst: 0 }] },
        }),
      ],
    };
    const samples = parseExposition(renderExposition(queueStateFamilies(reading)));
    const controls = [...samples].filter(([name]) => /_paused|_rate_limit/.test(name));
    expect(Object.fromEntries(controls)).to.deep.equal({
      'rsmq_queue_paused{queue="a"}': 1,
      'rsmq_queue_paused{queue="b"}': 0,
      'rsmq_queue_rate_limit_per_second{queue="a"}': 5,
      'rsmq_queue_rate_limit_per_second{queue="b"}': 3,
      'rsmq_queue_rate_limited_until_timestamp_seconds{queue="a"}': 1_700_000_002.5,
    });
  });

  it("past the hidden messages a reading splits, the rest is state hidden_unsplit: the states add up to the queue's size", () => {
    const reading = { now: 0, queues: [row("big", { visible: 5, inFlight: 600, delayed: 400, total: 1500, partial: true, nextDueAt: 1 })] };
    const samples = parseExposition(renderExposition(queueStateFamilies(reading)));
    expect(samples.get('rsmq_queue_messages{queue="big",state="hidden_unsplit"}')).to.equal(495);
  });

  it("the schedules: sent, missed and skipped per schedule, the next run in Unix seconds (absent while paused or ended)", () => {
    const reading = {
      now: 1_700_000_000_000,
      queues: [row("a", { schedules: 3 }), row("b", {}), row("c", { schedules: 1 })],
      schedules: [
        {
          qname: "a",
          schedules: [
            schedule("nightly", { cron: "0 2 * * *", tz: "Europe/Berlin", count: 12, missed: 1, nextRunAt: 1_700_003_600_000 }),
            schedule("paused", { paused: true, count: 4, overlapped: 2 }),
            schedule("done", { ended: true, count: 5 }),
          ],
        },
        { qname: "c", schedules: [schedule("ping.v2:eu-1", { nextRunAt: 1_700_000_000_500, missed: 7, overlapped: 9 })] },
      ],
    };
    const samples = parseExposition(renderExposition(queueStateFamilies(reading)));
    const ofSchedules = [...samples].filter(([name]) => name.startsWith("rsmq_schedule_"));
    expect(Object.fromEntries(ofSchedules)).to.deep.equal({
      'rsmq_schedule_sent_total{queue="a",schedule="nightly"}': 12,
      'rsmq_schedule_sent_total{queue="a",schedule="paused"}': 4,
      'rsmq_schedule_sent_total{queue="a",schedule="done"}': 5,
      'rsmq_schedule_sent_total{queue="c",schedule="ping.v2:eu-1"}': 0,
      'rsmq_schedule_missed_total{queue="a",schedule="nightly"}': 1,
      'rsmq_schedule_missed_total{queue="a",schedule="paused"}': 0,
      'rsmq_schedule_missed_total{queue="a",schedule="done"}': 0,
      'rsmq_schedule_missed_total{queue="c",schedule="ping.v2:eu-1"}': 7,
      'rsmq_schedule_overlapped_total{queue="a",schedule="nightly"}': 0,
      'rsmq_schedule_overlapped_total{queue="a",schedule="paused"}': 2,
      'rsmq_schedule_overlapped_total{queue="a",schedule="done"}': 0,
      'rsmq_schedule_overlapped_total{queue="c",schedule="ping.v2:eu-1"}': 9,
      'rsmq_schedule_next_run_timestamp_seconds{queue="a",schedule="nightly"}': 1_700_003_600,
      'rsmq_schedule_next_run_timestamp_seconds{queue="c",schedule="ping.v2:eu-1"}': 1_700_000_000.5,
    });
    const families = queueStateFamilies(reading).filter((family) => family.name.startsWith("rsmq_schedule_"));
    expect(families.map((family) => [family.name, family.type])).to.deep.equal([
      ["rsmq_schedule_sent_total", "counter"],
      ["rsmq_schedule_missed_total", "counter"],
      ["rsmq_schedule_overlapped_total", "counter"],
      ["rsmq_schedule_next_run_timestamp_seconds", "gauge"],
    ]);
  });

  it("no schedules read (or none defined): the schedule families have no samples", () => {
    for (const reading of [
      { now: 0, queues: [row("a", {})] },
      { now: 0, queues: [row("a", {})], schedules: [] },
    ]) {
      const families = queueStateFamilies(reading).filter((family) => family.name.startsWith("rsmq_schedule_"));
      expect(families.map((family) => family.samples)).to.deep.equal([[], [], [], []]);
    }
  });

  it("a prefix goes before every name", () => {
    const names = queueStateFamilies({ now: 0, queues: [] }, "app_").map((family) => family.name);
    expect(names.every((name) => name.startsWith("app_rsmq_queue_") || name.startsWith("app_rsmq_schedule_"))).to.equal(true);
  });

  it("promtool check metrics parses it and finds nothing to say", async function () {
    const missing = prometheusMissing();
    if (missing) throw new Error(missing);
    const reading = {
      now: 0,
      queues: [
        row("a", { visible: 1, total: 1, oldestAgeMs: 10, totalsent: 1, paused: { since: 0, hard: false } }),
        row("b-dlq", { nextDueAt: 5, rateLimit: { mode: "receive", limits: [{ max: 1, perMs: 3000, burst: 0 }] }, rateLimitedUntil: 9 }),
        row("c", { concurrency: 5, leased: 1, consumers: 2, schedules: 1 }),
      ],
      schedules: [{ qname: "c", schedules: [schedule("ping", { count: 3, missed: 1, nextRunAt: 1_700_000_000_000 })] }],
    };
    const checked = await promtoolCheck(renderExposition(queueStateFamilies(reading)));
    expect(checked, checked.output).to.deep.equal({ code: 0, output: "" });
  });
});
