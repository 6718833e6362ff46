/**
 * What rsmq-next writes and reads through each kind of client a user can pass in (test-clients.ts:
 * ioredis 5 and 6, node-redis 4, node-redis 5 and 6 in RESP2 and RESP3), against rsmq 0.12.4 on
 * its own connection: one workload of every public call, results and errors compared, every call's
 * writes checked at the byte level by the WriteWatch (written-data.ts: ids, clock readings,
 * scores, no TTL), the Redis state compared, and each message body read back raw, as bytes.
 *
 * One loop over the kinds in one single-server suite, rather than a client pass per kind: the
 * differential suites already run on the `client` passes (ioredis 6, node-redis 6 RESP3); this
 * adds the other five kinds for the price of one workload each.
 */
import { expect } from "chai";
import { createHash } from "crypto";
import { commandOptions } from "redis";
import { expectSameAsRsmq, ok, outcome } from "../support/differential";
import type { Api, Outcome, RawAccess } from "../support/differential";
import { testRedis } from "../support/server";
import { standaloneTestClient, TEST_CLIENTS } from "../support/test-clients";
import { runsOn } from "../support/targets";

runsOn("single");

/** Bodies a client could mangle: empty, control characters, quotes, multi-byte, a lone surrogate, one over 64 kB. */
const BODIES = ["", " ", "a\nb\r\n", '{"json":[1,2]}', "'\"\\", "日本語 ✓ 😀", "\u0000nul", "\ud800 lone", "é".repeat(40_000)];

/** A message another producer wrote as bytes that are not UTF-8, under an id of rsmq's form (sent at epoch 0). */
const RAW_ID = `0000000000${"r".repeat(22)}`;
const RAW_BODY = Buffer.from([0xff, 0xfe, 0x41, 0xc3, 0x28, 0x00, 0x0a]);

/** Bytes as hex, or, past 64 of them, their length and SHA-256 (so a failure prints no 80 kB). */
function bytesOf(buffer: Buffer): string {
  if (buffer.length <= 64) return buffer.toString("hex");
  return `${buffer.length} bytes, sha256 ${createHash("sha256").update(buffer).digest("hex")}`;
}

/** A received message with a long body shown by its length and bytes. */
function shown(result: Outcome): Outcome {
  if (!("value" in result)) return result;
  const value = result.value as { message?: unknown };
  if (typeof value.message !== "string" || value.message.length <= 64) return result;
  return ok({ ...value, message: bytesOf(Buffer.from(value.message)) });
}

function valueOf(result: Outcome): any {
  if (!("value" in result)) throw new Error(`step failed: ${JSON.stringify(result)}`);
  return result.value;
}

/** Every public call of rsmq 0.12.4's API, its errors, and the raw bytes of what was stored. */
async function workload(api: Api, raw: RawAccess): Promise<unknown[]> {
  const steps: unknown[] = [
    await outcome(api.createQueueAsync({ qname: "q", vt: 40, maxsize: -1 })),
    await outcome(api.createQueueAsync({ qname: "other", vt: 20, delay: 5, maxsize: 2048 })),
    await outcome(api.createQueueAsync({ qname: "q" })),
  ];
  const ids: string[] = [];
  for (const message of BODIES) {
    const sent = await outcome(api.sendMessageAsync({ qname: "q", message }));
    steps.push(sent);
    ids.push(valueOf(sent));
  }
  steps.push(
    await outcome(api.sendMessageAsync({ qname: "other", message: "x".repeat(2049) })),
    await outcome(api.sendMessageAsync({ qname: "missing", message: "m" })),
    await outcome(api.sendMessageAsync({ qname: "other", message: "later" })),
  );
  // The bodies as stored, byte for byte.
  const stored = await raw.client.hmGet(commandOptions({ returnBuffers: true }), raw.key("q:Q"), ids);
  const bytes = stored.map((body) => (body === null ? null : bytesOf(body)));
  expect(bytes, "bodies as stored").to.deep.equal(BODIES.map((body) => bytesOf(Buffer.from(body))));
  steps.push(bytes);

  steps.push(shown(await outcome(api.receiveMessageAsync({ qname: "q", vt: 0 }))));
  steps.push(shown(await outcome(api.receiveMessageAsync({ qname: "q" }))));
  steps.push(await outcome(api.changeMessageVisibilityAsync({ qname: "q", id: ids[2], vt: 100 })));
  steps.push(await outcome(api.changeMessageVisibilityAsync({ qname: "q", id: ids[0], vt: 0 })));
  steps.push(shown(await outcome(api.popMessageAsync({ qname: "q" }))));
  steps.push(await outcome(api.deleteMessageAsync({ qname: "q", id: ids[3] })));
  steps.push(await outcome(api.deleteMessageAsync({ qname: "q", id: ids[3] })));
  for (let i = 4; i < BODIES.length; i += 1) steps.push(shown(await outcome(api.receiveMessageAsync({ qname: "q", vt: 60 }))));
  steps.push(await outcome(api.receiveMessageAsync({ qname: "q" })));

  // Bytes that are not UTF-8, written by someone else: both decode them the same way.
  await raw.client.hSet(raw.key("q:Q"), RAW_ID, RAW_BODY);
  await raw.client.zAdd(raw.key("q"), { score: 0, value: RAW_ID });
  steps.push(await outcome(api.popMessageAsync({ qname: "q" })));

  steps.push(await outcome(api.setQueueAttributesAsync({ qname: "other", vt: 90, maxsize: -1 })));
  steps.push(await outcome(api.getQueueAttributesAsync({ qname: "q" })));
  steps.push(await outcome(api.getQueueAttributesAsync({ qname: "missing" })));
  const listed = await outcome(api.listQueuesAsync());
  steps.push("value" in listed ? ok([...(listed.value as string[])].sort()) : listed);
  steps.push(await outcome(api.deleteQueueAsync({ qname: "other" })));
  steps.push(await outcome(api.deleteQueueAsync({ qname: "other" })));
  return steps;
}

describe("differential: every kind of client passed in writes and reads what rsmq 0.12.4 does", () => {
  for (const kind of TEST_CLIENTS) {
    it(`${kind}: the same results, the same bytes written, the same state`, async () => {
      const made = standaloneTestClient(kind, testRedis());
      try {
        await expectSameAsRsmq(workload, undefined, made.client);
      } finally {
        made.close();
      }
    });
  }
});
