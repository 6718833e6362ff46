/**
 * rsmq-next's combined call, the delete of a handled message and the receive of the next in one
 * script call (`deleteAndReceiveAsync`, issue 37), as the bench uses it: a narrow type of its own,
 * so the bench builds against a library with or without the call, and a check of whether this
 * build has it. A build without it (an older one, or before the call was merged) has no rows for
 * it; everything else is measured as before.
 */
import type { Message } from "./clients";

/** The registry's name of the call: RedisSMQ gets `deleteAndReceiveAsync` and its callback twin from it. */
export const COMBINED_CALL = "deleteAndReceive";

/** Its reply: whether the message was deleted, and the next one (`{}` when none is due). */
export interface CombinedReply {
  deleted: 0 | 1;
  message: Message | {};
  /** Where the receive part failed after the delete was done (the delete stands). */
  receiveError?: Error;
}

/** What the bench calls: the public API's single form. */
export interface CombinedCall {
  deleteAndReceiveAsync(options: { qname: string; id: string; vt?: number }): Promise<CombinedReply>;
}

/** Whether a build has the combined call, from its operations registry (lib/methods/registry.ts's OPERATIONS). */
export function hasCombinedCall(operations: object): boolean {
  return Object.prototype.hasOwnProperty.call(operations, COMBINED_CALL);
}

/** `api` as the combined call's caller; throws where the instance has no such call. */
export function combinedCallOf(api: object): CombinedCall {
  const call = (api as Partial<CombinedCall>).deleteAndReceiveAsync;
  if (typeof call !== "function") throw new Error(`this build of rsmq-next has no ${COMBINED_CALL}Async`);
  return api as CombinedCall;
}
