import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateId, validateQname } from "./rsmq-input-rules";
import { validateReceipt } from "./receipt-rules";
import type { DeleteMessageOptions } from "../types";
import { defineOperation } from "./descriptor";

/** What a delete did: whether the message existed, and the `~free:` wake it published when it freed a slot a receive waits for. */
export interface Deleted<T> {
  readonly deleted: T;
  /** `~free:<server ms>` (lua/shared/leases.lua); undefined when it published none. */
  readonly wake?: string;
}

/** A delete script's reply: its result, or `{ result, wake }` when it published `~free:`. */
export function splitFreeWake(reply: unknown): { reply: unknown; wake?: string } {
  if (Array.isArray(reply) && reply.length === 2 && typeof reply[1] === "string") return { reply: reply[0], wake: reply[1] };
  return { reply };
}

/** The operation without the wake: what the Worker and the dead-letter moves read. */
export function withoutWake<T>(operation: Operation<Deleted<T>>): Operation<T> {
  return { ...operation, parse: (reply) => operation.parse(reply).deleted };
}

/**
 * Deletes a message; `expired` (the last step of moving an expired message to the queue's
 * expireTo, lib/retention/expired-moves.ts) also counts it in the queue's `totalexpired`. With
 * `rc` only while the message's receive count still is that receipt (else 0, nothing written).
 */
export function deleteMessage(layout: KeyLayout, options: Partial<DeleteMessageOptions>, expired = false): Operation<0 | 1> {
  return withoutWake(deleteMessageFreeing(layout, options, expired));
}

/** deleteMessage, telling the `~free:` wake it published. */
export function deleteMessageFreeing(
  layout: KeyLayout,
  options: Partial<DeleteMessageOptions>,
  expired = false,
): Operation<Deleted<0 | 1>> {
  const qname = validateQname(options.qname);
  const id = validateId(options.id);
  const rc = validateReceipt(options.rc);
  const keys = layout.queue(qname);
  const args = [id, keys.wakeChannel, layout.cluster ? "1" : ""];
  if (rc !== undefined || expired) args.push(rc ?? "");
  if (expired) args.push("x");
  return {
    script: "deleteMessage",
    commandKind: "settle",
    keys: [keys.messages, keys.hash, keys.leases],
    args,
    parse: (raw) => {
      const { reply, wake } = splitFreeWake(raw);
      return { deleted: reply === 1 ? 1 : 0, wake };
    },
  };
}

/** deleteMessageAsync: resolves `1` if the message existed (and `rc`, when given, was its receipt), else `0`. */
export const deleteMessageOperation = defineOperation<DeleteMessageOptions, Deleted<0 | 1>, 0 | 1>({
  optionKeys: { qname: true, id: true, rc: true },
  build: ({ layout }, options) => deleteMessageFreeing(layout, options),
  observe: {
    operation: "delete",
    attributes: ({ id }) => ({ "messaging.message.id": typeof id === "string" ? id : undefined }),
  },
  // A freed slot of a queue at its concurrency limit: this process's held consumers look again.
  wakes: ({ wake }) => wake ?? false,
  result: ({ deleted }) => deleted,
});
