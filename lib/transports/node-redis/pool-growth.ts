/**
 * When a pool that starts with one connection opens another, and when it closes it again: the
 * default footprint of an instance is rsmq 0.12.4's (one command connection), and the overlap a
 * second connection gives (see connection-pool.ts) is paid for only while calls pile up on the
 * first. Calls made one at a time, the Worker's among them (it has one call in flight at a time:
 * a receive, then the deletes of that batch in one call), never open it.
 */

/** How a pool of connections opened on demand grows and shrinks. */
export interface PoolGrowth {
  /** The most connections the pool may hold, the first included. */
  readonly most: number;
  /** An extra connection opens when a call leaves this many calls in flight on the connection it went on. */
  readonly openAtInFlight: number;
  /**
   * An extra connection closes once, up, a whole period of this many ms went by in which it
   * carried no call (so between one and two periods after its last); one that is not up within a
   * period is given up; after an extra connection failed or was lost, none opens for a period.
   */
  readonly idleMs: number;
}

/**
 * Left out, `connections` means this: one connection, and a second while calls pile up. From the
 * bench's `connections` part (bench/README.md, "Why two connections"): 4 calls in flight on one
 * connection is where a second one starts to pay on a 2-core machine.
 */
export const ON_DEMAND: PoolGrowth = { most: 2, openAtInFlight: 4, idleMs: 10_000 };
