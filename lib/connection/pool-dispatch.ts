/**
 * Which of a pool's connections carries the next call: the connection with the fewest calls in
 * flight among those that are up and trusted (ties to the lowest index, so calls made one at a
 * time all go on the first); when none is, the first trusted one (the call waits there for its
 * connection, within offlineTimeoutMs), else the first. A connection is not trusted while it is
 * being checked for a silent link. A silent link also collects calls that never return, so the
 * fewest-in-flight rule steers new calls away from it until it is found. A choice holds until the current synchronous stretch of code ends
 * (the next microtask): calls made one after another without an `await` between them go out on
 * the same connection, in the order they were made, as they do on one connection.
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

/** Holds one choice for the rest of the synchronous stretch in which it was made. */
export class StretchChoice<T extends DispatchTarget> {
  private held: T | undefined;
  private readonly release = (): void => {
    this.held = undefined;
  };

  constructor(private readonly targets: readonly T[]) {}

  /** The connection for a call made now. */
  next(): T {
    if (this.held) return this.held;
    const chosen = this.targets[fewestInFlight(this.targets)];
    this.held = chosen;
    queueMicrotask(this.release);
    return chosen;
  }
}
