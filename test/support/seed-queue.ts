/**
 * Fills a queue with many messages fast, in rsmq 0.12.4's layout (ZADD score id + HSET id body),
 * for the purge tests and the bench: one EVAL per chunk of messages, so a million takes a few
 * seconds instead of a million round trips. The ids are rsmq's shape: 10 characters of the
 * server's time in microseconds in base36, then 22 characters (here the message's number), so they
 * sort by number; every message is visible from now (score: the server's time in ms).
 */
import type { RedisClientType } from "redis";
import { isCluster, serverNowUs } from "./inspect";

/** ZADD and HSET in slices of this many messages: Lua's unpack takes only so many values at once. */
const SLICE = 1000;

const SEED_SCRIPT = `
local queueSet, queueHash = KEYS[1], KEYS[2]
local prefix, first, count, score, body = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5]
local unpackAll = table.unpack or unpack
local members, fields = {}, {}
local last = first + count - 1
for i = first, last do
  local id = prefix .. string.format("%022d", i)
  members[#members + 1] = score
  members[#members + 1] = id
  fields[#fields + 1] = id
  fields[#fields + 1] = body
  if #members == ${2 * SLICE} or i == last then
    redis.call("ZADD", queueSet, unpackAll(members))
    redis.call("HSET", queueHash, unpackAll(fields))
    members, fields = {}, {}
  end
end
return count
`;

export interface SeedOptions {
  /** Messages per EVAL: each call holds the server for its duration. @default 20000 */
  perCall?: number;
  /** Every message's body. @default "m" */
  body?: string;
}

/** Adds `count` visible messages to the queue whose sorted set and hash are given; resolves `count`. */
export async function seedMessages(
  client: RedisClientType,
  keys: { messages: string; hash: string },
  count: number,
  { perCall = 20_000, body = "m" }: SeedOptions = {},
): Promise<number> {
  const nowUs = await serverNowUs(client);
  const prefix = nowUs.toString(36).padStart(10, "0");
  const score = String(Math.floor(nowUs / 1000));
  for (let first = 0; first < count; first += perCall) {
    const chunk = Math.min(perCall, count - first);
    const args = ["EVAL", SEED_SCRIPT, "2", keys.messages, keys.hash, prefix, String(first), String(chunk), score, body];
    // A cluster client is told the key that routes it: its eval() may go to a node that does not
    // hold the queue's slot, and then fails on MOVED.
    if (isCluster(client)) await client.sendCommand(keys.messages, false, args);
    else await client.sendCommand(args);
  }
  return count;
}
