/**
 * A Worker's telemetry, taken only while its instance records or traces (otherwise the loop and
 * the message handling run exactly as without it):
 * - a receive that returned messages gets a `receive <queue>` span after the fact (started when
 *   the call was), with a link per message, and the messages' count and wait;
 * - each handler call runs in a `process <queue>` span (its parent the context the message
 *   carries, as `processContext` says, and a link to it), with its duration and the handlers in flight;
 * - the settlement after it (`delete`, `change_visibility`, `dead_letter`) is a child span of it,
 *   and how it ended is counted: ack, retry, dead_letter, drop or rate_limited, and a handler that outlived its
 *   message's visibility timeout.
 */
import type { QueueMessage } from "../types";
import type { RedisSMQInternals } from "../internals";
import type { ReceivedBatch } from "../operations/receive-message";
import type { StopRecord } from "../operations/dead-letter";
import { delivered } from "../telemetry/delivery";
import { receiveMessages } from "../operations/receive-message";
import { secondsSince } from "../telemetry/observe-call";
import type { OperationName, Recorder } from "../telemetry/recorder";
import type { TelemetryHub } from "../telemetry/telemetry-hub";
import { errorTypeOf } from "../telemetry/tracing";
import type { CallSpan, Carrier, SpanAttributes, Tracing } from "../telemetry/tracing";
import type { Handling } from "./handling-needs";
import type { Extension } from "./visibility-extender";
import type { MessageHandler } from "./worker-options";

/** Whether the hub records or traces: the one test the hot paths make. */
export function observing(hub: TelemetryHub | undefined): hub is TelemetryHub {
  return hub?.observing === true;
}

/** The context each received message carries, kept while the Worker holds it. */
export type Carriers = WeakMap<QueueMessage, Carrier>;

/** A Worker's receive, observed (see the file header); the messages' carried contexts go into `carriers`. */
export function observedWorkerReceive(
  internals: Pick<RedisSMQInternals, "layout" | "run" | "telemetry">,
  qname: string,
  vt: number | undefined,
  count: number,
  carriers: Carriers,
): Promise<ReceivedBatch> {
  const { recording, tracing } = internals.telemetry;
  const startedAt = Date.now();
  const started = performance.now();
  return internals
    .run(() => receiveMessages(internals.layout, { qname, vt }, count, true, true)) // details, and message.schedule
    .then(
      (batch) => {
        recording?.operationDuration(qname, "receive", secondsSince(started));
        const { messages, details } = batch;
        if (messages.length === 0) return batch;
        const linked = messages.map((message, index) => ({ id: message.id, carrier: details?.[index]?.carrier }));
        for (let index = 0; index < messages.length; index += 1) carriers.set(messages[index], linked[index].carrier);
        tracing
          ?.start("receive", qname, {
            startTime: startedAt,
            attributes: { "messaging.batch.message_count": messages.length, "messaging.rsmq.visibility_timeout": batch.vt },
            links: linked,
          })
          .end();
        delivered(qname, "receive", batch, undefined, recording);
        return batch;
      },
      (error: unknown) => {
        recording?.operationDuration(qname, "receive", secondsSince(started), errorTypeOf(error));
        throw error;
      },
    );
}

/** One message's handling, observed: the Handling to run it with, and what to call once it is settled. */
export interface ObservedHandling {
  readonly handling: Handling;
  /** Ends the process span, after the settlement's spans. */
  settled(): void;
}

/** How the handler ended, as far as it has: read by the settlement (an ack or a drop) and the process span. */
interface HandlerEnd {
  threw: boolean;
  error: unknown;
}

/** Where a message's handling is observed: the instance's recorder and tracing, and its process span. */
interface Observation {
  readonly recording: Recorder | undefined;
  readonly tracing: Tracing | undefined;
  readonly process: CallSpan | undefined;
}

export function observeHandling(message: QueueMessage, handling: Handling, hub: TelemetryHub): ObservedHandling {
  const { recording, tracing } = hub;
  const process = tracing?.process(
    handling.options.qname,
    { id: message.id, carrier: handling.carrierOf?.(message) },
    { "messaging.rsmq.message.receive_count": message.rc },
  );
  const observation: Observation = { recording, tracing, process };
  const { handler, extender, end } = observedHandler(handling, observation);
  const queue = observedQueuePort(message, handling, observation, end);
  const observed: Handling = {
    ...handling,
    options: { ...handling.options, handler },
    extender,
    queue,
    acknowledge: queue.remove,
  };
  return {
    handling: observed,
    settled: () => process?.end(end.threw ? (end.error ?? new Error("handler threw")) : undefined),
  };
}

