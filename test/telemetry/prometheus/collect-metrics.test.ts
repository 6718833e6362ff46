/**
 * `collectMetrics` (rsmq-next/prometheus) with the real prom-client (the dev dependency, 15.1.3):
 * bad options refused with a TypeError before anything is registered; a Recorder added to the
 * instance's telemetry hub whose every figure lands in the registry under the names, labels and
 * buckets of metric-names.ts; with `queueState`, the queue-state metrics read from Redis at
 * scrape time, whose values equal the Redis state and whose output promtool parses; stop()
 * removes the recorder and the metrics. The Recorder is called directly, through the hub, and
 * through real sends and a real Worker, whose figures equal what happened.
 */
import { expect } from "chai";
import * as promClient from "prom-client";
import RedisSMQ = require("../../../lib/index");
import { collectMetrics } from "../../../lib/telemetry/prometheus";
import type { CollectMetricsOptions } from "../../../lib/telemetry/prometheus";
import { internalsOf } from "../../../lib/internals";
import { IN_PROCESS_METRICS, QUEUE_STATE_METRICS } from "../../../lib/telemetry/metric-names";
import type { Recorder } from "../../../lib/telemetry/recorder";
import { sentAt } from "../../../lib/operations/message-reply";
import { connectionOptions, plainClient, uniqueNs } from "../../support/server";
import { serverNowMs } from "../../support/inspect";
import { parseExposition, prometheusMissing, promtoolCheck } from "../../support/prometheus";
import { CLOCK_SAMPLES, expectedSamples, seedQueues } from "../../support/queue-state-seed";
import type { SeededQueues } from "../../support/queue-state-seed";
import { CommandWatch } from "../../support/retry";
import { Cleanup } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("single", "cluster", "client");

/** The figures a registry holds, as the text format writes them (HELP and TYPE lines left out). */
async function samplesOf(registry: promClient.Registry): Promise<Map<string, number>> {
  return parseExposition(await registry.metrics());
}

