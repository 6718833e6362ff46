/**
 * What a script that met expired messages says about them (lua/shared/expiry.lua): the
 * last element of its reply, a nested table, which no other element of those replies ever is. A
 * queue with no retention never gets one, so its replies read as they always did.
 */

/** A message parked by the script for the client to move to the queue's `expireTo` queue. */
export interface ParkedMessage {
  id: string;
  message: string;
  /** How often it had been received (rsmq's `rc`). */
  rc: number;
}

/** The expired messages one script call dealt with. */
export interface ExpiredReport {
  /** How many it deleted (the queue has no `expireTo`); already counted in `totalexpired`. */
  deleted: number;
  /** The queue the parked ones go to; undefined when the queue has no `expireTo`. */
  target: string | undefined;
  /** Parked (hidden for the two-step move's hold) for the client to move to `target`. */
  parked: ParkedMessage[];
}

/** Reads a report table: `{ deleted, target or "", id1, body1, rc1, ... }`. */
export function toExpiredReport(table: unknown[]): ExpiredReport {
  const parked: ParkedMessage[] = [];
  for (let i = 2; i < table.length; i += 3) {
    parked.push({ id: String(table[i]), message: String(table[i + 1] ?? ""), rc: Number(table[i + 2] ?? 0) });
  }
  const target = String(table[1] ?? "");
  return { deleted: Number(table[0] ?? 0), target: target === "" ? undefined : target, parked };
}

/** Splits a reply array into its own elements and the report its last element may be. */
export function splitExpired(reply: unknown[]): { rest: unknown[]; expired: ExpiredReport | undefined } {
  const last = reply[reply.length - 1];
  if (!Array.isArray(last)) return { rest: reply, expired: undefined };
  return { rest: reply.slice(0, -1), expired: toExpiredReport(last) };
}
