/**
 * The retry rules of a Redis Cluster call: which failures a resharding or a failover causes (and
 * pass), which mean the topology this client holds is wrong, and the backoff between attempts.
 * Pure but for the clock and the pause: retrying() is the one loop both kinds of call run.
 */
import { isErrorReply } from "./error-replies";

/** Replies a cluster gives while slots move or a master is replaced: retry after a pause. */
const TRANSIENT_REPLY = /^(TRYAGAIN|CLUSTERDOWN|MOVED|ASK|LOADING|MASTERDOWN|READONLY)\b/;
/** Of those, the ones that mean this client's idea of the topology is wrong. */
const STALE_TOPOLOGY_REPLY = /^(CLUSTERDOWN|MASTERDOWN|READONLY)\b/;

/** Whether a failed attempt may succeed later: any connection failure, or a reply from TRANSIENT_REPLY. */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // Anything but a server reply is the connection: refused, reset, closed, offline, timed out.
  if (!isErrorReply(error)) return true;
  return TRANSIENT_REPLY.test(error.message);
}

/** Whether a failure means the slot map is out of date, so the topology should be read afresh. */
export function staleTopology(error: unknown): boolean {
  return !isErrorReply(error) || STALE_TOPOLOGY_REPLY.test(error.message);
}

export function isMoved(error: unknown): boolean {
  return isErrorReply(error) && error.message.startsWith("MOVED ");
}

/** The pause after failed attempt number `attempt` (from 0): doubling from 25 ms, at most 500 ms, never past `deadline`. */
export function backoffMs(attempt: number, deadline: number, now = Date.now()): number {
  return Math.min(25 * 2 ** attempt, 500, Math.max(0, deadline - now));
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One call as retrying() runs it. */
export interface RetriedCall<T> {
  /** Before each attempt: what it needs (the first slot map); a rejection here ends the call. */
  ready(): Promise<void>;
  /** One attempt. */
  attempt(): Promise<T>;
  /** After a transient failure, before the pause (a topology refresh); false ends the call with that failure. */
  recover(error: unknown): Promise<boolean>;
}

/**
 * Runs `call` until an attempt resolves: a transient failure (isTransient) is tried again after a
 * backoff until `deadline` (a Date.now() time); any other failure, or one at the deadline, is the call's.
 */
export async function retrying<T>(deadline: number, call: RetriedCall<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    await call.ready();
    try {
      return await call.attempt();
    } catch (error) {
      if (!isTransient(error) || Date.now() >= deadline || !(await call.recover(error))) throw error;
      await pause(backoffMs(attempt, deadline));
    }
  }
}
