/**
 * Which wakes a Worker acts on. A send in this process reaches it twice, through the hub and on
 * the wake channel (the same id, in either order), and so does a resume (the same control text):
 * the second is dropped. While the worker sleeps held back by a pause, a rate limit or the
 * concurrency limit, a send cannot be taken before the block ends, so only a control wake counts:
 * a resume (`~resume:`), a slot freed at the concurrency limit or a changed limit (`~free:`), any
 * text starting with `~`.
 */
import { isControlWake } from "../operations/receive-block";
import { FreshWakes } from "../wakes/fresh-wakes";

/** What a heard wake does: nothing, wake the worker, or wake it as a control wake (a block may be over). */
export type WakeVerdict = "drop" | "wake" | "control";

/** One worker's filter of its wakes. */
export class WakeFilter {
  private readonly freshWakes = new FreshWakes();
  /** Set while the worker sleeps held back: only a control wake counts. */
  held = false;

  /** What the wake whose text is `id` (a message id, a realtime count, a control text, none) does. */
  verdict(id: string | undefined): WakeVerdict {
    if (isControlWake(id)) return this.freshWakes.fresh(id) ? "control" : "drop";
    return !this.held && this.freshWakes.fresh(id) ? "wake" : "drop";
  }
}
