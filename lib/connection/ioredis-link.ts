/**
 * An ioredis client seen through the LinkWatchdog (WatchedLink), and ioredis' own give-ups turned
 * into errors that say what happened and what to do.
 */
import { rsmqError } from "../errors";
import { whereOf } from "./ioredis-client";
import type { AnyIoredis } from "./ioredis-client";
import type { WatchedLink } from "./link-watchdog";

/**
 * ioredis cannot withdraw a call from its offline queue, so the watchdog holds a call made while
 * the client is not ready and sends it once it is (ioredis emits `ready` after `status` is set).
 */
export function ioredisLink(client: AnyIoredis): WatchedLink {
  return {
    get isReady() {
      return client.status === "ready";
    },
    get where() {
      return whereOf(client);
    },
    withdrawable: false,
    on: (event, listener) => client.on(event, listener),
    off: (event, listener) => client.off(event, listener),
  };
}

/**
 * ioredis rejects the calls in flight when a connection is lost with `MaxRetriesPerRequestError`
 * after `maxRetriesPerRequest` reconnection attempts, and every call with "Connection is closed."
 * once the client was closed: both become a `connectionTimeout` that says so. Anything else (a
 * reply from Redis) is returned as it is.
 */
export function translateIoredisError(error: unknown, client: AnyIoredis): unknown {
  if (!(error instanceof Error)) return error;
  const where = whereOf(client);
  if (error.name === "MaxRetriesPerRequestError") {
    return rsmqError(
      "connectionTimeout",
      `rsmq-next: the connection to Redis at ${where} was lost with the call in flight, and the ioredis client gave it up: ${error.message} ` +
        "The call may have run (a send may have stored its message): retry it if at-least-once is acceptable. " +
        "To let offlineTimeoutMs and commandTimeoutMs bound calls instead, create the ioredis client with `maxRetriesPerRequest: null`.",
    );
  }
  if (error.message === "Connection is closed." && client.status === "end") {
    return rsmqError(
      "connectionTimeout",
      `rsmq-next: the ioredis client passed as \`client\` (Redis at ${where}) is closed (quit() or disconnect() was called on it), ` +
        "so the call was not run. Keep the client open while the RedisSMQ instance is in use.",
    );
  }
  return error;
}
