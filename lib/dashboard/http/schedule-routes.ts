/**
 * The routes that change a queue's schedules (docs/dashboard.md, JSON API; docs/schedules.md):
 * pause one, resume it, remove it. Each is one call of rsmq's public *Async methods; the handler
 * has refused it in read-only mode, from another origin and with a body field, first. Creating
 * or changing a schedule's timing is the application's (upsertScheduleAsync, or the command line):
 * a schedule the page changed would be written back by the next deploy's upsert. The schedules
 * themselves are read by `GET api/queues/:qname/schedules`.
 */
import { sendJson } from "./respond";
import type { WriteRoute } from "./route";
import { counted } from "./write-routes";

export const SCHEDULE_ROUTES: readonly WriteRoute[] = [
  {
    method: "POST",
    pattern: "api/queues/:qname/schedules/:name/pause",
    mutates: true,
    body: [],
    async run({ rsmq, cost, res }, { qname, name }) {
      const paused = await counted(cost, rsmq.pauseScheduleAsync({ qname, name }));
      sendJson(res, 200, { qname, name, paused: paused === 1 });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/schedules/:name/resume",
    mutates: true,
    body: [],
    async run({ rsmq, cost, res }, { qname, name }) {
      const resumed = await counted(cost, rsmq.resumeScheduleAsync({ qname, name }));
      sendJson(res, 200, { qname, name, resumed: resumed === 1 });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/schedules/:name/remove",
    mutates: true,
    body: [],
    async run({ rsmq, cost, res }, { qname, name }) {
      const removed = await counted(cost, rsmq.removeScheduleAsync({ qname, name }));
      sendJson(res, 200, { qname, name, removed: removed === 1 });
    },
  },
];