describe("rsmq-next/prometheus: collectMetrics with prom-client", () => {
  const cleanup = new Cleanup();
  let rsmq: RedisSMQ;
  let registry: promClient.Registry;

  beforeEach(() => {
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(uniqueNs("prom"))));
    registry = new promClient.Registry();
  });
  afterEach(() => cleanup.run());

  describe("bad options: a TypeError, and nothing registered", () => {
    const cases: Array<[string, () => unknown, RegExp]> = [
      ["no options", () => collectMetrics(rsmq, undefined as never), /options object/],
      ["no registry", () => collectMetrics(rsmq, {} as CollectMetricsOptions), /`registry`/],
      ["not a RedisSMQ", () => collectMetrics({} as RedisSMQ, { registry }), /RedisSMQ instance/],
      ["a registry of another copy", () => collectMetrics(rsmq, { registry: { registerMetric() {} } as never }), /two copies/],
      ["queueState a string", () => collectMetrics(rsmq, { registry, queueState: "yes" as never }), /`queueState`/],
      ["queueState an empty list", () => collectMetrics(rsmq, { registry, queueState: [] }), /non-empty array/],
      ["queueState a bad name", () => collectMetrics(rsmq, { registry, queueState: ["jobs", "no spaces"] }), /cannot exist/],
      ["a prefix that is no name", () => collectMetrics(rsmq, { registry, prefix: "1-x" }), /`prefix`/],
      ["promClient not the module", () => collectMetrics(rsmq, { registry, promClient: {} as never }), /`promClient`/],
      ["an unknown option", () => collectMetrics(rsmq, { registry, interval: 5 } as never), /Unknown option `interval`/],
    ];
    for (const [name, call, message] of cases) {
      it(name, () => {
        expect(call).to.throw(TypeError, message);
        expect(registry.getMetricsAsArray()).to.deep.equal([]);
        expect(internalsOf(rsmq).telemetry.recording).to.equal(undefined);
      });
    }

    it("a name the registry has already: nothing of it replaced or added", () => {
      new promClient.Counter({ name: "rsmq_worker_outcomes_total", help: "the app's own", registers: [registry] });
      expect(() => collectMetrics(rsmq, { registry })).to.throw(TypeError, /already has a metric named rsmq_worker_outcomes_total/);
      expect(registry.getMetricsAsArray().map((metric) => metric.name)).to.deep.equal(["rsmq_worker_outcomes_total"]);
      expect(internalsOf(rsmq).telemetry.recording).to.equal(undefined);
    });
  });

  it("adds a Recorder to the instance's hub, whose figures land under metric-names.ts' names, labels and buckets", async () => {
    const handle = collectMetrics(rsmq, { registry });
    const recorder: Recorder = internalsOf(rsmq).telemetry.recording!;
    expect(recorder).to.be.an("object");
    recorder.sent("jobs", 3);
    recorder.sent("jobs", 1, "queueNotFound");
    recorder.consumed("jobs", "receive", 2);
    recorder.operationDuration("jobs", "send", 0.004);
    recorder.processed("jobs", 0.3, "Error");
    recorder.outcome("jobs", "retry");
    recorder.visibilityExpired("jobs");
    recorder.deadLettered("jobs", "exhausted");
    recorder.inFlight("jobs", 2);
    recorder.inFlight("jobs", -1);
    recorder.concurrency("jobs", 4);
    recorder.wakeup("jobs", "notification", "message");
    recorder.waited("jobs", 0.07);
    recorder.commands("look", 2);
    const samples = await samplesOf(registry);
    expect(samples.get('messaging_client_sent_messages_total{queue="jobs"}')).to.equal(3);
    expect(samples.get('messaging_client_sent_messages_total{queue="jobs",error_type="queueNotFound"}')).to.equal(1);
    expect(samples.get('messaging_client_consumed_messages_total{queue="jobs",operation="receive"}')).to.equal(2);
    expect(samples.get('messaging_client_operation_duration_seconds_bucket{le="0.005",queue="jobs",operation="send"}')).to.equal(1);
    expect(samples.get('messaging_process_duration_seconds_bucket{le="0.25",queue="jobs",error_type="Error"}')).to.equal(0);
    expect(samples.get('messaging_process_duration_seconds_bucket{le="0.5",queue="jobs",error_type="Error"}')).to.equal(1);
    expect(samples.get('rsmq_worker_outcomes_total{queue="jobs",outcome="retry"}')).to.equal(1);
    expect(samples.get('rsmq_worker_visibility_expired_total{queue="jobs"}')).to.equal(1);
    expect(samples.get('rsmq_dead_letter_messages_total{queue="jobs",reason="exhausted"}')).to.equal(1);
    expect(samples.get('rsmq_worker_in_flight{queue="jobs"}')).to.equal(1);
    expect(samples.get('rsmq_worker_concurrency{queue="jobs"}')).to.equal(4);
    expect(samples.get('rsmq_worker_wakeups_total{queue="jobs",cause="notification",result="message"}')).to.equal(1);
    expect(samples.get('rsmq_message_wait_duration_seconds_bucket{le="0.1",queue="jobs"}')).to.equal(1);
    expect(samples.get('rsmq_redis_commands_total{kind="look"}')).to.equal(2);
    // Every definition registered, with its buckets, and no queue-state metric without queueState.
    const registered = (await registry.getMetricsAsJSON()).map((metric) => metric.name).sort();
    expect(registered).to.deep.equal(
      Object.values(IN_PROCESS_METRICS)
        .map((definition) => definition.prometheus)
        .sort(),
    );
    const types = Object.fromEntries((await registry.getMetricsAsJSON()).map((metric) => [metric.name, String(metric.type)]));
    for (const definition of Object.values(IN_PROCESS_METRICS)) {
      const expected = { counter: "counter", histogram: "histogram", updown: "gauge", gauge: "gauge" }[definition.instrument as string];
      expect(types[definition.prometheus], definition.prometheus).to.equal(expected);
    }
    const waitBuckets = [...samples.keys()].filter((name) => name.startsWith("rsmq_message_wait_duration_seconds_bucket")).length;
    expect(waitBuckets).to.equal(IN_PROCESS_METRICS.waited.buckets.length + 1);
    handle.stop();
  });

  it("real calls move the figures: sends, a Worker's receives, acks and retries, the commands sent, equal to what happened", async () => {
    await rsmq.createQueueAsync({ qname: "jobs" });
    // The server's first sight of the send script is an EVALSHA and its EVAL (two commands, counted
    // as two): the figures start after it.
    await rsmq.deleteMessageAsync({ qname: "jobs", id: await rsmq.sendMessageAsync({ qname: "jobs", message: "warm-up" }) });
    const handle = collectMetrics(rsmq, { registry });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await rsmq.sendMessageAsync({ qname: "jobs", message: `m${i}` }));
    const seen = new Set<string>();
    const worker = cleanup.worker(
      new RedisSMQ.Worker(rsmq, {
        qname: "jobs",
        // The first delivery of m0 fails once: one retry, then three acks.
        handler: (message) => {
          if (message.message === "m0" && !seen.has(message.id)) {
            seen.add(message.id);
            throw new Error("once");
          }
        },
        retry: { initialDelayMs: 1, maxDelayMs: 1 },
      }),
    );
    let handled = 0;
    const allHandled = new Promise<void>((resolve) => worker.on("handled", () => ++handled === 3 && resolve()));
    worker.start();
    await allHandled;
    await worker.stop();
    const samples = await samplesOf(registry);
    expect(samples.get('messaging_client_sent_messages_total{queue="jobs"}')).to.equal(3);
    expect(samples.get('messaging_client_consumed_messages_total{queue="jobs",operation="receive"}')).to.equal(4);
    expect(samples.get('rsmq_worker_outcomes_total{queue="jobs",outcome="ack"}')).to.equal(3);
    expect(samples.get('rsmq_worker_outcomes_total{queue="jobs",outcome="retry"}')).to.equal(1);
    expect(samples.get('messaging_process_duration_seconds_count{queue="jobs"}')).to.equal(3);
    expect(samples.get('messaging_process_duration_seconds_count{queue="jobs",error_type="_OTHER"}')).to.equal(1);
    expect(samples.get('rsmq_message_wait_duration_seconds_count{queue="jobs"}')).to.equal(4);
    expect(samples.get('rsmq_worker_in_flight{queue="jobs"}')).to.equal(0);
    expect(samples.get('rsmq_redis_commands_total{kind="send"}')).to.equal(3);
    expect(samples.get('rsmq_redis_commands_total{kind="receive"}')).to.be.at.least(2);
    expect(samples.get('rsmq_redis_commands_total{kind="settle"}')).to.be.at.least(2);
    // The attributes' values do not grow with the messages: no id in any label.
    for (const name of samples.keys()) for (const id of ids) expect(name).to.not.include(id);
    handle.stop();
  });

  it("the Recorder never throws into the library: a figure prom-client refuses is dropped", () => {
    collectMetrics(rsmq, { registry });
    const recorder = internalsOf(rsmq).telemetry.recording!;
    expect(() => recorder.operationDuration("jobs", "send", NaN)).not.to.throw();
    expect(() => recorder.sent("jobs", -1)).not.to.throw();
  });

  it("stop(): the recorder leaves the hub and the metrics the registry; again: nothing; collectMetrics works again after", async () => {
    const handle = collectMetrics(rsmq, { registry, queueState: true });
    handle.stop();
    expect(internalsOf(rsmq).telemetry.recording).to.equal(undefined);
    expect(registry.getMetricsAsArray()).to.deep.equal([]);
    handle.stop();
    collectMetrics(rsmq, { registry, queueState: true }).stop();
    expect(registry.getMetricsAsArray()).to.deep.equal([]);
  });

  it("two instances, one registry: they share the in-process metrics, which stay until the last stops; one collects the queue state", () => {
    const other = cleanup.rsmq(new RedisSMQ(connectionOptions(uniqueNs("prom"))));
    const first = collectMetrics(rsmq, { registry, queueState: true });
    const second = collectMetrics(other, { registry });
    expect(() => collectMetrics(other, { registry, queueState: true })).to.throw(TypeError, /already collects the queue-state/);
    internalsOf(rsmq).telemetry.recording!.outcome("jobs", "ack");
    internalsOf(other).telemetry.recording!.outcome("jobs", "ack");
    first.stop();
    expect(registry.getSingleMetric("rsmq_queue_messages")).to.equal(undefined);
    expect(registry.getSingleMetric("rsmq_worker_outcomes_total")).not.to.equal(undefined);
    second.stop();
    expect(registry.getMetricsAsArray()).to.deep.equal([]);
  });

  it("a prefix before every name; the promClient option takes the module explicitly", async () => {
    // prom-client's own declarations fit the option's type.
    collectMetrics(rsmq, { registry, prefix: "app_", promClient, queueState: true });
    const names = registry.getMetricsAsArray().map((metric) => metric.name);
    expect(names.every((name) => name.startsWith("app_"))).to.equal(true);
    expect(names).to.include("app_rsmq_queue_messages");
  });

  describe("queueState", () => {
    let seeded: SeededQueues;
    beforeEach(async () => {
      seeded = await seedQueues(rsmq);
    });

    it("true: every queue's state at scrape time, equal to the Redis state; promtool parses the registry's output", async () => {
      collectMetrics(rsmq, { registry, queueState: true });
      const client = await plainClient();
      cleanup.add(() => client.quit());
      const before = await serverNowMs(client);
      const text = await registry.metrics();
      const after = await serverNowMs(client);
      const samples = parseExposition(text);
      const queueSamples = Object.fromEntries(
        [...samples].filter(
          ([name]) => name.startsWith("rsmq_queue_") && !name.startsWith("rsmq_queue_state_up") && !CLOCK_SAMPLES.includes(name),
        ),
      );
      expect(queueSamples).to.deep.equal(expectedSamples());
      expect(samples.get("rsmq_queue_state_up")).to.equal(1);
      const age = samples.get('rsmq_queue_oldest_visible_age_seconds{queue="jobs"}')!;
      expect(age).to.be.within((before - sentAt(seeded.jobsHead)) / 1000 - 0.001, (after - sentAt(seeded.jobsHead)) / 1000 + 0.001);
      expect(samples.get('rsmq_queue_next_due_timestamp_seconds{queue="jobs"}')).to.be.within(before / 1000 + 59, after / 1000 + 60);
      // The families of QUEUE_STATE_METRICS, with their types.
      const types = Object.fromEntries((await registry.getMetricsAsJSON()).map((metric) => [metric.name, String(metric.type)]));
      for (const definition of Object.values(QUEUE_STATE_METRICS)) {
        expect(types[definition.prometheus], definition.prometheus).to.equal(definition.instrument === "gauge" ? "gauge" : "counter");
      }
      const missing = prometheusMissing();
      if (missing) throw new Error(missing);
      const checked = await promtoolCheck(text);
      expect(checked, checked.output).to.deep.equal({ code: 0, output: "" });
    });

    it("an OpenMetrics registry: counters named as OpenMetrics names them (TYPE without _total, samples with it)", async () => {
      const openMetrics = new promClient.Registry<promClient.OpenMetricsContentType>();
      openMetrics.setContentType(promClient.Registry.OPENMETRICS_CONTENT_TYPE);
      const handle = collectMetrics(rsmq, { registry: openMetrics, queueState: true });
      const text = await openMetrics.metrics();
      expect(text).to.include("# TYPE rsmq_queue_sent_messages counter\n");
      expect(text).to.include('rsmq_queue_sent_messages_total{queue="jobs"} 4\n');
      expect(text).to.include("# TYPE rsmq_worker_outcomes counter\n");
      expect(text.endsWith("# EOF\n")).to.equal(true);
      handle.stop();
      expect(openMetrics.getMetricsAsArray()).to.deep.equal([]);
    });

    it("a list: those queues only", async () => {
      collectMetrics(rsmq, { registry, queueState: ["jobs-dlq"] });
      const queues = new Set([...(await samplesOf(registry)).keys()].flatMap((name) => /queue="([^"]+)"/.exec(name)?.[1] ?? []));
      expect([...queues]).to.deep.equal(["jobs-dlq"]);
    });

    it("one scrape is one reading of every queue (one EVALSHA_RO on one server), however many metrics it fills", async () => {
      collectMetrics(rsmq, { registry, queueState: true });
      await registry.metrics(); // learns the queues
      const watch = await CommandWatch.open();
      cleanup.add(() => watch.close());
      await registry.metrics();
      const calls = (await watch.clientCalls(["queueStates"])).map((call) => call.split(" ").slice(1).join(" ")).sort();
      expect(calls).to.deep.equal(
        internalsOf(rsmq).layout.registryWithQueues
          ? ["evalsha_ro queueStates"]
          : ["evalsha_ro queueStates", "evalsha_ro queueStates", "evalsha_ro queueStates", "smembers"],
      );
    });

    it("Redis unreadable: the scrape still answers, rsmq_queue_state_up 0 and no stale queue series; the in-process metrics stay", async () => {
      collectMetrics(rsmq, { registry, queueState: true });
      expect((await samplesOf(registry)).get("rsmq_queue_state_up")).to.equal(1);
      internalsOf(rsmq).telemetry.recording!.outcome("jobs", "ack");
      await rsmq.quitAsync();
      const samples = await samplesOf(registry);
      expect(samples.get("rsmq_queue_state_up")).to.equal(0);
      expect([...samples.keys()].filter((name) => name.startsWith("rsmq_queue_") && name !== "rsmq_queue_state_up")).to.deep.equal([]);
      expect(samples.get('rsmq_worker_outcomes_total{queue="jobs",outcome="ack"}')).to.equal(1);
    });
  });
});
