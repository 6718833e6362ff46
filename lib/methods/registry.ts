/**
 * Every public operation of the facade, by method name: RedisSMQ gets `<name>Async` and its
 * callback twin `<name>` for each, in this order, derived from the descriptor (descriptor.ts).
 * Adding an operation: its descriptor, one line here, and its two methods in queue-methods.ts (or control-methods.ts)
 * (CONTRIBUTING.md, "Adding an operation").
 */
import { changeMessageVisibilityOperation } from "../operations/change-message-visibility";
import { changeMessagesVisibilityOperation } from "../operations/change-messages-visibility";
import { createQueueOperation } from "../operations/create-queue";
import { deleteMessageOperation } from "../operations/delete-message";
import { deleteMessagesOperation } from "../operations/delete-messages";
import { deleteAndReceiveMessagesOperation, deleteAndReceiveOperation } from "../operations/delete-and-receive";
import { deleteQueueOperation } from "../operations/delete-queue";
import { getQueueAttributesOperation } from "../operations/get-queue-attributes";
import { listQueuesOperation } from "../operations/list-queues";
import { peekDeadLettersOperation } from "../operations/peek-dead-letters";
import { peekMessageOperation } from "../operations/peek-message";
import { peekMessagesOperation } from "../operations/peek-messages";
import { browseMessagesOperation } from "../operations/browse-messages";
import { popMessageOperation } from "../operations/pop-message";
import { purgeQueueOperation } from "../operations/purge-queue";
import { receiveMessageOperation, receiveMessageOrNextDueOperation, receiveMessagesOperation } from "../operations/receive-message";
import { sendMessageOperation } from "../operations/send-message";
import { sendMessagesOperation } from "../operations/send-messages";
import { setQueueAttributesOperation } from "../operations/set-queue-attributes";
import { pauseQueueOperation } from "../operations/pause-queue";
import { resumeQueueOperation } from "../operations/resume-queue";
import { setRateLimitOperation } from "../operations/set-rate-limit";
import { removeRateLimitOperation } from "../operations/remove-rate-limit";
import { rateLimitQueueOperation } from "../operations/rate-limit-queue";
import { setConcurrencyOperation } from "../operations/set-concurrency";
import { removeConcurrencyOperation } from "../operations/remove-concurrency";
import { redriveOperation } from "../dead-letters/redrive";
import { doctorOperation } from "../doctor/doctor";
import { sweepExpiredOperation } from "../retention/sweep";
import { listConsumersOperation } from "../operations/list-consumers";
import { upsertScheduleOperation } from "../operations/upsert-schedule";
import { removeScheduleOperation } from "../operations/remove-schedule";
import { pauseScheduleOperation, resumeScheduleOperation } from "../operations/pause-schedule";
import { listSchedulesOperation } from "../operations/list-schedules";

export const OPERATIONS = {
  createQueue: createQueueOperation,
  listQueues: listQueuesOperation,
  deleteQueue: deleteQueueOperation,
  purgeQueue: purgeQueueOperation,
  getQueueAttributes: getQueueAttributesOperation,
  setQueueAttributes: setQueueAttributesOperation,
  pauseQueue: pauseQueueOperation,
  resumeQueue: resumeQueueOperation,
  setRateLimit: setRateLimitOperation,
  removeRateLimit: removeRateLimitOperation,
  rateLimitQueue: rateLimitQueueOperation,
  setConcurrency: setConcurrencyOperation,
  removeConcurrency: removeConcurrencyOperation,
  sendMessage: sendMessageOperation,
  sendMessages: sendMessagesOperation,
  receiveMessage: receiveMessageOperation,
  receiveMessageOrNextDue: receiveMessageOrNextDueOperation,
  receiveMessages: receiveMessagesOperation,
  popMessage: popMessageOperation,
  deleteMessage: deleteMessageOperation,
  deleteMessages: deleteMessagesOperation,
  deleteAndReceive: deleteAndReceiveOperation,
  deleteAndReceiveMessages: deleteAndReceiveMessagesOperation,
  peekMessages: peekMessagesOperation,
  peekMessage: peekMessageOperation,
  peekDeadLetters: peekDeadLettersOperation,
  browseMessages: browseMessagesOperation,
  redrive: redriveOperation,
  sweepExpired: sweepExpiredOperation,
  listConsumers: listConsumersOperation,
  upsertSchedule: upsertScheduleOperation,
  removeSchedule: removeScheduleOperation,
  pauseSchedule: pauseScheduleOperation,
  resumeSchedule: resumeScheduleOperation,
  listSchedules: listSchedulesOperation,
  changeMessageVisibility: changeMessageVisibilityOperation,
  changeMessagesVisibility: changeMessagesVisibilityOperation,
  doctor: doctorOperation,
} as const;

/** The operations' method names (`sendMessage`; the facade adds `sendMessageAsync` too). */
export type OperationMethodName = keyof typeof OPERATIONS;
