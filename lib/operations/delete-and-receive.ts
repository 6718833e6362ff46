/**
 * Deletes messages and receives the next ones in one script call (lua/deleteAndReceive-3.lua):
 * what a consumer does after each message, deleteMessages then receiveMessages, in one round trip.
 * The deletes come first and are never lost: a receive part that fails comes back beside them as
 * `receiveError`, and the call itself resolves.
 */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateIds } from "./rsmq-input-rules";
import { reportRefusedFree, splitFreeWake } from "./delete-message";
import type { RefusedNotification } from "./refused-notification";
import { receiptFlags, validateReceipt, validateReceipts } from "./receipt-rules";
import { receiveDone, receivedMessages, receiveMessages } from "./receive-message";
import type { ReceivedBatch } from "./receive-message";
import { explainRefusal } from "../errors/refusals";
import { script } from "../scripts/script-files";
import type { ExpiredReport } from "../retention/expired-report";
import { defineOperation } from "./descriptor";
import type { Observation, Outlets } from "./descriptor";
import type {
  DeleteAndReceiveMessagesOptions,
  DeleteAndReceiveOptions,
  DeletedAndReceivedMessage,
  DeletedAndReceivedMessages,
} from "../types";

/** What one deleteAndReceive call did: the deletes, then the receive. */
export interface DeletedAndReceived {
  /** One per id given, in order: 1 when that message existed (as deleteMessages answers). */
  deleted: Array<0 | 1>;
  /** The receive part, exactly what receiveMessages(...) would have resolved; no messages when it failed. */
  batch: ReceivedBatch;
  /** Set when the receive part was refused (the deletes were done): the error a receive alone would have raised. */
  receiveError?: Error;
  /** `~free:<server ms>` when the deletes freed a slot a receive was held at and the receive part left one free. */
  wake?: string;
  /** Set when Redis refused that publish (an ACL user without the channel): the slot is free all the same. */
  refused?: RefusedNotification;
}

/** How an error of the receive part names the call (the runner names a receive alone `receiveMessage`). */
const RECEIVE_PART = "deleteAndReceive's receive (its deletes were done)";

/**
 * Deletes `options.ids` (none: `[]`), then receives up to `count` messages as
 * receiveMessages(layout, options, count, details, schedule) would, in one script call. Every input is
 * checked here, before any round trip: the queue name, the ids as deleteMessages checks them
 * (an empty list is allowed: only the receive then), vt and count as receiveMessages checks them.
 *
 * The call rejects only when nothing was written: a user that may not run HDEL (nothing
 * deleted), or a queue that does not exist (`queueNotFound`, as a receive alone, when no id
 * named a message). A receive part that fails after the deletes (a NOPERM refusal) resolves with
 * `receiveError`, the same named error a receive alone would have rejected with, and an empty batch.
 */
export function deleteAndReceiveMessages(
  layout: KeyLayout,
  options: { qname?: unknown; ids?: unknown; rcs?: unknown; vt?: unknown },
  count: unknown,
  details = false,
  schedule = false,
): Operation<DeletedAndReceived> {
  const receive = receiveMessages(layout, options, count, details, schedule);
  const wakeChannel = layout.queue(String(options.qname)).wakeChannel;
  const ids = Array.isArray(options.ids) && options.ids.length === 0 ? [] : validateIds(options.ids);
  const rcs = validateReceipts(options.rcs, ids.length);
  return {
    script: "deleteAndReceive",
    commandKind: "receive",
    keys: receive.keys,
    args: [integerArg(ids.length), receiptFlags(rcs, layout.cluster), ...ids, ...(rcs ?? []), ...receive.args],
    parse(reply) {
      failIfCode(reply);
      const [flags, received, ...rest] = reply as [unknown[], unknown, ...unknown[]];
      const deleted = flags.map((found): 0 | 1 => (found === 1 ? 1 : 0));
      const { reply: _, ...freed } = rest.length === 0 ? { reply: undefined } : splitFreeWake([undefined, ...rest], wakeChannel);
      if (typeof received === "string") {
        return { deleted, batch: emptyBatch(), receiveError: receiveErrorOf(received, receive.keys), ...freed };
      }
      try {
        return { deleted, batch: receive.parse(received), ...freed };
      } catch (error) {
        // A missing queue: when nothing was deleted either, nothing was written, and the call
        // rejects as a receive alone would.
        if (!deleted.includes(1)) throw error;
        return { deleted, batch: emptyBatch(), receiveError: error as Error, ...freed };
      }
    },
  };
}

