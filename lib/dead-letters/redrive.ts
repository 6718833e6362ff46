/**
 * Redrive: moves dead-lettered messages back, to their source queue (as recorded when they were
 * dead-lettered) or to a queue of the caller's choice, as new messages with their ids and bodies
 * (so their send times): due now, rc 0, no `fr`, no `dl` or `tp`. Each script call moves a
 * page of messages bound for one queue atomically; in Redis Cluster, where the two queues sit in
 * different slots, a page is copied first and deleted second (a crash duplicates, never drops).
 */
import { peekDeadLetterPage } from "../operations/peek-dead-letters";
import { peekMessage } from "../operations/peek-message";
import { redriveAtomically } from "../operations/redrive-atomically";
import { redriveClaim } from "../operations/redrive-claim";
import { redriveCopy } from "../operations/redrive-copy";
import { deleteMessages } from "../operations/delete-messages";
import { getQueueAttributes } from "../operations/get-queue-attributes";
import { rsmqError } from "../errors/rsmq-errors";
import type { RedisSMQInternals } from "../internals";
import type { DeadLetterInfo, PeekedMessage, RedriveOptions } from "../types";
import { MAX_BATCH, isGiven, validateId, validatePositiveInteger, validateQname } from "../operations/rsmq-input-rules";
import { moveInTwoSteps } from "./two-step-move";
import type { TwoStepOptions } from "./two-step-move";
import { defineProcedure } from "../operations/descriptor";
import { isDeadLetterReason, quotedReasons } from "./reasons";

export interface RedrivePlan {
  from: string;
  to: string | undefined;
  limit: number;
  /** Only dead letters that stopped for this reason. */
  reason?: DeadLetterInfo["reason"];
  /** Only dead letters whose last error is exactly this text. */
  error?: string;
  /** Only this message. */
  id?: string;
}

/** Validates redrive's options before any round trip. */
export function planRedrive(options: Partial<RedriveOptions>): RedrivePlan {
  const from = validateQname(options.from, "from");
  const to = isGiven(options.to) ? validateQname(options.to, "to") : undefined;
  // Into the queue it reads from, each page would find the messages it just moved: pointless for
  // one page, an endless loop beyond.
  if (to === from) throw rsmqError("invalidValue", "to must be another queue than from");
  const limit = isGiven(options.limit) ? validatePositiveInteger("limit", options.limit) : Infinity;
  const plan: RedrivePlan = { from, to, limit };
  if (isGiven(options.reason)) {
    if (!isDeadLetterReason(options.reason)) throw rsmqError("invalidValue", `reason must be ${quotedReasons()}`);
    plan.reason = options.reason;
  }
  if (isGiven(options.error)) {
    if (typeof options.error !== "string") throw rsmqError("invalidValue", "error must be a string");
    plan.error = options.error;
  }
  if (isGiven(options.id)) plan.id = validateId(options.id);
  return plan;
}

/** Whether a dead letter passes the plan's filters; with none, every message does, recorded or not. */
function matches(plan: RedrivePlan, why: DeadLetterInfo | undefined): boolean {
  if (plan.reason === undefined && plan.error === undefined) return true;
  if (why === undefined) return false;
  return (plan.reason === undefined || why.reason === plan.reason) && (plan.error === undefined || why.error === plan.error);
}

export interface RedriveMoveOptions extends TwoStepOptions {
  /** One script per page and target. @default whether the two queues' keys share a slot */
  atomic?: boolean;
}

/**
 * Resolves how many messages moved. Messages with no recorded source (or one naming `from` itself)
 * and no `to` stay where they are, and so do those the plan's `reason` or `error` filter out.
 */
