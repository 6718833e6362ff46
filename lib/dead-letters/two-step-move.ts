/**
 * The move between queues whose keys cannot share a script (different Redis Cluster slots), used
 * by dead-lettering and by redrive alike. Three steps, in an order that makes a crash duplicate a
 * message and never drop it:
 * 1. hold what is to move in the source (hidden for `holdMs`): this checks it is still there and
 *    keeps other consumers (and other movers) off it; a crash after this only delays it;
 * 2. copy it into the target;
 * 3. delete it from the source.
 * A crash between 2 and 3 leaves the message in both queues, never in neither; the copy scripts
 * count a message already in the target only once, so the move can simply be run again.
 */

/** How long a two-step move holds what it is moving (a crash delays it this much). */
export const HOLD_MS = 60_000;

export interface TwoStepOptions {
  /** How long the source holds what is being moved, in ms. @default 60000 */
  holdMs?: number;
  /** Runs between the copy and the delete; for crash tests. */
  afterCopy?: () => void | Promise<void>;
}

/** One move: what each step does. `Held` is what step 1 found and holds (undefined: nothing). */
export interface TwoStepMove<Held> {
  hold(holdMs: number): Promise<Held | undefined>;
  /** Resolves how many messages were copied. */
  copy(held: Held): Promise<number>;
  /** Resolves how many messages were deleted from the source. */
  remove(held: Held): Promise<number>;
}

export interface TwoStepResult {
  copied: number;
  removed: number;
}

/** Runs the three steps in order; resolves undefined when nothing was there to hold. */
export async function moveInTwoSteps<Held>(move: TwoStepMove<Held>, options: TwoStepOptions = {}): Promise<TwoStepResult | undefined> {
  const held = await move.hold(options.holdMs ?? HOLD_MS);
  if (held === undefined) return undefined;
  const copied = await move.copy(held);
  await options.afterCopy?.();
  const removed = await move.remove(held);
  return { copied, removed };
}
