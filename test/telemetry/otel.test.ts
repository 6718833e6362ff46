/**
 * The `telemetry` option with the real OpenTelemetry SDK: the spans of the facade's calls and of a
 * Worker (names, kinds, attributes, the parent and link from `send` to `process`), and the
 * in-process metrics (names, units, bucket advice, values against what the queue went through).
 */
import { expect } from "chai";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { Histogram } from "@opentelemetry/sdk-metrics";
import RedisSMQ = require("../../lib");
import { DURATION_BUCKETS, IN_PROCESS_METRICS, WAIT_BUCKETS } from "../../lib/telemetry/metric-names";
import { otelSdk, pointsOf, spansNamed, sumWhere, useContextManager } from "../support/otel";
import type { OtelSdk } from "../support/otel";
import { connectionOptions, keysOf, onCluster, plainClient, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";
import { waitFor } from "../support/worker";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;

describe("telemetry: OpenTelemetry spans and metrics", () => {
  let sdk: OtelSdk;
  let rsmq: RedisSMQ;
  let ns: string;
  let removeContextManager: () => void;
  const workers: RedisSMQ.Worker[] = [];

  before(() => (removeContextManager = useContextManager()));
  after(() => removeContextManager());

  beforeEach(async () => {
    sdk = otelSdk();
    ns = uniqueNs();
    rsmq = new RedisSMQ({
      ...connectionOptions(ns),
      telemetry: { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, propagator: sdk.propagator },
    });
    await rsmq.createQueueAsync({ qname: "q" });
    sdk.exporter.reset();
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    await rsmq.quitAsync();
    await sdk.shutdown();
  });

  const only = (name: string): ReadableSpan => {
    const found = spansNamed(sdk.spans(), name);
    expect(
      found,
      `spans named ${name}: ${sdk
        .spans()
        .map((span) => span.name)
        .join(", ")}`,
    ).to.have.length(1);
    return found[0];
  };

  it("send: a PRODUCER span with the messaging attributes, its context stored with the message", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "hello", delay: 0 });
    const send = only("send q");
    expect(send.kind).to.equal(SpanKind.PRODUCER);
    expect(send.attributes).to.include({
      "messaging.system": "rsmq",
      "messaging.destination.name": "q",
      "messaging.operation.name": "send",
      "messaging.operation.type": "send",
      "messaging.message.id": id,
      "messaging.rsmq.delay": 0,
    });
    if (!onCluster()) {
      expect(send.attributes["server.address"]).to.be.a("string");
      expect(send.attributes["server.port"]).to.be.a("number");
    }
    const redis = await plainClient();
    try {
      const stored = JSON.parse(String(await redis.hGet(keysOf(ns, "q").hash, `${id}:tp`))) as { traceparent: string };
      expect(stored.traceparent).to.equal(`00-${send.spanContext().traceId}-${send.spanContext().spanId}-01`);
    } finally {
      await redis.quit();
    }
  });

  it("sendMessages: one send span with the batch's count, its context on every message; stored ones counted", async () => {
    await rsmq.sendMessagesAsync({
      qname: "q",
      messages: [{ message: "a", dedupId: "d" }, { message: "b" }, { message: "c", dedupId: "d" }],
    });
    const send = only("send q");
    expect(send.kind).to.equal(SpanKind.PRODUCER);
    expect(send.attributes["messaging.batch.message_count"]).to.equal(3);
    await rsmq.receiveMessagesAsync({ qname: "q", count: 5 });
    const receive = only("receive q");
    expect(receive.links.map((link) => link.context.spanId)).to.deep.equal([send.spanContext().spanId, send.spanContext().spanId]);
    const metrics = await sdk.metrics();
    expect(sumWhere(metrics.get("messaging.client.sent.messages"), { "messaging.destination.name": "q" })).to.equal(2);
  });

  it("receive: a CLIENT span with the message's id and receive count, linked to its send", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "hello" });
    await rsmq.receiveMessageAsync({ qname: "q", vt: 30 });
    const send = only("send q");
    const receive = only("receive q");
    expect(receive.kind).to.equal(SpanKind.CLIENT);
    expect(receive.attributes).to.include({
      "messaging.operation.name": "receive",
      "messaging.operation.type": "receive",
      "messaging.message.id": id,
      "messaging.rsmq.message.receive_count": 1,
      "messaging.rsmq.visibility_timeout": 30,
    });
    expect(receive.attributes).to.not.have.property("messaging.batch.message_count");
    expect(receive.links.map((link) => link.context.spanId)).to.deep.equal([send.spanContext().spanId]);
    expect(receive.links[0].attributes).to.deep.equal({ "messaging.message.id": id });
  });

  it("receiveMessages: the batch's count and a link per message; an empty receive has a span too", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "a" });
    await rsmq.sendMessageAsync({ qname: "q", message: "b" });
    await rsmq.receiveMessagesAsync({ qname: "q", count: 5 });
    await rsmq.receiveMessagesAsync({ qname: "q", count: 5 });
    const [full, empty] = spansNamed(sdk.spans(), "receive q");
    expect(full.attributes["messaging.batch.message_count"]).to.equal(2);
    expect(full.links).to.have.length(2);
    expect(empty.attributes["messaging.batch.message_count"]).to.equal(0);
    expect(empty.links).to.have.length(0);
  });

  it("pop, delete and change_visibility: their operation names and types, the message id on each", async () => {
    const popped = await rsmq.sendMessageAsync({ qname: "q", message: "p" });
    const kept = await rsmq.sendMessageAsync({ qname: "q", message: "k", delay: 100 });
    await rsmq.popMessageAsync({ qname: "q" });
    await rsmq.changeMessageVisibilityAsync({ qname: "q", id: kept, vt: 5 });
    await rsmq.deleteMessageAsync({ qname: "q", id: kept });
    await rsmq.deleteMessagesAsync({ qname: "q", ids: [kept, popped] });
    const pop = only("pop q");
    expect(pop.kind).to.equal(SpanKind.CLIENT);
    expect(pop.attributes).to.include({
      "messaging.operation.name": "pop",
      "messaging.operation.type": "receive",
      "messaging.message.id": popped,
    });
    expect(pop.links).to.have.length(1);
    const change = only("change_visibility q");
    expect(change.attributes).to.include({
      "messaging.operation.type": "settle",
      "messaging.message.id": kept,
      "messaging.rsmq.visibility_timeout": 5,
    });
    const [one, many] = spansNamed(sdk.spans(), "delete q");
    expect(one.kind).to.equal(SpanKind.CLIENT);
    expect(one.attributes).to.include({ "messaging.operation.type": "settle", "messaging.message.id": kept });
    expect(many.attributes).to.include({ "messaging.batch.message_count": 2 });
    expect(many.attributes).to.not.have.property("messaging.message.id");
  });

  it("changeMessagesVisibility: a change_visibility span with the batch's count and the vt", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "a" });
    expect(await rsmq.changeMessagesVisibilityAsync({ qname: "q", ids: [id, "0123456789abcdefghijklmnopqrstuv"], vt: 7 })).to.deep.equal([
      1, 0,
    ]);
    const change = only("change_visibility q");
    expect(change.attributes).to.include({
      "messaging.operation.type": "settle",
      "messaging.batch.message_count": 2,
      "messaging.rsmq.visibility_timeout": 7,
    });
    expect(change.attributes).to.not.have.property("messaging.message.id");
  });

  it("a failed call: status ERROR and error.type, the message id still on the span; bad input under `_invalid`", async () => {
    const missing = await rsmq.receiveMessageAsync({ qname: "nope" }).catch((error: Error) => error);
    expect((missing as Error).name).to.equal("queueNotFound");
    const receive = only("receive nope");
    expect(receive.status.code).to.equal(SpanStatusCode.ERROR);
    expect(receive.attributes["error.type"]).to.equal("queueNotFound");
    const id = "0123456789abcdefghijklmnopqrstuv";
    await rsmq.changeMessageVisibilityAsync({ qname: "nope", id, vt: 1 }).catch(() => undefined);
    expect(only("change_visibility nope").attributes).to.include({ "messaging.message.id": id, "error.type": "queueNotFound" });
    await rsmq.sendMessageAsync({ qname: "bad name!", message: "x" }).catch(() => undefined);
    expect(only("send _invalid").attributes["error.type"]).to.equal("invalidFormat");
    const metrics = await sdk.metrics();
    expect(
      sumWhere(metrics.get("messaging.client.operation.duration"), {
        "error.type": "queueNotFound",
        "messaging.operation.name": "receive",
      }),
    ).to.equal(1);
    expect(sumWhere(metrics.get("messaging.client.sent.messages"), { "messaging.destination.name": "_invalid" })).to.equal(1);
  });

  it("a Worker: process (CONSUMER) under the send span, with a link to it; receive after the fact; delete as its child", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "work" });
    let handled = 0;
    const worker = new Worker(rsmq, { qname: "q", realtimeWakes: false, handler: () => void (handled += 1) });
    workers.push(worker);
    worker.start();
    await waitFor(() => spansNamed(sdk.spans(), "process q").length === 1, "the process span");
    const send = only("send q");
    const process = only("process q");
    expect(process.kind).to.equal(SpanKind.CONSUMER);
    expect(process.spanContext().traceId).to.equal(send.spanContext().traceId);
    expect(process.parentSpanId).to.equal(send.spanContext().spanId);
    expect(process.links.map((link) => link.context.spanId)).to.deep.equal([send.spanContext().spanId]);
    expect(process.attributes).to.include({
      "messaging.operation.name": "process",
      "messaging.operation.type": "process",
      "messaging.message.id": id,
      "messaging.rsmq.message.receive_count": 1,
    });
    const receive = spansNamed(sdk.spans(), "receive q");
    expect(receive, "one receive span: the empty polls get none").to.have.length(1);
    expect(receive[0].attributes["messaging.batch.message_count"]).to.equal(1);
    expect(receive[0].links.map((link) => link.context.spanId)).to.deep.equal([send.spanContext().spanId]);
    const remove = only("delete q");
    expect(remove.parentSpanId).to.equal(process.spanContext().spanId);
    expect(remove.attributes["messaging.message.id"]).to.equal(id);
    expect(handled).to.equal(1);
  });

  it('processContext "link": the process span starts its own trace, linked to the send', async () => {
    await rsmq.quitAsync();
    rsmq = new RedisSMQ({
      ...connectionOptions(ns),
      telemetry: { tracerProvider: sdk.tracerProvider, propagator: sdk.propagator, processContext: "link", metrics: false },
    });
    await rsmq.sendMessageAsync({ qname: "q", message: "work" });
    const worker = new Worker(rsmq, { qname: "q", realtimeWakes: false, handler: () => undefined });
    workers.push(worker);
    worker.start();
    await waitFor(() => spansNamed(sdk.spans(), "process q").length === 1, "the process span");
    const send = only("send q");
    const process = only("process q");
    expect(process.parentSpanId).to.equal(undefined);
    expect(process.spanContext().traceId).to.not.equal(send.spanContext().traceId);
    expect(process.links.map((link) => link.context.spanId)).to.deep.equal([send.spanContext().spanId]);
  });

  it("a failing handler: process ERROR, a retry then a dead-letter move, counted by outcome and reason", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "bad" });
    const worker = new Worker(rsmq, {
      qname: "q",
      vt: 5,
      realtimeWakes: false,
      maxIdleSleepMs: 200,
      retry: { maxDeliveries: 2, initialDelayMs: 10, maxDelayMs: 10 },
      handler: () => {
        throw new TypeError("bad input");
      },
    });
    workers.push(worker);
    worker.start();
    await waitFor(() => spansNamed(sdk.spans(), "dead_letter q-dlq").length === 1, "the dead-letter span");
    await waitFor(() => spansNamed(sdk.spans(), "process q").length === 2, "both process spans");
    const processes = spansNamed(sdk.spans(), "process q");
    for (const process of processes) {
      expect(process.status.code).to.equal(SpanStatusCode.ERROR);
      expect(process.attributes["error.type"]).to.equal("TypeError");
    }
    const retry = only("change_visibility q");
    expect(retry.parentSpanId).to.equal(processes[0].spanContext().spanId);
    const moved = only("dead_letter q-dlq");
    expect(moved.kind).to.equal(SpanKind.PRODUCER);
    expect(moved.parentSpanId).to.equal(processes[1].spanContext().spanId);
    expect(moved.attributes).to.include({ "messaging.rsmq.dead_letter.reason": "exhausted", "messaging.destination.name": "q-dlq" });
    expect(moved.links).to.have.length(1);
    const metrics = await sdk.metrics();
    const outcomes = metrics.get(IN_PROCESS_METRICS.outcomes.otel);
    expect(sumWhere(outcomes, { "messaging.rsmq.outcome": "retry" })).to.equal(1);
    expect(sumWhere(outcomes, { "messaging.rsmq.outcome": "dead_letter" })).to.equal(1);
    expect(sumWhere(outcomes, { "messaging.rsmq.outcome": "ack" })).to.equal(0);
    expect(
      sumWhere(metrics.get(IN_PROCESS_METRICS.deadLettered.otel), {
        "messaging.rsmq.reason": "exhausted",
        "messaging.destination.name": "q",
      }),
    ).to.equal(1);
    expect(sumWhere(metrics.get(IN_PROCESS_METRICS.processDuration.otel), { "error.type": "TypeError" })).to.equal(2);
    expect((await rsmq.getQueueAttributesAsync({ qname: "q-dlq" })).msgs).to.equal(1);
  });

  it("a handler's RateLimitError: its bounce is a change_visibility span of the process span, counted as outcome rate_limited", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "429" });
    let deliveries = 0;
    const worker = new Worker(rsmq, {
      qname: "q",
      realtimeWakes: false,
      maxIdleSleepMs: 200,
      handler: () => {
        deliveries += 1;
        if (deliveries === 1) throw new RedisSMQ.RateLimitError(50);
      },
    });
    workers.push(worker);
    worker.start();
    await waitFor(() => worker.counters.handled === 1, "the second delivery handled");
    const processes = spansNamed(sdk.spans(), "process q");
    const bounce = only("change_visibility q");
    expect(bounce.parentSpanId).to.equal(processes[0].spanContext().spanId);
    const outcomes = (await sdk.metrics()).get(IN_PROCESS_METRICS.outcomes.otel);
    expect(sumWhere(outcomes, { "messaging.rsmq.outcome": "rate_limited" })).to.equal(1);
    expect(sumWhere(outcomes, { "messaging.rsmq.outcome": "retry" })).to.equal(0);
    expect(sumWhere(outcomes, { "messaging.rsmq.outcome": "ack" })).to.equal(1);
  });

  it("metrics: names, units, bucket advice and values against what the queue went through", async () => {
    for (let i = 0; i < 3; i += 1) await rsmq.sendMessageAsync({ qname: "q", message: `m${i}` });
    await rsmq.sendMessageAsync({ qname: "nope", message: "x" }).catch(() => undefined);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const worker = new Worker(rsmq, {
      qname: "q",
      concurrency: 4,
      realtimeWakes: false,
      handler: async () => {
        started += 1;
        await held;
      },
    });
    workers.push(worker);
    worker.start();
    await waitFor(() => started === 3, "three handlers running");
    let metrics = await sdk.metrics();
    expect(sumWhere(metrics.get(IN_PROCESS_METRICS.inFlight.otel), {})).to.equal(3);
    expect(sumWhere(metrics.get(IN_PROCESS_METRICS.concurrency.otel), {})).to.equal(4);
    release();
    await waitFor(async () => (await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs === 0, "the queue emptied");
    await waitFor(async () => sumWhere((await sdk.metrics()).get(IN_PROCESS_METRICS.outcomes.otel), {}) === 3, "three outcomes");
    await worker.stop();
    metrics = await sdk.metrics();

    const sent = metrics.get("messaging.client.sent.messages")!;
    expect(sent.descriptor.unit).to.equal("{message}");
    expect(sumWhere(sent, { "messaging.destination.name": "q", "messaging.operation.name": "send" })).to.equal(3);
    expect(sumWhere(sent, { "messaging.destination.name": "nope", "error.type": "queueNotFound" })).to.equal(1);
    expect(sumWhere(metrics.get("messaging.client.consumed.messages"), { "messaging.operation.name": "receive" })).to.equal(3);
    expect(sumWhere(metrics.get(IN_PROCESS_METRICS.outcomes.otel), { "messaging.rsmq.outcome": "ack" })).to.equal(3);
    expect(sumWhere(metrics.get(IN_PROCESS_METRICS.inFlight.otel), {})).to.equal(0);
    expect(sumWhere(metrics.get(IN_PROCESS_METRICS.concurrency.otel), {})).to.equal(0);
    expect(sumWhere(metrics.get(IN_PROCESS_METRICS.visibilityExpired.otel), {})).to.equal(0);

    const duration = metrics.get("messaging.client.operation.duration")!;
    expect(duration.descriptor.unit).to.equal("s");
    expect(duration.descriptor.description).to.equal(IN_PROCESS_METRICS.operationDuration.description);
    const sendPoint = pointsOf(duration).find(
      (point) => point.attributes["messaging.operation.name"] === "send" && !point.attributes["error.type"],
    )!;
    expect((sendPoint.value as Histogram).buckets.boundaries).to.deep.equal([...DURATION_BUCKETS]);
    expect((sendPoint.value as Histogram).count).to.equal(3);
    const waited = metrics.get(IN_PROCESS_METRICS.waited.otel)!;
    expect(waited.descriptor.unit).to.equal("s");
    expect((pointsOf(waited)[0].value as Histogram).buckets.boundaries).to.deep.equal([...WAIT_BUCKETS]);
    expect((pointsOf(waited)[0].value as Histogram).count).to.equal(3);
    expect((pointsOf(waited)[0].value as Histogram).min).to.be.at.least(0);
    expect(sumWhere(metrics.get(IN_PROCESS_METRICS.processDuration.otel), { "messaging.destination.name": "q" })).to.equal(3);
  });

  it("a handler that outlives its message's visibility timeout is counted (vt 0: visible again at once)", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "slow" });
    const handled: string[] = [];
    const worker = new Worker(rsmq, {
      qname: "q",
      vt: 0,
      realtimeWakes: false,
      handler: async (message) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        handled.push(message.message);
      },
    });
    workers.push(worker);
    worker.start();
    await waitFor(() => handled.length === 1, "the slow handler");
    await waitFor(async () => sumWhere((await sdk.metrics()).get(IN_PROCESS_METRICS.outcomes.otel), {}) === 1, "its outcome");
    const metrics = await sdk.metrics();
    expect(sumWhere(metrics.get(IN_PROCESS_METRICS.visibilityExpired.otel), { "messaging.destination.name": "q" })).to.equal(1);
  });

  it("a pop: consumed as pop, its wait recorded", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "p" });
    await rsmq.popMessageAsync({ qname: "q" });
    await rsmq.popMessageAsync({ qname: "q" });
    const metrics = await sdk.metrics();
    expect(sumWhere(metrics.get("messaging.client.consumed.messages"), { "messaging.operation.name": "pop" })).to.equal(1);
    expect(sumWhere(metrics.get(IN_PROCESS_METRICS.waited.otel), {})).to.equal(1);
    expect(sumWhere(metrics.get("messaging.client.operation.duration"), { "messaging.operation.name": "pop" })).to.equal(2);
  });

  it("wakeups: a send's notification that found a message; the cap's look that found none", async () => {
    const worker = new Worker(rsmq, { qname: "q", realtimeWakes: false, maxIdleSleepMs: 300, handler: () => undefined });
    workers.push(worker);
    let handled = 0;
    worker.on("handled", () => (handled += 1));
    worker.start();
    const wakeups = async (where: Record<string, unknown>) => sumWhere((await sdk.metrics()).get(IN_PROCESS_METRICS.wakeups.otel), where);
    await waitFor(async () => (await wakeups({ "messaging.rsmq.cause": "cap", "messaging.rsmq.result": "empty" })) >= 1, "a cap look");
    await rsmq.sendMessageAsync({ qname: "q", message: "wake" });
    await waitFor(() => handled === 1, "the message handled");
    expect(await wakeups({ "messaging.rsmq.cause": "notification", "messaging.rsmq.result": "message" })).to.equal(1);
  });
  it("wakeups: the timer at a delayed message's due time, after the send's notification that found it not due yet", async function () {
    this.timeout(10_000);
    const worker = new Worker(rsmq, { qname: "q", realtimeWakes: false, maxIdleSleepMs: 5_000, handler: () => undefined });
    workers.push(worker);
    let handled = 0;
    let slept = 0;
    worker.on("handled", () => (handled += 1));
    worker.on("sleep", () => (slept += 1));
    worker.start();
    await waitFor(() => slept === 1, "the worker asleep");
    await rsmq.sendMessageAsync({ qname: "q", message: "later", delay: 1 });
    await waitFor(() => handled === 1, "the delayed message handled");
    const wakeups = (await sdk.metrics()).get(IN_PROCESS_METRICS.wakeups.otel);
    expect(sumWhere(wakeups, { "messaging.rsmq.cause": "notification", "messaging.rsmq.result": "empty" })).to.equal(1);
    expect(sumWhere(wakeups, { "messaging.rsmq.cause": "timer", "messaging.rsmq.result": "message" })).to.equal(1);
    expect(sumWhere(wakeups, {})).to.equal(2);
  });
});
