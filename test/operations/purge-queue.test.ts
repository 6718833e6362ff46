/**
 * purgeQueue: every message goes (visible, in flight, delayed, stray per-message fields), the queue
 * stays with its settings and counters exactly; a missing queue rejects queueNotFound and bad input
 * is refused before any round trip, nothing written; rsmq 0.12.4 clients sharing the queue go on
 * as for any unknown id; and a queue of a million messages (100,000 on the cluster pass) is purged
 * under a running Worker with the server answering while the old data is freed in the background.
 */
import { expect } from "chai";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { QUEUE_FIELDS } from "../../lib/operations/queue-fields";
import { script } from "../../lib/scripts/script-files";
import { asMessage, openNextRsmq, openOldRsmq, rejectionOf } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { watchDuring } from "../support/retry";
import { seedMessages } from "../support/seed-queue";
import { connectionOptions, keysOf, onCluster, plainClient, singleServerOnly, uniqueNs } from "../support/server";
import { exactState } from "../support/state";
import { Cleanup, WorkerLog, queueServer, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const { Worker } = RedisSMQ;

/** The fields of `hash` named in QUEUE_FIELDS: what a purge keeps. */
function settingsOf(hash: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(hash).filter(([field]) => (QUEUE_FIELDS as readonly string[]).includes(field)));
}

/** An entry of SLOWLOG GET: id, when, microseconds, the command's arguments, client address, client name. */
type SlowlogEntry = [number, number, number, string[], string, string];

/** One `field:value` line of INFO, as a number (undefined when the server has no such field). */
function infoField(info: string, field: string): number | undefined {
  const match = new RegExp(`^${field}:(\\d+)`, "m").exec(info);
  return match ? Number(match[1]) : undefined;
}

