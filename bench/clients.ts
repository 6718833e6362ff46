/**
 * The two libraries behind one small interface, so every measurement runs the same calls against
 * both: rsmq 0.12.4 (node_redis v3) and rsmq-next (node-redis v4). Both expose the same `*Async`
 * methods; this file only opens them, waits until they are usable, and closes them.
 */
import OldRSMQ = require("rsmq");
import RedisSMQ = require("../lib/index");

export type Lib = "rsmq" | "rsmq-next";

export interface Message {
  id: string;
  message: string;
  rc: number;
  fr: number;
  sent: number;
}

/** The calls both libraries share (rsmq 0.12.4's API). */
export interface QueueApi {
  createQueueAsync(options: { qname: string; vt?: number; delay?: number; maxsize?: number }): Promise<1>;
  listQueuesAsync(): Promise<string[]>;
  deleteQueueAsync(options: { qname: string }): Promise<1>;
  getQueueAttributesAsync(options: { qname: string }): Promise<unknown>;
  setQueueAttributesAsync(options: { qname: string; vt?: number; delay?: number; maxsize?: number }): Promise<unknown>;
  sendMessageAsync(options: { qname: string; message: string; delay?: number }): Promise<string>;
  receiveMessageAsync(options: { qname: string; vt?: number }): Promise<Message | {}>;
  popMessageAsync(options: { qname: string }): Promise<Message | {}>;
  deleteMessageAsync(options: { qname: string; id: string }): Promise<0 | 1>;
  changeMessageVisibilityAsync(options: { qname: string; id: string; vt: number }): Promise<0 | 1>;
}

export interface Endpoint {
  host: string;
  port: number;
}

export interface OpenOptions {
  ns: string;
  realtime?: boolean;
}

/** rsmq 0.12.4, connected and with its three scripts loaded (it loads them after connecting). */
export async function openOld(endpoint: Endpoint, options: OpenOptions): Promise<OldRSMQ & QueueApi> {
  const rsmq = new OldRSMQ({ host: endpoint.host, port: endpoint.port, ns: options.ns, realtime: options.realtime ?? false });
  const loaded = rsmq as unknown as Record<string, unknown>;
  const deadline = Date.now() + 10_000;
  while (!(loaded.popMessage_sha1 && loaded.receiveMessage_sha1 && loaded.changeMessageVisibility_sha1)) {
    if (Date.now() > deadline) throw new Error("rsmq 0.12.4 did not connect and load its scripts within 10 s");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return rsmq as OldRSMQ & QueueApi;
}

/** rsmq-next, connected. */
export async function openNext(endpoint: Endpoint, options: OpenOptions): Promise<RedisSMQ> {
  const rsmq = new RedisSMQ({ host: endpoint.host, port: endpoint.port, ns: options.ns, realtime: options.realtime ?? false });
  if (!rsmq.connected) await new Promise<void>((resolve) => rsmq.once("connect", () => resolve()));
  return rsmq;
}

export function open(lib: Lib, endpoint: Endpoint, options: OpenOptions): Promise<QueueApi> {
  return lib === "rsmq" ? openOld(endpoint, options) : openNext(endpoint, options);
}

/** Closes either library's connection and waits for it. */
export async function close(rsmq: QueueApi | OldRSMQ | RedisSMQ): Promise<void> {
  const quit = (rsmq as unknown as { quitAsync?: () => Promise<unknown> }).quitAsync;
  if (quit) await quit.call(rsmq);
}

export function isMessage(value: Message | {}): value is Message {
  return typeof (value as Message).id === "string";
}

/** The message body every throughput and latency measurement sends: 100 ASCII bytes. */
export const BODY = "x".repeat(100);

export const LIB_VERSION: Record<Lib, string> = {
  rsmq: (require("rsmq/package.json") as { version: string }).version,
  "rsmq-next": (require("../../package.json") as { version: string }).version,
};

/** Starts `worker` and resolves once it has handled `total` messages: the timed part of a Worker case. */
export function handleAll(worker: RedisSMQ.Worker, total: number): Promise<void> {
  return new Promise<void>((resolve) => {
    let handled = 0;
    worker.on("handled", () => {
      handled += 1;
      if (handled === total) resolve();
    });
    worker.start();
  });
}
