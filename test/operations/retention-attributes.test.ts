/**
 * The queue attributes `retention` and `expireTo`: set at creation or later, read back, removed
 * again so the queue reads exactly as under rsmq 0.12.4, refused before any round trip when bad,
 * and invisible to an rsmq 0.12.4 client sharing the queue (which keeps every one of them).
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import { RedisSMQ } from "../../lib";
import { dataClient, exactState, outcome, rawKey } from "../support/differential";
import { openOldRsmq } from "../support/old-rsmq";
import { connectionOptions, onCluster, uniqueNs } from "../support/server";
import { monitor } from "../support/wire";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const RSMQ_ATTRIBUTES = ["created", "delay", "hiddenmsgs", "maxsize", "modified", "msgs", "totalrecv", "totalsent", "vt"];
const RSMQ_FIELDS = ["created", "delay", "maxsize", "modified", "vt"];
const FOURTEEN_DAYS = 14 * 24 * 3600;

describe("queue attributes: retention and expireTo", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let data: RedisClientType;
  const hashOf = (qname: string): Promise<Record<string, string>> => data.hGetAll(rawKey("next", ns, `${qname}:Q`));

  beforeEach(async () => {
    ns = uniqueNs("retention-attrs");
    rsmq = new RedisSMQ(connectionOptions(ns));
    data = await dataClient("next");
  });

  afterEach(async () => {
    await rsmq.quitAsync();
    await data.quit();
  });

  it("createQueue takes both; getQueueAttributes returns them with the expired count", async () => {
    await rsmq.createQueueAsync({ qname: "jobs", retention: 3600, expireTo: "jobs-expired" });
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "jobs" });
    expect(attributes).to.include({ retention: 3600, expireTo: "jobs-expired", totalexpired: 0, vt: 30 });
    expect(await hashOf("jobs")).to.include({ retention: "3600", expireto: "jobs-expired" });
  });

  it("a queue without them has rsmq 0.12.4's fields and attributes exactly", async () => {
    await rsmq.createQueueAsync({ qname: "plain", retention: 0, expireTo: "" });
    expect(Object.keys(await hashOf("plain")).sort()).to.deep.equal(RSMQ_FIELDS);
    expect(Object.keys(await rsmq.getQueueAttributesAsync({ qname: "plain" })).sort()).to.deep.equal(RSMQ_ATTRIBUTES);
  });

  it("setQueueAttributes sets, changes and removes them; removed, the queue reads as rsmq's again", async () => {
    await rsmq.createQueueAsync({ qname: "jobs" });
    const set = await rsmq.setQueueAttributesAsync({ qname: "jobs", retention: FOURTEEN_DAYS });
    expect(set).to.include({ retention: FOURTEEN_DAYS, totalexpired: 0 });
    expect(set).to.not.have.property("expireTo");
    const moved = await rsmq.setQueueAttributesAsync({ qname: "jobs", expireTo: "audit", vt: 5 });
    expect(moved).to.include({ retention: FOURTEEN_DAYS, expireTo: "audit", vt: 5 });
    const cleared = await rsmq.setQueueAttributesAsync({ qname: "jobs", retention: 0, expireTo: "" });
    expect(Object.keys(cleared).sort()).to.deep.equal(RSMQ_ATTRIBUTES);
    expect(Object.keys(await hashOf("jobs")).sort()).to.deep.equal(RSMQ_FIELDS);
  });

  it("an expired count stays visible after the retention is removed", async () => {
    await rsmq.createQueueAsync({ qname: "jobs" });
    await data.hSet(rawKey("next", ns, "jobs:Q"), "totalexpired", "3");
    expect(await rsmq.getQueueAttributesAsync({ qname: "jobs" }))
      .to.include({ totalexpired: 3 })
      .and.not.have.property("retention");
  });

  const invalid: Array<[string, Record<string, unknown> | ((qname: string) => Record<string, unknown>), string, string]> = [
    ["retention as a string", { retention: "5" }, "invalidValue", "retention must be a whole number of seconds between 0 and 9999999"],
    ["a fractional retention", { retention: 1.5 }, "invalidValue", "retention must be a whole number of seconds between 0 and 9999999"],
    ["a negative retention", { retention: -1 }, "invalidValue", "retention must be a whole number of seconds between 0 and 9999999"],
    [
      "a retention over the maximum",
      { retention: 10_000_000 },
      "invalidValue",
      "retention must be a whole number of seconds between 0 and 9999999",
    ],
    ["expireTo the queue itself", (qname) => ({ expireTo: qname }), "invalidValue", "expireTo must name another queue than qname"],
    ["expireTo not a queue name", { expireTo: "no spaces" }, "invalidFormat", "Invalid expireTo format"],
    ["expireTo not a string", { expireTo: 5 }, "invalidValue", 'expireTo must be a queue name, or "" to delete expired messages'],
  ];
  for (const [label, options, name, message] of invalid) {
    for (const method of ["createQueueAsync", "setQueueAttributesAsync"] as const) {
      it(`${method.replace(/Async$/, "")} with ${label}: ${name}, no command, nothing written`, async () => {
        const qname = method === "createQueueAsync" ? "fresh" : "jobs";
        await rsmq.createQueueAsync({ qname: "jobs" });
        const before = await exactState(data, ns);
        let result: Awaited<ReturnType<typeof outcome>> | undefined;
        const commands = await monitor(async () => {
          const given = typeof options === "function" ? options(qname) : options;
          result = await outcome((rsmq[method] as (o: unknown) => Promise<unknown>)({ qname, ...given }));
        });
        expect(result).to.have.property("error").that.includes({ isError: true, name, message });
        expect(commands).to.deep.equal([]);
        expect(await exactState(data, ns)).to.deep.equal(before);
      });
    }
  }

  describe("with an rsmq 0.12.4 client on the same queue", () => {
    before(function () {
      if (onCluster()) this.skip();
    });

    it("it reads its own attributes, changes its own settings, sends, receives and deletes; the retention stays", async () => {
      const old = openOldRsmq(ns);
      try {
        await rsmq.createQueueAsync({ qname: "shared", retention: 60, expireTo: "shared-expired" });
        const attributes = (await old.getQueueAttributesAsync({ qname: "shared" })) as unknown as Record<string, unknown>;
        expect(Object.keys(attributes).sort()).to.deep.equal(RSMQ_ATTRIBUTES);
        await old.setQueueAttributesAsync({ qname: "shared", vt: 7 });
        const id = await old.sendMessageAsync({ qname: "shared", message: "hello" });
        const received = (await old.receiveMessageAsync({ qname: "shared" })) as { id: string };
        expect(received.id).to.equal(id);
        expect(await old.deleteMessageAsync({ qname: "shared", id })).to.equal(1);
        expect(await rsmq.getQueueAttributesAsync({ qname: "shared" })).to.include({ vt: 7, retention: 60, expireTo: "shared-expired" });
      } finally {
        await old.quitAsync();
      }
    });
  });
});
