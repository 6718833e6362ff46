/**
 * A comparable picture of everything a namespace holds in Redis, with what legitimately differs
 * between two runs (random ids, clock readings) replaced by stable tokens: message ids become
 * `msg1`, `msg2`, ... in id (send time) order. Keys are named as rsmq 0.12.4 names them on either
 * target (see inspect.ts's logicalKey).
 *
 * Clock readings are replaced only after they were checked: given the `WriteWatch` that the calls
 * went through (written-data.ts), each `created`, `modified`, `<id>:fr` and score a call wrote
 * becomes the token the watch gave it once its form and TIME window passed (`<s>`,
 * `<ms of #3>`, `+30s`), and one the test wrote itself is kept as it is. Without a watch (the
 * fuzz test, which checks every step with its own watches and compares due messages apart),
 * `created`, `modified` and `<id>:fr` become `<time>` and a score whole seconds from now.
 */
import type { RedisClientType } from "redis";
import { allKeys, logicalKey, serverNowMs } from "./inspect";
import type { WriteWatch } from "./written-data";

/** The shape of an rsmq message id: 10 base36 characters of send time, 22 random ones. */
export const MESSAGE_ID = /^[a-z0-9]{10}[A-Za-z0-9]{22}$/;
const TIME_FIELDS = new Set(["created", "modified"]);

export type Snapshot = Record<string, unknown>;

export async function snapshot(client: RedisClientType, ns: string, watch?: WriteWatch): Promise<Snapshot> {
  const keys = (await allKeys(client, `${ns}:*`)).sort((x, y) => (logicalKey(ns, x) < logicalKey(ns, y) ? -1 : 1));
  const nowMs = await serverNowMs(client);
  const ids = new Set<string>();
  const raw: Record<string, { key: string; type: string; value: unknown }> = {};
  for (const key of keys) {
    const type = await client.type(key);
    let value: unknown;
    if (type === "hash") value = await client.hGetAll(key);
    else if (type === "zset") value = await client.zRangeWithScores(key, 0, -1);
    else if (type === "set") value = (await client.sMembers(key)).sort();
    else if (type === "string") value = await client.get(key);
    else value = `<${type}>`;
    raw[logicalKey(ns, key)] = { key, type, value };
    if (type === "zset") for (const { value: member } of value as Array<{ value: string }>) ids.add(member);
    if (type === "hash") for (const field of Object.keys(value as object)) if (MESSAGE_ID.test(field)) ids.add(field);
  }
  const tokens = new Map([...ids].sort().map((id, index) => [id, `msg${index + 1}`]));
  const token = (text: string): string => {
    const [head, ...rest] = text.split(":");
    return tokens.has(head) ? [tokens.get(head), ...rest].join(":") : text;
  };

  const result: Snapshot = {};
  for (const [key, { key: rawKey, type, value }] of Object.entries(raw)) {
    if (type === "hash") {
      const fields: Record<string, string> = {};
      for (const [field, fieldValue] of Object.entries(value as Record<string, string>)) {
        const isTime = TIME_FIELDS.has(field) || field.endsWith(":fr");
        const checked = watch ? (watch.tokenOf(rawKey, "field", field, fieldValue) ?? fieldValue) : "<time>";
        fields[token(field)] = isTime ? checked : fieldValue;
      }
      result[key] = { hash: sortKeys(fields) };
    } else if (type === "zset") {
      result[key] = {
        zset: (value as Array<{ value: string; score: number }>).map(({ value: member, score }) => [
          token(member),
          watch?.tokenOf(rawKey, "score", member, score) ?? Math.round((score - nowMs) / 1000),
        ]),
      };
    } else {
      result[key] = { [type]: value };
    }
  }
  return result;
}

function sortKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Everything a namespace holds, exactly as Redis holds it (raw key names, every field, exact
 * scores): for showing that a call changed nothing at all, where `snapshot` would round scores.
 */
export async function exactState(client: RedisClientType, ns: string): Promise<Snapshot> {
  const state: Snapshot = {};
  for (const key of (await allKeys(client, `${ns}:*`)).sort()) {
    const type = await client.type(key);
    if (type === "hash") state[key] = { hash: sortKeys(await client.hGetAll(key)) };
    else if (type === "zset") state[key] = { zset: (await client.zRangeWithScores(key, 0, -1)).map(({ value, score }) => [value, score]) };
    else if (type === "set") state[key] = { set: (await client.sMembers(key)).sort() };
    else if (type === "string") state[key] = { string: await client.get(key) };
    else state[key] = `<${type}>`;
  }
  return state;
}
