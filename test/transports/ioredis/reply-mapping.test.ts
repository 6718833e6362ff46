/**
 * An ioredis 6 client made with `replyMapping: "resp3"` (RESP3 maps as objects, doubles as
 * numbers) gives every public result the one a `"legacy"` client gives, and the one rsmq-next's
 * own node-redis v4 connection gives: the same steps run through each, in a namespace of its own,
 * and compare equal once ids and clock readings are tokens (differential.ts' idTokens), message
 * bodies byte for byte. A Worker on each hands its handler the same messages.
 */
import { expect } from "chai";
import Redis6 from "ioredis6";
import RedisSMQ = require("../../../lib");
import { idTokens } from "../../support/differential";
import { singleServerOptions, testRedis, uniqueNs } from "../../support/server";
import { Cleanup, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("single");

const { Worker } = RedisSMQ;

/** Bodies that a reply decoder could change: multi-byte, control characters, a lone surrogate's neighbours, 200 KiB. */
const BODIES = ["plain", "héllo wörld ✓ 😀", "nul\u0000tab\tcr\r\nend", "\uFFFD\uFEFF", "x".repeat(200 * 1024), ""];

type Kind = "node-redis v4 (own connection)" | "ioredis 6 legacy" | "ioredis 6 resp3";
const KINDS: Kind[] = ["node-redis v4 (own connection)", "ioredis 6 legacy", "ioredis 6 resp3"];

describe("an ioredis 6 client with replyMapping: resp3", function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  function instance(kind: Kind, ns: string): RedisSMQ {
    if (kind === "node-redis v4 (own connection)") return cleanup.rsmq(new RedisSMQ(singleServerOptions(ns)));
    const { host, port } = testRedis();
    const client = new Redis6({ host, port, replyMapping: kind === "ioredis 6 resp3" ? "resp3" : "legacy" });
    client.on("error", () => undefined);
    cleanup.add(async () => client.disconnect());
    return cleanup.rsmq(new RedisSMQ({ client, ns } as never));
  }

  /** The steps, each outcome recorded (a rejection as its name and message). */
  async function steps(rsmq: RedisSMQ): Promise<unknown[]> {
    const results: unknown[] = [];
    const step = async (made: Promise<unknown>): Promise<void> => {
      results.push(
        await made.then(
          (value) => ({ value }),
          (error: Error) => ({ error: [error.name, error.message] }),
        ),
      );
    };
    await step(rsmq.createQueueAsync({ qname: "q", vt: 30, maxsize: -1 }));
    await step(rsmq.createQueueAsync({ qname: "other", maxsize: -1 }));
    await step(rsmq.createQueueAsync({ qname: "q" }));
    await step(rsmq.setQueueAttributesAsync({ qname: "other", delay: 5 }));
    for (const message of BODIES) await step(rsmq.sendMessageAsync({ qname: "q", message }));
    await step(rsmq.sendMessagesAsync({ qname: "other", messages: [{ message: "a" }, { message: "b", delay: 60 }] }));
    await step(rsmq.listQueuesAsync().then((names) => [...names].sort()));
    await step(rsmq.getQueueAttributesAsync({ qname: "q" }));
    await step(rsmq.getQueueAttributesAsync({ qname: "other" }));
    await step(rsmq.peekMessagesAsync({ qname: "q", count: 3 }));
    const first = (await rsmq.receiveMessageAsync({ qname: "q" })) as { id?: string; rc?: number };
    results.push({ value: first });
    await step(rsmq.changeMessageVisibilityAsync({ qname: "q", id: first.id!, vt: 100 }));
    await step(rsmq.receiveMessagesAsync({ qname: "q", count: 2 }));
    await step(rsmq.deleteMessageAsync({ qname: "q", id: first.id! }));
    await step(rsmq.popMessageAsync({ qname: "q" }));
    await step(rsmq.deleteMessageAsync({ qname: "q", id: "0".repeat(32) }));
    await step(rsmq.setConcurrencyAsync({ qname: "q", max: 3 }));
    await step(rsmq.pauseQueueAsync({ qname: "q" }));
    await step(rsmq.receiveMessageAsync({ qname: "q" }));
    await step(rsmq.resumeQueueAsync({ qname: "q" }));
    await step(rsmq.getQueueAttributesAsync({ qname: "q" }));
    await step(rsmq.receiveMessageAsync({ qname: "missing" }));
    await step(rsmq.deleteQueueAsync({ qname: "other" }));
    await step(rsmq.listQueuesAsync());
    return results;
  }

  it("gives every result of the steps that legacy and a node-redis v4 connection give", async () => {
    const outcomes = new Map<Kind, unknown>();
    for (const kind of KINDS) outcomes.set(kind, tokens(await steps(instance(kind, uniqueNs("rm")))));
    const reference = outcomes.get("node-redis v4 (own connection)");
    // The bodies came back byte for byte: the steps' receives hold them (compared as a whole below).
    expect(JSON.stringify(reference)).to.include(JSON.stringify(BODIES[1])).and.include(JSON.stringify(BODIES[2]));
    expect(outcomes.get("ioredis 6 legacy")).to.deep.equal(reference);
    expect(outcomes.get("ioredis 6 resp3")).to.deep.equal(reference);
  });

  it("hands a Worker's handler the same messages", async () => {
    const handledBy = new Map<Kind, unknown[]>();
    for (const kind of KINDS) {
      const rsmq = instance(kind, uniqueNs("rm"));
      await rsmq.createQueueAsync({ qname: "q", maxsize: -1 });
      const handled: unknown[] = [];
      const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: (message) => void handled.push(message) }));
      worker.on("error", () => undefined);
      worker.start();
      for (const message of BODIES) await rsmq.sendMessageAsync({ qname: "q", message });
      await waitFor(() => handled.length === BODIES.length, `the ${kind} worker to handle every message`);
      await worker.stop();
      expect(await rsmq.getQueueAttributesAsync({ qname: "q" })).to.include({ msgs: 0 });
      handledBy.set(kind, tokens(handled.map((message) => ({ ...(message as object) }))) as unknown[]);
    }
    const reference = handledBy.get("node-redis v4 (own connection)")!;
    expect(reference.map((message) => (message as { message: string }).message).sort()).to.deep.equal([...BODIES].sort());
    expect(handledBy.get("ioredis 6 legacy")).to.deep.equal(reference);
    expect(handledBy.get("ioredis 6 resp3")).to.deep.equal(reference);
  });
});

/**
 * idTokens(), and every other clock reading (`dueAt` and the like: epoch ms within a day of now)
 * as `<ms>`; numbers stay numbers otherwise, so a string or a double in their place shows.
 */
function tokens(value: unknown): unknown {
  const now = Date.now();
  const clock = (field: unknown): unknown => {
    if (typeof field === "number" && Math.abs(field - now) < 86_400_000) return "<ms>";
    if (Array.isArray(field)) return field.map(clock);
    if (field === null || typeof field !== "object") return field;
    return Object.fromEntries(Object.entries(field).map(([key, inner]) => [key, clock(inner)]));
  };
  return clock(idTokens()(value));
}
