/**
 * What the gate tests share: writing the `:Q` fields a pause or a rate limit sets
 * (interfaces of issue 38: `paused`, `ratelimit`, `rltat`, `rlblock`) straight into a queue's
 * hash, as the control calls write them, and reading the server-clock times of receives.
 */
import type { RedisClientType } from "redis";
import { keysOf } from "../support/server";

/** HSET of `fields` in the queue's `:Q` hash. */
export async function setQueueFields(client: RedisClientType, ns: string, qname: string, fields: Record<string, string>): Promise<void> {
  await client.hSet(keysOf(ns, qname).hash, fields);
}

/** HDEL of `fields` from the queue's `:Q` hash. */
export async function deleteQueueFields(client: RedisClientType, ns: string, qname: string, ...fields: string[]): Promise<void> {
  await client.hDel(keysOf(ns, qname).hash, fields);
}

/** A field of the queue's `:Q` hash (null when absent). */
export async function queueField(client: RedisClientType, ns: string, qname: string, field: string): Promise<string | null> {
  return (await client.hGet(keysOf(ns, qname).hash, field)) ?? null;
}

/** The most of `times` (ms, any order) that fall in one half-open window [t, t + windowMs). */
export function mostInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end] - sorted[start] >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

/** Resolves after `ms`: only to pace a loop that waits on a condition, never as the condition. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until `check` resolves true, looking every `everyMs`, failing after `withinMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, withinMs = 10_000, everyMs = 10): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await pause(everyMs);
  }
}
