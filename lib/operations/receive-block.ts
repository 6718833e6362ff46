/**
 * Why a receive took nothing although messages may be due: the queue is paused (pauseQueue), or
 * its rate limit (setRateLimit) or a block (rateLimitQueue) holds receives back. The receive
 * scripts (lua/receiveMessage-3.lua, lua/deleteAndReceive-3.lua, lua/nextDue-2.lua) say so in the
 * first element of their reply, a text where a number (the next due time) stands otherwise:
 * `paused:<ms>` (ms until the pause ends by itself; -1: until a resume) or
 * `limited:<ms>:<intervalMs>` (ms until a receive may take one again, exact on the server's clock,
 * and the interval between two receives of the limit that holds it back; 0 for a block), or
 * `maxed:<ms>` (the concurrency limit is reached; ms until the first slot frees by itself).
 */

/** A receive held back: by a pause, or by a rate limit or block. */
export type ReceiveBlock =
  | {
      /** Paused (pauseQueue). */
      reason: "paused";
      /** Ms until the pause ends by itself (its `until`); null: until a resume. */
      retryMs: number | null;
    }
  | {
      /** Rate-limited (setRateLimit), or blocked (rateLimitQueue, a handler's RateLimitError). */
      reason: "limited";
      /** Ms until a receive may take a message again, exact on the server's clock. */
      retryMs: number;
      /** The limit's spacing between two receives, in ms; 0 for a block. */
      intervalMs: number;
    }
  | {
      /** The queue's concurrency limit (setConcurrency) is reached: as many messages as it allows are in flight. */
      reason: "maxed";
      /**
       * Ms until the first message in flight reaches the end of its vt, when its slot frees by
       * itself at the latest; a delete (or a release) frees one sooner and publishes `~free:`.
       */
      retryMs: number;
    };

/**
 * Wakes whose text starts with this are a queue's control wakes (a resume), never a message id
 * (32 characters of [A-Za-z0-9]) nor a realtime count (digits): a consumer held back by a pause
 * or a rate limit ignores every other wake, and acts on these at once.
 */
export const CONTROL_WAKE_PREFIX = "~";

/** The text a resume publishes on the queue's wake channel (and hands the in-process hub): `~resume:<server ms>`. */
export const RESUME_WAKE_PREFIX = `${CONTROL_WAKE_PREFIX}resume:`;

/**
 * The text a delete (or a release) publishes when it frees a slot of a queue at its concurrency
 * limit, and a concurrency change publishes: `~free:<server ms>`.
 */
export const FREE_WAKE_PREFIX = `${CONTROL_WAKE_PREFIX}free:`;

/** Whether a wake's text is a control wake (see CONTROL_WAKE_PREFIX). */
export function isControlWake(text: string | undefined): boolean {
  return text !== undefined && text.startsWith(CONTROL_WAKE_PREFIX);
}

/** The block a script's first reply element tells, or undefined when it is not one (a number: not held back). */
export function parseReceiveBlock(value: unknown): ReceiveBlock | undefined {
  if (typeof value !== "string") return undefined;
  const [reason, ms, interval] = value.split(":");
  if (reason === "paused") {
    const retryMs = Number(ms);
    return { reason, retryMs: retryMs < 0 ? null : retryMs };
  }
  if (reason === "limited") return { reason, retryMs: Number(ms), intervalMs: Number(interval ?? 0) };
  if (reason === "maxed") return { reason, retryMs: Math.max(0, Number(ms)) };
  return undefined;
}
