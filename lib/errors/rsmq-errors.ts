/**
 * The errors rsmq 0.12.4 reports, with the same `name` and `message`, so code that matches on
 * `err.name` keeps working, and rsmq-next's own. They are plain `Error` objects, as rsmq's are,
 * with one thing more: a stable `code` that says which problem it is (one per name, and for
 * `invalidFormat` one per thing that has a form), so code need not read messages.
 * - `code` is not enumerable: JSON.stringify, Object.keys, a spread and console.log show the error
 *   as they did before it had one, so errors logged or compared by code written for rsmq read the same.
 */

/** Every error name this package reports for bad input or a missing/existing queue. */
export type RsmqErrorName =
  | "noAttributeSupplied"
  | "missingParameter"
  | "invalidFormat"
  | "invalidValue"
  | "messageNotString"
  | "messageTooLong"
  | "queueNotFound"
  | "queueExists"
  // rsmq-next's own: `waitForReplicas` was not met in time.
  | "replicationTimeout"
  // rsmq-next's own: Redis is over maxmemory and refused a call that adds data (nothing written).
  | "outOfMemory"
  // rsmq-next's own: a read-only replica refused a write (the connection reaches a replica, e.g. an old primary after a failover).
  | "readOnlyReplica"
  // rsmq-next's own: the Redis ACL refused a command, key or channel the operation needs.
  | "noPermission"
  // rsmq-next's own: no connection within offlineTimeoutMs, or no reply within commandTimeoutMs.
  | "connectionTimeout"
  // rsmq-next's own: the user closed rsmq.redis (or the client passed in), and so the instance.
  | "connectionClosed"
  // rsmq-next's own: the message asked for is not in the queue (the dashboard's message reads).
  | "messageNotFound"
  // rsmq-next's own: a batch send's bodies add up to more than one script call may carry.
  | "batchTooLarge"
  // rsmq-next's own: the queue has no schedule of that name (pauseSchedule, resumeSchedule).
  | "scheduleNotFound";

/** Every `code` this package's named errors carry: one per problem, stable across releases. */
export type RsmqErrorCode =
  | "ERR_RSMQ_NEXT_NO_ATTRIBUTE_SUPPLIED"
  | "ERR_RSMQ_NEXT_MISSING_PARAMETER"
  | "ERR_RSMQ_NEXT_INVALID_QNAME"
  | "ERR_RSMQ_NEXT_RESERVED_QNAME"
  | "ERR_RSMQ_NEXT_INVALID_ID"
  | "ERR_RSMQ_NEXT_INVALID_VALUE"
  | "ERR_RSMQ_NEXT_MESSAGE_NOT_STRING"
  | "ERR_RSMQ_NEXT_MESSAGE_TOO_LONG"
  | "ERR_RSMQ_NEXT_QUEUE_NOT_FOUND"
  | "ERR_RSMQ_NEXT_QUEUE_EXISTS"
  | "ERR_RSMQ_NEXT_REPLICATION_TIMEOUT"
  | "ERR_RSMQ_NEXT_OUT_OF_MEMORY"
  | "ERR_RSMQ_NEXT_READ_ONLY_REPLICA"
  | "ERR_RSMQ_NEXT_NO_PERMISSION"
  | "ERR_RSMQ_NEXT_CONNECTION_TIMEOUT"
  | "ERR_RSMQ_NEXT_CONNECTION_CLOSED"
  | "ERR_RSMQ_NEXT_MESSAGE_NOT_FOUND"
  | "ERR_RSMQ_NEXT_BATCH_TOO_LARGE"
  | "ERR_RSMQ_NEXT_SCHEDULE_NOT_FOUND";