export async function redrive(
  queue: RedisSMQInternals,
  plan: RedrivePlan,
  onMoved: (target: string) => void,
  options: RedriveMoveOptions = {},
): Promise<number> {
  if (plan.id !== undefined) return redriveOne(queue, plan, plan.id, onMoved, options);
  let moved = 0;
  let passedOver = 0;
  while (moved < plan.limit) {
    const want = Math.min(MAX_BATCH, plan.limit - moved);
    // A page holds at most MAX_BATCH messages and MAX_BATCH_BYTES of bodies, so each move's script does too.
    const { messages: page, cut } = await queue.run(() => peekDeadLetterPage(queue.layout, { qname: plan.from, count: want }, passedOver));
    const byTarget = new Map<string, PeekedMessage[]>();
    for (const message of page) {
      const target = plan.to ?? message.deadLetter?.source;
      // Filtered out, no recorded source, or one naming the queue itself (the same endless loop as `to` = `from`).
      if (!matches(plan, message.deadLetter) || target === undefined || target === plan.from) {
        passedOver += 1;
        continue;
      }
      byTarget.set(target, [...(byTarget.get(target) ?? []), message]);
    }
    for (const [target, messages] of byTarget) {
      const count = await movePage(queue, plan.from, target, messages, options);
      moved += count;
      // Ids that did not move (a body gone missing) stay in front: pass over them next time.
      passedOver += messages.length - count;
      if (count > 0) onMoved(target);
    }
    if (page.length < want && !cut) break;
  }
  return moved;
}

/** The message `id` only: one read (its record says where it goes), then the move of a one-message page. */
async function redriveOne(
  queue: RedisSMQInternals,
  plan: RedrivePlan,
  id: string,
  onMoved: (target: string) => void,
  options: RedriveMoveOptions,
): Promise<number> {
  const found = await queue.run(() => peekMessage(queue.layout, { qname: plan.from, id }));
  if (!("id" in found) || !matches(plan, found.deadLetter)) return 0;
  const target = plan.to ?? found.deadLetter?.source;
  if (target === undefined || target === plan.from) return 0;
  const moved = await movePage(queue, plan.from, target, [found], options);
  if (moved > 0) onMoved(target);
  return moved;
}

/** Moves peeked dead-lettered messages to `target`: atomically, or by the two-step move across slots. */
async function movePage(
  queue: RedisSMQInternals,
  dlq: string,
  target: string,
  messages: PeekedMessage[],
  options: RedriveMoveOptions,
): Promise<number> {
  const ids = messages.map(({ id }) => id);
  if (options.atomic ?? queue.layout.sameSlot(dlq, target)) return queue.run(() => redriveAtomically(queue.layout, dlq, target, ids));
  // The target must exist before anything is claimed (queueNotFound otherwise).
  await queue.run(() => getQueueAttributes(queue.layout, { qname: target }));
  const moved = await moveInTwoSteps(
    {
      // Claimed: still there, with a body, and not claimed by another redrive.
      hold: async (holdMs) => {
        const claimed = await queue.run(() => redriveClaim(queue.layout, dlq, ids, holdMs));
        return claimed.length > 0 ? claimed : undefined;
      },
      copy: (claimed) => queue.run(() => redriveCopy(queue.layout, target, claimed)),
      remove: async (claimed) => {
        const found = await queue.run(() => deleteMessages(queue.layout, { qname: dlq, ids: claimed.map(({ id }) => id) }));
        return found.filter((one) => one === 1).length;
      },
    },
    options,
  );
  return moved?.copied ?? 0;
}

/** redriveAsync: how many dead letters moved; each target queue's sleeping Workers are woken. */
export const redriveOperation = defineProcedure<RedriveOptions, number>({
  optionKeys: { from: true, id: true, to: true, limit: true, reason: true, error: true },
  prepare: (options) => {
    const plan = planRedrive(options);
    return (internals, wake) => redrive(internals, plan, wake);
  },
  observe: {
    operation: "redrive",
    queue: ({ from }) => from,
    done: (moved, span) => span?.set({ "messaging.batch.message_count": moved }),
  },
});
