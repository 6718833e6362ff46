/**
 * rsmq 0.12.4 and rsmq-next on the same namespace and queue, as during a rolling deploy: whatever
 * one writes the other reads and continues, in both directions, and realtime publishes look the
 * same to a subscriber.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import { asMessage, openNextBesideOld, openOldRsmq, rejectionOf } from "../support/old-rsmq";
import type { QueueAttributes, Rsmq } from "../support/old-rsmq";
import { serverNowMs } from "../support/inspect";
import { plainClient, uniqueNs } from "../support/server";
import { snapshot } from "../support/state";
import type { Snapshot } from "../support/state";
import { WriteWatch, watchedAsync } from "../support/written-data";
import { runsOn } from "../support/targets";

runsOn("single", "client");

type LibraryName = "rsmq 0.12.4" | "rsmq-next";
const OLD: LibraryName = "rsmq 0.12.4";
const NEXT: LibraryName = "rsmq-next";

/** Opens one instance of each library on `ns`. */
function openBoth(ns: string, extra: { realtime?: boolean } = {}): Record<LibraryName, Rsmq> {
  return { [OLD]: openOldRsmq(ns, extra), [NEXT]: openNextBesideOld(ns, extra) } as Record<LibraryName, Rsmq>;
}

/**
 * Attributes to compare across libraries. hiddenmsgs is left out: rsmq 0.12.4 counts scores from
 * the start of the current second, rsmq-next from the current millisecond (documented difference
 * 4), so a message that became visible earlier in the same second counts differently.
 */
function withoutHidden({ hiddenmsgs: _, ...rest }: QueueAttributes): Omit<QueueAttributes, "hiddenmsgs"> {
  return rest;
}

/** `sent` as both libraries compute it: the id's microsecond timestamp, in ms. */
const sentOf = (id: string): number => parseInt(id.slice(0, 10), 36) / 1000;

const Q = "shared";

