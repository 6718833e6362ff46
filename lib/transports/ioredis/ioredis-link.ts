/**
 * An ioredis client seen through the LinkWatchdog (WatchedLink), and ioredis' own give-ups turned
 * into errors that say what happened and what to do.
 */
import { givenUpByIoredis } from "../../errors/connection-timeouts";
import { connectionClosedError } from "../../errors/connection-closed";
import { IOREDIS_CLOSED } from "../closed-by-user";
import { whereOf } from "./client-shape";
import type { AnyIoredis } from "./client-shape";
import type { WatchedLink } from "../watchdog/link-watchdog";

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
 * after `maxRetriesPerRequest` reconnection attempts (a `connectionTimeout` that says so), and
 * every call with "Connection is closed." once the client ended (`connectionClosed`, as every call
 * after that: see closed-by-user.ts). Anything else (a reply from Redis) is returned as it is.
 */
export function translateIoredisError(error: unknown, client: AnyIoredis): unknown {
  if (!(error instanceof Error)) return error;
  if (error.name === "MaxRetriesPerRequestError") return givenUpByIoredis(whereOf(client), error.message);
  // Its `end` event comes on the next tick: the call made in between is told the same as those after it.
  if (error.message === "Connection is closed." && client.status === "end") return connectionClosedError(IOREDIS_CLOSED);
  return error;
}
