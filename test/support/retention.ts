/**
 * Old messages without waiting: a message planted as rsmq 0.12.4 lays one out (body under its id
 * in `<ns>:<q>:Q`, the id in `<ns>:<q>` scored by when it is visible), with an id whose first 10
 * characters are a send time in the past (microseconds since the epoch, base36, as rsmq writes it).
 */
import type { RedisClientType } from "redis";
import { serverNowMs } from "./inspect";
import { keysOf } from "./server";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** An id sent `ageMs` before `nowMs` (server clock), as rsmq lays ids out. */
export function idSentAt(sentMs: number): string {
  let tail = "";
  for (let i = 0; i < 22; i += 1) tail += ALPHABET[Math.floor(Math.random() * ALPHABET.length)];
  return (
    Math.floor(sentMs * 1000)
      .toString(36)
      .padStart(10, "0") + tail
  );
}

/**
 * The last score planted per queue and visibility offset. Two calls in the same millisecond would
 * otherwise give equal scores, which Redis orders by the ids' random tails: a later call's
 * messages must come after an earlier call's, as messages sent later do.
 */
const lastScores = new Map<string, number>();

export interface Planted {
  id: string;
  body: string;
}

/**
 * Plants `count` messages sent `ageSeconds` ago in `qname`, visible `dueInMs` from now (negative:
 * due since then; positive: hidden, as in flight or delayed), each with an `rc`, a trace context
 * and attributes (a schedule's) so that every field of theirs can be checked gone.
 */
export async function plantMessages(
  client: RedisClientType,
  ns: string,
  qname: string,
  options: { count: number; ageSeconds: number; dueInMs?: number; prefix?: string },
): Promise<Planted[]> {
  const { messages, hash } = keysOf(ns, qname);
  const now = await serverNowMs(client);
  const planted: Planted[] = [];
  const dueInMs = options.dueInMs ?? -60_000;
  const series = `${messages}\u0000${dueInMs}`;
  let score = Math.max(now + dueInMs, (lastScores.get(series) ?? -Infinity) + 1);
  for (let i = 0; i < options.count; i += 1, score += 1) {
    // One ms apart, oldest first, so their order by score is their order here.
    const id = idSentAt(now - options.ageSeconds * 1000 + i);
    const body = `${options.prefix ?? "old"}-${i}`;
    await client.hSet(hash, {
      [id]: body,
      [`${id}:rc`]: "1",
      [`${id}:fr`]: String(now - 1000),
      [`${id}:tp`]: "00-trace",
      [`${id}:at`]: JSON.stringify({ schedule: "planted", slot: now - 1000 }),
    });
    await client.zAdd(messages, { score, value: id });
    lastScores.set(series, score);
    planted.push({ id, body });
  }
  return planted;
}

/** Sets a queue's retention (seconds) and expireTo straight in its hash, as createQueue stores them. */
export async function setRetention(
  client: RedisClientType,
  ns: string,
  qname: string,
  retention: number,
  expireTo?: string,
): Promise<void> {
  const { hash } = keysOf(ns, qname);
  await client.hSet(hash, "retention", String(retention));
  if (expireTo !== undefined) await client.hSet(hash, "expireto", expireTo);
}

/** Every field of `qname`'s hash that belongs to one of `ids`. */
export async function fieldsOf(client: RedisClientType, ns: string, qname: string, ids: string[]): Promise<string[]> {
  const fields = await client.hKeys(keysOf(ns, qname).hash);
  return fields.filter((field) => ids.some((id) => field === id || field.startsWith(`${id}:`)));
}
