/**
 * A queue for driving the Worker's loop without Redis: it answers each call from a script the
 * test writes (an empty queue when the script runs out), records every call in order, and wakes
 * the loop when the test says a message was sent. Together with FakeClock it lets a test say
 * exactly what the loop did, call by call.
 */
import { EventEmitter } from "events";
import type { ReceiveBlock } from "../../lib/operations/receive-block";
import type { DeletedAndReceived } from "../../lib/operations/delete-and-receive";
import type { StopRecord } from "../../lib/operations/dead-letter";
import type { QueueMessage } from "../../lib/types";
import type { ReceivedBatch } from "../../lib/operations/receive-message";
import type { QueuePort } from "../../lib/worker/queue-port";
import { WorkerLoop } from "../../lib/worker/worker-loop";
import { resolveWorkerOptions } from "../../lib/worker/worker-option-table";
import type { WorkerOptions } from "../../lib/worker/worker-options";
import { FakeClock, settle } from "./fake-clock";

type Reply<T> = T | Error | Promise<T>;

/** A reply the test gives when it chooses: `promise` settles on resolve() or reject(). */
export function held<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: Error) => void = () => undefined;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** A message as a receive returns it. */
export function message(id: string, rc = 1, body = id): QueueMessage {
  return { id, message: body, rc, sent: 1_700_000_000_000, fr: 1_700_000_000_000 };
}

/** A receive's reply: `messages`; when fewer than asked, `nextDueMs` (null: empty queue). */
export function batch(messages: QueueMessage[], nextDueMs: number | null | undefined = null, vt = 30): ReceivedBatch {
  return { messages, nextDueMs, vt };
}

/** A receive's reply held back by `blocked` (with the messages a batch cut short by the limit took). */
export function blockedBatch(blocked: ReceiveBlock, messages: QueueMessage[] = [], vt = 30): ReceivedBatch {
  return { messages, nextDueMs: blocked.retryMs, vt, blocked };
}

/** A pause's block: `retryMs` until its `until`, null until a resume. */
export function paused(retryMs: number | null = null): ReceiveBlock {
  return { reason: "paused", retryMs };
}

/** A rate limit's block: `retryMs` until a receive may take one again; `intervalMs` the limit's spacing (0: a block). */
export function limited(retryMs: number, intervalMs = 100): ReceiveBlock {
  return { reason: "limited", retryMs, intervalMs };
}

function answer<T>(reply: Reply<T>): Promise<T> {
  return reply instanceof Error ? Promise.reject(reply) : Promise.resolve(reply);
}

export class FakeQueue implements QueuePort {
  /** Every call, in order: "receive 2", "nextDue", "remove m1", "hide m1 400", "moveToDlq m1", "rateLimitBounce m1 500". */
  readonly calls: string[] = [];
  /** What moveToDlq was told, in order. */
  readonly deadLettered: Array<{ message: QueueMessage; why: StopRecord }> = [];
  /** Replies to the next receives, in order; then an empty queue. */
  readonly receives: Array<Reply<ReceivedBatch>> = [];
  /** Replies to the next looks, in order; then an empty queue. */
  readonly looks: Array<Reply<number | null | ReceiveBlock>> = [];
  /** Replies to the next hides (the visibility extender's and retries'), in order; then 1. */
  readonly hides: Array<Reply<0 | 1>> = [];
  /** Replies to the next removes, in order; then 1. */
  readonly removes: Array<Reply<0 | 1>> = [];
  /** Replies to the next rate-limit bounces (ms until visible, -1: gone), in order; then the ms given, or 1000. */
  readonly bounces: Array<Reply<number>> = [];
  /** Replies to the next moves to the dead-letter queue, in order; then true. */
  readonly moves: Array<Reply<boolean>> = [];
  /** Replies to the next realtime subscriptions, in order; then a subscription. */
  readonly subscriptions: Array<Reply<void>> = [];
  /** One channel, so each subscription is one call in `calls`. */
  readonly wakeChannels = ["rsmq:rt:q"];
  connected = true;
  /** Workers listed, as with a RedisSMQ instance. */
  readonly enlisted = new Set<{ stop(): Promise<void> }>();
  private readonly wakeListeners = new Set<(text?: string) => void>();
  private readonly realtimeListeners = new Set<(text?: string) => void>();

  receive(count: number): Promise<ReceivedBatch> {
    this.calls.push(`receive ${count}`);
    return answer(this.receives.shift() ?? batch([]));
  }

  nextDue(): Promise<number | null | ReceiveBlock> {
    this.calls.push("nextDue");
    return answer(this.looks.length > 0 ? this.looks.shift()! : null);
  }

  remove(id: string): Promise<0 | 1> {
    this.calls.push(`remove ${id}`);
    return answer(this.removes.shift() ?? 1);
  }

