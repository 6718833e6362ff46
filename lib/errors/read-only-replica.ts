/**
 * Turns Redis' READONLY refusal into the named `readOnlyReplica` error. A replica refuses a write
 * before anything is written (on Redis 7 a script that may write is refused before it runs; before
 * Redis 7, at its first write). Meeting one means the connection reaches a replica: most often the
 * old primary after a failover, with a client that does not follow Redis Sentinel.
 */
import { rsmqError } from "./rsmq-errors";

/** `error` as `readOnlyReplica` when a replica refused `operation`; any other error as it is. */
export function translateReadOnly(error: unknown, operation: string, alreadyWritten?: string): unknown {
  if (!(error instanceof Error) || !error.message.startsWith("READONLY ")) return error;
  const written = alreadyWritten ? `nothing more was written (${alreadyWritten})` : "nothing was written";
  return rsmqError(
    "readOnlyReplica",
    `rsmq-next: ${operation} was refused by a read-only replica; ${written}. The connection reaches a replica, ` +
      "most likely the old primary after a failover. Connect through Redis Sentinel so that the client follows " +
      "the primary: an ioredis client with `sentinels`, `name` and `failoverDetector: true` as `client` " +
      "(see docs/high-availability.md). " +
      `Redis said: ${error.message}`,
  );
}
