/**
 * The Worker's answer to a handler's RateLimitError (not a public call): the message goes back
 * without spending a delivery, and with `ms` the queue's receives are blocked that long
 * (lua/rateLimitBounce-3.lua). Its concurrency lease, if any, ends: it is back in the queue.
 */
import { integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateBlockMs } from "./control-rules";

/** Without `ms`, the message comes back after a block in force, or after this long. */
export const BOUNCE_DEFAULT_MS = 1000;

/** Resolves the ms until the message is visible again, or -1 when it is gone or `rc` is not its receipt any more. */
export function rateLimitBounce(layout: KeyLayout, qname: string, id: string, ms?: number, rc?: number): Operation<number> {
  const keys = layout.queue(qname);
  const args = [id, ms === undefined ? "" : integerArg(validateBlockMs(ms))];
  if (rc !== undefined) args.push(integerArg(rc));
  return {
    script: "rateLimitBounce",
    commandKind: "settle",
    keys: [keys.messages, keys.hash, keys.leases],
    args,
    parse(reply) {
      if (typeof reply !== "number") throw new Error(`rsmq-next: unexpected rateLimitBounce reply ${String(reply)}`);
      return reply;
    },
  };
}
