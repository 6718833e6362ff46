import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateId, validateQname } from "./rsmq-input-rules";
import { validateReceipt } from "./receipt-rules";
import type { DeleteMessageOptions } from "../types";
import { defineOperation } from "./descriptor";
import type { Outlets } from "./descriptor";
import { reportRefusedNotification } from "./refused-notification";
import type { RefusedNotification } from "./refused-notification";

/** What a delete did: whether the message existed, and the `~free:` wake it published when it freed a slot a receive waits for. */
export interface Deleted<T> {
  readonly deleted: T;
  /** `~free:<server ms>` (lua/shared/leases.lua); undefined when it published none. */
  readonly wake?: string;
  /** Set when Redis refused that publish (an ACL user without the channel): the slot is free all the same. */
  readonly refused?: RefusedNotification;
}

/**
 * A freeing script's reply (lua/shared/free-slot.lua): its result, or `{ result, wake }` when it
 * published `~free:`, `{ result, wake, error, command }` when Redis refused that publish.
 */
export function splitFreeWake(raw: unknown, channel: string): { reply: unknown; wake?: string; refused?: RefusedNotification } {
  if (!Array.isArray(raw) || (raw.length !== 2 && raw.length !== 4) || typeof raw[1] !== "string") return { reply: raw };
  if (raw.length === 2) return { reply: raw[0], wake: raw[1] };
  return {
    reply: raw[0],
    wake: raw[1],
    refused: { channel, notificationRefused: new Error(String(raw[2])), refusedCommand: String(raw[3]), wake: true },
  };
}

/** A `~free:` publish Redis refused is told once per channel as a lasting problem, never silently. */
export function reportRefusedFree(call: string): (result: { refused?: RefusedNotification }, options: unknown, outlets: Outlets) => void {
  return ({ refused }, _options, outlets) => {
    if (refused) reportRefusedNotification(refused, `${call} freed a concurrency slot`, outlets);
  };
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
  // Trailing arguments the script does not need are left off: each costs the server a string.
  const args = [id, layout.cluster ? "1" : "", rc ?? "", expired ? "x" : ""];
  while (args[args.length - 1] === "") args.pop();
  return {
    script: "deleteMessage",
    commandKind: "settle",
    keys: [keys.messages, keys.hash, keys.leases],
    args,
    parse: (raw) => {
      const { reply, ...freed } = splitFreeWake(raw, keys.wakeChannel);
      return { deleted: reply === 1 ? 1 : 0, ...freed };
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
  events: reportRefusedFree("deleteMessage"),
  result: ({ deleted }) => deleted,
});
