/**
 * The routes for triage (docs/dashboard.md, JSON API): find messages by id or by a text in their
 * bodies, browse them filtered by attributes, count a queue's tenants (reads, served in read-only
 * mode too), purge a queue (its name typed to confirm), and
 * redrive one dead letter. Sending with a priority and changing a queue's retention go through the
 * existing send and attributes routes (write-routes.ts). Each mutation is one call of rsmq's public
 * *Async methods; the handler has refused it in read-only mode and from another origin first.
 *
 * Each route's accepted body keys are declared beside it (`*_KEYS`); any other is refused with 400 (json-body.ts).
 */
import { HttpError } from "./http-error";
import { sendJson } from "./respond";
import type { ReadRoute, WriteRoute } from "./route";
import { counted, given } from "./write-routes";

/** `POST api/queues/:qname/purge`: the queue's name, typed to confirm. */
export const PURGE_KEYS = ["confirm"] as const;
/** `POST api/queues/:qname/messages/:id/redrive`: where to, when not the queue it came from. */
export const REDRIVE_ONE_KEYS = ["to"] as const;

export const TRIAGE_ROUTES: ReadonlyArray<ReadRoute | WriteRoute> = [
  {
    method: "GET",
    pattern: "api/queues/:qname/find",
    mutates: false,
    async run(ctx, { qname, query }) {
      const text = query.get("text") ?? undefined;
      const id = query.get("id") ?? undefined;
      sendJson(ctx.res, 200, await ctx.board.findMessages(qname, { text, id, cursor: query.get("cursor") ?? undefined }));
    },
  },
  {
    // The message browser filtered by attributes (`where=name=value`, repeatable) and a state, from a cursor.
    method: "GET",
    pattern: "api/queues/:qname/browse",
    mutates: false,
    async run(ctx, { qname, query }) {
      const filter = {
        where: query.getAll("where").filter((item) => item !== ""),
        state: query.get("state") ?? undefined,
        cursor: query.get("cursor") ?? undefined,
        limit: query.get("limit") ?? undefined,
      };
      sendJson(ctx.res, 200, await ctx.board.browseFiltered(qname, filter));
    },
  },
  {
    // The tenants with messages in the queue (the `tenant` attribute), counted by state over at most 10,000 messages.
    method: "GET",
    pattern: "api/queues/:qname/tenants",
    mutates: false,
    async run(ctx, { qname }) {
      sendJson(ctx.res, 200, await ctx.board.readTenants(qname));
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/purge",
    mutates: true,
    body: PURGE_KEYS,
    async run({ rsmq, cost, res }, { qname }, body) {
      if (given(body, ...PURGE_KEYS).confirm !== qname) {
        throw new HttpError(400, "confirmRequired", `Purging a queue needs its name to confirm: send { "confirm": "${qname}" }.`);
      }
      const removed = await counted(cost, rsmq.purgeQueueAsync({ qname }));
      sendJson(res, 200, { qname, removed });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/messages/:id/redrive",
    mutates: true,
    body: REDRIVE_ONE_KEYS,
    async run({ rsmq, cost, res }, { qname, id }, body) {
      const options = { ...given(body, ...REDRIVE_ONE_KEYS), from: qname, id };
      // Estimated as the redrive route does: one read of the message and one move (three across
      // cluster slots); nothing when rsmq refused the input before any round trip.
      const moved = await counted(cost, rsmq.redriveAsync(options));
      cost.add(1);
      if (moved === 0) {
        throw new HttpError(
          404,
          "messageNotFound",
          `Message ${id} did not move: it is not in ${qname}, a consumer holds it, or it has no recorded source queue (send { "to": "<qname>" }).`,
        );
      }
      sendJson(res, 200, { id, moved });
    },
  },
];
