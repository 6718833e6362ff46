/**
 * Which of a pool's connections carries the next call, held for the rest of the synchronous
 * stretch of code that made it, so calls made without an `await` between them keep their order.
 *
 * - The choice (`fewestInFlight`): the fewest calls in flight among the connections that are up and
 *   trusted, ties to the lowest index (calls made one at a time all go on the first); when none is
 *   up, the first trusted one (the call waits there, within offlineTimeoutMs), else the first. A
 *   connection being checked for a silent link is not trusted; a silent link also collects calls
 *   that never return, so the rule steers new calls away from it until it is found.
 * - The hold (`StretchChoice`): a new stretch starts at the next microtask, and right before each
 *   continuation or callback the caller gets from the library (the Handover): the continuations of
 *   replies that arrived together run back to back, before any microtask queued by the first of
 *   them, and each of them should choose for itself.
 */
import type { Handover } from "../handover";

/** What the dispatch reads of each connection. */
export interface DispatchTarget {
  readonly connected: boolean;
  /** Calls sent on it and not answered yet. */
  inFlight: number;
  /** Being checked: another connection to the same server was found silent or lost. */
  suspect: boolean;
}

/** Pure: the index of the connection for the next call. */
export function fewestInFlight(targets: readonly DispatchTarget[]): number {
  let best = -1;
  let waiting = -1;
  for (let index = 0; index < targets.length; index += 1) {
    const target = targets[index];
    if (target.suspect) continue;
    if (!target.connected) {
      if (waiting === -1) waiting = index;
      continue;
    }
    if (best === -1 || target.inFlight < targets[best].inFlight) best = index;
  }
  if (best !== -1) return best;
  return waiting === -1 ? 0 : waiting;
}

/** Holds one choice for the rest of the synchronous stretch in which it was made; a pool's Handover. */
export class StretchChoice<T extends DispatchTarget> implements Handover {
  private held: T | undefined;

  /** Ends the current stretch: the next call chooses afresh. Bound: queued as a microtask and a promise reaction. */
  readonly startNewStretch = (): void => {
    this.held = undefined;
  };

  /** @param targets the pool's connections, read live (connections join and leave) */
  constructor(private readonly targets: readonly T[]) {}

  /** The connection for a call made now. */
  next(): T {
    if (this.held) return this.held;
    const chosen = this.targets[fewestInFlight(this.targets)];
    this.held = chosen;
    // Stretches that end without a hand-out (a plain `await` inside the library, a timer) end here.
    queueMicrotask(this.startNewStretch);
    return chosen;
  }

  /** A target taken out of the list: a choice of it held in this stretch no longer holds. */
  forget(target: T): void {
    if (this.held === target) this.held = undefined;
  }

  /** With one connection there is nothing to choose: the promise goes out as it is, with no extra reaction. */
  handOut<R>(promise: Promise<R>): Promise<R> {
    return this.targets.length > 1 ? this.endingStretch(promise) : promise;
  }

  /**
   * `promise`, with a reaction registered first that starts a new stretch: reactions run in the
   * order they were registered, so it runs right before each continuation the caller attaches.
   */
  endingStretch<R>(promise: Promise<R>): Promise<R> {
    promise.then(this.startNewStretch, this.startNewStretch);
    return promise;
  }
}
