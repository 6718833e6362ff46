/**
 * The consumers rsmq 0.12.4 users write or install, driven by rsmq 0.12.4's receiveMessage:
 *
 * - a fixed-interval poller: receive; on a message run the handler, delete, and receive again at
 *   once; on none, sleep `intervalMs` (100 ms is a common setting);
 * - rsmq-worker's loop (mpneuried/rsmq-worker, _src/lib/rsmq-worker.coffee, `next()`): after a
 *   message it waits interval[0], and after each empty receive the next entry of `interval`
 *   (seconds), staying on the last one; defaults `interval: [0, 1, 5, 10]`, `invisibletime: 30`.
 *   It deletes a handled message without waiting for the reply, then schedules the next receive.
 */
import { isMessage } from "./clients";
import type { Message, QueueApi } from "./clients";

/** rsmq-worker's default back-off intervals, in seconds. */
export const RSMQ_WORKER_DEFAULT_INTERVALS = [0, 1, 5, 10];
/** rsmq-worker's default `invisibletime` (vt), in seconds. */
export const RSMQ_WORKER_DEFAULT_VT = 30;

export type Handler = (message: Message) => void;

export interface Poller {
  stop(): Promise<void>;
}

/** A stoppable sleep loop shared by both pollers. */
function loop(step: () => Promise<number>): Poller {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wakeSleep: () => void = () => undefined;
  const done = (async () => {
    while (!stopped) {
      const waitMs = await step();
      if (stopped) break;
      await new Promise<void>((resolve) => {
        wakeSleep = resolve;
        timer = setTimeout(resolve, waitMs);
      });
    }
  })();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wakeSleep();
      await done;
    },
  };
}

/** Polls every `intervalMs` while the queue is empty. */
export function pollEvery(rsmq: QueueApi, qname: string, intervalMs: number, handler: Handler): Poller {
  return loop(async () => {
    const received = await rsmq.receiveMessageAsync({ qname });
    if (!isMessage(received)) return intervalMs;
    handler(received);
    await rsmq.deleteMessageAsync({ qname, id: received.id });
    return 0;
  });
}

export interface RsmqWorkerOptions {
  /** Seconds; rsmq-worker's `interval`. */
  intervals?: number[];
  /**
   * Start in the state rsmq-worker reaches after an idle spell longer than the sum of the
   * intervals (waiting the last interval between receives), instead of at the array's start.
   */
  startIdle?: boolean;
}

/** rsmq-worker's receive loop, faithfully: same waits, same order of receive, delete and wait. */
export function rsmqWorkerLoop(rsmq: QueueApi, qname: string, handler: Handler, options: RsmqWorkerOptions = {}): Poller {
  const intervals = options.intervals ?? RSMQ_WORKER_DEFAULT_INTERVALS;
  let waitCount = options.startIdle ? intervals.length : 0;
  return loop(async () => {
    const received = await rsmq.receiveMessageAsync({ qname, vt: RSMQ_WORKER_DEFAULT_VT });
    const wait = !isMessage(received);
    if (isMessage(received)) {
      handler(received);
      // rsmq-worker: `@del(_id)` is not awaited before `next()`.
      void rsmq.deleteMessageAsync({ qname, id: received.id }).catch(() => undefined);
    }
    if (!wait) waitCount = 0;
    const seconds = intervals[waitCount] ?? intervals[intervals.length - 1];
    waitCount += 1;
    return seconds * 1000;
  });
}
