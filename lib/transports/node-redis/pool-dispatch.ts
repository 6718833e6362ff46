/**
 * Which of a pool's connections carries the next call: the connection with the fewest calls in
 * flight among those that are up and trusted (ties to the lowest index, so calls made one at a
 * time all go on the first); when none is, the first trusted one (the call waits there for its
 * connection, within offlineTimeoutMs), else the first. A connection is not trusted while it is
 * being checked for a silent link. A silent link also collects calls that never return, so the
 * fewest-in-flight rule steers new calls away from it until it is found.
 *
 * A choice holds until the current synchronous stretch of code ends (the next microtask, or the
 * caller's continuation of a promise or callback this library handed out): calls made one after
 * another without an `await` between them go out on the same connection, in the order they were
 * made, as on one connection; the continuations of replies that arrived together each choose.
 */
/** What the dispatch reads of each connection. */
export interface DispatchTarget {
  /** Whether the connection is up right now. */
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

/**
 * Counts synchronous stretches that are known to have ended. A microtask queued at the first call
 * of a stretch runs only after every continuation queued before it: when many replies arrive at
 * once, their continuations would all share the first one's choice. So a promise handed to the
 * caller ends the stretch right before the caller's own continuation runs (see `endsStretch`), and
 * so does a callback (lib/callbacks.ts).
 */
let stretches = 0;

/** Ends the current synchronous stretch: a call made after this chooses its connection afresh. */
export function endStretch(): void {
  stretches += 1;
}

/**
 * Returns `promise` after registering, first, a reaction that ends the current stretch: it runs
 * right before each continuation the caller then attaches, so each continuation chooses afresh.
 */
export function endsStretch<T>(promise: Promise<T>): Promise<T> {
  promise.then(endStretch, endStretch);
  return promise;
}

/** Holds one choice for the rest of the synchronous stretch in which it was made. */
export class StretchChoice<T extends DispatchTarget> {
  private held: T | undefined;
  private heldIn = 0;
  private readonly release = (): void => {
    this.held = undefined;
  };

  constructor(private readonly targets: readonly T[]) {}

  /** A target taken out of the list: a choice of it held in this stretch no longer holds. */
  forget(target: T): void {
    if (this.held === target) this.held = undefined;
  }

  /** The connection for a call made now. */
  next(): T {
    if (this.held && this.heldIn === stretches) return this.held;
    const chosen = this.targets[fewestInFlight(this.targets)];
    this.held = chosen;
    this.heldIn = stretches;
    queueMicrotask(this.release);
    return chosen;
  }
}