/** The batch of a receive part that did not run: no messages, nothing looked up. */
function emptyBatch(): ReceivedBatch {
  return { messages: [], nextDueMs: undefined, vt: 0 };
}

/**
 * The error the script caught in its receive part (its text, as Redis gave it), named as the runner
 * names Redis' refusals of a call (noPermission for an ACL refusal), so it has the class and code
 * a receive alone would have rejected with.
 */
function receiveErrorOf(message: string, keys: string[]): Error {
  const error = new Error(message);
  const named = explainRefusal(error, { operation: RECEIVE_PART, script: script("deleteAndReceive"), keys });
  return named instanceof Error ? named : error;
}

/** What the call path gets: the result, with the receive part's expired messages on top, where it moves them. */
type Settled = DeletedAndReceived & { expired?: ExpiredReport };

/** The operation for the call path: it moves a result's `expired` (retention) before the caller gets it. */
function forCallPath(operation: Operation<DeletedAndReceived>): Operation<Settled> {
  return {
    ...operation,
    parse(reply) {
      const result = operation.parse(reply);
      return result.batch.expired === undefined ? result : { ...result, expired: result.batch.expired };
    },
  };
}

/**
 * The call is a receive for telemetry (its span, the messages consumed and how long they waited),
 * with how many messages it deleted; a receive part that failed marks no error (the call succeeded).
 */
function observeDeleteAndReceive<O>(single: boolean): Observation<O, Settled> {
  return {
    operation: "receive",
    done: (result, span, recording, queue) => {
      span?.set({ "messaging.rsmq.deleted_count": result.deleted.reduce<number>((sum, flag) => sum + flag, 0) });
      receiveDone(result.batch, single, span, recording, queue);
    },
  };
}

/** A receive part that failed after the deletes were done is told once per queue and error, never silently. */
function reportReceiveError<O extends { qname?: unknown }>(result: Settled, options: Partial<O>, outlets: Outlets): void {
  if (result.receiveError === undefined) return;
  const { name, code } = result.receiveError as Error & { code?: string };
  outlets.reportProblem(`deleteAndReceive ${String(options.qname)} ${name}/${code ?? ""}`, result.receiveError);
}

/**
 * deleteAndReceiveAsync: deletes a message and receives the next, in one call; `message` is `{}`
 * when none is due. No `waitMs`: the call that deletes answers at once.
 */
export const deleteAndReceiveOperation = defineOperation<DeleteAndReceiveOptions, Settled, DeletedAndReceivedMessage>({
  optionKeys: { qname: true, id: true, vt: true, rc: true },
  build: ({ layout, observed }, options) => {
    // Checked as `rc` here, so its error names the option the caller gave.
    const rcs = validateReceipt(options.rc) === undefined ? undefined : [options.rc];
    return forCallPath(deleteAndReceiveMessages(layout, { qname: options.qname, ids: [options.id], rcs, vt: options.vt }, 1, observed));
  },
  observe: observeDeleteAndReceive(true),
  events: (result, options, outlets) => {
    reportReceiveError(result, options, outlets);
    reportRefusedFree("deleteAndReceive")(result, options, outlets);
  },
  wakes: ({ wake }) => wake ?? false,
  result: ({ deleted, batch, receiveError }) => {
    if (receiveError !== undefined) return { deleted: deleted[0], message: {}, receiveError };
    const answer: DeletedAndReceivedMessage = { deleted: deleted[0], message: batch.messages[0] ?? {} };
    if (batch.blocked) answer.blocked = batch.blocked;
    return answer;
  },
});

/** deleteAndReceiveMessagesAsync: deletes messages and receives up to `count`, in one call. */
export const deleteAndReceiveMessagesOperation = defineOperation<DeleteAndReceiveMessagesOptions, Settled, DeletedAndReceivedMessages>({
  optionKeys: { qname: true, ids: true, count: true, vt: true, rcs: true },
  build: ({ layout, observed }, options) => forCallPath(deleteAndReceiveMessages(layout, options, options.count, observed)),
  observe: observeDeleteAndReceive(false),
  events: (result, options, outlets) => {
    reportReceiveError(result, options, outlets);
    reportRefusedFree("deleteAndReceiveMessages")(result, options, outlets);
  },
  wakes: ({ wake }) => wake ?? false,
  result: ({ deleted, batch: { messages, nextDueMs, blocked }, receiveError }) => {
    const answer: DeletedAndReceivedMessages = { deleted, ...receivedMessages(messages, nextDueMs, blocked) };
    if (receiveError !== undefined) answer.receiveError = receiveError;
    return answer;
  },
});
