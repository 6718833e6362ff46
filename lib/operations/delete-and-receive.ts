/**
 * Deletes messages and receives the next ones in one script call (lua/deleteAndReceive-2.lua):
 * what a consumer does after each message, deleteMessages then receiveMessages, in one round trip.
 * The deletes come first and are never lost: a receive part that fails comes back beside them as
 * `receiveError`, and the call itself resolves.
 */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateIds } from "./rsmq-input-rules";
import { receiveMessages } from "./receive-message";
import type { ReceivedBatch } from "./receive-message";
import { explainRefusal } from "../errors/refusals";
import { script } from "../scripts/script-files";

/** What one deleteAndReceive call did: the deletes, then the receive. */
export interface DeletedAndReceived {
  /** One per id given, in order: 1 when that message existed (as deleteMessages answers). */
  deleted: Array<0 | 1>;
  /** The receive part, exactly what receiveMessages(...) would have resolved; no messages when it failed. */
  batch: ReceivedBatch;
  /** Set when the receive part was refused (the deletes were done): the error a receive alone would have raised. */
  receiveError?: Error;
}

/** How an error of the receive part names the call (the runner names a receive alone `receiveMessage`). */
const RECEIVE_PART = "deleteAndReceive's receive (its deletes were done)";

/**
 * Deletes `options.ids` (none: `[]`), then receives up to `count` messages as
 * receiveMessages(layout, options, count, details) would, in one script call. Every input is
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
  options: { qname?: unknown; ids?: unknown; vt?: unknown },
  count: unknown,
  details = false,
): Operation<DeletedAndReceived> {
  const receive = receiveMessages(layout, options, count, details);
  const ids = Array.isArray(options.ids) && options.ids.length === 0 ? [] : validateIds(options.ids);
  return {
    script: "deleteAndReceive",
    commandKind: "receive",
    keys: receive.keys,
    args: [integerArg(ids.length), ...ids, ...receive.args],
    parse(reply) {
      failIfCode(reply);
      const [flags, received] = reply as [unknown[], unknown];
      const deleted = flags.map((found): 0 | 1 => (found === 1 ? 1 : 0));
      if (typeof received === "string") {
        return { deleted, batch: emptyBatch(), receiveError: receiveErrorOf(received, receive.keys) };
      }
      try {
        return { deleted, batch: receive.parse(received) };
      } catch (error) {
        // A missing queue: when nothing was deleted either, nothing was written, and the call
        // rejects as a receive alone would.
        if (!deleted.includes(1)) throw error;
        return { deleted, batch: emptyBatch(), receiveError: error as Error };
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