describe("purgeQueue", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  const cleanup = new Cleanup();

  beforeEach(async () => {
    ns = uniqueNs("purge");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
  });
  afterEach(() => cleanup.run());

  it("removes visible, in-flight and delayed messages and stray fields, keeping every setting and counter exactly", async () => {
    const keys = keysOf(ns, "q");
    await rsmq.createQueueAsync({ qname: "q", vt: 60, maxsize: 2048 });
    await rsmq.setQueueAttributesAsync({ qname: "q", delay: 0 });
    const inFlight = await rsmq.sendMessageAsync({ qname: "q", message: "in flight" });
    await rsmq.sendMessageAsync({ qname: "q", message: "visible" });
    await rsmq.sendMessageAsync({ qname: "q", message: "delayed", delay: 300 });
    expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).id).to.equal(inFlight);
    // rsmq-next's own queue fields, and per-message fields: a trace context, and a dead-letter
    // note an rsmq 0.12.4 delete left behind without its message.
    await client.hSet(keys.hash, {
      retention: "3600",
      expireto: "q-dlq",
      totalexpired: "7",
      sweeplock: "someone:1796000000000",
      sweptat: "1796000000000",
      dedupwindow: "60000",
      paused: "1796000000000::h",
      ratelimit: "r;10/1000/0",
      rltat: "1796000000000000",
      rlblock: "1796000000000",
      concurrency: "3",
      maxed: "1",
      consumers: "Wkr0000000000001",
      "~w:Wkr0000000000001": '1796000000000:1795000000000:{"host":"h","pid":1,"concurrency":1,"startedAt":1}',
      "~w:Wkr0000000000002": '1:1:{"host":"h","pid":2,"concurrency":1,"startedAt":1}',
      schedules: "tick",
      schednext: "1796000060000",
      "~sched:tick": '{"v":1,"every":60000,"tz":"UTC","message":"m","next":1796000060000}',
      "~sched:unlisted": '{"v":1,"every":60000,"tz":"UTC","message":"m","next":0}',
      [`${inFlight}:tp`]: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "hop3o10ebnmLDK0QMrdZujaKrUfZLZhp:dl": '{"reason":"poison"}',
    });
    const before = await client.hGetAll(keys.hash);
    expect(Object.keys(settingsOf(before)).sort(), "every kept field is planted").to.deep.equal([...QUEUE_FIELDS].sort());
    await client.zAdd(keys.leases, { score: 1796000000000, value: inFlight });
    // The heartbeat entry the `consumers` index lists, and the schedule `schedules` lists, stay with
    // the settings; those they do not list go.
    const kept = { ...settingsOf(before), "~w:Wkr0000000000001": before["~w:Wkr0000000000001"], "~sched:tick": before["~sched:tick"] };

    expect(await rsmq.purgeQueueAsync({ qname: "q" })).to.equal(3);

    expect(await client.hGetAll(keys.hash)).to.deep.equal(kept);
    expect(await client.exists(keys.messages)).to.equal(0);
    expect(await client.exists(keys.leases), "a purge frees every concurrency slot").to.equal(0);
    expect(await rsmq.listQueuesAsync()).to.deep.equal(["q"]);
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect(attributes).to.include({ vt: 60, delay: 0, maxsize: 2048, totalsent: 3, totalrecv: 1, msgs: 0, hiddenmsgs: 0 });

    // Again, by the callback twin: nothing left to remove, and still nothing else changes.
    const again = await new Promise<number>((resolve, reject) =>
      rsmq.purgeQueue({ qname: "q" }, (err, n) => (err ? reject(err) : resolve(n))),
    );
    expect(again).to.equal(0);
    expect(await client.hGetAll(keys.hash)).to.deep.equal(kept);
    // The queue works on once resumed (the purge kept its hard pause, which holds receives back):
    // a new message goes in and comes out.
    expect(await rsmq.resumeQueueAsync({ qname: "q" })).to.equal(1);
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "after" });
    expect(asMessage(await rsmq.popMessageAsync({ qname: "q" }))).to.include({ id, message: "after" });
  });

  it("rejects queueNotFound for a missing queue, writing nothing (a sorted set without its hash stays)", async () => {
    await rsmq.createQueueAsync({ qname: "other" });
    await client.zAdd(keysOf(ns, "gone").messages, { score: 1, value: "hop3o10ebnmLDK0QMrdZujaKrUfZLZhp" });
    const before = await exactState(client, ns);
    for (const qname of ["gone", "never"]) {
      const error = await rejectionOf(rsmq.purgeQueueAsync({ qname }));
      expect(error).to.include({ name: "queueNotFound", message: "Queue not found" });
    }
    expect(await exactState(client, ns)).to.deep.equal(before);
  });

  it("refuses bad input before any round trip, in rsmq's errors, nothing written", async () => {
    await rsmq.createQueueAsync({ qname: "q" });
    await rsmq.sendMessageAsync({ qname: "q", message: "stays" });
    const before = await exactState(client, ns);
    const bad: Array<[unknown, string, string]> = [
      [undefined, "missingParameter", "No qname supplied"],
      [{}, "missingParameter", "No qname supplied"],
      [{ qname: "" }, "missingParameter", "No qname supplied"],
      [{ qname: "bad name" }, "invalidFormat", "Invalid qname format"],
      [{ qname: "x".repeat(161) }, "invalidFormat", "Invalid qname format"],
      [{ qname: "QUEUES" }, "invalidFormat", 'Invalid qname format: "QUEUES" is reserved for the queue list'],
    ];
    const commands = await watchDuring(async () => {
      for (const [options, name, message] of bad) {
        const error = await rejectionOf(rsmq.purgeQueueAsync(options as never));
        expect(error, JSON.stringify(options)).to.include({ name, message });
      }
    });
    expect(commands).to.deep.equal([]);
    expect(await exactState(client, ns)).to.deep.equal(before);
  });

  describe("rsmq 0.12.4 clients on the purged queue", () => {
    let old: Rsmq;
    let next: RedisSMQ;

    beforeEach(function () {
      singleServerOnly(this, "rsmq 0.12.4 cannot use a cluster");
      old = openOldRsmq(ns);
      next = cleanup.rsmq(openNextRsmq(ns));
      cleanup.add(() => old.quitAsync());
    });

    it("answer a purged id as any unknown one, receive nothing, and send and receive on", async () => {
      await old.createQueueAsync({ qname: "shared", vt: 60 });
      for (const message of ["held", "visible"]) await old.sendMessageAsync({ qname: "shared", message });
      await next.sendMessageAsync({ qname: "shared", message: "delayed", delay: 300 });
      const held = asMessage(await old.receiveMessageAsync({ qname: "shared" }));

      expect(await next.purgeQueueAsync({ qname: "shared" })).to.equal(3);

      expect(await old.deleteMessageAsync({ qname: "shared", id: held.id })).to.equal(0);
      expect(await old.changeMessageVisibilityAsync({ qname: "shared", id: held.id, vt: 0 })).to.equal(0);
      expect(await old.receiveMessageAsync({ qname: "shared" })).to.deep.equal({});
      expect(await old.popMessageAsync({ qname: "shared" })).to.deep.equal({});
      expect(await old.getQueueAttributesAsync({ qname: "shared" })).to.include({ vt: 60, totalsent: 3, totalrecv: 1, msgs: 0 });

      const id = await old.sendMessageAsync({ qname: "shared", message: "after" });
      expect(asMessage(await next.receiveMessageAsync({ qname: "shared" }))).to.include({ id, message: "after", rc: 1 });
      expect(await old.deleteMessageAsync({ qname: "shared", id })).to.equal(1);
      expect(await old.listQueuesAsync()).to.deep.equal(["shared"]);
    });
  });

  describe("a large queue under a running Worker", () => {
    // A million on one server, seeded in a few seconds; 100,000 on the cluster pass, which seeds
    // through a cluster client in shorter calls (each holds its master) and runs beside the
    // single-server pass on the same cores. The purge itself is as short on either.
    const SIZE = onCluster() ? 100_000 : 1_000_000;
    const PER_CALL = onCluster() ? 10_000 : 100_000;
    /** The name of the connection that reads INFO and SLOWLOG, to leave its own commands out. */
    const PROBE = "purge-probe";
    let node: RedisClientType;
    let slowlogSettings: string[] = [];

    beforeEach(async () => {
      const { host, port } = await queueServer(ns, "big");
      node = createClient({ url: `redis://${host}:${port}`, name: PROBE }) as RedisClientType;
      node.on("error", () => undefined);
      await node.connect();
      const setting = async (name: string): Promise<string> => Object.values(await node.configGet(name))[0];
      slowlogSettings = [
        "slowlog-log-slower-than",
        await setting("slowlog-log-slower-than"),
        "slowlog-max-len",
        await setting("slowlog-max-len"),
      ];
      cleanup.add(async () => {
        await node.sendCommand(["CONFIG", "SET", ...slowlogSettings]);
        await node.quit();
      });
    });

    it(`purges ${SIZE.toLocaleString("en-US")} messages: the call resolves, Redis answers while it frees them, the Worker finds the queue empty`, async function () {
      this.timeout(90_000);
      const keys = keysOf(ns, "big");
      await rsmq.createQueueAsync({ qname: "big" });
      await seedMessages(client, keys, SIZE, { perCall: PER_CALL });
      const settings = await client.hmGet(keys.hash, [...QUEUE_FIELDS]);

      let handled = 0;
      const worker = cleanup.worker(new Worker(rsmq, { qname: "big", concurrency: 20, handler: () => void (handled += 1) }));
      const log = new WorkerLog(worker);
      worker.start();
      await waitFor(() => handled >= 100, "the Worker handling messages");

      // Every command in the slow log, and room for what the Worker sends meanwhile.
      await node.sendCommand(["CONFIG", "SET", "slowlog-log-slower-than", "0", "slowlog-max-len", "100000"]);
      await node.sendCommand(["SLOWLOG", "RESET"]);
      const removed = await rsmq.purgeQueueAsync({ qname: "big" });
      const eventsAfterPurge = log.events.length;
      // Right away, from another connection: the server answers while its background thread frees.
      const [memory, pong] = await Promise.all([node.info("memory"), node.ping()]);
      const slowlog = await node.sendCommand<SlowlogEntry[]>(["SLOWLOG", "GET", "100000"]);
      await node.sendCommand(["CONFIG", "SET", ...slowlogSettings]);

      expect(pong).to.equal("PONG");
      const totalrecv = Number(await client.hGet(keys.hash, "totalrecv"));
      // Removed: all but those deleted before the purge, which were received before it.
      expect(removed).to.be.within(SIZE - totalrecv, SIZE - 100);

      const shas = new Set([script("purgeQueue").sha1, script("purgeQueue").flagged.sha1]);
      const purge = slowlog.find(([, , , args]) => /^evalsha$/i.test(args[0]) && shas.has(args[1]));
      expect(purge, "the purge's EVALSHA in SLOWLOG").to.not.equal(undefined);
      const others = slowlog.filter((entry) => entry[5] !== PROBE);
      const longest = others.reduce((max, entry) => (entry[2] > max[2] ? entry : max));
      console.log(
        `      purge of ${removed.toLocaleString("en-US")} messages: ${purge![2]} µs in SLOWLOG; longest entry meanwhile ${longest[2]} µs (${longest[3][0]})`,
      );

      // Handed to the background thread (UNLINK), not freed by the script: a DEL would leave none pending.
      expect(infoField(memory, "lazyfree_pending_objects"), "objects still being freed when the server answered").to.be.greaterThan(0);

      const emptyLook = (): boolean =>
        log.events
          .slice(eventsAfterPurge)
          .some(({ name, args }) => (name === "receive" && args[0] === 0 && args[1] === null) || (name === "look" && args[0] === null));
      await waitFor(emptyLook, "the Worker seeing an empty queue");
      await worker.stop();
      expect(await client.exists(keys.messages)).to.equal(0);
      const left = await client.hGetAll(keys.hash);
      expect(
        Object.keys(left).every((field) => (QUEUE_FIELDS as readonly string[]).includes(field)),
        Object.keys(left).join(" "),
      ).to.equal(true);
      const unchanged = QUEUE_FIELDS.map((field, index) => [field, field === "totalrecv" ? undefined : (settings[index] ?? undefined)]);
      expect(QUEUE_FIELDS.map((field) => [field, field === "totalrecv" ? undefined : left[field]])).to.deep.equal(unchanged);
      expect(left.totalrecv).to.equal(String(totalrecv));
    });
  });
});
