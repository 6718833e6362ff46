/**
 * What handling a message needs from its worker (handle-message.ts), in a module of its own so
 * the Worker's telemetry (worker-telemetry.ts) can build an observed one without importing the handling.
 */
import type { QueueMessage } from "../types";
import type { Clock } from "./clock";
import type { QueuePort } from "./queue-port";
import type { VisibilityExtender } from "./visibility-extender";
import type { ResolvedWorkerOptions } from "./worker-option-table";
import type { WorkerReporter } from "./worker-reporter";
import type { TelemetryHub } from "../telemetry/telemetry-hub";
import type { Carrier } from "../telemetry/tracing";
import type { HandlerSignals } from "./handler-signals";

/** What handling a message needs from its worker. */
export interface Handling {
  options: Pick<ResolvedWorkerOptions, "qname" | "handler" | "retry" | "onStop" | "deadLetterQueue">;
  queue: Pick<QueuePort, "remove" | "hide" | "moveToDlq" | "rateLimitBounce">;
  /**
   * Deletes the message of a handler that resolved, held as delivery `rc`; 0 when it was gone or
   * received again since. Resolves once the delete answered, which may be the worker's next
   * receive carrying it (see pending-acks.ts).
   */
  acknowledge(id: string, rc: number): Promise<0 | 1>;
  clock: Clock;
  extender: Pick<VisibilityExtender, "keepHidden">;
  reporter: WorkerReporter;
  /** Each handler's signal: it fires when the worker stops, or when the handler's message is cancelled. */
  signals: HandlerSignals;
  /** The message becomes due again at local epoch ms `at`: the worker wakes for it. */
  dueAgainAt(at: number): void;
  /** Whether the worker has stopped (told `stopped`): a handler that ends after it is abandoned. */
  hasStopped(): boolean;
  /** The instance's telemetry (none for a fake queue): handling is observed while it records or traces. */
  telemetry?: TelemetryHub;
  /** The trace context a received message carries. */
  carrierOf?(message: QueueMessage): Carrier;
}
