/**
 * How a transport hands a call's outcome to the caller's code: where a pool of connections learns
 * that the caller's synchronous stretch ended (see node-redis/pool-dispatch.ts). The facade passes
 * every outcome through it (lib/hand-out.ts).
 */

/** What a transport does as a call's outcome reaches the caller. */
export interface Handover {
  /**
   * The promise to give the caller for `promise` (the outermost one, that the caller's own
   * continuations attach to): on a pool spreading calls, each of those continuations starts a new
   * stretch. Elsewhere `promise` itself.
   */
  handOut<R>(promise: Promise<R>): Promise<R>;
  /** Called right before a callback the caller gave gets an outcome: on a pool, its calls start a new stretch. */
  startNewStretch(): void;
}

/** One connection, a cluster or an ioredis client: nothing to spread, outcomes go out as they are. */
export const HAND_OUT_AS_IS: Handover = {
  handOut: <R>(promise: Promise<R>): Promise<R> => promise,
  startNewStretch: (): void => undefined,
};