  hide(id: string, ms: number): Promise<0 | 1> {
    this.calls.push(`hide ${id} ${ms}`);
    return answer(this.hides.shift() ?? 1);
  }

  rateLimitBounce(id: string, ms: number | undefined): Promise<number> {
    this.calls.push(`rateLimitBounce ${id} ${String(ms)}`);
    return answer(this.bounces.length > 0 ? this.bounces.shift()! : (ms ?? 1000));
  }

  moveToDlq(message: QueueMessage, why: StopRecord): Promise<boolean> {
    this.calls.push(`moveToDlq ${message.id}`);
    this.deadLettered.push({ message, why });
    return answer(this.moves.length > 0 ? this.moves.shift()! : true);
  }

  onWake(listener: (id?: string) => void): () => void {
    this.wakeListeners.add(listener);
    return () => void this.wakeListeners.delete(listener);
  }

  async subscribeWakes(_channel: string, listener: (message?: string) => void): Promise<() => Promise<void>> {
    this.calls.push("subscribeRealtime");
    await answer(this.subscriptions.shift());
    this.realtimeListeners.add(listener);
    return async () => void this.realtimeListeners.delete(listener);
  }

  enlist(worker: { stop(): Promise<void> }): () => void {
    this.enlisted.add(worker);
    return () => void this.enlisted.delete(worker);
  }

  /** A send in this process (or a resume's control text, `~resume:<ms>`): wakes the in-process listeners. */
  wake(text?: string): void {
    for (const listener of [...this.wakeListeners]) listener(text);
  }

  /** A publish on the realtime channel, carrying `text` if given. */
  publish(text?: string): void {
    for (const listener of [...this.realtimeListeners]) listener(text);
  }

  /** How many listen for wakes: in this process, and on the realtime channel. */
  get listeners(): { inProcess: number; realtime: number } {
    return { inProcess: this.wakeListeners.size, realtime: this.realtimeListeners.size };
  }
}

/**
 * A FakeQueue with the combined call: a handled message's delete rides on the next receive. Its
 * receive part answers from `receives` as a receive does; `combined` gives a whole call's reply
 * (an Error fails it, `receiveError` refuses its receive part), else every id was there.
 */
export class CombiningFakeQueue extends FakeQueue {
  /** Replies to the next combined calls, in order; then each id deleted and the receive part from `receives`. */
  readonly combined: Array<Reply<Partial<DeletedAndReceived>>> = [];

  deleteAndReceive(ids: string[], _rcs: number[], count: number): Promise<DeletedAndReceived> {
    this.calls.push(`deleteAndReceive ${ids.join(",")} ${count}`);
    const reply = this.combined.shift();
    if (reply instanceof Error || reply instanceof Promise) return answer(reply as Reply<DeletedAndReceived>);
    if (reply?.receiveError) return answer({ deleted: ids.map(() => 1 as const), batch: batch([]), ...reply } as DeletedAndReceived);
    return answer(this.receives.shift() ?? batch([])).then((received) => ({
      deleted: ids.map(() => 1 as const),
      batch: received,
      ...reply,
    }));
  }
}

/** An event the loop emitted: its name and payload. */
export type LoopEvent = [name: string, ...args: unknown[]];

const EVENT_NAMES = [
  "receive",
  "look",
  "handled",
  "failed",
  "retry",
  "rateLimited",
  "heldBack",
  "cancelled",
  "deadLettered",
  "dropped",
  "stop",
  "sleep",
  "wake",
  "error",
  "stopped",
  "abandoned",
];

/**
 * A WorkerLoop on a FakeQueue (or the `queue` given, a CombiningFakeQueue say) and a FakeClock,
 * with every event it emits recorded. Options are the Worker's; realtimeWakes is off unless given.
 * Not started.
 */
export function fakeWorker<Q extends FakeQueue = FakeQueue>(
  options: Partial<WorkerOptions> = {},
  queue: Q = new FakeQueue() as Q,
  random: () => number = Math.random,
) {
  const clock = new FakeClock();
  const emitter = new EventEmitter();
  const events: LoopEvent[] = [];
  for (const name of EVENT_NAMES) emitter.on(name, (...args: unknown[]) => void events.push([name, ...args]));
  const resolved = resolveWorkerOptions({ qname: "q", handler: () => undefined, realtimeWakes: false, ...options });
  const loop = new WorkerLoop(resolved, { queue, clock, random }, emitter);
  return {
    loop,
    queue,
    clock,
    emitter,
    events,
    /** Starts the loop and lets it run until it waits (for a sleep, a reply, or a handler). */
    start: async (): Promise<void> => {
      loop.start();
      await settle();
    },
  };
}