/** The `code` of every error name but `invalidFormat` (see {@link INVALID_FORMAT_CODES}). */
export const ERROR_CODES = {
  noAttributeSupplied: "ERR_RSMQ_NEXT_NO_ATTRIBUTE_SUPPLIED",
  missingParameter: "ERR_RSMQ_NEXT_MISSING_PARAMETER",
  invalidValue: "ERR_RSMQ_NEXT_INVALID_VALUE",
  messageNotString: "ERR_RSMQ_NEXT_MESSAGE_NOT_STRING",
  messageTooLong: "ERR_RSMQ_NEXT_MESSAGE_TOO_LONG",
  queueNotFound: "ERR_RSMQ_NEXT_QUEUE_NOT_FOUND",
  queueExists: "ERR_RSMQ_NEXT_QUEUE_EXISTS",
  replicationTimeout: "ERR_RSMQ_NEXT_REPLICATION_TIMEOUT",
  outOfMemory: "ERR_RSMQ_NEXT_OUT_OF_MEMORY",
  readOnlyReplica: "ERR_RSMQ_NEXT_READ_ONLY_REPLICA",
  noPermission: "ERR_RSMQ_NEXT_NO_PERMISSION",
  connectionTimeout: "ERR_RSMQ_NEXT_CONNECTION_TIMEOUT",
  connectionClosed: "ERR_RSMQ_NEXT_CONNECTION_CLOSED",
  messageNotFound: "ERR_RSMQ_NEXT_MESSAGE_NOT_FOUND",
  batchTooLarge: "ERR_RSMQ_NEXT_BATCH_TOO_LARGE",
  scheduleNotFound: "ERR_RSMQ_NEXT_SCHEDULE_NOT_FOUND",
} as const satisfies Record<Exclude<RsmqErrorName, "invalidFormat">, RsmqErrorCode>;

/** The codes of `invalidFormat`, by what had the wrong form. */
export const INVALID_FORMAT_CODES = {
  /** A queue name (`qname`, and redrive's `from` and `to`) that is not 1 to 160 of a-z A-Z 0-9 _ -. */
  qname: "ERR_RSMQ_NEXT_INVALID_QNAME",
  /** The queue name `QUEUES`, which names the queue list. */
  reservedQname: "ERR_RSMQ_NEXT_RESERVED_QNAME",
  /** A message id that is not 32 of a-z A-Z 0-9 and `:`. */
  id: "ERR_RSMQ_NEXT_INVALID_ID",
} as const satisfies Record<string, RsmqErrorCode>;

/** The `code` of an `invalidFormat` error. */
export type InvalidFormatCode = (typeof INVALID_FORMAT_CODES)[keyof typeof INVALID_FORMAT_CODES];

type BuiltCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES] | InvalidFormatCode;
// Fails to compile when RsmqErrorCode lists a code that no error is built with.
const everyCodeBuilt: Exclude<RsmqErrorCode, BuiltCode> extends never ? true : never = true;
void everyCodeBuilt;

/** Builds an Error whose `name` is one of rsmq's error names; `invalidFormat` says which form was wrong by its code. */
export function rsmqError(name: "invalidFormat", message: string, code: InvalidFormatCode): Error;
export function rsmqError(name: Exclude<RsmqErrorName, "invalidFormat">, message: string): Error;
export function rsmqError(name: RsmqErrorName, message: string, code?: InvalidFormatCode): Error {
  // As rsmq 0.12.4's _handleError: set after `new Error()`, name and message are own enumerable
  // properties, so `JSON.stringify(err)` and `{ ...err }` show both, as they do for rsmq's errors.
  const error = new Error();
  error.name = name;
  error.message = message;
  const value: RsmqErrorCode = name === "invalidFormat" ? code! : ERROR_CODES[name];
  Object.defineProperty(error, "code", { value, enumerable: false, writable: true, configurable: true });
  return error;
}

export const queueNotFound = (): Error => rsmqError("queueNotFound", "Queue not found");
export const queueExists = (): Error => rsmqError("queueExists", "Queue exists");
export const messageTooLong = (): Error => rsmqError("messageTooLong", "Message too long");
export const messageNotFound = (): Error => rsmqError("messageNotFound", "Message not found");
export const scheduleNotFound = (): Error => rsmqError("scheduleNotFound", "Schedule not found");

/**
 * Scripts report expected failures as small negative integers (see the headers in lua/);
 * this is the one place they become errors.
 */
export function errorForScriptCode(code: number): Error {
  switch (code) {
    case -1:
      return queueNotFound();
    case -2:
      return queueExists();
    case -3:
      return messageTooLong();
    case -4:
      return messageNotFound();
    case -5:
      return scheduleNotFound();
    default:
      return new Error(`rsmq-next: unexpected script reply ${code}`);
  }
}
