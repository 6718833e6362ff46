/**
 * receiveMessageOrNextDue: a receive that, when nothing is due, says in the same single script
 * call when the earliest message (delayed or in flight) will be, or that the queue is empty.
 * nextDueMs values come from the server clock inside the script; each range is derived from the
 * server's TIME read around the calls (due-window.ts), so a stalled machine cannot push one out.
 */
import { expect } from "chai";
import OldRSMQ = require("rsmq");
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { DueWindow } from "../support/due-window";
import { connectionOptions, plainClient, singleServerOnly, singleServerOptions, uniqueNs } from "../support/server";
import { exactState } from "../support/state";
import { clientCommands, monitor } from "../support/wire";
import { rejectionOf } from "../support/old-rsmq";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

type Result = RedisSMQ.ReceiveOrNextDue;

function nextDueOf(result: Result): number {
  if (result.status !== "waiting") throw new Error(`expected waiting, got ${JSON.stringify(result)}`);
  return result.nextDueMs;
}

/** Same keys, and values of the same types, as a message rsmq 0.12.4 received. */
function expectSameShape(message: RedisSMQ.QueueMessage, oldMessage: Record<string, unknown>): void {
  expect(Object.keys(message).sort()).to.deep.equal(Object.keys(oldMessage).sort());
  for (const key of Object.keys(oldMessage)) {
    expect(typeof (message as unknown as Record<string, unknown>)[key], key).to.equal(typeof oldMessage[key]);
  }
}

