/**
 * The due time a worker knows of without asking Redis: when a message it let go (a retry it
 * scheduled) becomes visible again.
 *
 * - A new note keeps the earlier of the two due times.
 * - The idle sleep is shortened to it (planIdleSleep), which also drops a due time that has passed.
 * - A poll's reply replaces it: see {@link KnownDue.pollStarted}.
 */
import { planIdleSleep } from "./sleep-policy";
import type { IdleSleepInput } from "./sleep-policy";

/** One worker's known due time, and the rules that keep it or let it go. */
export class KnownDue {
  /** Local epoch ms; undefined while the worker knows of none. */
  private dueAt: number | undefined;

  /** Local epoch ms at which a message this worker let go becomes due again, if it knows of one. */
  get at(): number | undefined {
    return this.dueAt;
  }

  /** Notes that a message this worker let go becomes due at `dueAt` (local epoch ms). */
  note(dueAt: number): void {
    if (this.dueAt === undefined || dueAt < this.dueAt) this.dueAt = dueAt;
  }

  /**
   * Marks a poll's start; call the returned function once the poll has replied. A poll that
   * started after the worker let a message go saw that message's due time on the server, so its
   * reply is the better guide and the note is dropped. Keeping it would cut the next sleep short
   * by the few ms the local clock lags the server's, for one more, empty, receive. A message let go
   * while the poll was in flight keeps its note.
   */
  pollStarted(): () => void {
    const before = this.dueAt;
    return () => {
      if (this.dueAt === before) this.dueAt = undefined;
    };
  }

  /** The idle sleep's ms (see planIdleSleep), keeping the note only while it lies ahead. */
  planSleep(input: Omit<IdleSleepInput, "knownDueAt">): number {
    const plan = planIdleSleep({ ...input, knownDueAt: this.dueAt });
    this.dueAt = plan.knownDueAt;
    return plan.ms;
  }

  /** Whether the noted due time has come by `now` (local epoch ms). */
  reached(now: number): boolean {
    return this.dueAt !== undefined && this.dueAt <= now;
  }
}
