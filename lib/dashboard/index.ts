/**
 * `rsmq-next/dashboard`: the operator dashboard as one request handler to mount in a Node server
 * (node:http, Express, Fastify, Koa), read-only unless told otherwise. docs/dashboard.md documents
 * the page, the routes and the security headers. The package's main entry never loads this.
 *
 * @example
 * const { createDashboard } = require("rsmq-next/dashboard");
 * const dashboard = createDashboard({ rsmq, readOnly: true });
 * http.createServer((req, res) => dashboard(req, res)).listen(3000);
 */
import type { IncomingMessage, ServerResponse } from "http";
import type { RedisSMQ } from "../redis-smq";
import { CostMeter } from "./live/cost-meter";
import { Sampler } from "./live/sampler";
import { QueueBoard } from "./reads/queue-board";
import { Actions } from "./http/actions";
import { EventStreams } from "./http/event-stream";
import { handleRequest } from "./http/handler";
import { checkDashboardOptions } from "./options";

export type {
  BrowsedMessage,
  BrowsedState,
  DashboardCost,
  DeadLetterGroup,
  DeadLettersResponse,
  DueWithin,
  ErrorResponse,
  MessageResponse,
  MessagesResponse,
  QueueResponse,
  QueueRow,
  QueuesResponse,
  RedisHealth,
} from "./api-types";

/** The options of {@link createDashboard}. */
export interface DashboardOptions {
  /** The RedisSMQ instance to read (its namespace is the one shown). The dashboard never closes it. */
  rsmq: RedisSMQ;
  /**
   * Refuse every mutating route (405 `{"error":"readOnly"}`) and hide the actions on the page.
   * @default true
   */
  readOnly?: boolean;
  /**
   * Ms between two readings of every queue while at least one tab has the page open (100 to 3,600,000).
   * @default 2000
   */
  intervalMs?: number;
  /**
   * A queue's dead-letter queue where it is not `<qname>-dlq`, e.g. `{ orders: "orders-failed" }`.
   * @default {}
   */
  deadLetterQueues?: Record<string, string>;
  /**
   * Characters of a body the message list shows (1 to 1,000,000); the whole body is one click away.
   * @default 1000
   */
  previewChars?: number;
}

/**
 * The dashboard's request handler: serves every path relative to where it is mounted. It answers
 * every request itself, an unknown path included (404 JSON): `next` is accepted so that it mounts
 * as Express middleware, and is never called.
 */
export interface DashboardHandler {
  (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void;
  /** Ends the open live-update streams and stops reading; it does not close `rsmq`. */
  close(): void;
}

/**
 * Creates the dashboard's request handler. The options are checked here: a wrong one throws a
 * TypeError naming it. Nothing is read from Redis until a request asks.
 *
 * @example
 * app.use("/ops/queues", requireOperator, createDashboard({ rsmq, readOnly: false }));
 */
export function createDashboard(options: DashboardOptions): DashboardHandler {
  const { rsmq, readOnly, intervalMs, deadLetterQueues, previewChars } = checkDashboardOptions(options);
  const cost = new CostMeter();
  const board = new QueueBoard(rsmq, { deadLetterQueues, previewChars, cost });
  const sampler = new Sampler(() => board.readQueues(), { intervalMs });
  const streams = new EventStreams();
  let closed = false;
  const parts = { readOnly, intervalMs, board, sampler, cost, actions: new Actions(rsmq, cost), streams, closed: () => closed };
  const handler = (req: IncomingMessage, res: ServerResponse): void => void handleRequest(parts, req, res);
  return Object.assign(handler, {
    close(): void {
      closed = true;
      streams.closeAll();
      sampler.close();
    },
  });
}
