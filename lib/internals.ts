/**
 * What the modules below the facade (the Worker's queue port, dead letters, redrive, the CLI) need
 * of a RedisSMQ instance beyond its public API: its namespace and key layout, a way to run an
 * operation they built on its connection, and its shared realtime subscriber. They build their own
 * operations; this stays four members wide, plus the registry of running workers that quitAsync()
 * stops, the telemetry hub and the instance's once-per-problem reporter. Kept apart from the facade so that nothing below it imports it.
 */
import type { Operation } from "./operations/operation";
import type { KeyLayout } from "./keys";
import type { RealtimeWakes } from "./wakes/realtime-wakes";
import type { TelemetryHub } from "./telemetry/telemetry-hub";
import type { SendNotification } from "./operations/send-notification";

/** A running Worker as the instance sees it: quitAsync() stops it. */
export interface StoppableWorker {
  stop(): Promise<void>;
}

export interface RedisSMQInternals {
  readonly ns: string;
  /** Where each queue's keys and realtime channel are. */
  readonly layout: KeyLayout;
  /** What the instance's sends publish (its `realtime` and `wakeConsumers`): a schedule's fire publishes the same. */
  readonly notify: SendNotification;
  /** Builds and runs an operation on the instance's connection (validation, routing, replica acks, NOSCRIPT answered). */
  run<T>(build: () => Operation<T>): Promise<T>;
  /**
   * One plain command (what no script may do: the registry in another cluster slot, SCAN), named
   * by `operation` in a refusal, counted as housekeeping; `key` routes it in Redis Cluster.
   */
  command(operation: string, args: string[], key?: string): Promise<unknown>;
  /** The instance's shared subscriber for realtime wakes, opened on first use. */
  realtimeWakes(): RealtimeWakes;
  /** Workers started on the instance and not stopped yet: quitAsync() stops them first. */
  readonly workers: Set<StoppableWorker>;
  /** Where the instance's figures and spans go: the `telemetry` option's, and collectMetrics' registries. */
  readonly telemetry: TelemetryHub;
  /** Tells a lasting problem no call fails for (a refused wake subscription) once per key: `error`, or one process warning. */
  reportProblem(key: string, error: Error): void;
}

const registry = new WeakMap<object, RedisSMQInternals>();

/** Gives an instance its internals; called once, by the RedisSMQ constructor. */
export function attachInternals(owner: object, internals: RedisSMQInternals): void {
  registry.set(owner, internals);
}

/** The internals of a RedisSMQ instance; throws for anything else. */
export function internalsOf(rsmq: unknown): RedisSMQInternals {
  const found = typeof rsmq === "object" && rsmq !== null ? registry.get(rsmq) : undefined;
  if (!found) throw new TypeError("Expected a RedisSMQ instance from rsmq-next");
  return found;
}