describe("receiveMessageOrNextDue", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  /** For the server's clock. */
  let clock: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    clock = await plainClient();
  });
  afterEach(async () => {
    await rsmq.quitAsync();
    await clock.quit();
  });

  it("reports an empty queue", async () => {
    expect(await rsmq.receiveMessageOrNextDueAsync({ qname: "q" })).to.deep.equal({ status: "empty" });
  });

  it("reports when a delayed message is due, and changes nothing", async () => {
    const window = await DueWindow.open(clock);
    await rsmq.sendMessageAsync({ qname: "q", message: "later", delay: 10 });
    const client = await plainClient();
    try {
      const before = await exactState(client, ns);
      const result = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
      expect(Object.keys(result).sort()).to.deep.equal(["nextDueMs", "status"]);
      expect(nextDueOf(result)).to.be.within(...(await window.range(10_000)));
      expect(Number.isInteger(nextDueOf(result))).to.equal(true);
      // Not received: no counter, no rc, no first-receive time.
      expect(await exactState(client, ns)).to.deep.equal(before);
    } finally {
      await client.quit();
    }
  });

  it("receives a due message in rsmq's message shape, as receiveMessage does", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "hello" });
    const result = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
    if (result.status !== "received") throw new Error(`expected received, got ${JSON.stringify(result)}`);
    const { message } = result;
    expect(Object.keys(result).sort()).to.deep.equal(["message", "status"]);
    expect(message.id).to.equal(id);
    expect(message.message).to.equal("hello");
    expect(message.rc).to.equal(1);
    expect(message.sent).to.equal(parseInt(id.slice(0, 10), 36) / 1000);
    expect(message.fr).to.be.a("number").and.to.be.at.least(Math.floor(message.sent));

    // Same keys and value types as a message rsmq 0.12.4 receives (on its own queue, on the
    // single server whatever the target; the same queue is tested below).
    const old = new OldRSMQ(singleServerOptions(uniqueNs("old")));
    try {
      await old.createQueueAsync({ qname: "q" });
      await old.sendMessageAsync({ qname: "q", message: "for rsmq" });
      const oldMessage = (await old.receiveMessageAsync({ qname: "q" })) as Record<string, unknown>;
      expectSameShape(message, oldMessage);
    } finally {
      await new Promise((resolve) => old.quit(resolve));
    }

    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect(attributes.totalrecv).to.equal(1);
    expect(attributes.hiddenmsgs).to.equal(1);
  });

  it("and rsmq 0.12.4 receiving from the same queue gets that shape, counted with ours", async function () {
    singleServerOnly(this, "rsmq 0.12.4 on rsmq-next's queue");
    await rsmq.sendMessageAsync({ qname: "q", message: "for us" });
    const result = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
    if (result.status !== "received") throw new Error(`expected received, got ${JSON.stringify(result)}`);
    const old = new OldRSMQ(singleServerOptions(ns));
    try {
      await rsmq.sendMessageAsync({ qname: "q", message: "for rsmq" });
      const oldMessage = (await old.receiveMessageAsync({ qname: "q" })) as Record<string, unknown>;
      expect(oldMessage.message).to.equal("for rsmq");
      expectSameShape(result.message, oldMessage);
    } finally {
      await new Promise((resolve) => old.quit(resolve));
    }

    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect(attributes.totalrecv).to.equal(2);
    expect(attributes.hiddenmsgs).to.equal(2);
  });

  it("counts an in-flight message: after receiving with vt 20 it waits about 20 s", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    const window = await DueWindow.open(clock);
    const first = await rsmq.receiveMessageOrNextDueAsync({ qname: "q", vt: 20 });
    expect(first.status).to.equal("received");
    expect(nextDueOf(await rsmq.receiveMessageOrNextDueAsync({ qname: "q" }))).to.be.within(...(await window.range(20_000)));
  });

  it("uses the queue's vt when none is given", async () => {
    await rsmq.setQueueAttributesAsync({ qname: "q", vt: 40 });
    await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    const window = await DueWindow.open(clock);
    expect((await rsmq.receiveMessageOrNextDueAsync({ qname: "q" })).status).to.equal("received");
    expect(nextDueOf(await rsmq.receiveMessageOrNextDueAsync({ qname: "q" }))).to.be.within(...(await window.range(40_000)));
  });

  it("reports the earliest of several due times", async () => {
    const window = await DueWindow.open(clock);
    await rsmq.sendMessageAsync({ qname: "q", message: "c", delay: 30 });
    await rsmq.sendMessageAsync({ qname: "q", message: "a", delay: 10 });
    await rsmq.sendMessageAsync({ qname: "q", message: "b", delay: 20 });
    expect(nextDueOf(await rsmq.receiveMessageOrNextDueAsync({ qname: "q" }))).to.be.within(...(await window.range(10_000)));
  });

  it("receives the earliest due message first, before reporting the rest", async () => {
    const window = await DueWindow.open(clock);
    await rsmq.sendMessageAsync({ qname: "q", message: "later", delay: 15 });
    await rsmq.sendMessageAsync({ qname: "q", message: "now" });
    const result = await rsmq.receiveMessageOrNextDueAsync({ qname: "q", vt: 60 });
    expect(result.status === "received" && result.message.message).to.equal("now");
    expect(nextDueOf(await rsmq.receiveMessageOrNextDueAsync({ qname: "q" }))).to.be.within(...(await window.range(15_000)));
  });

  it("rejects a missing queue with queueNotFound", async () => {
    const error = await rejectionOf(rsmq.receiveMessageOrNextDueAsync({ qname: "missing" }));
    expect(error).to.be.instanceOf(Error);
    expect(error.name).to.equal("queueNotFound");
    expect(error.message).to.equal("Queue not found");
  });

  it("works with a callback, and returns the promise without one", async () => {
    const window = await DueWindow.open(clock);
    await rsmq.sendMessageAsync({ qname: "q", message: "m", delay: 5 });
    const [error, result] = await new Promise<[unknown, Result | undefined]>((resolve) => {
      const returned = rsmq.receiveMessageOrNextDue({ qname: "q" }, (err, res) => resolve([err, res]));
      expect(returned).to.equal(undefined);
    });
    expect(error).to.equal(null);
    expect(nextDueOf(result!)).to.be.within(...(await window.range(5_000)));

    const promised = rsmq.receiveMessageOrNextDue({ qname: "q" });
    expect(promised).to.be.instanceOf(Promise);
    expect(nextDueOf(await promised)).to.be.within(...(await window.range(5_000)));

    const [missingError] = await new Promise<[Error | null]>((resolve) =>
      rsmq.receiveMessageOrNextDue({ qname: "missing" }, (err) => resolve([err])),
    );
    expect(missingError?.name).to.equal("queueNotFound");
  });

  it("calls the callback asynchronously, validation errors included", async () => {
    let called = false;
    const done = new Promise<Error | null>((resolve) =>
      rsmq.receiveMessageOrNextDue({ qname: "q", vt: -1 }, (err) => {
        called = true;
        resolve(err);
      }),
    );
    expect(called).to.equal(false);
    expect((await done)?.name).to.equal("invalidValue");
  });

  it("hands a message received with vt 0 out again at once", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    const first = await rsmq.receiveMessageOrNextDueAsync({ qname: "q", vt: 0 });
    const second = await rsmq.receiveMessageOrNextDueAsync({ qname: "q", vt: 0 });
    expect(first.status === "received" && first.message.rc).to.equal(1);
    expect(second.status === "received" && second.message.rc).to.equal(2);
  });

  for (const vt of [-1, 10000000, "abc", Number.NaN]) {
    it(`rejects vt ${typeof vt === "string" ? JSON.stringify(vt) : String(vt)} without any round trip`, async () => {
      let error: Error | undefined;
      // Also for a missing queue: input is checked first (documented difference 1).
      const commands = await monitor(async () => {
        error = await rejectionOf(rsmq.receiveMessageOrNextDueAsync({ qname: "q", vt: vt as number }));
        const missing = await rejectionOf(rsmq.receiveMessageOrNextDueAsync({ qname: "missing", vt: vt as number }));
        expect(missing.name).to.equal("invalidValue");
      });
      expect(error?.name).to.equal("invalidValue");
      expect(error?.message).to.equal("vt must be between 0 and 9999999");
      expect(clientCommands(commands)).to.deep.equal([]);
    });
  }

  it("is one EVALSHA whatever it finds", async () => {
    // Load the script first, so the NOSCRIPT fallback does not show up below.
    await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
    const outcomes: string[] = [];
    const check = async (): Promise<void> => {
      const commands = await monitor(async () => {
        outcomes.push((await rsmq.receiveMessageOrNextDueAsync({ qname: "q", vt: 30 })).status);
      });
      expect(clientCommands(commands)).to.deep.equal(["evalsha"]);
    };
    await check(); // empty
    await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    await check(); // received
    await check(); // waiting (in flight)
    expect(outcomes).to.deep.equal(["empty", "received", "waiting"]);
  });
});
