/**
 * One request, from the path to the answer: security headers first, then the page's files, the
 * mount redirect, the route; for a POST route the read-only refusal before anything else, then the
 * same-origin check, then the body. Every failure becomes the error JSON (respond.ts), but the
 * `metrics` route's, which Prometheus reads: a 503 with a line of text.
 */
import type { IncomingMessage, ServerResponse } from "http";
import type { QueuesResponse } from "../api-types";
import type { CostMeter } from "../../queue-state/cost-meter";
import type { Sampler, SamplerState } from "../live/sampler";
import type { QueueBoard } from "../../queue-state/queue-board";
import type { Actions, ActionName } from "./actions";
import type { EventStreams } from "./event-stream";
import { HttpError } from "./http-error";
import { readJsonBody } from "./json-body";
import { mountRedirect } from "./mount-redirect";
import { sendError, sendJson } from "./respond";
import { findRoute } from "./routes";
import type { Match } from "./routes";
import { isSameOrigin } from "./same-origin";
import { setSecurityHeaders } from "./security-headers";
import { isAsset, sendAsset } from "./static-assets";
import { renderExposition } from "../../telemetry/exposition/exposition";
import { queueStateFamilies } from "../../telemetry/exposition/queue-state-families";
import { sendExposition, sendScrapeFailure } from "../../telemetry/exposition/scrape-answer";

/** Everything a request may use, made once per dashboard. */
export interface HandlerParts {
  readOnly: boolean;
  intervalMs: number;
  board: QueueBoard;
  sampler: Sampler;
  cost: CostMeter;
  actions: Actions;
  streams: EventStreams;
  /** Whether close() was called. */
  closed(): boolean;
}

/** Messages on one page of the browser when the query names no limit. */
const DEFAULT_PAGE = 50;

/** Serves one request; never rejects (every failure is answered). */
export async function handleRequest(parts: HandlerParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    setSecurityHeaders(res);
    await dispatch(parts, req, res);
  } catch (error) {
    sendError(res, error);
  }
}

async function dispatch(parts: HandlerParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://dashboard.invalid");
  const path = url.pathname.replace(/^\/+/, "");
  const method = req.method ?? "GET";
  if (isAsset(path)) {
    const location = mountRedirect(req, path);
    if (location !== undefined) {
      res.writeHead(301, { Location: location, "Cache-Control": "no-store" }).end();
      return;
    }
    if (method !== "GET" && method !== "HEAD")
      throw new HttpError(405, "methodNotAllowed", "The page's files take GET.", { Allow: "GET, HEAD" });
    sendAsset(res, path, method === "HEAD");
    return;
  }
  const match = findRoute(method, path, url.searchParams);
  if (match.route.mutates) {
    // Read-only is checked first: no body is read, nothing else is looked at.
    if (parts.readOnly) {
      throw new HttpError(
        405,
        "readOnly",
        "This dashboard is read-only: start it with readOnly: false (CLI: --read-write) to allow changes.",
      );
    }
    if (!isSameOrigin(req)) {
      throw new HttpError(
        403,
        "crossSite",
        "A change must come from the dashboard's own page: send Sec-Fetch-Site: same-origin (or an Origin equal to this host).",
      );
    }
    const body = await readJsonBody(req);
    const answer = await parts.actions.run(match.route.name as ActionName, match.params.qname, match.params.id, body);
    sendJson(res, answer.status, answer.body);
    return;
  }
  await read(parts, match, req, res);
}

async function read(parts: HandlerParts, { route, params }: Match, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { board } = parts;
  switch (route.name) {
    case "queues":
      return sendJson(res, 200, queuesAnswer(parts, await parts.sampler.latest()));
    case "stream":
      if (parts.closed()) throw new HttpError(503, "closed", "This dashboard was closed.");
      return parts.streams.start(req, res, {
        sampler: parts.sampler,
        retryMs: parts.intervalMs,
        answer: (state) => queuesAnswer(parts, state),
      });
    case "queue": {
      const { now, queue } = await board.readQueue(params.qname);
      return sendJson(res, 200, { now, readOnly: parts.readOnly, queue });
    }
    case "messages": {
      // The browse operation checks both (invalidValue, before any round trip): a missing one is its default.
      const offset = params.query.get("offset") || "0";
      const limit = params.query.get("limit") || String(DEFAULT_PAGE);
      return sendJson(res, 200, await board.readMessages(params.qname, { offset, limit }));
    }
    case "message":
      return sendJson(res, 200, await board.readMessage(params.qname, params.id));
    case "deadLetters":
      return sendJson(res, 200, await board.readDeadLetters(params.qname));
    case "metrics":
      return sendMetrics(res, await parts.sampler.latest());
    default:
      throw new HttpError(500, "internal", `Route ${route.name} has no reader.`);
  }
}

/**
 * The queue-state metrics of the latest reading (the one open tabs share, or a new one when it is
 * older than the interval); 503 with the reason while Redis cannot be read.
 */
function sendMetrics(res: ServerResponse, state: SamplerState): void {
  if (!state.health.ok || !state.reading) {
    return sendScrapeFailure(res, state.health.ok ? "no reading yet" : state.health.error);
  }
  sendExposition(res, renderExposition(queueStateFamilies(state.reading)));
}

/** The QueuesResponse of a sampler state: no queues while Redis is down (the page says why). */
export function queuesAnswer(parts: HandlerParts, state: SamplerState): QueuesResponse {
  return {
    now: state.reading?.now ?? null,
    intervalMs: parts.intervalMs,
    readOnly: parts.readOnly,
    redis: state.health,
    cost: parts.cost.reading(parts.sampler.streams),
    queues: state.health.ok && state.reading ? state.reading.queues : [],
  };
}
