/**
 * What a route is: a method, a path pattern relative to the mount (`:qname`, `:id` and `:name`
 * match one segment), whether it changes anything, and the code that answers it. A route that changes
 * anything is a POST, and a POST always changes something: the types hold the two together, so
 * no mutation can be declared where the read-only and same-origin checks would skip it.
 */
import type { IncomingMessage, ServerResponse } from "http";
import type { RedisSMQ } from "../../redis-smq";
import type { CostMeter } from "../../queue-state/cost-meter";
import type { Sampler } from "../live/sampler";
import type { QueueBoard } from "../../queue-state/queue-board";
import type { EventStreams } from "./event-stream";
import type { SharedLists } from "../live/shared-lists";

export type Method = "GET" | "POST";

/** What a matched route gets: the decoded `:qname`, `:id` and `:name` (a schedule's) segments and the query. */
export interface RouteParams {
  qname: string;
  id: string;
  name: string;
  query: URLSearchParams;
}

/** Everything a request may use, made once per dashboard. */
export interface HandlerParts {
  readOnly: boolean;
  intervalMs: number;
  rsmq: RedisSMQ;
  board: QueueBoard;
  sampler: Sampler;
  cost: CostMeter;
  streams: EventStreams;
  /** The message lists' live reloads, one read per list and reading. */
  lists: SharedLists;
  /** Whether close() was called. */
  closed(): boolean;
}

/** The dashboard's parts and the request being answered. */
export interface RouteContext extends HandlerParts {
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * Answers the request on `ctx.res`; a throw or rejection becomes the error answer. `body` is a
 * mutation's JSON body, read once the checks passed; a read gets `{}`.
 */
export type RouteRun = (ctx: RouteContext, params: RouteParams, body: Record<string, unknown>) => void | Promise<void>;

/** A route that only reads: served in read-only mode too. */
export interface ReadRoute {
  method: "GET";
  pattern: string;
  mutates: false;
  run: RouteRun;
}

/** A mutation: refused in read-only mode, and only from the same origin. */
export interface WriteRoute {
  method: "POST";
  pattern: string;
  mutates: true;
  /** The fields its JSON body may hold: any other is refused with 400 before it runs (json-body.ts). */
  body: readonly string[];
  run: RouteRun;
}

export type Route = ReadRoute | WriteRoute;