for (const [writerName, readerName] of [
  [OLD, NEXT],
  [NEXT, OLD],
] as const) {
  describe(`interop: ${writerName} writes, ${readerName} continues`, () => {
    let ns: string;
    let writer: Rsmq;
    let reader: Rsmq;
    let libs: Record<LibraryName, Rsmq>;
    let client: RedisClientType;
    /** Checks what every call of either library writes (written-data.ts). */
    let watch: WriteWatch;

    beforeEach(async () => {
      ns = uniqueNs("interop");
      libs = openBoth(ns);
      client = await plainClient();
      watch = new WriteWatch(client, ns);
      writer = watchedAsync(libs[writerName], watch);
      reader = watchedAsync(libs[readerName], watch);
      await writer.createQueueAsync({ qname: Q });
    });
    afterEach(async () => {
      await Promise.all([libs[OLD].quitAsync(), libs[NEXT].quitAsync(), client.quit()]);
    });

    /** A test whose calls' writes are checked when it ends, so a bad write fails that test. */
    function checked(title: string, test: () => Promise<void>): void {
      it(title, async () => {
        await test();
        watch.assertClean(`${writerName} and ${readerName}`);
      });
    }

    checked("sees the queue: same attributes, listed, and a second create is queueExists", async () => {
      await writer.createQueueAsync({ qname: "custom", vt: 45, delay: 3, maxsize: 2048 });
      const own = await writer.getQueueAttributesAsync({ qname: "custom" });
      const seen = await reader.getQueueAttributesAsync({ qname: "custom" });
      expect(seen).to.deep.equal(own);
      expect(seen).to.include({ vt: 45, delay: 3, maxsize: 2048, totalsent: 0, totalrecv: 0, msgs: 0, hiddenmsgs: 0 });
      expect((await reader.listQueuesAsync()).sort()).to.deep.equal(["custom", Q]);

      const again = await rejectionOf(reader.createQueueAsync({ qname: "custom" }));
      expect(again).to.include({ name: "queueExists", message: "Queue exists" });
      expect(await reader.getQueueAttributesAsync({ qname: "custom" })).to.deep.equal(own);
    });

    checked("receives its message; rc, fr, sent and the counters continue across both", async () => {
      const id = await writer.sendMessageAsync({ qname: Q, message: "hello" });

      const first = asMessage(await reader.receiveMessageAsync({ qname: Q, vt: 0 }));
      expect(first).to.include({ id, message: "hello", rc: 1, sent: sentOf(id) });
      expect(first.fr).to.be.at.least(Math.floor(first.sent));

      const second = asMessage(await writer.receiveMessageAsync({ qname: Q, vt: 0 }));
      expect(second).to.deep.equal({ ...first, rc: 2 });

      const third = asMessage(await reader.receiveMessageAsync({ qname: Q, vt: 0 }));
      expect(third).to.deep.equal({ ...first, rc: 3 });

      for (const lib of [writer, reader]) {
        expect(await lib.getQueueAttributesAsync({ qname: Q })).to.include({ totalsent: 1, totalrecv: 3, msgs: 1 });
      }
      expect(await client.hGetAll(`${ns}:${Q}:Q`)).to.include({ [`${id}:rc`]: "3", [`${id}:fr`]: String(first.fr) });
    });

    checked("counts sends from both in totalsent and delivers them in send order", async () => {
      const a = await writer.sendMessageAsync({ qname: Q, message: "a" });
      const b = await reader.sendMessageAsync({ qname: Q, message: "b" });
      const c = await writer.sendMessageAsync({ qname: Q, message: "c" });
      expect([a, b, c].map(sentOf)).to.deep.equal([sentOf(a), sentOf(b), sentOf(c)].sort((x, y) => x - y));

      expect(asMessage(await reader.receiveMessageAsync({ qname: Q }))).to.include({ id: a, rc: 1 });
      expect(asMessage(await writer.receiveMessageAsync({ qname: Q }))).to.include({ id: b, rc: 1 });
      expect(asMessage(await reader.popMessageAsync({ qname: Q }))).to.include({ id: c, rc: 1 });
      expect(await writer.receiveMessageAsync({ qname: Q })).to.deep.equal({});

      const seenByWriter = await writer.getQueueAttributesAsync({ qname: Q });
      expect(seenByWriter).to.include({ totalsent: 3, totalrecv: 3, msgs: 2, hiddenmsgs: 2 });
      expect(await reader.getQueueAttributesAsync({ qname: Q })).to.deep.equal(seenByWriter);
    });

    checked("pops its messages, including one it already received (rc and fr read back)", async () => {
      const fresh = await writer.sendMessageAsync({ qname: Q, message: "fresh" });
      const popped = asMessage(await reader.popMessageAsync({ qname: Q }));
      expect(popped).to.include({ id: fresh, message: "fresh", rc: 1, sent: sentOf(fresh) });

      const seen = await writer.sendMessageAsync({ qname: Q, message: "seen" });
      const received = asMessage(await writer.receiveMessageAsync({ qname: Q, vt: 0 }));
      expect(asMessage(await reader.popMessageAsync({ qname: Q }))).to.deep.equal({ ...received, id: seen, rc: 2 });

      expect(await writer.popMessageAsync({ qname: Q })).to.deep.equal({});
      expect(await writer.getQueueAttributesAsync({ qname: Q })).to.include({ totalsent: 2, totalrecv: 3, msgs: 0 });
      // Popping leaves no trace of either message.
      const hash = await client.hGetAll(`${ns}:${Q}:Q`);
      expect(Object.keys(hash).sort()).to.deep.equal(["created", "delay", "maxsize", "modified", "totalrecv", "totalsent", "vt"]);
      expect(await client.zCard(`${ns}:${Q}`)).to.equal(0);
    });

    checked("hides and shows its messages with changeMessageVisibility", async () => {
      const id = await writer.sendMessageAsync({ qname: Q, message: "m" });
      expect(await reader.changeMessageVisibilityAsync({ qname: Q, id, vt: 100 })).to.equal(1);
      expect(await writer.receiveMessageAsync({ qname: Q })).to.deep.equal({});
      for (const lib of [writer, reader]) {
        expect(await lib.getQueueAttributesAsync({ qname: Q })).to.include({ msgs: 1, hiddenmsgs: 1 });
      }

      expect(await reader.changeMessageVisibilityAsync({ qname: Q, id, vt: 0 })).to.equal(1);
      const first = asMessage(await writer.receiveMessageAsync({ qname: Q, vt: 100 }));
      expect(first).to.include({ id, rc: 1 });
      expect(await reader.receiveMessageAsync({ qname: Q })).to.deep.equal({});

      // The writer's in-flight message, released early by the reader.
      expect(await reader.changeMessageVisibilityAsync({ qname: Q, id, vt: 0 })).to.equal(1);
      expect(asMessage(await reader.receiveMessageAsync({ qname: Q }))).to.deep.equal({ ...first, rc: 2 });

      const unknown = `${id.slice(0, 10)}${"x".repeat(22)}`;
      expect(await reader.changeMessageVisibilityAsync({ qname: Q, id: unknown, vt: 0 })).to.equal(0);
    });

    checked("deletes its messages", async () => {
      const id = await writer.sendMessageAsync({ qname: Q, message: "m" });
      await writer.receiveMessageAsync({ qname: Q, vt: 0 }); // gives it :rc and :fr fields
      expect(await reader.deleteMessageAsync({ qname: Q, id })).to.equal(1);
      expect(await writer.receiveMessageAsync({ qname: Q })).to.deep.equal({});
      expect(await writer.deleteMessageAsync({ qname: Q, id })).to.equal(0);
      expect(await reader.deleteMessageAsync({ qname: Q, id })).to.equal(0);
      expect(Object.keys(await client.hGetAll(`${ns}:${Q}:Q`)).filter((field) => field.startsWith(id))).to.deep.equal([]);
      expect(await reader.getQueueAttributesAsync({ qname: Q })).to.include({ totalsent: 1, totalrecv: 1, msgs: 0 });
    });

    checked("reads its setQueueAttributes and acts on the new values", async () => {
      const set = await writer.setQueueAttributesAsync({ qname: Q, vt: 77, delay: 5, maxsize: 1024 });
      expect(set).to.include({ vt: 77, delay: 5, maxsize: 1024 });
      expect(set.modified).to.be.at.least(set.created);
      expect(await reader.getQueueAttributesAsync({ qname: Q })).to.deep.equal(set);

      // The new delay applies to the reader's sends, the new maxsize to its checks.
      await reader.sendMessageAsync({ qname: Q, message: "delayed" });
      expect(await writer.receiveMessageAsync({ qname: Q })).to.deep.equal({});
      expect(await reader.getQueueAttributesAsync({ qname: Q })).to.include({ msgs: 1, hiddenmsgs: 1 });
      const tooLong = await rejectionOf(reader.sendMessageAsync({ qname: Q, message: "x".repeat(1025), delay: 0 }));
      expect(tooLong).to.include({ name: "messageTooLong", message: "Message too long" });

      // And the new vt to the reader's receives: the message comes back 77 s out, counted from the
      // receive, which ran between these two reads of the server clock.
      await reader.sendMessageAsync({ qname: Q, message: "now", delay: 0 });
      const before = await serverNowMs(client);
      const { id } = asMessage(await reader.receiveMessageAsync({ qname: Q }));
      const after = await serverNowMs(client);
      expect(Number(await client.zScore(`${ns}:${Q}`, id))).to.be.within(before + 77_000, after + 77_000);

      const back = await reader.setQueueAttributesAsync({ qname: Q, vt: 30 });
      expect(withoutHidden(await writer.getQueueAttributesAsync({ qname: Q }))).to.deep.equal(withoutHidden(back));
    });

    checked("after its deleteQueue, sees queueNotFound everywhere", async () => {
      await writer.sendMessageAsync({ qname: Q, message: "m" });
      expect(await writer.deleteQueueAsync({ qname: Q })).to.equal(1);

      expect(await reader.listQueuesAsync()).to.deep.equal([]);
      const notFound = { name: "queueNotFound", message: "Queue not found" };
      expect(await rejectionOf(reader.getQueueAttributesAsync({ qname: Q }))).to.include(notFound);
      expect(await rejectionOf(reader.sendMessageAsync({ qname: Q, message: "m" }))).to.include(notFound);
      expect(await rejectionOf(reader.receiveMessageAsync({ qname: Q }))).to.include(notFound);
      expect(await rejectionOf(reader.popMessageAsync({ qname: Q }))).to.include(notFound);
      expect(await rejectionOf(reader.setQueueAttributesAsync({ qname: Q, vt: 1 }))).to.include(notFound);
      expect(await rejectionOf(reader.deleteQueueAsync({ qname: Q }))).to.include(notFound);
      expect(await client.keys(`${ns}:*`)).to.deep.equal([]);

      // And it can create the queue again from scratch.
      expect(await reader.createQueueAsync({ qname: Q })).to.equal(1);
      expect(await writer.getQueueAttributesAsync({ qname: Q })).to.include({ totalsent: 0, msgs: 0 });
    });
  });
}

