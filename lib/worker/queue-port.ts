/**
 * Everything the Worker does with its queue, as one interface: the loop and the message handling
 * are written against it, not against a RedisSMQ instance, so tests can hand them a fake queue.
 * redis-queue-port.ts builds the real one.
 *
 * Every call that settles a message the worker holds (delete, hide, bounce, dead-letter move)
 * carries the receipt of its delivery (the `rc` its receive returned): it acts only while no later
 * receive took the message, and answers as for a message gone otherwise.
 */
import type { ReceivedBatch } from "../operations/receive-message";
import type { ReceiveBlock } from "../operations/receive-block";
import type { DeletedAndReceived } from "../operations/delete-and-receive";
import type { StopRecord } from "../operations/dead-letter";
import type { QueueMessage } from "../types";
import type { TelemetryHub } from "../telemetry/telemetry-hub";
import type { Carrier } from "../telemetry/tracing";
import type { ConsumerBeat } from "../operations/consumer-beat";
import type { ScheduleStore } from "../schedules/schedule-firer";

/** One worker's queue: the calls its loop makes, and the wakes it listens for. */
export interface QueuePort {
  /**
   * Receives up to `count` messages (hidden for the worker's vt); when fewer come back, also when
   * the next is due. `blocked` when a pause or the queue's rate limit held the receive back (a
   * receive cut short by the limit returns its messages and `blocked`).
   */
  receive(count: number): Promise<ReceivedBatch>;
  /**
   * Deletes `ids` (each only while its receive count is the receipt in `rcs` at the same index),
   * then receives up to `count`, in one call (see deleteAndReceiveMessages): how a handled
   * message's delete rides on the next receive. Absent where the queue has no such call.
   */
  deleteAndReceive?(ids: string[], rcs: number[], count: number): Promise<DeletedAndReceived>;
  /**
   * Whether deleteAndReceive is to be used now; false while telemetry observes, whose receive and
   * delete spans are each the call they time.
   */
  readonly combinesDeletes?: boolean;
  /**
   * Read-only: ms until the earliest message is visible (0: one is due now), null for an empty
   * queue, or the block that holds receives back (a pause; a rate limit while a message is due).
   * With `beat`, the same look also writes the worker's heartbeat entry (lookAndBeat).
   */
  nextDue(beat?: ConsumerBeat): Promise<number | null | ReceiveBlock>;
  /**
   * Writes the worker's heartbeat entry with a look of its own, its answer unused (a busy worker's
   * beat: see heartbeat.ts). Absent where the queue keeps no heartbeats (a fake queue): the worker
   * then sends none, in its looks neither.
   */
  beat?(beat: ConsumerBeat): Promise<void>;
  /** Removes the worker's heartbeat entry (at stop); 1 when it was there. Present with `beat`. */
  removeConsumer?(workerId: string): Promise<0 | 1>;
  /** Deletes a message held as delivery `rc`; 0 when it was no longer there, or another receive took it since. */
  remove(id: string, rc: number): Promise<0 | 1>;
  /**
   * Hides a message held as delivery `rc` for `ms` from now; 0 when it was no longer there, or
   * another receive took it since. `release`: the worker lets it go (a retry's backoff), so its
   * concurrency lease ends now rather than moving with it.
   */
  hide(id: string, ms: number, rc?: number, release?: boolean): Promise<0 | 1>;
  /**
   * A handler's RateLimitError: with `ms`, blocks the queue's receives until now + `ms` (or a
   * later block in force); hides the message until the block ends (1 s without one) and gives
   * back the delivery its receive counted. Resolves with the ms until it is visible again, -1
   * when it was no longer in the queue, or another receive took it since delivery `rc`.
   */
  rateLimitBounce(id: string, ms: number | undefined, rc: number): Promise<number>;
  /**
   * Moves a stopped message to the dead-letter queue; false when it was no longer in the queue (or,
   * where the move takes two steps, another receive took it since `message.rc`).
   */
  moveToDlq(message: QueueMessage, why: StopRecord): Promise<boolean>;
  /** Calls `listener` whenever this process makes a message of the queue visible sooner; returns the unsubscribe. */
  onWake(listener: (id?: string) => void): () => void;
  /**
   * The channels where senders in any process publish what wakes a consumer: the queue's wake
   * channel (rsmq-next sends at their defaults) and its realtime channel (`realtime` senders,
   * rsmq 0.12.4's included). Each is subscribed on its own, so one refused leaves the other.
   */
  readonly wakeChannels: readonly string[];
  /**
   * Calls `listener` on every publish to `channel`. Resolves with the unsubscribe once the server
   * has confirmed; rejects when the subscription is refused or fails.
   */
  subscribeWakes(channel: string, listener: (message?: string) => void): Promise<() => Promise<void>>;
  /** Whether the connection is up right now (a call made while it is down waits for it). */
  readonly connected: boolean;
  /** Lists a started worker with its RedisSMQ instance, whose quitAsync() stops it first; returns the removal. */
  enlist(worker: { stop(): Promise<void> }): () => void;
  /** The instance's telemetry; none for a fake queue. */
  readonly telemetry?: TelemetryHub;
  /** The trace context a message received through this port carries (while telemetry records or traces). */
  readonly carrierOf?: (message: QueueMessage) => Carrier;
  /**
   * The queue's schedules, for the worker to fire (schedules/schedule-firer.ts). Absent where it
   * fires none (`schedules: false`, a fake queue).
   */
  readonly schedules?: WorkerSchedules;
}

/** A worker's way to its queue's schedules: their store, and what its looks read of them. */
export interface WorkerSchedules extends ScheduleStore {
  /**
   * Calls `listener` with what each look (and each beat, a look too) read of the schedules: ms
   * until the earliest next slot (0: due, or not settled yet), undefined when none is active.
   */
  watchDue(listener: (ms: number | undefined) => void): void;
}
