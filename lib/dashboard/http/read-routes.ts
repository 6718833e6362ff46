/**
 * The routes that read (docs/dashboard.md, JSON API): the queue list and its live stream, one
 * queue, a page of its messages, one message, its consumers, its schedules, its dead letters,
 * and the queue-state metrics.
 */
import type { ServerResponse } from "http";
import type { QueuesResponse } from "../api-types";
import type { SamplerState } from "../live/sampler";
import { renderExposition } from "../../telemetry/exposition/exposition";
import { queueStateFamilies } from "../../telemetry/exposition/queue-state-families";
import { sendExposition, sendScrapeFailure } from "../../telemetry/exposition/scrape-answer";
import { HttpError } from "./http-error";
import { sendJson } from "./respond";
import type { HandlerParts, ReadRoute } from "./route";

/** Messages on one page of the browser when the query names no limit. */
const DEFAULT_PAGE = 50;

export const READ_ROUTES: readonly ReadRoute[] = [
  {
    method: "GET",
    pattern: "api/queues",
    mutates: false,
    async run(ctx) {
      sendJson(ctx.res, 200, queuesAnswer(ctx, await ctx.sampler.latest()));
    },
  },
  {
    method: "GET",
    pattern: "api/stream",
    mutates: false,
    run(ctx) {
      if (ctx.closed()) throw new HttpError(503, "closed", "This dashboard was closed.");
      ctx.streams.start(ctx.req, ctx.res, {
        sampler: ctx.sampler,
        retryMs: ctx.intervalMs,
        answer: (state) => queuesAnswer(ctx, state),
      });
    },
  },
  {
    method: "GET",
    pattern: "api/queues/:qname",
    mutates: false,
    async run(ctx, params) {
      const { now, queue } = await ctx.board.readQueue(params.qname);
      sendJson(ctx.res, 200, { now, readOnly: ctx.readOnly, queue });
    },
  },
  {
    method: "GET",
    pattern: "api/queues/:qname/messages",
    mutates: false,
    async run(ctx, params) {
      // The browse operation checks both (invalidValue, before any round trip): a missing one is its default.
      const offset = params.query.get("offset") || "0";
      const limit = params.query.get("limit") || String(DEFAULT_PAGE);
      // `live=1`: a page following the readings, which shares one read with every other page
      // that asks for the same list after the same reading (live/shared-lists.ts).
      const live = params.query.get("live") === "1";
      const read = live ? ctx.lists.read(params.qname, { offset, limit }) : ctx.board.readMessages(params.qname, { offset, limit });
      sendJson(ctx.res, 200, await read);
    },
  },
  {
    method: "GET",
    pattern: "api/queues/:qname/messages/:id",
    mutates: false,
    async run(ctx, params) {
      sendJson(ctx.res, 200, await ctx.board.readMessage(params.qname, params.id));
    },
  },
  {
    method: "GET",
    pattern: "api/queues/:qname/consumers",
    mutates: false,
    async run(ctx, params) {
      sendJson(ctx.res, 200, await ctx.board.readConsumers(params.qname));
    },
  },
  {
    method: "GET",
    pattern: "api/queues/:qname/schedules",
    mutates: false,
    async run(ctx, params) {
      sendJson(ctx.res, 200, await ctx.board.readSchedules(params.qname));
    },
  },
  {
    method: "GET",
    pattern: "api/queues/:qname/dead-letters",
    mutates: false,
    async run(ctx, params) {
      sendJson(ctx.res, 200, await ctx.board.readDeadLetters(params.qname));
    },
  },
  {
    // The queue-state metrics in Prometheus' text format (lib/telemetry/exposition/), from the shared reading.
    method: "GET",
    pattern: "metrics",
    mutates: false,
    async run(ctx) {
      sendMetrics(ctx, await ctx.sampler.latest());
    },
  },
];

/**
 * The queue-state metrics of the latest reading (the one open tabs share, or a new one when it is
 * older than the interval), the schedules of the queues that have any included (the same call
 * read them); 503 with the reason while Redis cannot be read. Prometheus reads this answer, so a
 * failure is a line of text, not the error JSON.
 */
function sendMetrics({ res }: { res: ServerResponse }, state: SamplerState): void {
  if (!state.health.ok || !state.reading) {
    return sendScrapeFailure(res, state.health.ok ? "no reading yet" : state.health.error);
  }
  sendExposition(res, renderExposition(queueStateFamilies(state.reading)));
}

/** The QueuesResponse of a sampler state: no queues while Redis is down (the page says why). */
function queuesAnswer(parts: HandlerParts, state: SamplerState): QueuesResponse {
  return {
    now: state.reading?.now ?? null,
    intervalMs: parts.intervalMs,
    readOnly: parts.readOnly,
    redis: state.health,
    cost: parts.cost.reading(parts.sampler.streams),
    queues: state.health.ok && state.reading ? state.reading.queues : [],
  };
}
