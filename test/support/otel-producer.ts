/**
 * A producer in a child process of its own, with the real SDK and node-redis'
 * auto-instrumentation (@opentelemetry/instrumentation-redis-4, registered before the package
 * loads node-redis): sends one message to RSMQ_TEST_QUEUE on RSMQ_TEST_URL in namespace
 * RSMQ_TEST_NS with `telemetry` on, and prints `{ id, spans }` as JSON.
 */
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { RedisInstrumentation } from "@opentelemetry/instrumentation-redis-4";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { builtEntry } from "./child-process";

/** A span as the parent process reads it. */
export interface PrintedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  attributes: Record<string, unknown>;
}

async function main(): Promise<void> {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  registerInstrumentations({ tracerProvider, instrumentations: [new RedisInstrumentation()] });
  // Only now: the instrumentation patches node-redis as it loads.
  const RedisSMQ = require(builtEntry) as typeof import("../../lib/index");
  const rsmq = new RedisSMQ({
    url: process.env.RSMQ_TEST_URL,
    ns: process.env.RSMQ_TEST_NS,
    telemetry: { tracerProvider, propagator: new W3CTraceContextPropagator(), metrics: false },
  });
  const id = await rsmq.sendMessageAsync({ qname: String(process.env.RSMQ_TEST_QUEUE), message: "from another process" });
  await rsmq.quitAsync();
  const spans: PrintedSpan[] = exporter.getFinishedSpans().map((span) => ({
    name: span.name,
    kind: span.kind,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanId,
    attributes: span.attributes,
  }));
  console.log(JSON.stringify({ id, spans }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
