/**
 * The one path every public call takes, from the options to what the caller gets. In order:
 * 0. the options' keys: a key the descriptor does not declare, or one the other options make
 *    pointless, is told once per process and method (options/option-keys.ts), and ignored;
 * 1. an answer that needs no round trip (an empty list of ids), bad input refused first;
 * 2. with `waitMs` on a waiting receive, steps 3 to 5 again until a message is due (wakes/waiting-receive.ts);
 * 3. telemetry: the call's span and figures, when the instance records or traces and the operation is observed;
 * 4. the run: the closed check, then the script (operations/operation-runner.ts), or the procedure's calls;
 * 5. the expired messages the script parked, moved to the queue's expireTo (retention/expired-moves.ts);
 * 6. the events the call causes (a duplicate, a refused notification told once);
 * 7. the wake of this process's sleeping Workers and waiting receives, when a message may be due
 *    sooner; then the result, as the caller gets it.
 * A call that needs none of 2, 3 and 5 takes one `then` from the script's reply to the caller: this
 * is every send's path, the hottest of all.
 */
import type { RedisSMQInternals } from "../internals";
import { optionKeyCheck } from "../options/option-keys";
import { warnUnusedOption } from "../options/option-warnings";
import { moveExpired, movingExpired } from "../retention/expired-moves";
import type { ExpiredReport } from "../retention/expired-report";
import { queueLabel } from "../telemetry/delivery";
import { observeCall } from "../telemetry/observe-call";
import type { CallSpan } from "../telemetry/tracing";
import { notifyQueueActivity } from "../wakes/wake-hub";
import { waitingReceive } from "../wakes/waiting-receive";
import type { ReceivedBatch } from "../operations/receive-message";
import type { BuildContext, Observation, OperationDescriptor, Outlets } from "../operations/descriptor";
import type { TelemetryHub } from "../telemetry/telemetry-hub";
import type { SendNotification } from "../operations/send-notification";

/** What a call needs of the instance it runs on. */
export interface Caller {
  readonly internals: RedisSMQInternals;
  /** What a send publishes (the instance's `realtime` and `wakeConsumers` options). */
  readonly notify: SendNotification;
  readonly outlets: Outlets;
  /** The error every call gets once the user closed the connection; undefined while open. */
  closed(): Error | undefined;
}

/** Options objects may come from untyped callers; read them without trusting their shape. */
function optionsOf<O>(options: O | undefined | null): Partial<O> {
  return (options ?? {}) as Partial<O>;
}

/** The queue a call names, read from options of any operation. */
function qnameOf(options: object): unknown {
  return (options as { qname?: unknown }).qname;
}

/** The `*Async` method of `descriptor` on `caller`; `method` names it in warnings (`sendMessage`). */
export function callPath<O, R, Out>(
  method: string,
  descriptor: OperationDescriptor<O, R, Out>,
  caller: Caller,
): (options: O) => Promise<Out> {
  const { internals } = caller;
  const run = runOf(descriptor, caller);
  const checkKeys = optionKeyCheck(method, descriptor.optionKeys);
  /** Step 0. */
  const tellIgnored = (given: O, options: Partial<O>): void => {
    checkKeys(given);
    const unused = descriptor.unusedOption?.(options);
    if (unused) warnUnusedOption(method, unused.key, unused.because);
  };
  /** Steps 6 and 7. */
  const finish = (result: R, options: Partial<O>): Out => {
    descriptor.events?.(result, options, caller.outlets);
    const woke = descriptor.wakes?.(result, options);
    if (woke) notifyQueueActivity(internals.ns, String(qnameOf(options)), typeof woke === "string" ? woke : undefined);
    return descriptor.result ? descriptor.result(result, options) : (result as unknown as Out);
  };
  return (given) => {
    const options = optionsOf(given);
    tellIgnored(given, options);
    if (descriptor.answerWithout) {
      try {
        const answer = descriptor.answerWithout(options);
        if (answer !== undefined) return Promise.resolve(answer);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    if (descriptor.waits) {
      // A waiting call is a receive: each look's expired messages are moved before the next look.
      const look = () => (run(options) as Promise<unknown> as Promise<ReceivedBatch>).then(movingExpired(internals, qnameOf(options)));
      return (waitingReceive(internals, options, look) as Promise<unknown> as Promise<R>).then((result) => finish(result, options));
    }
    // Settling and finishing in one `then`: the hot path (see the file header).
    return run(options).then((result) =>
      hasExpired(result)
        ? moveExpired(internals, String(qnameOf(options)), result.expired).then(() => finish(result, options))
        : finish(result, options),
    );
  };
}

/**
 * Step 4, inside the call's span and figures when observed (step 3). Unobserved, a script runs
 * with a context made once per instance: no allocation on the call's path but the build's closure.
 */
function runOf<O, R, Out>(descriptor: OperationDescriptor<O, R, Out>, caller: Caller): (options: Partial<O>) => Promise<R> {
  const { internals, notify } = caller;
  const { telemetry } = internals;
  const observation = descriptor.observe;
  if ("build" in descriptor) {
    // The layout is read at each call: one place, the internals, says where keys are.
    const plain: BuildContext = {
      get layout() {
        return internals.layout;
      },
      notify,
      observed: false,
      carrier: undefined,
    };
    const build = (options: Partial<O>, span: CallSpan | undefined): Promise<R> =>
      internals.run(() => descriptor.build({ layout: internals.layout, notify, observed: true, carrier: span?.carry() }, options));
    return (options) =>
      observation === undefined || !telemetry.observing
        ? internals.run(() => descriptor.build(plain, options))
        : observe(telemetry, observation, options, (span) => build(options, span));
  }
  return (options) => {
    let work: ReturnType<typeof descriptor.prepare>;
    try {
      // Bad input is refused before the span starts, as before anything is sent.
      work = descriptor.prepare(options);
    } catch (error) {
      return Promise.reject(error);
    }
    const perform = (): Promise<R> => {
      const closed = caller.closed();
      if (closed) return Promise.reject(closed);
      return work(internals, (qname) => notifyQueueActivity(internals.ns, qname));
    };
    return observation === undefined || !telemetry.observing ? perform() : observe(telemetry, observation, options, perform);
  };
}

/** Runs `call` inside the span and figures `observation` says. */
function observe<O, R>(
  telemetry: TelemetryHub,
  observation: Observation<O, R>,
  options: Partial<O>,
  call: (span: CallSpan | undefined) => Promise<R>,
): Promise<R> {
  const queue = queueLabel(observation.queue ? observation.queue(options) : qnameOf(options));
  return observeCall(telemetry, observation.operation, queue, call, {
    attributes: observation.attributes?.(options),
    done: observation.done && ((result, span, recording) => observation.done!(result, span, recording, queue, options)),
    failed: observation.failed && ((errorType, recording) => observation.failed!(errorType, recording, queue, options)),
  });
}

function hasExpired(result: unknown): result is { expired: ExpiredReport } {
  return typeof result === "object" && result !== null && (result as { expired?: unknown }).expired !== undefined;
}
