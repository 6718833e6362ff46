/**
 * rsmq 0.12.4 beside rsmq-next: one promise-API shape that both libraries fit, so a test can run
 * the same steps through either and compare. rsmq's own typings (written for 0.8.3) lack
 * `quitAsync` and the EventEmitter methods that the object really has.
 */
import OldRSMQ = require("rsmq");
import RedisSMQ = require("../../lib/index");
import { connectionOptions, onCluster, singleServerOptions } from "./server";

export type QueueMessage = RedisSMQ.QueueMessage;
export type QueueAttributes = RedisSMQ.QueueAttributes;

/** The promise API the two libraries share. */
export interface Rsmq {
  createQueueAsync(options: { qname: string; vt?: number; delay?: number; maxsize?: number }): Promise<number>;
  listQueuesAsync(): Promise<string[]>;
  deleteQueueAsync(options: { qname: string }): Promise<number>;
  getQueueAttributesAsync(options: { qname: string }): Promise<QueueAttributes>;
  setQueueAttributesAsync(options: { qname: string; vt?: number; delay?: number; maxsize?: number }): Promise<QueueAttributes>;
  sendMessageAsync(options: { qname: string; message: string; delay?: number }): Promise<string>;
  receiveMessageAsync(options: { qname: string; vt?: number }): Promise<QueueMessage | {}>;
  popMessageAsync(options: { qname: string }): Promise<QueueMessage | {}>;
  deleteMessageAsync(options: { qname: string; id: string }): Promise<number>;
  changeMessageVisibilityAsync(options: { qname: string; id: string; vt: number }): Promise<number>;
  quitAsync(): Promise<unknown>;
}

/** An rsmq 0.12.4 instance on the test server. */
export function openOldRsmq(ns: string, extra: { realtime?: boolean } = {}): Rsmq {
  // rsmq mutates its options object, so it always gets a fresh one.
  return new OldRSMQ({ ...singleServerOptions(ns), ...extra }) as unknown as Rsmq;
}

/** An rsmq-next instance on the test server. */
export function openNextRsmq(ns: string, extra: { realtime?: boolean } = {}): RedisSMQ {
  return new RedisSMQ({ ...connectionOptions(ns), ...extra });
}

/**
 * Options for an rsmq-next instance that shares rsmq 0.12.4's server (a mixed fleet on one
 * namespace): the run's client passed in when it passes one (each client kind then writes what an
 * rsmq 0.12.4 beside it reads), the package's own connection otherwise. On the cluster target the
 * passed client is a cluster client, which cannot reach the single server: there the package opens
 * its own connection to it.
 */
export function besideOldRsmqOptions(ns: string): { host: string; port: number; ns: string } {
  return onCluster() ? singleServerOptions(ns) : connectionOptions(ns);
}

/** An rsmq-next instance on rsmq 0.12.4's server (see besideOldRsmqOptions). */
export function openNextBesideOld(ns: string, extra: { realtime?: boolean } = {}): RedisSMQ {
  return new RedisSMQ({ ...besideOldRsmqOptions(ns), ...extra });
}

/** Narrows a receive/pop result to a message, failing with the actual value when it is `{}`. */
export function asMessage(result: QueueMessage | {}): QueueMessage {
  if (!("id" in result)) throw new Error(`expected a message, got ${JSON.stringify(result)}`);
  return result;
}

/** Resolves with the rejection of `promise`, failing when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
}
