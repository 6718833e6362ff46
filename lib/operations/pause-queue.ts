/**
 * pauseQueueAsync: sets the queue's `paused` field (lua/pauseQueue-2.lua); a hard pause then
 * shifts every score in chunks (lua/pauseScores-2.lua) until none is left. The chunk builder is
 * shared with the resume (resume-queue.ts), which restores with it.
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { rsmqError } from "../errors/rsmq-errors";
import { isGiven, validateQname } from "./rsmq-input-rules";
import { validateHard, validateUntil } from "./control-rules";
import type { PauseQueueOptions } from "../types";
import type { RedisSMQInternals } from "../internals";
import { defineProcedure } from "./descriptor";

/** What one chunk of a score move did: how many moved, whether none is left, and a finished restore's wake text. */
export type PauseChunk = { moved: number; done: boolean; wake?: string } | "stopped";

/** A hard pause lasts until a resume: the script refuses an `until` on a hard-paused (or restoring) queue. */
const HARD_WITH_UNTIL = -5;
/** The chunk script's reply when the queue left the state its loop works for (another call took over). */
const STOPPED = -6;

function hardWithUntil(): Error {
  return rsmqError("invalidValue", "The queue is hard-paused: a hard pause ends only by resumeQueue, so `until` cannot be set on it");
}

/** Sets the pause; resolves the kind in force, "h" when the caller must shift the scores. */
export function pauseQueue(layout: KeyLayout, qname: string, until: number | undefined, hard: boolean): Operation<"s" | "h"> {
  const keys = layout.queue(qname);
  return {
    script: "pauseQueue",
    keys: [keys.messages, keys.hash],
    args: [until === undefined ? "" : String(until), hard ? "h" : "s"],
    parse(reply) {
      if (reply === HARD_WITH_UNTIL) throw hardWithUntil();
      failIfCode(reply);
      return reply === "h" ? "h" : "s";
    },
  };
}

/** One chunk of at most 1000 scores: shifted for a hard pause, or restored for a resume (which then publishes its wake). */
export function pauseScores(layout: KeyLayout, qname: string, direction: "shift" | "restore"): Operation<PauseChunk> {
  const keys = layout.queue(qname);
  return {
    script: "pauseScores",
    keys: [keys.messages, keys.hash],
    args: [direction, keys.wakeChannel, layout.cluster ? "1" : ""],
    parse(reply) {
      if (reply === STOPPED) return "stopped";
      failIfCode(reply);
      const [moved, done, wake] = reply as [number, number, string?];
      return { moved, done: done === 1, wake };
    },
  };
}

/**
 * Runs chunks in `direction` until none is left or another call took over (a resume during a
 * shift, a pause during a restore: that call finishes the job). Each chunk is one bounded script;
 * resolves a finished restore's wake text.
 */
export async function moveAllScores(
  internals: RedisSMQInternals,
  qname: string,
  direction: "shift" | "restore",
): Promise<string | undefined> {
  for (;;) {
    const chunk = await internals.run(() => pauseScores(internals.layout, qname, direction));
    if (chunk === "stopped") return undefined;
    if (chunk.done) return chunk.wake;
  }
}

/** pauseQueueAsync: resolves 1 once the queue is paused (for a hard pause: once every score is shifted). */
export const pauseQueueOperation = defineProcedure<PauseQueueOptions, 1>({
  optionKeys: { qname: true, until: true, hard: true },
  prepare: (options) => {
    const qname = validateQname(options.qname);
    const until = isGiven(options.until) ? validateUntil(options.until, Date.now()) : undefined;
    const hard = isGiven(options.hard) ? validateHard(options.hard) : false;
    if (hard && until !== undefined) {
      throw rsmqError("invalidValue", "A hard pause takes no `until`: it ends only by resumeQueue, which restores the scores");
    }
    return async (internals) => {
      // A soft pause of a hard-paused queue leaves it hard: the shift is finished then too, so a
      // pauser that died mid-shift is made good by any pause.
      if ((await internals.run(() => pauseQueue(internals.layout, qname, until, hard))) === "h") {
        await moveAllScores(internals, qname, "shift");
      }
      return 1;
    };
  },
});
