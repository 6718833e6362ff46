/**
 * The byte bound of one batch script call (lib/operations/batch-bytes.ts): no script call a batch
 * makes writes or returns more than MAX_BATCH_BYTES of message bodies. Counted exactly, from what
 * the server ran (MONITOR shows every script's own commands with their arguments) and from what
 * the calls answered, never timed: the time such a call takes is in the bench (`--only batch-bound`).
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib");
import { MAX_BATCH_BYTES } from "../../lib/operations/batch-bytes";
import { MonitorWatch } from "../support/monitor-socket";
import type { MonitoredLine } from "../support/monitor-socket";
import { connectionOptions, onCluster, testCluster, testRedis, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

/** 4 bodies of 65536 bytes, the default maxsize: exactly the bound. */
const BODY = 65_536;
const AT_BOUND = MAX_BATCH_BYTES / BODY;
const body = (mark: string, bytes = BODY): string => mark + "x".repeat(bytes - mark.length);
const entries = (count: number, bytes = BODY): Array<{ message: string }> =>
  Array.from({ length: count }, (_, i) => ({ message: body(`m${i}-`, bytes) }));

/** One script call as MONITOR saw it: the EVALSHA (or EVAL) a client sent and the commands the script ran. */
interface ScriptCall {
  args: string[];
  inner: MonitoredLine[];
}

/** What ran while `action` ran, on every server a queue may live on. */
async function watched(action: () => Promise<unknown>): Promise<MonitoredLine[]> {
  const servers = onCluster() ? await testCluster().masters() : [testRedis()];
  const watch = await MonitorWatch.open(servers);
  try {
    await action();
    return await watch.commands();
  } finally {
    await watch.close();
  }
}

/** The script calls among `lines`, each with the commands its script ran (they follow it on its server). */
function scriptCalls(lines: MonitoredLine[]): ScriptCall[] {
  const calls: ScriptCall[] = [];
  const open = new Map<number, ScriptCall>();
  for (const line of lines) {
    if (line.fromScript) {
      open.get(line.port)?.inner.push(line);
    } else if (/^eval/.test(line.args[0])) {
      const call = { args: line.args, inner: [] };
      calls.push(call);
      open.set(line.port, call);
    } else {
      open.delete(line.port);
    }
  }
  // An EVALSHA refused with NOSCRIPT (the script not cached yet) ran nothing: its EVAL follows.
  return calls.filter((call) => call.inner.length > 0);
}

/** The bytes of message bodies a script call wrote: each HSET of a message id (32 characters) and its body. */
function bodyBytesWritten(call: ScriptCall): number {
  let bytes = 0;
  for (const { args } of call.inner) {
    if (args[0].toLowerCase() !== "hset") continue;
    for (let i = 2; i + 1 < args.length; i += 2) if (/^[A-Za-z0-9]{32}$/.test(args[i])) bytes += args[i + 1].length;
  }
  return bytes;
}

/** The message ids a receive script hid (its ZADD: score, id, score, id, ...). */
function idsHidden(call: ScriptCall): string[] {
  const zadd = call.inner.filter(({ args }) => args[0].toLowerCase() === "zadd");
  return zadd.flatMap(({ args }) => args.slice(2).filter((_, i) => i % 2 === 1));
}

const bytesOf = (messages: Array<{ message: string }>): number =>
  messages.reduce((sum, { message }) => sum + Buffer.byteLength(message), 0);

