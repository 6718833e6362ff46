/**
 * The errors rsmq 0.12.4 reports, with the same `name` and `message`, so code that matches on
 * `err.name` keeps working. They are plain `Error` objects, as rsmq's are.
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
  | "connectionClosed";

/** Builds an Error whose `name` is one of rsmq's error names. */
export function rsmqError(name: RsmqErrorName, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

export const queueNotFound = (): Error => rsmqError("queueNotFound", "Queue not found");
export const queueExists = (): Error => rsmqError("queueExists", "Queue exists");
export const messageTooLong = (): Error => rsmqError("messageTooLong", "Message too long");

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
    default:
      return new Error(`rsmq-next: unexpected script reply ${code}`);
  }
}
