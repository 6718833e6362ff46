/**
 * The routes for a queue's controls (docs/dashboard.md, JSON API; docs/fleet-controls.md): pause
 * and resume it, set and remove its rate limit and its concurrency limit. Each is one call of rsmq's public *Async methods,
 * which check the input before any round trip (bad input 400, nothing written); the handler has
 * refused it in read-only mode, from another origin and with a body field not listed, first.
 * The queue's controls themselves are read with the rest of its row (`GET api/queues`).
 */
import { sendJson } from "./respond";
import type { WriteRoute } from "./route";
import { counted, given } from "./write-routes";

/** `POST api/queues/:qname/pause`: until when (epoch ms; absent: until a resume), and whether hard. */
export const PAUSE_KEYS = ["until", "hard"] as const;
/** `POST api/queues/:qname/rate-limit`: the limits `[{ max, perMs, burst? }]` and the mode. */
export const RATE_LIMIT_KEYS = ["limits", "mode"] as const;
/** `POST api/queues/:qname/concurrency`: the most messages in flight at once. */
export const CONCURRENCY_KEYS = ["max"] as const;

export const CONTROL_ROUTES: readonly WriteRoute[] = [
  {
    method: "POST",
    pattern: "api/queues/:qname/pause",
    mutates: true,
    body: PAUSE_KEYS,
    async run({ rsmq, cost, res }, { qname }, body) {
      await counted(cost, rsmq.pauseQueueAsync({ ...given(body, ...PAUSE_KEYS), qname }));
      sendJson(res, 200, { qname, paused: true });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/resume",
    mutates: true,
    body: [],
    async run({ rsmq, cost, res }, { qname }) {
      const resumed = await counted(cost, rsmq.resumeQueueAsync({ qname }));
      sendJson(res, 200, { qname, resumed: resumed === 1 });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/rate-limit",
    mutates: true,
    body: RATE_LIMIT_KEYS,
    async run({ rsmq, cost, res }, { qname }, body) {
      const options = { ...given(body, ...RATE_LIMIT_KEYS), qname } as Parameters<typeof rsmq.setRateLimitAsync>[0];
      await counted(cost, rsmq.setRateLimitAsync(options));
      sendJson(res, 200, { qname });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/rate-limit/remove",
    mutates: true,
    body: [],
    async run({ rsmq, cost, res }, { qname }) {
      const removed = await counted(cost, rsmq.removeRateLimitAsync({ qname }));
      sendJson(res, 200, { qname, removed: removed === 1 });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/concurrency",
    mutates: true,
    body: CONCURRENCY_KEYS,
    async run({ rsmq, cost, res }, { qname }, body) {
      const options = { ...given(body, ...CONCURRENCY_KEYS), qname } as Parameters<typeof rsmq.setConcurrencyAsync>[0];
      await counted(cost, rsmq.setConcurrencyAsync(options));
      sendJson(res, 200, { qname, concurrency: options.max });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/concurrency/remove",
    mutates: true,
    body: [],
    async run({ rsmq, cost, res }, { qname }) {
      const removed = await counted(cost, rsmq.removeConcurrencyAsync({ qname }));
      sendJson(res, 200, { qname, removed: removed === 1 });
    },
  },
];