describe("interop: the data a mixed deployment leaves", () => {
  /** One namespace's snapshot (its clock readings checked by `watch`) with the namespace taken out of the key names. */
  async function normalised(client: RedisClientType, ns: string, watch: WriteWatch): Promise<Snapshot> {
    const taken = await snapshot(client, ns, watch);
    return Object.fromEntries(Object.entries(taken).map(([key, value]) => [key.slice(ns.length), value]));
  }

  /**
   * A little of everything; `pick(i)` chooses the library for step i. At most one message is due
   * at any time, so which message each receive takes never depends on millisecond ties.
   */
  async function workload(pick: (step: number) => Rsmq): Promise<void> {
    let step = 0;
    const lib = (): Rsmq => pick(step++);
    await lib().createQueueAsync({ qname: Q, vt: 20 });
    await lib().createQueueAsync({ qname: "other", delay: 10, maxsize: -1 });
    const one = await lib().sendMessageAsync({ qname: Q, message: "one" });
    const two = await lib().sendMessageAsync({ qname: Q, message: "two", delay: 50 });
    const three = await lib().sendMessageAsync({ qname: Q, message: "three", delay: 70 });
    const four = await lib().sendMessageAsync({ qname: Q, message: "four", delay: 80 });
    await lib().sendMessageAsync({ qname: "other", message: "later" });
    expect(asMessage(await lib().receiveMessageAsync({ qname: Q, vt: 0 })).id).to.equal(one);
    expect(asMessage(await lib().receiveMessageAsync({ qname: Q })).rc).to.equal(2); // hidden 20 s
    await lib().changeMessageVisibilityAsync({ qname: Q, id: two, vt: 0 });
    expect(asMessage(await lib().receiveMessageAsync({ qname: Q, vt: 40 })).id).to.equal(two);
    await lib().changeMessageVisibilityAsync({ qname: Q, id: two, vt: 60 });
    await lib().changeMessageVisibilityAsync({ qname: Q, id: three, vt: 0 });
    expect(asMessage(await lib().popMessageAsync({ qname: Q })).id).to.equal(three);
    expect(await lib().deleteMessageAsync({ qname: Q, id: four })).to.equal(1);
    await lib().setQueueAttributesAsync({ qname: "other", vt: 90 });
  }

  it("is the same whether rsmq 0.12.4, rsmq-next, or both alternating did the work", async () => {
    const client = await plainClient();
    const pictures: Record<string, Snapshot> = {};
    try {
      const runs: Array<[string, (both: Record<LibraryName, Rsmq>) => (step: number) => Rsmq]> = [
        ["rsmq 0.12.4 only", (both) => () => both[OLD]],
        ["rsmq-next only", (both) => () => both[NEXT]],
        ["alternating, rsmq 0.12.4 first", (both) => (step) => (step % 2 ? both[NEXT] : both[OLD])],
        ["alternating, rsmq-next first", (both) => (step) => (step % 2 ? both[OLD] : both[NEXT])],
      ];
      for (const [label, chooser] of runs) {
        const ns = uniqueNs("mixed");
        const both = openBoth(ns);
        // Every call's writes are checked against rsmq 0.12.4's form and the server's TIME around it.
        const watch = new WriteWatch(client, ns);
        const pick = chooser(both);
        try {
          await workload((step) => watchedAsync(pick(step), watch));
          watch.assertClean(label);
          pictures[label] = await normalised(client, ns, watch);
        } finally {
          await Promise.all([both[OLD].quitAsync(), both[NEXT].quitAsync()]);
        }
      }
    } finally {
      await client.quit();
    }
    const reference = pictures["rsmq 0.12.4 only"];
    expect(Object.keys(reference)).to.deep.equal([":QUEUES", ":other", ":other:Q", ":shared", ":shared:Q"]);
    for (const [label, picture] of Object.entries(pictures)) expect(picture, label).to.deep.equal(reference);
  });
});

