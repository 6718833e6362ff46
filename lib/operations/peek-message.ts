/**
 * One message of a queue by its id, with its state and due time, without receiving it: one
 * read-only script call (lua/readMessage-2.lua, the dashboard's read of one message).
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import type { MessageWithState, PeekMessageOptions } from "../types";
import { validateId, validateQname } from "./rsmq-input-rules";
import { defineOperation } from "./descriptor";
import { withState } from "./peek-messages";

/** lua/readMessage-2.lua's answer for an id that is not in the queue. */
const NOT_IN_QUEUE = -2;

/** The message `id` of `qname` with its state; `{}` when the queue holds no such message. */
export function peekMessage(layout: KeyLayout, options: Partial<PeekMessageOptions>): Operation<MessageWithState | {}> {
  const keys = layout.queue(validateQname(options.qname));
  const id = validateId(options.id);
  return {
    script: "readMessage",
    keys: [keys.messages, keys.hash],
    args: [id],
    parse(reply) {
      if (reply === NOT_IN_QUEUE) return {};
      failIfCode(reply);
      // now, the queue's size, then the message as messagePage gives one.
      const [now, , ...fields] = reply as unknown[];
      return withState(fields, Number(now));
    },
  };
}

/** peekMessageAsync: one message by id, as peekMessagesAsync gives it; `{}` when it is not in the queue. */
export const peekMessageOperation = defineOperation<PeekMessageOptions, MessageWithState | {}>({
  optionKeys: { qname: true, id: true },
  build: ({ layout }, options) => peekMessage(layout, options),
});
