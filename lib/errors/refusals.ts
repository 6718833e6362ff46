/**
 * The one place where Redis' refusal of an operation becomes the package's named error: over
 * maxmemory (OOM, `outOfMemory`), a read-only replica (READONLY, `readOnlyReplica`), or the ACL
 * (NOPERM and the forms a script's refusal takes, `noPermission`). The runner calls it for every
 * operation, the transports for what they send on their own (a slot map read, an UNSUBSCRIBE).
 * The wording of each lives in its translator beside this module; a connection that could not
 * carry a call in time is no refusal, and is told by connection-timeouts.ts.
 */
import { translateOutOfMemory } from "./out-of-memory";
import { translateReadOnly } from "./read-only-replica";
import { permissionError } from "./permission-errors";
import type { RefusedOperation } from "./permission-errors";

/** What a call was doing when Redis refused it: the operation, and what was written already. */
export interface RefusedCall extends RefusedOperation {
  /** What had run before the refusal ("SADD <registry> q had run"); absent when nothing had. */
  readonly alreadyWritten?: string;
}

/**
 * `error` as the named error for Redis' refusal of `call` (each refusal has one form, so at most
 * one translator applies); any other error as it is.
 */
export function explainRefusal<E>(error: E, call: RefusedCall): E | Error {
  const { operation, alreadyWritten } = call;
  const named = permissionError(translateReadOnly(translateOutOfMemory(error, operation, alreadyWritten), operation, alreadyWritten), call);
  return named as E | Error;
}