describe("interop: realtime", () => {
  let ns: string;
  let client: RedisClientType;
  let subscriber: RedisClientType;
  /** Every message published in the namespace, as [channel, payload], in arrival order. */
  let published: Array<[string, string]>;
  let arrived: () => void;

  /** Waits until `count` messages have arrived. */
  async function untilPublished(count: number): Promise<void> {
    while (published.length < count) await new Promise<void>((resolve) => (arrived = resolve));
  }

  /**
   * Waits until everything published so far has arrived: a subscriber gets messages in the order
   * the server ran the PUBLISHes, so once a marker published now arrives, nothing earlier is pending.
   */
  async function settle(): Promise<Array<[string, string]>> {
    const marker = `marker-${published.length}`;
    await client.publish(`${ns}:marker`, marker);
    while (!published.some(([, payload]) => payload === marker)) await untilPublished(published.length + 1);
    return published.filter(([channel]) => channel !== `${ns}:marker`);
  }

  beforeEach(async () => {
    ns = uniqueNs("realtime");
    client = await plainClient();
    subscriber = client.duplicate() as RedisClientType;
    await subscriber.connect();
    published = [];
    arrived = () => undefined;
    await subscriber.pSubscribe(`${ns}:*`, (payload, channel) => {
      published.push([channel, payload]);
      arrived();
    });
  });
  afterEach(async () => {
    await subscriber.quit();
    await client.quit();
  });

  it("rsmq-next publishes on <ns>:rt:<qname> exactly what rsmq 0.12.4 publishes", async () => {
    const realtime = openBoth(ns, { realtime: true });
    try {
      const sequences: Partial<Record<LibraryName, Array<[string, string]>>> = {};
      for (const name of [OLD, NEXT]) {
        const lib = realtime[name];
        const qname = name === OLD ? "old" : "next";
        published = [];
        await lib.createQueueAsync({ qname });
        await lib.sendMessageAsync({ qname, message: "1" });
        await lib.sendMessageAsync({ qname, message: "2" });
        await lib.sendMessageAsync({ qname, message: "3", delay: 60 }); // hidden messages count too
        await lib.popMessageAsync({ qname }); // receiving publishes nothing
        await lib.receiveMessageAsync({ qname });
        await lib.sendMessageAsync({ qname, message: "4" });
        await untilPublished(4);
        // Channel names differ only by the queue name; compare with it taken out.
        sequences[name] = (await settle()).map(([channel, payload]) => [channel.replace(/:rt:.*$/, ":rt:<q>"), payload]);
      }
      const expected = ["1", "2", "3", "3"].map((payload) => [`${ns}:rt:<q>`, payload]);
      expect(sequences[OLD]).to.deep.equal(expected);
      expect(sequences[NEXT]).to.deep.equal(sequences[OLD]);
    } finally {
      await Promise.all([realtime[OLD].quitAsync(), realtime[NEXT].quitAsync()]);
    }
  });

  it("without realtime (left out or false) neither library publishes on <ns>:rt:*; rsmq-next's wake goes to <ns>:wake:<qname> alone", async () => {
    const plain = openBoth(ns);
    const realtimeOff = openBoth(ns, { realtime: false });
    try {
      await plain[NEXT].createQueueAsync({ qname: Q });
      await plain[OLD].sendMessageAsync({ qname: Q, message: "old, default" });
      await realtimeOff[OLD].sendMessageAsync({ qname: Q, message: "old, realtime: false" });
      expect(await settle(), "rsmq 0.12.4 publishes nothing").to.deep.equal([]);
      // Two messages visible: a send finds consumers busy, and publishes nothing anywhere.
      await plain[NEXT].sendMessageAsync({ qname: Q, message: "next, queue busy" });
      expect(await settle()).to.deep.equal([]);
      // An empty queue: one wake, on the wake channel, carrying the id; nothing on the realtime channel.
      await plain[NEXT].createQueueAsync({ qname: "idle" });
      const woken = await realtimeOff[NEXT].sendMessageAsync({ qname: "idle", message: "next, realtime: false, queue idle" });
      expect(await settle()).to.deep.equal([[`${ns}:wake:idle`, woken]]);
    } finally {
      await Promise.all([plain[OLD], plain[NEXT], realtimeOff[OLD], realtimeOff[NEXT]].map((lib) => lib.quitAsync()));
    }
  });

  it("senders of both libraries publish the same way on one shared queue; realtime off publishes nothing", async () => {
    const realtime = openBoth(ns, { realtime: true });
    const quiet = openBoth(ns);
    try {
      await quiet[NEXT].createQueueAsync({ qname: Q });
      const channel = `${ns}:rt:${Q}`;
      await realtime[OLD].sendMessageAsync({ qname: Q, message: "a" });
      await untilPublished(1);
      await realtime[NEXT].sendMessageAsync({ qname: Q, message: "b" });
      await untilPublished(2);
      await quiet[NEXT].sendMessageAsync({ qname: Q, message: "c" });
      await quiet[OLD].sendMessageAsync({ qname: Q, message: "d" });
      await realtime[NEXT].sendMessageAsync({ qname: Q, message: "e" });
      await untilPublished(3);
      await realtime[OLD].sendMessageAsync({ qname: Q, message: "f" });
      expect(await settle()).to.deep.equal([
        [channel, "1"],
        [channel, "2"],
        [channel, "5"],
        [channel, "6"],
      ]);
    } finally {
      await Promise.all([realtime[OLD], realtime[NEXT], quiet[OLD], quiet[NEXT]].map((lib) => lib.quitAsync()));
    }
  });
});
