/**
 * Redrive: dead-lettered messages go back to their source queue (or `to`) as new messages:
 * visible now, rc reset, `<id>:dl` gone; then a worker handles them normally, woken in-process by
 * the redrive. `limit`, mixed sources, missing targets, messages without a record, paging past
 * 1000, and input validation before any round trip.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, plainClient, uniqueNs } from "../support/server";
import { asMessage, openOldRsmq } from "../support/old-rsmq";
import { Cleanup, WorkerLog, waitFor } from "../support/worker";
import { deadLetterOne, messageFields, picture, serverNowMs, watchDuring } from "../support/retry";

const { Worker } = RedisSMQ;

describe("redrive", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    await rsmq.createQueueAsync({ qname: "src" });
  });
  afterEach(() => cleanup.run());

  const fieldsOf = (qname: string): Promise<string[]> => messageFields(client, ns, qname);

  const errorOf = <T>(promise: Promise<T>): Promise<Error | undefined> =>
    promise.then(
      () => undefined,
      (error: Error) => error,
    );

  it("moves every message home as new: visible now, rc and fr reset, `<id>:dl` gone; resolves how many", async () => {
    const ids = [await deadLetterOne(rsmq, "src", "dlq", "a")];
    // Received twice in the dead-letter queue (by an rsmq 0.12.4 client): rc 2 and fr there too.
    const old = openOldRsmq(ns);
    cleanup.add(() => old.quitAsync());
    const firstLook = asMessage(await old.receiveMessageAsync({ qname: "dlq", vt: 0 }));
    const secondLook = asMessage(await old.receiveMessageAsync({ qname: "dlq", vt: 0 }));
    expect(secondLook).to.include({ id: ids[0], rc: 2 });
    expect(await fieldsOf("dlq")).to.deep.equal([ids[0], `${ids[0]}:dl`, `${ids[0]}:fr`, `${ids[0]}:rc`].sort());
    for (const body of ["b", "c"]) ids.push(await deadLetterOne(rsmq, "src", "dlq", body));
    const sentBefore = (await rsmq.getQueueAttributesAsync({ qname: "src" })).totalsent;

    const before = await serverNowMs(client);
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(3);
    const after = await serverNowMs(client);

    for (const [i, id] of ids.entries()) {
      expect(await client.zScore(`${ns}:src`, id), id).to.be.within(before, after);
      expect(await client.hGet(`${ns}:src:Q`, id)).to.equal(["a", "b", "c"][i]);
    }
    expect(await fieldsOf("src")).to.deep.equal([...ids].sort());
    expect(await fieldsOf("dlq")).to.deep.equal([]);
    expect(await client.zCard(`${ns}:dlq`)).to.equal(0);
    expect(await rsmq.getQueueAttributesAsync({ qname: "src" })).to.include({ totalsent: sentBefore + 3, msgs: 3, hiddenmsgs: 0 });
    // The dead-letter queue stays, empty.
    expect(await rsmq.listQueuesAsync()).to.have.members(["src", "dlq"]);

    // New deliveries: rc 1 and a new first-receive time, for rsmq 0.12.4 too.
    const again = asMessage(await old.receiveMessageAsync({ qname: "src" }));
    expect(again.rc).to.equal(1);
    expect(again.fr).to.be.at.least(before);
    expect(again.fr).to.be.above(firstLook.fr);
    expect(ids).to.include(again.id);
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(0);
  });

  it("redriven messages are handled normally by a worker, woken by the redrive in this process", async () => {
    for (const body of ["a", "b", "c"]) await deadLetterOne(rsmq, "src", "dlq", body);
    const handled: Array<[string, number]> = [];
    const worker = cleanup.worker(
      new Worker(rsmq, {
        qname: "src",
        realtimeWakes: false,
        // Without the redrive's wake, the messages would wait for this cap.
        maxIdleSleepMs: 60_000,
        handler: (message) => void handled.push([message.message, message.rc]),
      }),
    );
    const log = new WorkerLog(worker);
    worker.start();
    await waitFor(() => log.asleep, "the worker asleep on an empty queue");
    const other = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    expect(await other.redriveAsync({ from: "dlq" })).to.equal(3);
    await waitFor(() => worker.counters.handled === 3, "three handled", 5_000);
    expect(handled.sort()).to.deep.equal([
      ["a", 1],
      ["b", 1],
      ["c", 1],
    ]);
    expect(log.named("wake").map((event) => event.args[0])).to.include("woken");
    expect(await client.zCard(`${ns}:src`)).to.equal(0);
    expect(await fieldsOf("src")).to.deep.equal([]);
    expect(worker.counters).to.include({ failed: 0, errors: 0 });
  });

  it("respects limit, taking the front of the dead-letter queue first", async () => {
    for (let i = 1; i <= 5; i++) await deadLetterOne(rsmq, "src", "dlq", `m${i}`);
    const order = await client.zRange(`${ns}:dlq`, 0, -1);
    expect(await rsmq.redriveAsync({ from: "dlq", limit: 2 })).to.equal(2);
    expect(await client.zRange(`${ns}:dlq`, 0, -1)).to.deep.equal(order.slice(2));
    expect((await client.zRange(`${ns}:src`, 0, -1)).sort()).to.deep.equal(order.slice(0, 2).sort());
    expect(await rsmq.redriveAsync({ from: "dlq", limit: 1 })).to.equal(1);
    expect(await rsmq.redriveAsync({ from: "dlq", limit: 10 })).to.equal(2);
    expect(await client.zCard(`${ns}:src`)).to.equal(5);
  });

  it("sends each message home when one dead-letter queue holds messages of two sources; `to` overrides", async () => {
    await rsmq.createQueueAsync({ qname: "other" });
    const fromSrc = [await deadLetterOne(rsmq, "src", "dlq", "s1"), await deadLetterOne(rsmq, "src", "dlq", "s2")];
    const fromOther = [await deadLetterOne(rsmq, "other", "dlq", "o1")];
    fromSrc.push(await deadLetterOne(rsmq, "src", "dlq", "s3"));
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(4);
    expect((await client.zRange(`${ns}:src`, 0, -1)).sort()).to.deep.equal([...fromSrc].sort());
    expect(await client.zRange(`${ns}:other`, 0, -1)).to.deep.equal(fromOther);
    expect(await fieldsOf("other")).to.deep.equal(fromOther);

    // With `to`, all go there, whatever their source.
    await rsmq.createQueueAsync({ qname: "review" });
    const again = [await deadLetterOne(rsmq, "src", "dlq", "s4"), await deadLetterOne(rsmq, "other", "dlq", "o2")];
    expect(await rsmq.redriveAsync({ from: "dlq", to: "review" })).to.equal(2);
    expect((await client.zRange(`${ns}:review`, 0, -1)).sort()).to.deep.equal([...again].sort());
    expect(await fieldsOf("review")).to.deep.equal([...again].sort());
  });

  it("a target queue that does not exist: queueNotFound, nothing moved", async () => {
    await deadLetterOne(rsmq, "src", "dlq", "m");
    let before = await picture(client, ns);
    expect(await errorOf(rsmq.redriveAsync({ from: "dlq", to: "nope" }))).to.include({ name: "queueNotFound", message: "Queue not found" });
    expect(await picture(client, ns)).to.deep.equal(before);

    // The recorded source deleted since.
    await rsmq.deleteQueueAsync({ qname: "src" });
    before = await picture(client, ns);
    expect(await errorOf(rsmq.redriveAsync({ from: "dlq" }))).to.include({ name: "queueNotFound" });
    expect(await picture(client, ns)).to.deep.equal(before);
    expect(await client.exists([`${ns}:src`, `${ns}:src:Q`])).to.equal(0);

    // A missing dead-letter queue.
    expect(await errorOf(rsmq.redriveAsync({ from: "missing" }))).to.include({ name: "queueNotFound" });
  });

  it("leaves messages without a dead-letter record where they are, unless `to` is given", async () => {
    await rsmq.createQueueAsync({ qname: "dlq" });
    // In front: sent straight to the dead-letter queue, so no record of a source.
    const plain = await rsmq.sendMessageAsync({ qname: "dlq", message: "plain" });
    const recorded = await deadLetterOne(rsmq, "src", "dlq", "recorded");
    expect(await rsmq.redriveAsync({ from: "dlq", limit: 1 })).to.equal(1);
    expect(await client.zRange(`${ns}:dlq`, 0, -1)).to.deep.equal([plain]);
    expect(await client.zRange(`${ns}:src`, 0, -1)).to.deep.equal([recorded]);
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(0);
    expect(await client.zRange(`${ns}:dlq`, 0, -1)).to.deep.equal([plain]);
    expect(await rsmq.redriveAsync({ from: "dlq", to: "src" })).to.equal(1);
    expect(await client.zCard(`${ns}:dlq`)).to.equal(0);
    expect((await client.zRange(`${ns}:src`, 0, -1)).sort()).to.deep.equal([plain, recorded].sort());
  });

  it("leaves a message whose recorded source is the dead-letter queue itself (it would loop), unless `to` is given", async () => {
    const looping = await deadLetterOne(rsmq, "src", "dlq", "self", { source: "dlq" });
    const home = await deadLetterOne(rsmq, "src", "dlq", "home");
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(1);
    expect(await client.zRange(`${ns}:dlq`, 0, -1)).to.deep.equal([looping]);
    expect(await client.zRange(`${ns}:src`, 0, -1)).to.deep.equal([home]);
    expect(await rsmq.redriveAsync({ from: "dlq", to: "src" })).to.equal(1);
    expect(await client.zCard(`${ns}:dlq`)).to.equal(0);
  });

  it("pages past 1000: passes over 1003 messages without a record to reach the ones behind them; limit across pages", async () => {
    await rsmq.createQueueAsync({ qname: "dlq" });
    await Promise.all(Array.from({ length: 1003 }, (_, i) => rsmq.sendMessageAsync({ qname: "dlq", message: `plain ${i}` })));
    const recorded = [await deadLetterOne(rsmq, "src", "dlq", "r1"), await deadLetterOne(rsmq, "src", "dlq", "r2")];
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(2);
    expect((await client.zRange(`${ns}:src`, 0, -1)).sort()).to.deep.equal([...recorded].sort());
    expect(await client.zCard(`${ns}:dlq`)).to.equal(1003);

    // With `to`, a limit beyond one page moves exactly that many, front first.
    const order = await client.zRange(`${ns}:dlq`, 0, -1);
    expect(await rsmq.redriveAsync({ from: "dlq", to: "src", limit: 1001 })).to.equal(1001);
    expect(await client.zRange(`${ns}:dlq`, 0, -1)).to.deep.equal(order.slice(1001));
    expect(await client.zCard(`${ns}:src`)).to.equal(1003);
  });

  it("rejects bad options before any round trip", async () => {
    const bad: Array<[Record<string, unknown> | undefined, string, string]> = [
      [undefined, "missingParameter", "No from supplied"],
      [{}, "missingParameter", "No from supplied"],
      [{ from: "" }, "missingParameter", "No from supplied"],
      [{ from: "bad name" }, "invalidFormat", "Invalid from format"],
      [{ from: "dlq", to: "bad name" }, "invalidFormat", "Invalid to format"],
      [{ from: "dlq", to: "QUEUES" }, "invalidFormat", 'Invalid to format: "QUEUES" is reserved for the queue list'],
      [{ from: "dlq", to: "dlq" }, "invalidValue", "to must be another queue than from"],
      [{ from: "dlq", limit: 0 }, "invalidValue", "limit must be an integer from 1 up"],
      [{ from: "dlq", limit: 1.5 }, "invalidValue", "limit must be an integer from 1 up"],
      [{ from: "dlq", limit: -1 }, "invalidValue", "limit must be an integer from 1 up"],
      [{ from: "dlq", limit: NaN }, "invalidValue", "limit must be an integer from 1 up"],
      [{ from: "dlq", limit: "2" }, "invalidValue", "limit must be an integer from 1 up"],
    ];
    await rsmq.listQueuesAsync(); // connected before watching
    const commands = await watchDuring(async () => {
      for (const [options, name, message] of bad) {
        expect(await errorOf(rsmq.redriveAsync(options as never)), JSON.stringify(options)).to.include({ name, message });
      }
    });
    expect(commands).to.deep.equal([]);
  });

  it("has a callback form", async () => {
    await deadLetterOne(rsmq, "src", "dlq", "m");
    const moved = await new Promise<unknown>((resolve, reject) =>
      rsmq.redrive({ from: "dlq" }, (error: Error | null, count?: number) => (error ? reject(error) : resolve(count))),
    );
    expect(moved).to.equal(1);
  });
});
