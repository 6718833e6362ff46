/**
 * Reads a queue's controls from the `:Q` fields that hold them (`paused`, `ratelimit`, `rlblock`;
 * lib/operations/queue-fields.ts), as stored, at the server's time `nowMs`: the shape
 * getQueueAttributesAsync reports and the readings of many queues (stats, the dashboard, the
 * metrics) show. Pure: no round trip. A field that does not parse reads as absent, so a damaged
 * field never makes a reading fail (the doctor reports it).
 */

/** A pause in force (or a hard pause's restore still running). Times are epoch ms, server clock. */
export interface PauseState {
  since: number;
  /** When it ends by itself; absent: until a resume. */
  until?: number;
  /** Whether every message's score was moved out of reach (rsmq 0.12.4 consumers obey it too). */
  hard: boolean;
  /** True while the scores of a resumed hard pause are being restored: the queue is not paused. */
  restoring?: true;
}

/** One limit: `max` receives (or sends, when paced) per `perMs`, and `burst` more after a quiet spell. */
export interface RateLimitRule {
  max: number;
  perMs: number;
  burst: number;
}

/** A queue's rate limit: its limits (all hold at once) and where it is checked. */
export interface RateLimitSetting {
  limits: RateLimitRule[];
  /** "receive": checked at receive (rsmq-next consumers); "pace": new messages are spaced at send. */
  mode: "receive" | "pace";
}

/** The controls of a queue, each absent when not set (or, for a pause and a block, not in force). */
export interface QueueControls {
  paused?: PauseState;
  rateLimit?: RateLimitSetting;
  /** Epoch ms until which receives are blocked (rateLimitQueue, a handler's RateLimitError). */
  rateLimitedUntil?: number;
}

const INTEGER = /^\d+$/;

/** `<sinceMs>:<untilMs or empty>:<kind>`; absent when there is no pause in force. */
export function readPause(field: string | null | undefined, nowMs: number): PauseState | undefined {
  const parts = field?.split(":");
  if (!parts || parts.length !== 3 || !INTEGER.test(parts[0]) || (parts[1] !== "" && !INTEGER.test(parts[1]))) return undefined;
  const [since, until, kind] = [Number(parts[0]), parts[1] === "" ? undefined : Number(parts[1]), parts[2]];
  if (kind === "r") return { since, hard: true, restoring: true };
  if (kind !== "s" && kind !== "h") return undefined;
  if (until !== undefined && until <= nowMs) return undefined;
  return until === undefined ? { since, hard: kind === "h" } : { since, until, hard: kind === "h" };
}

/** `<mode>;<max>/<perMs>/<burst>[,...]`; absent when the field is missing or does not parse. */
export function readRateLimit(field: string | null | undefined): RateLimitSetting | undefined {
  const match = field ? /^([rp]);(.+)$/.exec(field) : null;
  if (!match) return undefined;
  const limits: RateLimitRule[] = [];
  for (const text of match[2].split(",")) {
    const numbers = text.split("/");
    if (numbers.length !== 3 || !numbers.every((part) => INTEGER.test(part))) return undefined;
    const [max, perMs, burst] = numbers.map(Number);
    if (max < 1 || perMs < 1) return undefined;
    limits.push({ max, perMs, burst });
  }
  return { limits, mode: match[1] === "p" ? "pace" : "receive" };
}

/** The block in force (`rlblock`, epoch ms) or absent when none is. */
export function readBlock(field: string | null | undefined, nowMs: number): number | undefined {
  if (!field || !INTEGER.test(field)) return undefined;
  const until = Number(field);
  return until > nowMs ? until : undefined;
}

/** All three, each only when set: so an untouched queue reads with none of them. */
export function readControls(
  paused: string | null | undefined,
  ratelimit: string | null | undefined,
  rlblock: string | null | undefined,
  nowMs: number,
): QueueControls {
  const controls: QueueControls = {};
  const pause = readPause(paused, nowMs);
  if (pause) controls.paused = pause;
  const rateLimit = readRateLimit(ratelimit);
  if (rateLimit) controls.rateLimit = rateLimit;
  const block = readBlock(rlblock, nowMs);
  if (block !== undefined) controls.rateLimitedUntil = block;
  return controls;
}

/** Whether receives are held back by a pause (a restore in progress is not a pause). */
export function isPaused(controls: QueueControls): boolean {
  return controls.paused !== undefined && controls.paused.restoring !== true;
}

/** The sustained rate of the tightest limit, per second (without its burst); undefined without a limit. */
export function tightestPerSecond(setting: RateLimitSetting | undefined): number | undefined {
  if (!setting) return undefined;
  return Math.min(...setting.limits.map((limit) => (limit.max * 1000) / limit.perMs));
}
