/**
 * Context travels with the message: a producer in another process (test/support/otel-producer.ts,
 * with node-redis' auto-instrumentation) sends with `telemetry` on; a Worker here continues its
 * trace in `process`, and the producer's EVALSHA span nests under its `send` span.
 */
import { expect } from "chai";
import * as path from "path";
import { SpanKind } from "@opentelemetry/api";
import RedisSMQ = require("../../lib");
import { runChild } from "../support/child-process";
import { otelSdk, spansNamed, useContextManager } from "../support/otel";
import type { PrintedSpan } from "../support/otel-producer";
import { connectionOptions, testRedis, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";
import { waitFor } from "../support/worker";

runsOn("single");

describe("telemetry: from send in one process to process in another", () => {
  it("the Worker's process span has the producer's send span as parent and link; the producer's EVALSHA nests under send", async function () {
    this.timeout(30_000);
    const removeContextManager = useContextManager();
    const sdk = otelSdk();
    const ns = uniqueNs();
    const rsmq = new RedisSMQ({ ...connectionOptions(ns), telemetry: { tracerProvider: sdk.tracerProvider, propagator: sdk.propagator } });
    const worker = new RedisSMQ.Worker(rsmq, { qname: "q", realtimeWakes: false, maxIdleSleepMs: 200, handler: () => undefined });
    try {
      await rsmq.createQueueAsync({ qname: "q" });
      const child = await runChild(`require(${JSON.stringify(path.join(__dirname, "../support/otel-producer.js"))})`, {
        RSMQ_TEST_URL: testRedis().url,
        RSMQ_TEST_NS: ns,
        RSMQ_TEST_QUEUE: "q",
      });
      expect(child.code, child.stderr).to.equal(0);
      const { id, spans } = JSON.parse(child.stdout) as { id: string; spans: PrintedSpan[] };
      const send = spans.find((span) => span.name === "send q")!;
      expect(send.kind).to.equal(SpanKind.PRODUCER);
      expect(send.attributes["messaging.message.id"]).to.equal(id);
      const redisSpans = spans.filter((span) => span.name.startsWith("redis-"));
      expect(redisSpans.map((span) => span.name)).to.deep.include("redis-EVALSHA");
      const evalsha = redisSpans.find((span) => span.name === "redis-EVALSHA")!;
      expect(evalsha.traceId).to.equal(send.traceId);
      expect(evalsha.parentSpanId).to.equal(send.spanId);

      worker.start();
      await waitFor(() => spansNamed(sdk.spans(), "process q").length === 1, "the process span");
      const process = spansNamed(sdk.spans(), "process q")[0];
      expect(process.spanContext().traceId).to.equal(send.traceId);
      expect(process.parentSpanId).to.equal(send.spanId);
      expect(process.links.map((link) => link.context.spanId)).to.deep.equal([send.spanId]);
      expect(process.attributes["messaging.message.id"]).to.equal(id);
    } finally {
      await worker.stop();
      await rsmq.quitAsync();
      await sdk.shutdown();
      removeContextManager();
    }
  });
});
