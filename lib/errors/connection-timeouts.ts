/**
 * The `connectionTimeout` errors: every way a call is given up because the connection could not
 * carry it in time. Each names the server, says whether the call may have run (so the caller
 * knows whether a retry can duplicate it), and names the option that bounds the wait.
 * - node-redis and ioredis, bounded by the link watchdog: no connection within offlineTimeoutMs,
 *   no reply within commandTimeoutMs.
 * - ioredis on its own: it gave a call in flight up after maxRetriesPerRequest reconnections.
 * - Redis Cluster: no slot map within clusterRetryMs, or a slot whose master is not connected.
 */
import { rsmqError } from "./rsmq-errors";

/**
 * No connection to `where` within offlineTimeoutMs; `lastError` is the last connection error the
 * client reported, and `unsent` whether the call never went out (it then cannot run later).
 */
export function noConnectionWithin(where: string, offlineTimeoutMs: number, lastError: Error | undefined, unsent: boolean): Error {
  const cause = lastError ? `: ${describe(lastError)}` : "";
  const ran = unsent ? "The call was not run." : "The call went out with a connection attempt that did not finish and may have run.";
  return rsmqError(
    "connectionTimeout",
    `rsmq-next: no connection to Redis at ${where} within offlineTimeoutMs (${offlineTimeoutMs} ms)${cause}. ${ran} ` +
      "Check that the server is up and the host, port and credentials are right, or raise offlineTimeoutMs.",
  );
}

/**
 * No reply from `where` within `ms` (commandTimeoutMs, plus the wait of a command that waits by
 * design); `replaced` whether the silent link is being opened again (it is not when it is the caller's).
 */
export function noReplyWithin(where: string, ms: number, replaced: boolean): Error {
  const what = replaced ? "the connection was dropped and is being opened again" : "the connection is the caller's and was left as it is";
  return rsmqError(
    "connectionTimeout",
    `rsmq-next: no reply from Redis at ${where} within commandTimeoutMs (${ms} ms): the link is silent or the server is stuck; ${what}. ` +
      "The call may have run (a send may have stored its message): retry it if at-least-once is acceptable, or raise commandTimeoutMs.",
  );
}

/**
 * The ioredis client at `where` lost its connection with the call in flight and gave the call up
 * after `maxRetriesPerRequest` reconnections; `said` is its MaxRetriesPerRequestError's message.
 */
export function givenUpByIoredis(where: string, said: string): Error {
  return rsmqError(
    "connectionTimeout",
    `rsmq-next: the connection to Redis at ${where} was lost with the call in flight, and the ioredis client gave it up: ${said} ` +
      "The call may have run (a send may have stored its message): retry it if at-least-once is acceptable. " +
      "To let offlineTimeoutMs and commandTimeoutMs bound calls instead, create the ioredis client with `maxRetriesPerRequest: null`.",
  );
}

/**
 * No slot map read from `seeds` (what names the root nodes) within `ms` (clusterRetryMs, or one
 * connect attempt when that is longer); `errors` are the last errors of the attempt and of the nodes.
 */
export function noSlotMapWithin(seeds: string, ms: number, errors: readonly Error[]): Error {
  const cause = errors.length > 0 ? `: ${[...new Set(errors.map((error) => error.message))].join("; last node error: ")}` : "";
  return rsmqError(
    "connectionTimeout",
    `rsmq-next: could not read the Redis Cluster's slot map from ${seeds} within clusterRetryMs ` +
      `(${ms} ms)${cause}. ` +
      "The call was not run. Check that the nodes are up and the addresses and credentials are right, or raise clusterRetryMs.",
  );
}

/**
 * The master of `slot` (at `where`, when the slot map names it) stayed disconnected: the call was
 * retried on fresh slot maps until clusterRetryMs ran out.
 */
export function masterNotConnected(slot: number, where: string | undefined): Error {
  const at = where ? ` (${where})` : "";
  return rsmqError(
    "connectionTimeout",
    `rsmq-next: the master of slot ${slot}${at} is not connected: the call was given up there ` +
      "and retried on a slot map read afresh until clusterRetryMs ran out",
  );
}

/** An error with its code (ECONNREFUSED, ENOTFOUND, ...) and message, however node-redis wrapped it. */
function describe(error: Error): string {
  const code = (error as { code?: unknown }).code;
  const text = error.message || error.name;
  return typeof code === "string" && !text.includes(code) ? `${code} ${text}` : text;
}
