/**
 * Idempotent sends (docs/idempotent-sends.md): a send with a `dedupId` claims a side key with a
 * TTL, `<queue key>:dedup:<SHA-256 of the id>`, in the queue's hash slot. The key holds the
 * first message's id; a second send within the window finds it and stores nothing. The name
 * can be neither an rsmq 0.12.4 queue key (a queue name has no colon) nor its `:Q` hash, and the
 * TTL bounds what rsmq 0.12.4's deleteQueue, which does not know it, leaves behind.
 */
import { createHash } from "crypto";
import { rsmqError } from "../errors/rsmq-errors";
import type { QueueKeys } from "../keys";
import { isGiven } from "./rsmq-input-rules";

/** How long a dedupId is remembered when neither the call nor the queue says: SQS FIFO's 5 minutes. */
export const DEFAULT_DEDUP_WINDOW_MS = 300_000;
/** The longest window, 24 h: each remembered id costs a key for that long. */
export const MAX_DEDUP_WINDOW_MS = 86_400_000;
/** The longest dedupId, as SQS's MessageDeduplicationId. */
export const MAX_DEDUP_ID_LENGTH = 128;

/**
 * A `dedupWindowMs` given to a send without a `dedupId` (to a batch none of whose entries has
 * one): it has no effect, since only a dedupId is remembered. Told once (a warning: the send is
 * right as it is), not refused.
 */
export function unusedDedupWindow(options: {
  dedupWindowMs?: unknown;
  dedupId?: unknown;
  messages?: unknown;
}): { key: "dedupWindowMs"; because: string } | undefined {
  if (!isGiven(options.dedupWindowMs)) return undefined;
  const { messages } = options;
  if (!Array.isArray(messages)) {
    return isGiven(options.dedupId)
      ? undefined
      : { key: "dedupWindowMs", because: "it is how long a `dedupId` is remembered, and none is given" };
  }
  const anyId = messages.some(
    (entry: unknown) => typeof entry === "object" && entry !== null && isGiven((entry as { dedupId?: unknown }).dedupId),
  );
  return anyId
    ? undefined
    : { key: "dedupWindowMs", because: "it is how long the entries' `dedupId`s are remembered, and no entry has one" };
}

/** A dedupId: a string of 1 to MAX_DEDUP_ID_LENGTH characters, or `true` (derived from the body). */
export function validateDedupId(value: unknown, item = "dedupId"): string | true {
  if (value === true) return true;
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_DEDUP_ID_LENGTH) {
    throw rsmqError(
      "invalidValue",
      `${item} must be a string of 1 to ${MAX_DEDUP_ID_LENGTH} characters, or true to derive it from the message`,
    );
  }
  return value;
}

/** A window in ms, 1 to MAX_DEDUP_WINDOW_MS (a new option, so no parseInt leniency). */
export function validateDedupWindow(value: unknown, item = "dedupWindowMs"): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_DEDUP_WINDOW_MS) {
    throw rsmqError("invalidValue", `${item} must be a whole number of ms between 1 and ${MAX_DEDUP_WINDOW_MS}`);
  }
  return value;
}

const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * The side key of a dedupId: hashed, so an id of any characters (braces included, which would
 * pick another hash slot) gives a key in the queue's slot. `true` hashes the body first: the
 * same body is the same id.
 */
export function dedupKey(keys: QueueKeys, dedupId: string | true, message: string): string {
  const id = dedupId === true ? sha256(message) : dedupId;
  return `${keys.messages}:dedup:${sha256(id)}`;
}
