/**
 * The documented differences from rsmq 0.12.4 (docs/differences.md, numbered as there) as the
 * differential fuzz test applies them, all in this one place, each under its name. Anything a
 * rule does not cover must be equal, reply for reply and key for key.
 *
 * Covered elsewhere, so no rule here: message ids and clock readings are tokenised by
 * `idTokens()` and `snapshot()` (difference 12: ids compare by the order a run first saw them;
 * `sent`, `fr`, `created`, `modified` by shape, once each step's `WriteWatch` has checked what it
 * wrote at the byte level), options objects are fresh for every call
 * (difference 8), and the fuzz test uses the promise API (difference 11).
 */
import { fails } from "./differential";
import type { Outcome } from "./differential";
import type { Snapshot } from "./state";

/** A step's normalised outcomes and the states around it, as a rule sees them. */
export interface StepView {
  op: string;
  options: Record<string, unknown>;
  rsmq: Outcome;
  next: Outcome;
  /** rsmq's state before the step (normalised). */
  rsmqBefore: Snapshot;
  /** rsmq-next's state after the step, scores already through `visibleScores`. */
  nextAfter: Snapshot;
}

const errorName = (result: Outcome): unknown => ("error" in result ? result.error.name : undefined);

/** docs/differences.md 6: the queue name `QUEUES` (rsmq 0.12.4 corrupts its queue list with it). */
export const RESERVED_QNAME = "QUEUES";

export const RULES = {
  /**
   * docs/differences.md 6: a step on the queue `QUEUES` runs on rsmq-next only, which must reject it with
   * invalidFormat; rsmq 0.12.4 would write its queue list as a queue, after which the two runs
   * could no longer be compared at all.
   */
  queuesNameReserved: {
    applies: (options: Record<string, unknown>): boolean => options.qname === RESERVED_QNAME,
    expected: fails("invalidFormat", 'Invalid qname format: "QUEUES" is reserved for the queue list'),
  },

  /**
   * docs/differences.md 2: rsmq-next validates all input before any round trip; rsmq 0.12.4 looked the queue
   * up first. So on a queue that does not exist, receiveMessage and sendMessage with bad input
   * report the input error where rsmq reports queueNotFound.
   */
  inputBeforeQueue(view: StepView): boolean {
    const queueMissing = !(`<ns>:${String(view.options.qname)}:Q` in view.rsmqBefore);
    return (
      (view.op === "receiveMessage" || view.op === "sendMessage") &&
      queueMissing &&
      errorName(view.rsmq) === "queueNotFound" &&
      ["invalidValue", "messageNotString"].includes(errorName(view.next) as string)
    );
  },

  /**
   * docs/differences.md 5: rsmq 0.12.4 counted as hidden every message with a score from the start of the
   * current second, so it may count messages that are already visible. rsmq-next's hiddenmsgs must
   * be exact (the messages its state shows as not yet visible); rsmq's may be higher, up to msgs.
   * Both getQueueAttributes and setQueueAttributes reply with the attributes.
   * Returns both replies with hiddenmsgs replaced by a token when the rule holds, unchanged else.
   */
  hiddenmsgsInMilliseconds(view: StepView): { rsmq: Outcome; next: Outcome } {
    const unchanged = { rsmq: view.rsmq, next: view.next };
    const attributesReply = view.op === "getQueueAttributes" || view.op === "setQueueAttributes";
    if (!attributesReply || !("value" in view.rsmq) || !("value" in view.next)) return unchanged;
    const theirs = view.rsmq.value as { hiddenmsgs: number; msgs: number };
    const ours = view.next.value as { hiddenmsgs: number };
    const queue = view.nextAfter[`<ns>:${String(view.options.qname)}`] as { zset?: Array<[string, unknown]> } | undefined;
    const hiddenInState = (queue?.zset ?? []).filter(([, score]) => score !== VISIBLE).length;
    const holds = ours.hiddenmsgs === hiddenInState && theirs.hiddenmsgs >= ours.hiddenmsgs && theirs.hiddenmsgs <= theirs.msgs;
    if (!holds) return unchanged;
    return {
      rsmq: { value: { ...theirs, hiddenmsgs: "<hidden>" } },
      next: { value: { ...ours, hiddenmsgs: "<hidden>" } },
    };
  },
};

/** How `visibleScores` shows a message that is due (its score is not after now). */
export const VISIBLE = "<visible>";

/**
 * Not a difference but a property of time: a due message's score is its send or receive time, so
 * "seconds from now" grows while a run goes on and two runs read it at different moments. Due
 * messages therefore compare as `<visible>`, in their order in the sorted set (which decides what
 * a receive returns); messages not yet due show their time to go in tens of seconds: the fuzz
 * test gives delays and visibility timeouts of 0 or at least an hour, but a queue's default vt is
 * 30 s, which a slow run would otherwise see as 30 s in one library and 29 s in the other.
 */
export function visibleScores(state: Snapshot): Snapshot {
  const result: Snapshot = {};
  for (const [key, value] of Object.entries(state)) {
    const entry = value as { zset?: Array<[string, number]> };
    result[key] = entry.zset
      ? { zset: entry.zset.map(([member, score]) => [member, score > 0 ? Math.round(score / 10) * 10 : VISIBLE]) }
      : value;
  }
  return result;
}
