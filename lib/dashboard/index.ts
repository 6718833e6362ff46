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
import { internalsOf } from "../internals";
import { CostMeter } from "../queue-state/cost-meter";
import { QueueBoard } from "../queue-state/queue-board";
import { Sampler } from "./live/sampler";
import { SharedLists } from "./live/shared-lists";
import { EventStreams } from "./http/event-stream";
import { handleRequest } from "./http/handler";
import { checkDashboardOptions } from "./options";
import type { DashboardOptions } from "./options";

export type { DashboardOptions } from "./options";

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
  const board = new QueueBoard(rsmq, internalsOf(rsmq), { deadLetterQueues, previewChars, cost });
  const sampler = new Sampler(() => board.readQueues(), { intervalMs });
  const streams = new EventStreams();
  const lists = new SharedLists(
    () => sampler.current,
    (qname, page) => board.readMessages(qname, page),
  );
  let closed = false;
  const parts = { readOnly, intervalMs, rsmq, board, sampler, cost, streams, lists, closed: () => closed };
  const handler = (req: IncomingMessage, res: ServerResponse): void => void handleRequest(parts, req, res);
  return Object.assign(handler, {
    close(): void {
      closed = true;
      streams.closeAll();
      sampler.close();
    },
  });
}
