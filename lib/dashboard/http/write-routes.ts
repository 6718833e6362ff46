/**
 * The routes that change something (docs/dashboard.md, JSON API), each one call of rsmq's public
 * *Async methods (so rsmq checks the input, before any round trip), counted in the cost meter
 * where it is sent. The handler has refused them in read-only mode, from another origin, and
 * with a body field the route does not list in `body`, before any of these runs.
 */
import type { RedisSMQ } from "../../redis-smq";
import type { RedriveOptions } from "../../types";
import type { CostMeter } from "../../queue-state/cost-meter";
import { MAX_BATCH } from "../../operations/rsmq-input-rules";
import { HttpError } from "./http-error";
import { errorAnswer } from "./error-status";
import { sendJson } from "./respond";
import type { WriteRoute } from "./route";

/** Redrive's options with the filters by group (reason and last error) the dead-letter page uses. */
type GroupRedriveOptions = RedriveOptions & { reason?: unknown; error?: unknown };

/** `POST api/queues/:qname/attributes`: the settings it changes (retention and expireTo: docs/retention.md). */
export const ATTRIBUTE_KEYS = ["vt", "delay", "maxsize", "retention", "expireTo"] as const;
/** `POST api/queues/:qname/messages`: the options a send takes beside `message`. */
export const SEND_OPTION_KEYS = ["delay", "priority"] as const;

export const WRITE_ROUTES: readonly WriteRoute[] = [
  {
    method: "POST",
    pattern: "api/queues",
    mutates: true,
    body: ["qname", "vt", "delay", "maxsize"],
    async run({ rsmq, cost, res }, _params, body) {
      const options = given(body, "qname", "vt", "delay", "maxsize") as { qname: string };
      await counted(cost, rsmq.createQueueAsync(options));
      sendJson(res, 201, { qname: options.qname });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/attributes",
    mutates: true,
    body: ATTRIBUTE_KEYS,
    async run({ rsmq, cost, res }, { qname }, body) {
      const attributes = await counted(cost, rsmq.setQueueAttributesAsync({ ...given(body, ...ATTRIBUTE_KEYS), qname }));
      sendJson(res, 200, { qname, attributes });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/messages",
    mutates: true,
    body: ["message", ...SEND_OPTION_KEYS],
    async run({ rsmq, cost, res }, { qname }, body) {
      const sent = await counted(
        cost,
        rsmq.sendMessageAsync({ ...given(body, ...SEND_OPTION_KEYS), qname, message: body.message as string }),
      );
      sendJson(res, 201, { id: sent });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/messages/:id/visible",
    mutates: true,
    body: [],
    async run({ rsmq, cost, res }, { qname, id }) {
      const found = await counted(cost, rsmq.changeMessageVisibilityAsync({ qname, id, vt: 0 }));
      if (found === 0) throw messageNotFound(qname, id);
      sendJson(res, 200, { id });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/messages/:id/delete",
    mutates: true,
    body: [],
    async run({ rsmq, cost, res }, { qname, id }) {
      const found = await counted(cost, rsmq.deleteMessageAsync({ qname, id }));
      if (found === 0) throw messageNotFound(qname, id);
      sendJson(res, 200, { id });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/redrive",
    mutates: true,
    body: ["to", "reason", "error"],
    async run({ rsmq, cost, res }, { qname }, body) {
      sendJson(res, 200, { moved: await redrive(rsmq, cost, { ...given(body, "to", "reason", "error"), from: qname }) });
    },
  },
  {
    method: "POST",
    pattern: "api/queues/:qname/delete",
    mutates: true,
    body: ["confirm"],
    async run({ rsmq, cost, res }, { qname }, body) {
      if (body.confirm !== qname) {
        throw new HttpError(400, "confirmRequired", `Deleting a queue needs its name to confirm: send { "confirm": "${qname}" }.`);
      }
      await counted(cost, rsmq.deleteQueueAsync({ qname }));
      sendJson(res, 200, { qname });
    },
  },
];

/** The fields of a body that are given (undefined and null mean "not given", as rsmq reads them). */
export function given(body: Record<string, unknown>, ...names: string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const name of names) if (body[name] !== undefined && body[name] !== null) picked[name] = body[name];
  return picked;
}

/** Counts the call's one command once it was sent: not when rsmq refused the input before any round trip. */
export async function counted<T>(cost: CostMeter, call: Promise<T>): Promise<T> {
  try {
    const result = await call;
    cost.add(1);
    return result;
  } catch (error) {
    if (reachedRedis(error)) cost.add(1);
    throw error;
  }
}

async function redrive(rsmq: RedisSMQ, cost: CostMeter, options: GroupRedriveOptions): Promise<number> {
  let moved: number;
  try {
    moved = await rsmq.redriveAsync(options);
  } catch (error) {
    if (reachedRedis(error)) cost.add(1);
    throw error;
  }
  // Estimated, not counted: redrive reports only how many moved. It reads a page of up to
  // MAX_BATCH and moves it with one more script (three across cluster slots), until a page
  // comes back short: two commands per page, plus the last, short read.
  cost.add(2 * Math.ceil(moved / MAX_BATCH) + 1);
  return moved;
}

/** Bad input (400) is refused before any round trip; any other failure came from Redis or on the way to it. */
function reachedRedis(error: unknown): boolean {
  return errorAnswer(error).status !== 400;
}

function messageNotFound(qname: string, id: string): HttpError {
  return new HttpError(404, "messageNotFound", `No message ${id} in queue ${qname}: it was deleted or received and deleted.`);
}