describe("the byte bound of a batch script call", () => {
  let ns: string;
  let rsmq: RedisSMQ;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => rsmq.quitAsync());

  it("is 256 KiB", () => {
    expect(MAX_BATCH_BYTES).to.equal(262_144);
  });

  describe("sendMessages", () => {
    it("takes a batch of exactly the bound in one script call, which writes exactly that many body bytes", async () => {
      await rsmq.sendMessagesAsync({ qname: "q", messages: [{ message: "warm" }] }); // the script is cached
      let results: RedisSMQ.SentEntry[] = [];
      const lines = await watched(async () => {
        results = await rsmq.sendMessagesAsync({ qname: "q", messages: entries(AT_BOUND) });
      });
      expect(results.every((result) => result.id !== undefined)).to.equal(true);
      const calls = scriptCalls(lines);
      expect(lines.filter((line) => !line.fromScript).map((line) => line.args[0])).to.deep.equal(["evalsha"]);
      expect(bodyBytesWritten(calls[0])).to.equal(MAX_BATCH_BYTES);
    });

    it("refuses one byte more with batchTooLarge before any round trip: nothing sent, nothing written", async () => {
      const over = [...entries(AT_BOUND), { message: "y" }];
      expect(bytesOf(over)).to.equal(MAX_BATCH_BYTES + 1);
      let error: (Error & { code?: string }) | undefined;
      const lines = await watched(async () => {
        error = await rsmq.sendMessagesAsync({ qname: "q", messages: over }).then(
          () => undefined,
          (e: Error) => e,
        );
      });
      expect(error?.name).to.equal("batchTooLarge");
      expect(error?.code).to.equal("ERR_RSMQ_NEXT_BATCH_TOO_LARGE");
      expect(error?.message)
        .to.contain(String(MAX_BATCH_BYTES + 1))
        .and.contain(String(MAX_BATCH_BYTES))
        .and.contain("split");
      expect(lines).to.deep.equal([]);
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
    });

    it("counts UTF-8 bytes, as Redis stores a body, not maxsize's UTF-16 units", async () => {
      await rsmq.setQueueAttributesAsync({ qname: "q", maxsize: -1 });
      // "é" is one UTF-16 unit and two bytes.
      const half = "é".repeat(MAX_BATCH_BYTES / 4);
      const results = await rsmq.sendMessagesAsync({ qname: "q", messages: [{ message: half }, { message: half }] });
      expect(results).to.have.length(2);
      const error = await rsmq
        .sendMessagesAsync({ qname: "q", messages: [{ message: half }, { message: half + "é" }] })
        .catch((e: Error) => e);
      expect((error as Error).name).to.equal("batchTooLarge");
    });
  });

  describe("receiveMessages", () => {
    /** One message more than the bound holds, with the warm-up's script cached. */
    async function fillPastTheBound(): Promise<string[]> {
      const first = await rsmq.sendMessagesAsync({ qname: "q", messages: entries(AT_BOUND) });
      const last = await rsmq.sendMessageAsync({ qname: "q", message: body("last-") });
      return [...first.map((result) => result.id!), last];
    }

    it("stops at the bound: returns what fits, hides and counts only those, and says the next is due now", async () => {
      const ids = await fillPastTheBound();
      let received: RedisSMQ.ReceivedMessages = { messages: [] };
      const lines = await watched(async () => {
        received = await rsmq.receiveMessagesAsync({ qname: "q", count: 1000 });
      });
      expect(received.messages.map((message) => message.id)).to.deep.equal(ids.slice(0, AT_BOUND));
      expect(bytesOf(received.messages)).to.equal(MAX_BATCH_BYTES);
      expect(received.nextDueMs).to.equal(0);

      const [call] = scriptCalls(lines);
      expect(idsHidden(call)).to.deep.equal(ids.slice(0, AT_BOUND));
      const counted = call.inner.filter(({ args }) => args[0].toLowerCase() === "hincrby" && args[2].endsWith(":rc"));
      expect(counted.map(({ args }) => args[2])).to.deep.equal(ids.slice(0, AT_BOUND).map((id) => `${id}:rc`));

      // The one left behind: never received, visible, and the next receive's.
      const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
      expect([attributes.totalrecv, attributes.hiddenmsgs, attributes.msgs]).to.deep.equal([AT_BOUND, AT_BOUND, AT_BOUND + 1]);
      const left = (await rsmq.peekMessageAsync({ qname: "q", id: ids[AT_BOUND] })) as RedisSMQ.MessageWithState;
      expect([left.state, left.receiveCount]).to.deep.equal(["visible", 0]);
      const next = await rsmq.receiveMessagesAsync({ qname: "q", count: 1000 });
      expect(next.messages.map((message) => message.id)).to.deep.equal([ids[AT_BOUND]]);
    });

    it("returns a message longer than the bound alone, the messages behind it left visible", async () => {
      await rsmq.setQueueAttributesAsync({ qname: "q", maxsize: -1 });
      const big = await rsmq.sendMessageAsync({ qname: "q", message: body("big-", MAX_BATCH_BYTES + 1) });
      await rsmq.sendMessageAsync({ qname: "q", message: "small" });
      const { messages, nextDueMs } = await rsmq.receiveMessagesAsync({ qname: "q", count: 10 });
      expect(messages.map((message) => message.id)).to.deep.equal([big]);
      expect(nextDueMs).to.equal(0);
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).hiddenmsgs).to.equal(1);
    });

    it("cuts at the bodies' bytes when the queue's maxsize was lowered after longer messages were sent", async () => {
      await rsmq.setQueueAttributesAsync({ qname: "q", maxsize: -1 });
      const sent: string[] = [];
      for (const { message } of entries(5)) sent.push(await rsmq.sendMessageAsync({ qname: "q", message }));
      await rsmq.setQueueAttributesAsync({ qname: "q", maxsize: 1024 });
      const { messages } = await rsmq.receiveMessagesAsync({ qname: "q", count: 5 });
      expect(messages.map((message) => message.id)).to.deep.equal(sent.slice(0, 4));
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).hiddenmsgs).to.equal(4);
    });

    it("leaves a batch under the bound whole: count messages, and no nextDueMs", async () => {
      await rsmq.sendMessagesAsync({ qname: "q", messages: entries(AT_BOUND - 1) });
      await rsmq.sendMessagesAsync({ qname: "q", messages: entries(3, 100) });
      const received = await rsmq.receiveMessagesAsync({ qname: "q", count: AT_BOUND + 2 });
      expect(received.messages).to.have.length(AT_BOUND + 2);
      expect(received).to.not.have.property("nextDueMs");
    });
  });

  describe("looks and moves", () => {
    it("peekMessages and peekDeadLetters list what fits in the bound, and change nothing", async () => {
      const sent = await rsmq.sendMessagesAsync({ qname: "q", messages: entries(AT_BOUND) });
      await rsmq.sendMessageAsync({ qname: "q", message: body("last-") });
      const peeked = await rsmq.peekMessagesAsync({ qname: "q", count: 1000 });
      expect(peeked.map((message) => message.id)).to.deep.equal(sent.map((result) => result.id));
      const old = await rsmq.peekDeadLettersAsync({ qname: "q", count: 1000 });
      expect(old.map((message) => message.id)).to.deep.equal(sent.map((result) => result.id));
      const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
      expect([attributes.totalrecv, attributes.hiddenmsgs]).to.deep.equal([0, 0]);
    });

    it("redrive moves every message, no script call writing more than the bound", async () => {
      const total = 2 * AT_BOUND + 3;
      await rsmq.createQueueAsync({ qname: "target" });
      await rsmq.sendMessagesAsync({ qname: "q", messages: entries(AT_BOUND) });
      await rsmq.sendMessagesAsync({ qname: "q", messages: entries(AT_BOUND) });
      await rsmq.sendMessagesAsync({ qname: "q", messages: entries(3) });
      let moved = 0;
      const lines = await watched(async () => {
        moved = await rsmq.redriveAsync({ from: "q", to: "target" });
      });
      expect(moved).to.equal(total);
      expect((await rsmq.getQueueAttributesAsync({ qname: "target" })).msgs).to.equal(total);
      const written = scriptCalls(lines).map(bodyBytesWritten);
      expect(written.reduce((sum, bytes) => sum + bytes, 0)).to.equal(total * BODY);
      expect(Math.max(...written)).to.equal(MAX_BATCH_BYTES);
    });
  });
});
