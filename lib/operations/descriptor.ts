/**
 * An operation declared once: everything the facade, telemetry and the wakes need to know about
 * one public call, in one object that its `lib/operations/<op>.ts` exports (a procedure's beside
 * the procedure). The registry (methods/registry.ts) names each by its method: the facade derives its
 * `<name>Async` method and callback twin `<name>` from it, and one call path (methods/call-path.ts) applies
 * the steps every call shares, in one order: the options' keys, closed check, telemetry, run,
 * expired-message moves, wake, events, hand-out.
 */
import type { KeyLayout } from "../keys";
import type { RedisSMQInternals } from "../internals";
import type { OperationName, Recorder } from "../telemetry/recorder";
import type { CallSpan, SpanAttributes } from "../telemetry/tracing";
import type { Operation } from "./operation";
import type { OptionKeys } from "../options/option-keys";
import type { SendNotification } from "./send-notification";

/** What building an operation may depend on besides the caller's options. */
export interface BuildContext {
  readonly layout: KeyLayout;
  /** What a send publishes: from the instance's `realtime` and `wakeConsumers` options. */
  readonly notify: SendNotification;
  /** Telemetry records or traces this call: a receive then asks the script for each message's details. */
  readonly observed: boolean;
  /** The call's trace context to store with what it sends (`<id>:tp`); undefined when not tracing. */
  readonly carrier: string | undefined;
}

/** What an operation's side effects reach after it succeeded. */
export interface Outlets {
  /** Emits one of the instance's events. */
  emit(event: "duplicate", duplicate: { qname: string; id: string; dedupId: string | true }): void;
  /** Tells a lasting problem once per key (`error`, or one process warning). */
  reportProblem(key: string, error: Error): void;
}

/** How a call is observed while telemetry records or traces: its span and its figures. */
export interface Observation<O, R> {
  /** The span's operation name (and the duration histogram's `messaging.operation.name`). */
  readonly operation: OperationName;
  /** The queue the span is named for (bounded: see queueLabel); by default the options' `qname`. */
  queue?(options: Partial<O>): unknown;
  /** Set on the span at its start. */
  attributes?(options: Partial<O>): SpanAttributes;
  /** After success: attributes and links from the result, and the call's own figures. */
  done?(result: R, span: CallSpan | undefined, recording: Recorder | undefined, queue: string, options: Partial<O>): void;
  /** After a failure: the call's own figures (the duration and the span's status are set for it). */
  failed?(errorType: string, recording: Recorder | undefined, queue: string, options: Partial<O>): void;
}

interface DescriptorBase<O, R, Out> {
  /**
   * Every key the options take (`{ qname: true, vt: true }`; a batch's list, its entries' keys).
   * The call path warns once per process and key for any other key, which is ignored as rsmq
   * 0.12.4 ignored it. `tsc` holds it to the options type `O`: no key missing, none extra.
   */
  readonly optionKeys: OptionKeys<O>;
  /**
   * A given option that the call's other options make pointless (`dedupWindowMs` without a
   * `dedupId`): its key and why, warned once per process; the call runs as it would without it.
   */
  unusedOption?(options: Partial<O>): { key: keyof O & string; because: string } | undefined;
  /**
   * The options may be left out: the callback twin then takes `(callback)` as well as `(options,
   * callback)` (listQueues, doctor).
   */
  readonly optionalOptions?: true;
  /** How the result is handed to the caller; the result itself when absent. */
  result?(result: R, options: Partial<O>): Out;
  /**
   * An answer given without a round trip (an empty list of ids); undefined to make the call. It
   * checks what it reads first, so bad input still fails before any round trip.
   */
  answerWithout?(options: Partial<O>): Out | undefined;
  /** With `waitMs`, the call looks again until a message is due (wakes/waiting-receive.ts). */
  readonly waits?: true;
  /** Observed by telemetry; calls without one run the same way whether telemetry is on or off. */
  readonly observe?: Observation<O, R>;
  /**
   * Whether the call may have made a message of the options' queue due sooner: a sleeping Worker
   * or waiting receive of this process then looks at once. A send answers the id its wake publish
   * carries, so a consumer that hears both looks once.
   */
  wakes?(result: R, options: Partial<O>): boolean | string;
  /** The events and reports the call causes once it succeeded. */
  events?(result: R, options: Partial<O>, outlets: Outlets): void;
}

/** An operation that is one script call (one command, one round trip). */
export interface ScriptDescriptor<O, R, Out> extends DescriptorBase<O, R, Out> {
  /** Checks the options (throwing before any round trip) and builds the script call. */
  build(context: BuildContext, options: Partial<O>): Operation<R>;
}

/** An operation made of several calls (a redrive's pages, a sweep's chunks, the doctor's scans). */
export interface ProcedureDescriptor<O, R, Out> extends DescriptorBase<O, R, Out> {
  /**
   * Checks the options (throwing before anything is sent) and returns the work: it runs on the
   * instance, and `wake(qname)` tells this process that a queue may have a message due sooner.
   */
  prepare(options: Partial<O>): (internals: RedisSMQInternals, wake: (qname: string) => void) => Promise<R>;
}

/** One public operation: its options `O`, what its script (or procedure) gives `R`, and what the caller gets `Out`. */
export type OperationDescriptor<O, R, Out = R> = ScriptDescriptor<O, R, Out> | ProcedureDescriptor<O, R, Out>;

/** Declares a one-script operation (the identity, there for the types). */
export function defineOperation<O, R, Out = R>(descriptor: ScriptDescriptor<O, R, Out>): ScriptDescriptor<O, R, Out> {
  return descriptor;
}

/** Declares an operation made of several calls (the identity, there for the types). */
export function defineProcedure<O, R, Out = R>(descriptor: ProcedureDescriptor<O, R, Out>): ProcedureDescriptor<O, R, Out> {
  return descriptor;
}

/** The `*Async` method a descriptor gives the facade. */
export type AsyncMethodOf<D> = D extends OperationDescriptor<infer O, infer _R, infer Out> ? (options?: O) => Promise<Out> : never;
