/**
 * A Worker whose queue holds its receives back (receive-block.ts): paused, rate-limited (its
 * limit spent, or a block), or at its concurrency limit. How long it sleeps, as a pure function,
 * and which wakes may end that sleep: only a control wake (a resume, a freed slot), as a send
 * cannot be taken before the block ends anyway.
 *
 * - Paused: until the pause's `until`, or the idle cap without one (a resume wakes it at once;
 *   the cap bounds how late a resume whose wake went unheard is seen, and what a paused worker
 *   costs: one look per cap).
 * - Limited: until the server said a receive may take one again, plus a jitter below the
 *   limit's interval (at most 10 ms) so a fleet's workers, all told the same time, do not all
 *   call in the same millisecond; small, as a late taker wastes capacity the limit does not
 *   keep. Never longer than the cap, so a changed or removed limit is obeyed within one cap.
 * - At the concurrency limit (`maxed`): until the first lease ends by itself (the earliest vt of
 *   the messages in flight), at most the cap. A slot freed sooner wakes it: any rsmq-next client's
 *   delete publishes `~free:`, and one of its own handlers ending wakes it directly (worker-loop.ts).
 *   No jitter: the wake, not the timer, is what usually ends this sleep.
 */
import type { ReceiveBlock } from "../operations/receive-block";

/** The widest jitter added to a rate-limited worker's sleep, ms. */
export const MAX_LIMIT_JITTER_MS = 10;

/** Whether a look's answer is a block rather than a due time. */
export function isBlock(answer: number | null | ReceiveBlock): answer is ReceiveBlock {
  return typeof answer === "object" && answer !== null;
}

/**
 * The sleep of a worker held back by `block`, in ms: at least 1 (a block that ends now is asked
 * again after a tick, not in a spin), at most `maxMs`. `random` is uniform in [0, 1).
 */
export function heldBackSleep(block: ReceiveBlock, maxMs: number, random: () => number): number {
  if (block.reason === "paused") return block.retryMs === null ? maxMs : Math.min(Math.max(block.retryMs, 1), maxMs);
  const interval = block.reason === "limited" ? block.intervalMs : 0;
  const jitter = Math.floor(random() * Math.min(Math.max(interval, 0), MAX_LIMIT_JITTER_MS));
  return Math.min(Math.max(block.retryMs + jitter, 1), maxMs);
}
