/**
 * Every public operation of the facade, by method name: RedisSMQ gets `<name>Async` and its
 * callback twin `<name>` for each, in this order, derived from the descriptor (descriptor.ts).
 * Adding an operation: its descriptor, one line here, and its two methods in queue-methods.ts
 * (CONTRIBUTING.md, "Adding an operation").
 */
import { changeMessageVisibilityOperation } from "./change-message-visibility";
import { changeMessagesVisibilityOperation } from "./change-messages-visibility";
import { createQueueOperation } from "./create-queue";
import { deleteMessageOperation } from "./delete-message";
import { deleteMessagesOperation } from "./delete-messages";
import { deleteQueueOperation } from "./delete-queue";
import { getQueueAttributesOperation } from "./get-queue-attributes";
import { listQueuesOperation } from "./list-queues";
import { peekDeadLettersOperation } from "./peek-dead-letters";
import { peekMessageOperation } from "./peek-message";
import { peekMessagesOperation } from "./peek-messages";
import { popMessageOperation } from "./pop-message";
import { purgeQueueOperation } from "./purge-queue";
import { receiveMessageOperation, receiveMessageOrNextDueOperation, receiveMessagesOperation } from "./receive-message";
import { sendMessageOperation } from "./send-message";
import { sendMessagesOperation } from "./send-messages";
import { setQueueAttributesOperation } from "./set-queue-attributes";
import { redriveOperation } from "../dead-letters/redrive";
import { doctorOperation } from "../doctor/doctor";
import { sweepExpiredOperation } from "../retention/sweep";

export const OPERATIONS = {
  createQueue: createQueueOperation,
  listQueues: listQueuesOperation,
  deleteQueue: deleteQueueOperation,
  purgeQueue: purgeQueueOperation,
  getQueueAttributes: getQueueAttributesOperation,
  setQueueAttributes: setQueueAttributesOperation,
  sendMessage: sendMessageOperation,
  sendMessages: sendMessagesOperation,
  receiveMessage: receiveMessageOperation,
  receiveMessageOrNextDue: receiveMessageOrNextDueOperation,
  receiveMessages: receiveMessagesOperation,
  popMessage: popMessageOperation,
  deleteMessage: deleteMessageOperation,
  deleteMessages: deleteMessagesOperation,
  peekMessages: peekMessagesOperation,
  peekMessage: peekMessageOperation,
  peekDeadLetters: peekDeadLettersOperation,
  redrive: redriveOperation,
  sweepExpired: sweepExpiredOperation,
  changeMessageVisibility: changeMessageVisibilityOperation,
  changeMessagesVisibility: changeMessagesVisibilityOperation,
  doctor: doctorOperation,
} as const;

/** The operations' method names (`sendMessage`; the facade adds `sendMessageAsync` too). */
export type OperationMethodName = keyof typeof OPERATIONS;
