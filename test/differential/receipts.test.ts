/**
 * Receipts and concurrency leases beside rsmq 0.12.4: calls without `rc` answer and write exactly
 * as rsmq's do (the same steps on both, results and state compared), and in a mixed fleet an rsmq
 * 0.12.4 deleteMessage or changeMessageVisibility of a message an rsmq-next consumer leased frees
 * its slot at the next rsmq-next receive (the lease is healed from the message's own score).
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { expectSameAsRsmq, ok, outcome } from "../support/differential";
import type { Api, Outcome } from "../support/differential";
import { asMessage, besideOldRsmqOptions, openOldRsmq } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { singleServerClient, uniqueNs } from "../support/server";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const create = (api: Api): Promise<Outcome> => outcome(api.createQueueAsync({ qname: "q" }));
const send = (api: Api, body: string): Promise<Outcome> => outcome(api.sendMessageAsync({ qname: "q", message: body }));
const receive = (api: Api, vt?: number): Promise<Outcome> =>
  outcome(api.receiveMessageAsync(vt === undefined ? { qname: "q" } : { qname: "q", vt }));

function valueOf(result: Outcome): any {
  if (!("value" in result)) throw new Error(`step failed: ${JSON.stringify(result)}`);
  return result.value;
}

describe("differential: receipts and leases", () => {
  it("without rc, a delete and a visibility change of a message received twice act as rsmq 0.12.4's", () =>
    expectSameAsRsmq(
      async (api) => {
        const steps = [await create(api), await send(api, "a")];
        const a = valueOf(steps[1]) as string;
        steps.push(await receive(api, 0), await receive(api, 30));
        steps.push(await outcome(api.changeMessageVisibilityAsync({ qname: "q", id: a, vt: 60 })));
        steps.push(await outcome(api.deleteMessageAsync({ qname: "q", id: a })));
        steps.push(await outcome(api.deleteMessageAsync({ qname: "q", id: a })));
        steps.push(await outcome(api.changeMessageVisibilityAsync({ qname: "q", id: a, vt: 5 })));
        return steps;
      },
      [ok(1), ok("<id1>"), receivedAs(1, "a", 1), receivedAs(1, "a", 2), ok(1), ok(1), ok(0), ok(0)],
    ));

  describe("a mixed fleet on one server", () => {
    const cleanup = new Cleanup();
    let ns: string;
    let next: RedisSMQ;
    let old: Rsmq;
    let client: RedisClientType;

    beforeEach(async function () {
      ns = uniqueNs("mixed");
      // rsmq 0.12.4 runs on the single server only: both libraries share it here, whatever the target.
      next = cleanup.rsmq(new RedisSMQ(besideOldRsmqOptions(ns)));
      old = openOldRsmq(ns);
      cleanup.add(async () => {
        await old.quitAsync();
      });
      client = await singleServerClient();
      cleanup.add(() => client.quit());
      await next.createQueueAsync({ qname: "q", vt: 30 });
      await next.setConcurrencyAsync({ qname: "q", max: 1 });
      await next.sendMessageAsync({ qname: "q", message: "a" });
      await next.sendMessageAsync({ qname: "q", message: "b" });
    });
    afterEach(() => cleanup.run());

    it("rsmq 0.12.4's deleteMessage of a leased message frees the slot at the next rsmq-next receive", async () => {
      const held = asMessage(await next.receiveMessageAsync({ qname: "q" }));
      expect(await next.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
      expect(await old.deleteMessageAsync({ qname: "q", id: held.id })).to.equal(1);
      const taken = asMessage(await next.receiveMessageAsync({ qname: "q" }));
      expect(taken.message).to.equal("b");
      expect(await client.zRange(`${ns}:q:leases`, 0, -1), "the stale lease is gone").to.deep.equal([taken.id]);
    });

    it("rsmq 0.12.4's changeMessageVisibility to 0 of a leased message frees the slot: the message comes again", async () => {
      const held = asMessage(await next.receiveMessageAsync({ qname: "q" }));
      expect(await old.changeMessageVisibilityAsync({ qname: "q", id: held.id, vt: 0 })).to.equal(1);
      const again = await next.receiveMessagesAsync({ qname: "q", count: 2 });
      expect(again.messages).to.have.length(1);
      expect(again.blocked?.reason).to.equal("maxed");
      expect(await client.zRange(`${ns}:q:leases`, 0, -1)).to.deep.equal([again.messages[0].id]);
    });

    it("rsmq 0.12.4's receives do not obey the limit (nor count against it)", async () => {
      asMessage(await next.receiveMessageAsync({ qname: "q" }));
      asMessage(await old.receiveMessageAsync({ qname: "q" }));
      expect(await client.zCard(`${ns}:q:leases`)).to.equal(1);
    });
  });
});

/** A received message as the normalised results show it. */
function receivedAs(id: number, body: string, rc: number): Outcome {
  return ok({ id: `<id${id}>`, message: body, rc, fr: "<ms>", sent: "<ms>" });
}
