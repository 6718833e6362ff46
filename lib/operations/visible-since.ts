/**
 * When a message became (or becomes) visible, from its score and its id. A message sent visible
 * at once with a priority is scored back in time by PRIORITY_STEP_MS per level (about 31.7 years
 * each, lib/operations/priority.ts): its score says nothing of when it became visible, which was
 * when it was sent. No message becomes visible before it was sent, so a score before the id's send
 * time is read as that send time; any other score (a delay, a redelivery, rsmq 0.12.4's scores) is
 * the time itself.
 */
import { sentAt } from "./message-reply";
import { MAX_PRIORITY, PRIORITY_STEP_MS } from "./priority";

/** The epoch ms at which the message `id` with score `score` became (or becomes) visible. */
export function visibleSince(id: string, score: number): number {
  // In whole ms, as scores are: the send's own ms (lua/sendMessage-2.lua rounds down), so a message
  // sent in the server's current ms is visible, not due a fraction of a ms later.
  const sent = Math.floor(sentAt(id));
  return score < sent ? sent : score;
}

/**
 * The priority a message is scored at now: the levels its score lies back from its send time
 * (0 for a delayed, in-flight or redelivered message, which keeps no priority: docs/priorities.md).
 */
export function scoredPriority(id: string, score: number): number {
  const back = Math.floor(sentAt(id)) - score;
  return back <= 0 ? 0 : Math.min(MAX_PRIORITY, Math.round(back / PRIORITY_STEP_MS));
}
