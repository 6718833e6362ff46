/**
 * A dead letter keeps its attributes (`<id>:at`), as SQS keeps message attributes on a move to a
 * dead-letter queue: the move (the atomic script, and the two-step move across Redis Cluster slots)
 * carries them into the dead-letter queue, where peekDeadLetters and a receive return them, and a
 * redrive (either path) carries them back, where the source's receive returns them. What a
 * schedule's fire wrote there (`schedule`, `slot`: which schedule sent it) moves with them.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { internalsOf } from "../../lib/internals";
import { DeadLetterMover } from "../../lib/dead-letters/dead-letter-mover";
import { planRedrive, redrive } from "../../lib/dead-letters/redrive";
import type { StopRecord } from "../../lib/operations/dead-letter";
import type { MessageAttributes } from "../../lib/types";
import { asMessage } from "../support/old-rsmq";
import { everyKind, expectSameAttributes } from "../support/attribute-values";
import { connectionOptions, keysOf, onCluster, plainClient, uniqueNs } from "../support/server";
import { Cleanup, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;

/** Nine of every kind, and the tenant makes ten (the `tenant` option is the attribute `tenant`). */
function nineKinds(): MessageAttributes {
  const { no: _left, ...nine } = everyKind();
  return nine;
}
const sent = (): MessageAttributes => ({ ...nineKinds(), tenant: "acme" });

describe("message attributes: a dead letter keeps them, and a redrive brings them back", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let redis: RedisClientType;
  const cleanup = new Cleanup();
  const why: StopRecord = { source: "q", deliveries: 1, reason: "poison", error: "bad payload" };

  beforeEach(async () => {
    ns = uniqueNs("dlat");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    redis = await plainClient();
    cleanup.add(() => redis.quit());
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => cleanup.run());

  const send = (message: string): Promise<string> =>
    rsmq.sendMessageAsync({ qname: "q", message, attributes: nineKinds(), tenant: "acme" });

  /** peekDeadLetters and a receive from the dead-letter queue return the message with its attributes. */
  async function expectKeptInDlq(id: string, body: string): Promise<void> {
    const [peeked] = await rsmq.peekDeadLettersAsync({ qname: "dlq" });
    expect(peeked).to.include({ id, message: body });
    expect(peeked.deadLetter).to.include({ source: "q" });
    expectSameAttributes(peeked.attributes, sent());
    const received = asMessage(await rsmq.receiveMessageAsync({ qname: "dlq" }));
    expect(received).to.include({ id, message: body, rc: 1 });
    expectSameAttributes(received.attributes, sent());
    // Seen again at once for the redrive below: receivable in the dead-letter queue now.
    expect(await rsmq.changeMessageVisibilityAsync({ qname: "dlq", id, vt: 0 })).to.equal(1);
  }

  /** The source's receive returns the redriven message with its attributes; none are left in the dead-letter queue. */
  async function expectBackInSource(id: string, body: string): Promise<void> {
    const received = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    expect(received).to.include({ id, message: body, rc: 1 });
    expectSameAttributes(received.attributes, sent());
    const dlqFields = await redis.hKeys(keysOf(ns, "dlq").hash);
    expect(dlqFields.filter((field) => field.startsWith(id))).to.deep.equal([]);
  }

  it("a Worker's dead letter (a handler that throws, one delivery) keeps them; a redrive brings them back", async () => {
    const id = await send("order 17");
    const worker = cleanup.worker(
      new Worker(rsmq, {
        qname: "q",
        realtimeWakes: false,
        deadLetterQueue: "dlq",
        retry: { maxDeliveries: 1, jitter: "none" },
        handler: () => {
          throw new Error("bad payload");
        },
      }),
    );
    worker.start();
    await waitFor(() => worker.counters.deadLettered === 1, "the message dead-lettered");
    await worker.stop();
    await expectKeptInDlq(id, "order 17");
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(1);
    await expectBackInSource(id, "order 17");
  });

  // The two-step paths run on one server too (forced); the one-script paths only where the queues share a slot.
  const paths: Array<{ title: string; atomic: boolean | undefined }> = [
    { title: "the default path", atomic: undefined },
    { title: "two steps", atomic: false },
    { title: "one script", atomic: true },
  ];
  for (const move of paths) {
    for (const back of paths) {
      it(`dead-lettered by ${move.title}, redriven by ${back.title}: kept both ways`, async function () {
        if (onCluster() && (move.atomic || back.atomic)) this.skip(); // "q" and "dlq" are different slots there
        const id = await send("order 18");
        const message = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
        expectSameAttributes(message.attributes, sent());
        expect(await new DeadLetterMover(internalsOf(rsmq), { atomic: move.atomic }).move("q", "dlq", message, why)).to.equal(true);
        expect((await redis.hKeys(keysOf(ns, "q").hash)).filter((field) => field.startsWith(id))).to.deep.equal([]);
        await expectKeptInDlq(id, "order 18");
        const moved = await redrive(internalsOf(rsmq), planRedrive({ from: "dlq" }), () => undefined, { atomic: back.atomic });
        expect(moved).to.equal(1);
        await expectBackInSource(id, "order 18");
      });
    }
  }

  it("a two-step move cut short after the copy leaves them in both queues; run again, in the dead-letter queue once", async () => {
    const id = await send("order 19");
    const message = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    const stored = await redis.hGet(keysOf(ns, "q").hash, `${id}:at`);
    const crashing = new DeadLetterMover(internalsOf(rsmq), { atomic: false, afterCopy: () => Promise.reject(new Error("crash")) });
    await crashing.move("q", "dlq", message, why).then(
      () => expect.fail("the crash should reject"),
      (error: unknown) => expect(error).to.have.property("message", "crash"),
    );
    expect(await redis.hGet(keysOf(ns, "q").hash, `${id}:at`)).to.equal(stored);
    expect(await redis.hGet(keysOf(ns, "dlq").hash, `${id}:at`)).to.equal(stored);
    expect(await new DeadLetterMover(internalsOf(rsmq), { atomic: false }).move("q", "dlq", message, why)).to.equal(true);
    expect(await redis.hExists(keysOf(ns, "q").hash, `${id}:at`)).to.equal(false);
    expect(await redis.hGet(keysOf(ns, "dlq").hash, `${id}:at`)).to.equal(stored);
    expect(await redis.zCard(keysOf(ns, "dlq").messages)).to.equal(1);
    await expectKeptInDlq(id, "order 19");
  });

  it("a message without attributes stays without: no `:at` in the dead-letter queue; a redrive clears a leftover in the target", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "plain" });
    const message = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    for (const atomic of onCluster() ? [false] : [true, false]) {
      expect(await new DeadLetterMover(internalsOf(rsmq), { atomic }).move("q", "dlq", message, why)).to.equal(true);
      expect(await redis.hExists(keysOf(ns, "dlq").hash, `${id}:at`)).to.equal(false);
      const [peeked] = await rsmq.peekDeadLettersAsync({ qname: "dlq" });
      expect(peeked).to.not.have.property("attributes");
      // A leftover `:at` in the target (an old client's, or a crash's) goes when a message without attributes arrives.
      await redis.hSet(keysOf(ns, "q").hash, `${id}:at`, JSON.stringify({ a: { stale: 1 } }));
      expect(await redrive(internalsOf(rsmq), planRedrive({ from: "dlq" }), () => undefined, { atomic })).to.equal(1);
      expect(await redis.hExists(keysOf(ns, "q").hash, `${id}:at`)).to.equal(false);
      const received = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
      expect(received).to.not.have.property("attributes");
      Object.assign(message, received);
    }
  });
});
