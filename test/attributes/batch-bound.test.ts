/**
 * A batch read's byte bound (256 KiB, lib/operations/batch-bytes.ts) counts each message's
 * attributes with its body, as maxsize does at the send: six messages of a 50,000-byte body and
 * ten 1024-character attributes (about 60,400 bytes each) come four to a receiveMessages or a
 * peekMessages call, where their bodies alone would let five through.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib");
import { MAX_BATCH_BYTES } from "../../lib/operations/batch-bytes";
import { connectionOptions, uniqueNs } from "../support/server";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const BODY = "b".repeat(50_000);
const ATTRIBUTES = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`a${i}`, String(i).repeat(1024)]));
const STORED = BODY.length + JSON.stringify({ a: ATTRIBUTES }).length;

describe("message attributes count against a batch read's byte bound", () => {
  const cleanup = new Cleanup();
  let rsmq: RedisSMQ;
  let ids: string[];

  beforeEach(async () => {
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(uniqueNs("attrs"))));
    await rsmq.createQueueAsync({ qname: "q" });
    ids = [];
    for (let i = 0; i < 6; i += 1) ids.push(await rsmq.sendMessageAsync({ qname: "q", message: BODY, attributes: ATTRIBUTES }));
  });
  afterEach(() => cleanup.run());

  it("the figures: five bodies fit the bound, four bodies with their attributes do and five do not", () => {
    expect(5 * BODY.length).to.be.at.most(MAX_BATCH_BYTES);
    expect(4 * STORED).to.be.at.most(MAX_BATCH_BYTES);
    expect(5 * STORED).to.be.above(MAX_BATCH_BYTES);
  });

  it("receiveMessages takes four, and the next is due at once", async () => {
    const first = await rsmq.receiveMessagesAsync({ qname: "q", count: 10 });
    expect(first.messages.map((m) => m.id)).to.deep.equal(ids.slice(0, 4));
    expect(first.nextDueMs).to.equal(0);
    for (const message of first.messages) expect(message.attributes).to.deep.equal(ATTRIBUTES);
    const second = await rsmq.receiveMessagesAsync({ qname: "q", count: 10 });
    expect(second.messages.map((m) => m.id)).to.deep.equal(ids.slice(4));
  });

  it("peekMessages and peekDeadLetters list four", async () => {
    expect((await rsmq.peekMessagesAsync({ qname: "q", count: 10 })).map((m) => m.id)).to.deep.equal(ids.slice(0, 4));
    expect((await rsmq.peekDeadLettersAsync({ qname: "q", count: 10 })).map((m) => m.id)).to.deep.equal(ids.slice(0, 4));
  });
});
