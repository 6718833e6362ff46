/**
 * Redrive: moves dead-lettered messages back, to their source queue (as recorded when they were
 * dead-lettered) or to a queue of the caller's choice, as new messages. Each script call moves a
 * page of messages bound for one queue atomically; in Redis Cluster, where the two queues sit in
 * different slots, a page is copied first and deleted second (a crash duplicates, never drops).
 */
import type { RedisSMQInternals } from "../redis-smq";
import type { PeekedMessage, RedriveOptions } from "../types";
import { rsmqError } from "../errors";
import { MAX_BATCH, isGiven, validatePositiveInteger, validateQname } from "../validation";

export interface RedrivePlan {
  from: string;
  to: string | undefined;
  limit: number;
}

/** Validates redrive's options before any round trip. */
export function planRedrive(options: Partial<RedriveOptions>): RedrivePlan {
  const from = validateQname(options.from, "from");
  const to = isGiven(options.to) ? validateQname(options.to, "to") : undefined;
  // Into the queue it reads from, each page would find the messages it just moved: pointless for
  // one page, an endless loop beyond.
  if (to === from) throw rsmqError("invalidValue", "to must be another queue than from");
  const limit = isGiven(options.limit) ? validatePositiveInteger("limit", options.limit) : Infinity;
  return { from, to, limit };
}

/**
 * Resolves how many messages moved. Messages with no recorded source (or one naming `from` itself)
 * and no `to` stay where they are.
 */
export async function redrive(queue: RedisSMQInternals, plan: RedrivePlan, onMoved: (target: string) => void): Promise<number> {
  let moved = 0;
  let passedOver = 0;
  while (moved < plan.limit) {
    const want = Math.min(MAX_BATCH, plan.limit - moved);
    const page = await queue.peek(plan.from, want, passedOver);
    const byTarget = new Map<string, PeekedMessage[]>();
    for (const message of page) {
      const target = plan.to ?? message.deadLetter?.source;
      // No recorded source, or one naming the queue itself (the same endless loop as `to` = `from`).
      if (target === undefined || target === plan.from) {
        passedOver += 1;
        continue;
      }
      byTarget.set(target, [...(byTarget.get(target) ?? []), message]);
    }
    for (const [target, messages] of byTarget) {
      const count = await queue.redrive(plan.from, target, messages);
      moved += count;
      // Ids that did not move (a body gone missing) stay in front: pass over them next time.
      passedOver += messages.length - count;
      if (count > 0) onMoved(target);
    }
    if (page.length < want) break;
  }
  return moved;
}
