/**
 * Whether one client is up, told as `connect` and `disconnect`, with its reconnects counted: the
 * ready and lost bookkeeping the node-redis (node-redis-transport.ts) and ioredis transports share.
 */
import type { TransportEvents } from "./transport";

/** One client's up/down state, as watchReady() keeps it. */
export interface ReadyWatch {
  /** Whether the client is up right now. */
  readonly connected: boolean;
  /** Whether it has been up at least once. */
  readonly everReady: boolean;
  /** Reconnects so far: after one, the server may be another (restarted, replaced, promoted). */
  readonly epoch: number;
  /** The client is ready: `connect`, and a new epoch after the first time. */
  ready(): void;
  /** The link is lost: `disconnect`, once per loss. */
  lost(): void;
  /** No longer watched (closed here): not connected from now on, and nothing told. */
  stop(): void;
}

/**
 * Starts watching a client that is `readyNow` or not; when it is, `connect` is emitted on the next
 * tick, so listeners added right after construction hear it. The caller calls ready() and lost()
 * from the client's own events.
 */
export function watchReady(events: Pick<TransportEvents, "connect" | "disconnect">, readyNow: boolean): ReadyWatch {
  let connected = readyNow;
  let everReady = readyNow;
  let epoch = 0;
  if (readyNow) process.nextTick(() => events.connect());
  return {
    get connected() {
      return connected;
    },
    get everReady() {
      return everReady;
    },
    get epoch() {
      return epoch;
    },
    ready() {
      if (everReady) epoch += 1;
      connected = true;
      everReady = true;
      events.connect();
    },
    lost() {
      if (!connected) return;
      connected = false;
      events.disconnect();
    },
    stop() {
      connected = false;
    },
  };
}
