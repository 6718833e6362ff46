/**
 * A consumer in the process of a send hears it twice: through the in-process hub (wake-hub.ts)
 * and on the queue's wake channel, whose publish carries the same message id, in either order; a
 * resume or a limit change likewise, with the same control text (`~resume:<ms>`). Each consumer
 * keeps the texts of the last few wakes so the second makes no second look.
 */
import { isControlWake } from "../operations/receive-block";

/** The length of every message id (10 characters of server time, 22 random ones). */
const MESSAGE_ID_LENGTH = 32;

/** How many ids a consumer keeps to match a send's two wakes: far more than arrive between the two. */
const REMEMBERED = 64;

/**
 * One consumer's filter of its wakes: a send or a control change in this process reaches it twice,
 * through the hub and on the wake channel (the same text, in either order); the second is dropped. Any other wake
 * (no id, a realtime count) always passes.
 */
export class FreshWakes {
  private readonly seen = new Set<string>();

  /** Whether this wake should make a look: false for the second wake of the same send. */
  fresh(id: string | undefined): boolean {
    // Only a message id or a control text is matched: a realtime notification's count (digits),
    // which two different sends can share, is never one.
    if (id === undefined || (id.length !== MESSAGE_ID_LENGTH && !isControlWake(id))) return true;
    if (this.seen.delete(id)) return false;
    this.seen.add(id);
    // Oldest first: a Set keeps insertion order.
    if (this.seen.size > REMEMBERED) this.seen.delete(this.seen.values().next().value as string);
    return true;
  }
}
