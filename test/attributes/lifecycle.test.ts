/**
 * Where a message's attributes `<id>:at` go: every rsmq-next path that removes a message removes
 * them (delete, deleteMessages, deleteAndReceive, pop, purge); beside rsmq 0.12.4, its receive and
 * pop of a message sent with attributes answer the same body and reply shape as without, its
 * getQueueAttributes counts as without, and what its delete or pop leaves behind, one rsmq-next
 * receive on the empty queue sweeps.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { asMessage, openOldRsmq } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { connectionOptions, keysOf, plainClient, singleServerOnly, singleServerOptions, uniqueNs } from "../support/server";
import { Cleanup } from "../support/worker";
import { everyKind, openAttributesQueue, RSMQ_SHAPE } from "../support/attribute-values";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("message attributes: removed with their message, and beside rsmq 0.12.4", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let redis: RedisClientType;
  const cleanup = new Cleanup();
  const attributes = everyKind();

  const atFields = async (qname = "q"): Promise<string[]> =>
    (await redis.hKeys(keysOf(ns, qname).hash)).filter((field) => field.endsWith(":at")).sort();

  describe("rsmq-next's removals", () => {
    beforeEach(async () => {
      ({ ns, rsmq, redis } = await openAttributesQueue(cleanup));
    });
    afterEach(() => cleanup.run());

    const sendAll = async (count: number): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < count; i += 1) ids.push(await rsmq.sendMessageAsync({ qname: "q", message: `m${i}`, attributes }));
      return ids;
    };

    it("deleteMessage, deleteMessages, deleteAndReceive and popMessage each remove the message's attributes", async () => {
      const ids = await sendAll(6);
      expect(await atFields()).to.deep.equal(ids.map((id) => `${id}:at`).sort());
      await rsmq.deleteMessageAsync({ qname: "q", id: ids[0] });
      await rsmq.deleteMessagesAsync({ qname: "q", ids: [ids[1], ids[2]] });
      expect(asMessage(await rsmq.popMessageAsync({ qname: "q" })).id).to.equal(ids[3]);
      const { message } = await rsmq.deleteAndReceiveAsync({ qname: "q", id: ids[4] });
      expect(asMessage(message).id).to.equal(ids[5]);
      expect(await atFields()).to.deep.equal([`${ids[5]}:at`]);
      expect((await rsmq.deleteAndReceiveAsync({ qname: "q", id: ids[5] })).deleted).to.equal(1);
      expect(await atFields()).to.deep.equal([]);
    });

    it("purgeQueue removes every message's attributes", async () => {
      await sendAll(3);
      await rsmq.receiveMessageAsync({ qname: "q" });
      await rsmq.purgeQueueAsync({ qname: "q" });
      expect(await atFields()).to.deep.equal([]);
    });
  });

  describe("beside rsmq 0.12.4", () => {
    let old: Rsmq;
    beforeEach(async function () {
      singleServerOnly(this, "rsmq 0.12.4 talks to one server");
      ns = uniqueNs("attrs");
      rsmq = cleanup.rsmq(new RedisSMQ(singleServerOptions(ns)));
      redis = await plainClient();
      cleanup.add(() => redis.quit());
      old = openOldRsmq(ns);
      cleanup.add(() => old.quitAsync());
      await rsmq.createQueueAsync({ qname: "q" });
    });
    afterEach(() => cleanup.run());

    it("its receive and pop answer the same body and reply shape as for a message without attributes", async () => {
      for (const take of [(q: string) => old.receiveMessageAsync({ qname: q }), (q: string) => old.popMessageAsync({ qname: q })]) {
        const withId = await rsmq.sendMessageAsync({ qname: "q", message: "the body", attributes });
        const withoutId = await rsmq.sendMessageAsync({ qname: "q", message: "the body" });
        const withAttributes = asMessage(await take("q"));
        const without = asMessage(await take("q"));
        expect([withAttributes.id, without.id]).to.deep.equal([withId, withoutId]);
        expect(withAttributes.message).to.equal("the body");
        expect(Object.keys(withAttributes).sort()).to.deep.equal(RSMQ_SHAPE);
        expect(Object.keys(without).sort()).to.deep.equal(RSMQ_SHAPE);
        expect([withAttributes.rc, typeof withAttributes.fr, typeof withAttributes.sent]).to.deep.equal([1, "number", "number"]);
      }
    });

    it("its getQueueAttributes counts as for messages without attributes", async () => {
      await rsmq.createQueueAsync({ qname: "plain" });
      for (const [qname, extra] of [
        ["q", { attributes }],
        ["plain", {}],
      ] as const) {
        for (let i = 0; i < 3; i += 1) await rsmq.sendMessageAsync({ qname, message: `m${i}`, ...extra });
        await old.receiveMessageAsync({ qname });
      }
      // Its hiddenmsgs counts every message scored from the start of the current second on (rsmq
      // 0.12.4's ZCOUNT from TIME's seconds), so it depends on the clock, not on attributes.
      const counted = async (qname: string) => {
        const { created, modified, hiddenmsgs, ...rest } = await old.getQueueAttributesAsync({ qname });
        return rest;
      };
      expect(await counted("q")).to.deep.equal(await counted("plain"));
      expect(await counted("q")).to.deep.equal({ vt: 30, delay: 0, maxsize: 65536, msgs: 3, totalsent: 3, totalrecv: 1 });
    });

    it("what its delete and pop leave (<id>:at) one rsmq-next receive on the empty queue sweeps", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push(await rsmq.sendMessageAsync({ qname: "q", message: `m${i}`, attributes }));
      await old.deleteMessageAsync({ qname: "q", id: ids[0] });
      asMessage(await old.receiveMessageAsync({ qname: "q" }));
      await old.deleteMessageAsync({ qname: "q", id: ids[1] });
      expect(asMessage(await old.popMessageAsync({ qname: "q" })).id).to.equal(ids[2]);
      // rsmq 0.12.4 removes the body, `:rc` and `:fr` only.
      expect(await atFields()).to.deep.equal(ids.map((id) => `${id}:at`).sort());
      expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
      expect(await atFields()).to.deep.equal([]);
      expect((await redis.hKeys(keysOf(ns, "q").hash)).filter((field) => ids.some((id) => field.startsWith(id)))).to.deep.equal([]);
    });
  });
});
