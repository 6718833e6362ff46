/**
 * A dead-letter queue with a retention is a capped audit of failures (docs/retention.md): each move
 * into it (the atomic script, or the two-step move's copy across Cluster slots) also deletes the
 * expired ones among its first 10 members, aged from their original send, and counts them in its
 * `totalexpired`: no extra command. A dead-letter queue with an expireTo, or none, is left alone.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { DeadLetterMover } from "../../lib/dead-letters/dead-letter-mover";
import type { StopRecord } from "../../lib/operations/dead-letter";
import { asMessage } from "../support/old-rsmq";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { fieldsOf, plantMessages, setRetention } from "../support/retention";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("Retention: a dead-letter queue with a retention trims its head on each move", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  const why: StopRecord = { source: "src", deliveries: 1, reason: "poison", error: "bad" };

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    client = await plainClient();
    await rsmq.createQueueAsync({ qname: "src" });
    await rsmq.createQueueAsync({ qname: "dlq" });
  });
  afterEach(async () => {
    await rsmq.quitAsync();
    await client.quit();
  });

  async function moveOne(atomic: boolean): Promise<string> {
    await rsmq.sendMessageAsync({ qname: "src", message: "failed" });
    const message = asMessage(await rsmq.receiveMessageAsync({ qname: "src" }));
    expect(await new DeadLetterMover(internalsOf(rsmq), { atomic }).move("src", "dlq", message, why)).to.equal(true);
    return message.id;
  }

  for (const atomic of [true, false]) {
    it(`deletes up to 10 expired head members per move (${atomic ? "one script" : "two steps"})`, async function () {
      // The atomic script needs both queues in one slot: not so on a cluster.
      if (atomic && keysOf(ns, "src").hash.includes("{")) this.skip();
      await setRetention(client, ns, "dlq", 86400);
      const old = await plantMessages(client, ns, "dlq", { count: 12, ageSeconds: 2 * 86400 });
      const [young] = await plantMessages(client, ns, "dlq", { count: 1, ageSeconds: 60, prefix: "young", dueInMs: -1000 });
      const moved = await moveOne(atomic);
      expect(
        await fieldsOf(
          client,
          ns,
          "dlq",
          old.slice(0, 10).map((m) => m.id),
        ),
      ).to.deep.equal([]);
      expect(await client.hGet(keysOf(ns, "dlq").hash, "totalexpired")).to.equal("10");
      expect((await client.zRange(keysOf(ns, "dlq").messages, 0, -1)).sort()).to.deep.equal(
        [old[10].id, old[11].id, young.id, moved].sort(),
      );
      await moveOne(atomic);
      expect(await client.hGet(keysOf(ns, "dlq").hash, "totalexpired")).to.equal("12");
    });
  }

  it("leaves a dead-letter queue alone when it has no retention, or has an expireTo", async () => {
    const old = await plantMessages(client, ns, "dlq", { count: 2, ageSeconds: 2 * 86400 });
    await moveOne(false);
    await setRetention(client, ns, "dlq", 86400, "elsewhere");
    await moveOne(false);
    expect(
      await fieldsOf(
        client,
        ns,
        "dlq",
        old.map((m) => m.id),
      ),
    ).to.have.length(old.length * 5);
    expect(await client.hExists(keysOf(ns, "dlq").hash, "totalexpired")).to.equal(false);
  });
});
