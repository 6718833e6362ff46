/**
 * Priorities that every rsmq client honours: each receives the lowest due score first, so a
 * message visible at once is scored back in time by PRIORITY_STEP_MS per level. A larger
 * priority is then received first, and within a level the order stays by send time (see
 * docs/priorities.md and lua/shared/message-score.lua, which holds the same step).
 */
import { rsmqError } from "../errors/rsmq-errors";

/** The largest priority; 0 is the default and the lowest. */
export const MAX_PRIORITY = 9;

/**
 * How far back one level scores a message, in ms (about 31.7 years): longer than any message
 * waits, so a level-1 message sent now still comes before a level-0 one sent long ago. Scores
 * stay exact doubles: 1.8e12 - 9e12 is far inside 2^53.
 */
export const PRIORITY_STEP_MS = 1e12;

/** A priority: a whole number from 0 to MAX_PRIORITY (a new option, so no parseInt leniency). */
export function validatePriority(value: unknown, item = "priority"): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_PRIORITY) {
    throw rsmqError("invalidValue", `${item} must be a whole number between 0 and ${MAX_PRIORITY}`);
  }
  return value;
}
