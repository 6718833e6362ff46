/**
 * Message attributes as the attribute suites (test/attributes/) send and compare them: ten of
 * every kind a user sends, and the check that a read gave them back unchanged, with their types;
 * and the queue those suites start each test with.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import type { MessageAttributes } from "../../lib/types";
import { connectionOptions, plainClient, uniqueNs } from "./server";
import type { Cleanup } from "./worker";

/** The fields of a message rsmq 0.12.4 returns, sorted: a read of a message without attributes has just these. */
export const RSMQ_SHAPE = ["fr", "id", "message", "rc", "sent"];

/**
 * A fresh namespace with an instance and a plain client in it, both closed by `cleanup`, and a
 * queue "q" created with rsmq's defaults.
 */
export async function openAttributesQueue(cleanup: Cleanup): Promise<{ ns: string; rsmq: RedisSMQ; redis: RedisClientType }> {
  const ns = uniqueNs("attrs");
  const rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
  const redis = await plainClient();
  cleanup.add(() => redis.quit());
  await rsmq.createQueueAsync({ qname: "q" });
  return { ns, rsmq, redis };
}

/**
 * Ten attributes, one of each kind: non-ASCII text, a lone surrogate, an integer, a float, a
 * negative, both booleans, bytes with 0x00 and 0xff, the longest string (1024 characters) and the
 * most bytes (1024).
 */
export function everyKind(): MessageAttributes {
  return {
    text: "naïve café, 日本語, emoji 🚀",
    lone: "a\ud800b",
    integer: 42,
    float: 3.25,
    negative: -17.5,
    yes: true,
    no: false,
    bytes: Buffer.from([0x00, 0x01, 0x7f, 0x80, 0xff, 0x00]),
    longest: "é".repeat(1024),
    most: Buffer.from(Array.from({ length: 1024 }, (_, i) => (i * 7) % 256)),
  };
}

/** `actual` holds exactly the attributes `sent`: the same values and types, bytes as a Buffer of the same bytes. */
export function expectSameAttributes(actual: MessageAttributes | undefined, sent: MessageAttributes): void {
  expect(actual, "attributes").to.not.equal(undefined);
  expect(Object.keys(actual!).sort()).to.deep.equal(Object.keys(sent).sort());
  for (const [name, value] of Object.entries(sent)) {
    const got = actual![name];
    if (value instanceof Uint8Array) {
      expect(Buffer.isBuffer(got), `${name} is a Buffer`).to.equal(true);
      expect(Buffer.compare(got as Buffer, Buffer.from(value)), `${name}'s bytes`).to.equal(0);
    } else {
      expect(typeof got, `${name}'s type`).to.equal(typeof value);
      expect(got, name).to.equal(value);
    }
  }
}
