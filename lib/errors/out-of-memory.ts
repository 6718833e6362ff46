/**
 * Turns Redis' OOM refusal into the named `outOfMemory` error. Only scripts that add data can meet
 * it on Redis 7 (they carry no `allow-oom` flag), and Redis refuses them before they run: nothing
 * is written, so the caller may simply try again later. On a server before Redis 7 the refusal
 * comes from the script's first write, which Redis checks before any write is made: the same.
 */
import { rsmqError } from "./rsmq-errors";

/** `error` as `outOfMemory` when Redis refused `operation` for memory; any other error as it is. */
export function translateOutOfMemory(error: unknown, operation: string, alreadyWritten?: string): unknown {
  if (!(error instanceof Error) || !error.message.startsWith("OOM ")) return error;
  const written = alreadyWritten ? `nothing more was written (${alreadyWritten})` : "nothing was written";
  return rsmqError(
    "outOfMemory",
    `rsmq-next: ${operation} was refused because Redis is over its maxmemory limit; ${written}. ` +
      "Consumers (receive, pop, delete, a Worker) can still drain queues on Redis 7 and later. " +
      "To accept new messages: raise maxmemory (CONFIG SET maxmemory), let consumers drain the backlog, " +
      "or reconsider the eviction policy (queue keys have no TTL, so volatile-* policies free nothing " +
      "and allkeys-* ones would evict messages: keep noeviction). " +
      `Redis said: ${error.message}`,
  );
}