/**
 * The handler run in the process span, with its duration and the handlers in flight counted, and
 * the extender that tells whether it outlived its message's visibility timeout.
 */
function observedHandler(
  handling: Handling,
  { recording, process }: Observation,
): { handler: MessageHandler; extender: Handling["extender"]; end: HandlerEnd } {
  const { options, clock } = handling;
  const { qname } = options;
  const end: HandlerEnd = { threw: false, error: undefined };
  let extension: Extension | undefined;

  const handlerEnded = (started: number, error?: unknown): void => {
    recording?.inFlight(qname, -1);
    recording?.processed(qname, secondsSince(started), error === undefined ? undefined : errorTypeOf(error));
    if (extension && clock.now() > extension.hiddenUntil()) recording?.visibilityExpired(qname);
  };

  const handler: MessageHandler = (received, context) => {
    recording?.inFlight(qname, 1);
    const started = performance.now();
    let running: Promise<unknown>;
    try {
      running = Promise.resolve(process ? process.within(() => options.handler(received, context)) : options.handler(received, context));
    } catch (error) {
      running = Promise.reject(error);
    }
    return running.then(
      (value) => {
        handlerEnded(started);
        return value;
      },
      (error: unknown) => {
        end.threw = true;
        end.error = error;
        handlerEnded(started, error);
        throw error;
      },
    );
  };
  const extender: Handling["extender"] = {
    keepHidden: (hidden, vt, rc, holder) => (extension = handling.extender.keepHidden(hidden, vt, rc, holder)),
  };
  return { handler, extender, end };
}

/** The settlement calls, each a child span of the process span, timed, and the outcome it settled counted. */
function observedQueuePort(message: QueueMessage, handling: Handling, observation: Observation, end: HandlerEnd): Handling["queue"] {
  const { options, queue } = handling;
  const { qname } = options;
  const settle = settlement(message.id, qname, observation);
  return {
    remove: (removed, rc) =>
      settle(
        "delete",
        qname,
        {},
        () => (end.threw ? queue.remove(removed, rc) : handling.acknowledge(removed, rc)),
        (found, recorder) => {
          if (found === 1) recorder.outcome(qname, end.threw ? "drop" : "ack");
        },
      ),
    hide: (hidden, ms, rc, release) =>
      settle(
        "change_visibility",
        qname,
        { "messaging.rsmq.visibility_timeout": ms / 1000 },
        () => queue.hide(hidden, ms, rc, release),
        (found, recorder) => {
          if (found === 1) recorder.outcome(qname, "retry");
        },
      ),
    rateLimitBounce: (bounced, ms, rc) =>
      settle(
        "change_visibility",
        qname,
        {},
        () => queue.rateLimitBounce(bounced, ms, rc),
        (visibleInMs, recorder) => {
          if (visibleInMs >= 0) recorder.outcome(qname, "rate_limited");
        },
      ),
    moveToDlq: (moved: QueueMessage, why: StopRecord) =>
      settle(
        "dead_letter",
        options.deadLetterQueue ?? qname,
        { "messaging.rsmq.dead_letter.reason": why.reason },
        () => queue.moveToDlq(moved, why),
        (done, recorder) => {
          if (!done) return;
          recorder.outcome(qname, "dead_letter");
          recorder.deadLettered(qname, why.reason);
        },
        handling.carrierOf?.(message) ?? "",
      ),
  };
}

/** Runs a settlement call of message `id` as a child span of the process span, times it, and hands what it settled to `after`. */
function settlement(id: string, qname: string, { recording, tracing, process }: Observation) {
  return <T>(
    operation: OperationName,
    destination: string,
    attributes: SpanAttributes,
    call: () => Promise<T>,
    after: (value: T, recorder: Recorder) => void,
    linked?: Carrier,
  ): Promise<T> => {
    const span: CallSpan | undefined = tracing?.start(operation, destination, {
      parent: process,
      attributes: { "messaging.message.id": id, ...attributes },
      links: linked === undefined ? undefined : [{ id, carrier: linked }],
    });
    const started = performance.now();
    let running: Promise<T>;
    try {
      running = span ? span.within(call) : call();
    } catch (error) {
      running = Promise.reject(error);
    }
    return running.then(
      (value) => {
        recording?.operationDuration(qname, operation, secondsSince(started));
        if (recording) after(value, recording);
        span?.end();
        return value;
      },
      (error: unknown) => {
        recording?.operationDuration(qname, operation, secondsSince(started), errorTypeOf(error));
        span?.end(error);
        throw error;
      },
    );
  };
}
