/**
 * Per-operation latency over a network: both libraries connect through a LatencyProxy that holds
 * every chunk `delayMs` in each direction, so each round trip costs what it would on a real link.
 * Concurrency 1; the libraries alternate call by call so both see the same conditions. A PING
 * row shows what one bare round trip costs through the proxy.
 */
import { randomBytes } from "crypto";
import type RedisSMQ = require("../lib/index");
import { BODY, close, isMessage, open } from "./clients";
import type { Lib, QueueApi } from "./clients";
import { LatencyProxy } from "./latency-proxy";
import type { Target } from "./redis";
import { summarize } from "./stats";
import type { Summary } from "./stats";

export interface OperationLatency {
  operation: string;
  lib: Lib;
  /** Milliseconds. */
  latency: Summary;
}

export const OPERATIONS = [
  "PING (one round trip)",
  "sendMessage",
  "receiveMessage",
  "changeMessageVisibility",
  "deleteMessage",
  "popMessage",
  "getQueueAttributes",
  "receiveMessage (empty queue)",
] as const;
type Operation = (typeof OPERATIONS)[number];

/** PING through the library's own connection. */
function ping(lib: Lib, api: QueueApi): Promise<unknown> {
  if (lib === "rsmq-next") return (api as unknown as RedisSMQ).redis.sendCommand(["PING"]);
  const client = (api as unknown as { redis: { ping(cb: (error: Error | null) => void): void } }).redis;
  return new Promise<void>((resolve, reject) => client.ping((error) => (error ? reject(error) : resolve())));
}

/** One pass over every operation; leaves the queue empty. */
async function pass(lib: Lib, api: QueueApi, qname: string, record: (operation: Operation, ms: number) => void): Promise<void> {
  const timed = async <T>(operation: Operation, call: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await call();
    record(operation, performance.now() - started);
    return result;
  };
  await timed("PING (one round trip)", () => ping(lib, api));
  await timed("sendMessage", () => api.sendMessageAsync({ qname, message: BODY }));
  await timed("sendMessage", () => api.sendMessageAsync({ qname, message: BODY }));
  const received = await timed("receiveMessage", () => api.receiveMessageAsync({ qname }));
  if (!isMessage(received)) throw new Error("expected a message");
  await timed("changeMessageVisibility", () => api.changeMessageVisibilityAsync({ qname, id: received.id, vt: 60 }));
  await timed("deleteMessage", () => api.deleteMessageAsync({ qname, id: received.id }));
  await timed("popMessage", () => api.popMessageAsync({ qname }));
  await timed("getQueueAttributes", () => api.getQueueAttributesAsync({ qname }));
  await timed("receiveMessage (empty queue)", () => api.receiveMessageAsync({ qname }));
}

export async function measureNetworkLatency(target: Target, delayMs: number, iterations: number): Promise<OperationLatency[]> {
  const libs: Lib[] = ["rsmq", "rsmq-next"];
  const proxy = await LatencyProxy.start(target, delayMs);
  const qname = "latency";
  const apis: QueueApi[] = [];
  try {
    for (const lib of libs) {
      const api = await open(lib, proxy.endpoint, { ns: `lat${randomBytes(3).toString("hex")}` });
      apis.push(api);
      await api.createQueueAsync({ qname });
    }
    const samples = new Map<string, number[]>();
    const record =
      (lib: Lib) =>
      (operation: Operation, ms: number): void => {
        const key = `${lib}\u0000${operation}`;
        samples.set(key, [...(samples.get(key) ?? []), ms]);
      };
    // Warm-up pass, not recorded (JIT, connection buffers, script cache).
    for (let i = 0; i < libs.length; i += 1) await pass(libs[i], apis[i], qname, () => undefined);
    for (let iteration = 0; iteration < iterations; iteration += 1) {
      // Alternate which library goes first, so neither always follows the other.
      const order = iteration % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) await pass(libs[i], apis[i], qname, record(libs[i]));
    }
    const results: OperationLatency[] = [];
    for (const operation of OPERATIONS) {
      for (const lib of libs) results.push({ operation, lib, latency: summarize(samples.get(`${lib}\u0000${operation}`) ?? []) });
    }
    return results;
  } finally {
    for (const api of apis) {
      await api.deleteQueueAsync({ qname }).catch(() => undefined);
      await close(api);
    }
    await proxy.close();
  }
}
