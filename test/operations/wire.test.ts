/**
 * Wire cost, read from the server itself (MONITOR and INFO commandstats): every rsmq-next queue
 * operation is one client command, an EVALSHA (or EVALSHA_RO for a read-only script on Redis 7+)
 * whose script reads the clock (TIME) itself, and listQueues is one SMEMBERS. The same operations
 * through rsmq 0.12.4 are measured too, against the counts in /work/shared/rsmq-0.12.4.md, and
 * both are printed side by side at the end.
 *
 * It runs on every target: on the cluster, rsmq-next's commands are counted on every master and
 * summed (so a command sent to any node counts), rsmq 0.12.4's on the single server it runs on;
 * on the ioredis target, through the caller's ioredis client. The counts read the whole server, so
 * each also checks that no connection open before the lab's own sent anything meanwhile.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import { asMessage, openNextRsmq, openOldRsmq } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { keysOf, onCluster, plainClient, singleServerClient, uniqueNs } from "../support/server";
import { clientCommands, clientsNow, commandStatsDuring, monitor } from "../support/wire";
import type { WireOptions } from "../support/wire";
import RedisSMQ = require("../../lib");
import { runsOn } from "../support/targets";
import { CHECK_RIGHTS_AFTER } from "../../lib/scripts/script-runner";

runsOn("single", "cluster", "client");

/** Everything one library's cases run against. */
interface Lab {
  /** realtime off */
  rsmq: Rsmq;
  /** realtime on, same namespace */
  realtime: Rsmq;
  /** The rsmq-next instance, for its own methods; undefined for rsmq 0.12.4. */
  next?: RedisSMQ;
  /** Resolves with the next payload published on the realtime queue's channel. */
  nextPublished(): Promise<string>;
  /** Where its commands are counted, with the connections that were open before the lab's own. */
  counted: WireOptions;
}

/**
 * One operation. `prepare` sets up what the operation needs (unmeasured) and returns the
 * operation itself, which also checks its result (checks issue no commands).
 */
interface WireCase {
  op: string;
  /** Whether the rsmq-next script reads TIME (all but deleteMessage, deleteQueue, purgeQueue and peekDeadLetters, which need no clock). */
  clock: boolean;
  /** Whether its script only reads: then it goes as EVALSHA_RO (Redis 7), which a write pause never holds. */
  readOnly?: true;
  /** Client commands rsmq 0.12.4 sends for it; absent for rsmq-next-only methods. */
  rsmq0124?: number;
  /**
   * rsmq-next's client commands on a cluster, where they are not the one EVALSHA: the queue
   * registry `<ns>:QUEUES` lives in another slot than the queue (docs/cluster.md).
   */
  onCluster?: string[];
  prepare(lab: Lab): Promise<() => Promise<unknown>>;
}

let counter = 0;
const fresh = (prefix: string): string => `${prefix}${++counter}`;

const cases: WireCase[] = [
  {
    op: "createQueue",
    clock: true,
    rsmq0124: 9,
    onCluster: ["sadd", "evalsha"],
    async prepare({ rsmq }) {
      const qname = fresh("create");
      return async () => expect(await rsmq.createQueueAsync({ qname })).to.equal(1);
    },
  },
  {
    op: "deleteQueue",
    clock: false,
    rsmq0124: 4,
    onCluster: ["evalsha", "srem"],
    async prepare({ rsmq }) {
      const qname = fresh("delete");
      await rsmq.createQueueAsync({ qname });
      return async () => expect(await rsmq.deleteQueueAsync({ qname })).to.equal(1);
    },
  },
  {
    op: "getQueueAttributes",
    clock: true,
    readOnly: true,
    rsmq0124: 6,
    async prepare({ rsmq }) {
      return async () => expect((await rsmq.getQueueAttributesAsync({ qname: "attrs" })).vt).to.be.a("number");
    },
  },
  {
    op: "peekMessages",
    clock: true,
    readOnly: true,
    async prepare({ next }) {
      return async () => expect(await next!.peekMessagesAsync({ qname: "attrs" })).to.deep.equal([]);
    },
  },
  {
    op: "peekDeadLetters",
    clock: false,
    readOnly: true,
    async prepare({ next }) {
      return async () => expect(await next!.peekDeadLettersAsync({ qname: "attrs" })).to.deep.equal([]);
    },
  },
  {
    op: "browseMessages",
    clock: true,
    readOnly: true,
    async prepare({ next }) {
      return async () =>
        expect(await next!.browseMessagesAsync({ qname: "attrs", where: { tenant: "a" } })).to.deep.equal({ messages: [], cursor: null });
    },
  },
  {
    op: "setQueueAttributes",
    clock: true,
    rsmq0124: 15,
    async prepare({ rsmq }) {
      const vt = 100 + ++counter;
      return async () => expect((await rsmq.setQueueAttributesAsync({ qname: "attrs", vt })).vt).to.equal(vt);
    },
  },
  {
    // rsmq 0.12.4 sends one HSET per attribute inside its MULTI: 15 commands for one, 17 for three.
    op: "setQueueAttributes, three attributes",
    clock: true,
    rsmq0124: 17,
    async prepare({ rsmq }) {
      // Not from `counter`: that would move the fresh queue names of the cases below to other cluster nodes.
      const vt = 90;
      return async () =>
        expect(await rsmq.setQueueAttributesAsync({ qname: "attrs", vt, delay: 1, maxsize: 2048 })).to.include({
          vt,
          delay: 1,
          maxsize: 2048,
        });
    },
  },
  {
    op: "sendMessage",
    clock: true,
    rsmq0124: 9,
    async prepare({ rsmq }) {
      return async () => expect(await rsmq.sendMessageAsync({ qname: "send", message: "m" })).to.have.length(32);
    },
  },
  {
    op: "sendMessage, realtime",
    clock: true,
    // 4 (MULTI HMGET TIME EXEC) + 6 (MULTI ZADD HSET HINCRBY ZCARD EXEC) + PUBLISH.
    rsmq0124: 11,
    async prepare(lab) {
      return async () => {
        // Waiting for the payload makes sure rsmq 0.12.4's PUBLISH, sent after its EXEC without
        // being awaited, has run before the measurement ends.
        const published = lab.nextPublished();
        expect(await lab.realtime.sendMessageAsync({ qname: "rt", message: "m" })).to.have.length(32);
        expect(await published).to.match(/^\d+$/);
      };
    },
  },
  {
    op: "receiveMessage, message due",
    clock: true,
    rsmq0124: 5,
    async prepare({ rsmq }) {
      const id = await rsmq.sendMessageAsync({ qname: "receive", message: "m" });
      return async () => expect(asMessage(await rsmq.receiveMessageAsync({ qname: "receive" })).id).to.equal(id);
    },
  },
  {
    op: "receiveMessage, empty queue",
    clock: true,
    rsmq0124: 5,
    async prepare({ rsmq }) {
      return async () => expect(await rsmq.receiveMessageAsync({ qname: "empty" })).to.deep.equal({});
    },
  },
  {
    op: "receiveMessageOrNextDue, message due",
    clock: true,
    async prepare({ rsmq, next }) {
      const id = await rsmq.sendMessageAsync({ qname: "receive", message: "m" });
      return async () => {
        const result = await next!.receiveMessageOrNextDueAsync({ qname: "receive" });
        expect(result.status === "received" && result.message.id).to.equal(id);
      };
    },
  },
  {
    op: "receiveMessageOrNextDue, next due later",
    clock: true,
    async prepare({ rsmq, next }) {
      await rsmq.sendMessageAsync({ qname: "later", message: "m", delay: 1000 });
      return async () => expect((await next!.receiveMessageOrNextDueAsync({ qname: "later" })).status).to.equal("waiting");
    },
  },
  {
    op: "popMessage",
    clock: true,
    rsmq0124: 5,
    async prepare({ rsmq }) {
      const id = await rsmq.sendMessageAsync({ qname: "pop", message: "m" });
      return async () => expect(asMessage(await rsmq.popMessageAsync({ qname: "pop" })).id).to.equal(id);
    },
  },
  {
    op: "deleteMessage",
    clock: false,
    rsmq0124: 4,
    async prepare({ rsmq }) {
      const id = await rsmq.sendMessageAsync({ qname: "send", message: "m" });
      return async () => expect(await rsmq.deleteMessageAsync({ qname: "send", id })).to.equal(1);
    },
  },
  {
    op: "changeMessageVisibility",
    clock: true,
    rsmq0124: 5,
    async prepare({ rsmq }) {
      const id = await rsmq.sendMessageAsync({ qname: "send", message: "m" });
      return async () => expect(await rsmq.changeMessageVisibilityAsync({ qname: "send", id, vt: 60 })).to.equal(1);
    },
  },
  {
    op: "purgeQueue",
    clock: false,
    async prepare({ next }) {
      await next!.sendMessageAsync({ qname: "purge", message: "m" });
      return async () => expect(await next!.purgeQueueAsync({ qname: "purge" })).to.equal(1);
    },
  },
];

const QUEUES = ["attrs", "send", "rt", "receive", "empty", "later", "pop", "purge", "warm"];

/** Where rsmq 0.12.4's commands are counted: the single server, whatever the target. */
const OLD_RSMQ_SERVER: WireOptions = { server: "single" };

/** Client commands per operation, per library, for the table printed at the end. */
const measured = new Map<string, { next?: number; rsmq0124?: number }>();
function record(op: string, library: "next" | "rsmq0124", count: number): void {
  measured.set(op, { ...measured.get(op), [library]: count });
}

/**
 * Opens a lab on a fresh namespace, creates its queues and runs every case once. Each connection
 * is registered in `opened` as soon as it exists, so a failing setup still closes it.
 */
async function openLab(library: "next" | "rsmq0124", opened: Array<() => Promise<unknown>>): Promise<Lab> {
  const where = library === "next" ? {} : OLD_RSMQ_SERVER;
  const counted = { ...where, others: await clientsNow(where) };
  const ns = uniqueNs("wire");
  const next = library === "next" ? openNextRsmq(ns) : undefined;
  const rsmq: Rsmq = next ?? openOldRsmq(ns);
  opened.push(() => rsmq.quitAsync());
  const realtime: Rsmq = library === "next" ? openNextRsmq(ns, { realtime: true }) : openOldRsmq(ns, { realtime: true });
  opened.push(() => realtime.quitAsync());
  // rsmq 0.12.4 always runs on the single server; rsmq-next on the run's target.
  const client = library === "next" ? await plainClient() : await singleServerClient();
  opened.push(() => client.quit());
  const subscriber = client.duplicate() as RedisClientType;
  await subscriber.connect();
  opened.push(() => subscriber.quit());
  let waiting: Array<(payload: string) => void> = [];
  const heard = (payload: string): void => {
    const resolvers = waiting;
    waiting = [];
    for (const resolve of resolvers) resolve(payload);
  };
  // On a cluster rsmq-next publishes with SPUBLISH on the hash-tagged channel `<ns>:rt:{rt}`.
  if (library === "next" && onCluster()) await subscriber.sSubscribe(keysOf(ns, "rt").realtimeChannel, heard);
  else await subscriber.subscribe(`${ns}:rt:rt`, heard);
  const lab: Lab = {
    rsmq,
    realtime,
    next,
    nextPublished: () => new Promise((resolve) => waiting.push(resolve)),
    counted,
  };
  for (const qname of QUEUES) await rsmq.createQueueAsync({ qname });
  // Past the runner's one question of the user's rights (lib/scripts/script-runner.ts), after which
  // each script goes as its second text, which the warm-up below then caches.
  if (next)
    for (let sent = 0; sent <= CHECK_RIGHTS_AFTER; sent++)
      for (const each of [rsmq, realtime]) await each.sendMessageAsync({ qname: "warm", message: "warm" });
  // Warm-up: scripts get cached (a fresh server answers the first EVALSHA with NOSCRIPT, then EVAL
  // runs it, by design) and rsmq 0.12.4 finishes its connect-time INFO and SCRIPT LOADs.
  for (const c of cases) if (next || c.rsmq0124 !== undefined) await (await c.prepare(lab))();
  await rsmq.listQueuesAsync();
  return lab;
}

/** Closes everything in `opened`, newest first. */
async function closeAll(opened: Array<() => Promise<unknown>>): Promise<void> {
  for (const close of opened.splice(0).reverse()) await close();
}

describe("wire cost", () => {
  after(() => {
    const rows = [...measured].map(([op, counts]) => ({
      operation: op,
      "rsmq-next": counts.next ?? "-",
      "rsmq 0.12.4": counts.rsmq0124 ?? "-",
    }));
    console.log("\n  Client commands per operation (MONITOR):");
    console.table(rows);
  });

  describe("rsmq-next", () => {
    let lab: Lab;
    const opened: Array<() => Promise<unknown>> = [];
    before(async () => (lab = await openLab("next", opened)));
    after(() => closeAll(opened));

    for (const c of cases) {
      const evalsha = c.readOnly ? "evalsha_ro" : "evalsha";
      const expected = onCluster() && c.onCluster ? c.onCluster : [evalsha];
      const what = expected.length === 1 ? `exactly one client command, an ${evalsha.toUpperCase()}` : `exactly ${expected.join(" then ")}`;
      it(`${c.op}: ${what}, ${c.clock ? "TIME read inside the script" : "no TIME at all"}`, async () => {
        const commands = await monitor(await c.prepare(lab), lab.counted);
        const names = clientCommands(commands);
        record(c.op, "next", names.length);
        // Every client command counts, whatever its name; each script runs from the cache.
        expect(names, names.join(" ")).to.deep.equal(expected);
        const inScript = commands.filter((command) => command.fromScript).map((command) => command.name);
        if (c.clock) expect(inScript).to.include("time");
        else expect(inScript).not.to.include("time");
        // A cluster publishes on the queue's shard (SPUBLISH), a single server with PUBLISH.
        if (c.op.includes("realtime")) expect(inScript).to.include(onCluster() ? "spublish" : "publish");
      });

      it(`${c.op}: INFO commandstats counts one ${evalsha.toUpperCase()} and no other script command`, async () => {
        const stats = await commandStatsDuring(await c.prepare(lab), lab.counted);
        expect(stats[evalsha]).to.equal(1);
        for (const other of ["evalsha", "evalsha_ro", "eval", "eval_ro"].filter((name) => name !== evalsha)) {
          expect(stats).not.to.have.property(other);
        }
        expect(stats.time).to.equal(c.clock ? 1 : undefined);
      });
    }

    it("listQueues: exactly one SMEMBERS", async () => {
      const commands = await monitor(async () => expect(await lab.rsmq.listQueuesAsync()).to.include("send"), lab.counted);
      record("listQueues", "next", clientCommands(commands).length);
      expect(commands).to.deep.equal([{ name: "smembers", fromScript: false }]);
      expect(await commandStatsDuring(() => lab.rsmq.listQueuesAsync(), lab.counted)).to.deep.equal({ smembers: 1 });
    });
  });

  describe("rsmq 0.12.4, for comparison", () => {
    let lab: Lab;
    const opened: Array<() => Promise<unknown>> = [];
    before(async () => (lab = await openLab("rsmq0124", opened)));
    after(() => closeAll(opened));

    for (const c of cases) {
      if (c.rsmq0124 === undefined) continue;
      it(`${c.op}: ${c.rsmq0124} client commands`, async () => {
        const commands = await monitor(await c.prepare(lab), lab.counted);
        const names = clientCommands(commands);
        record(c.op, "rsmq0124", names.length);
        expect(names, names.join(" ")).to.have.length(c.rsmq0124!);

        // INFO commandstats (which counts MULTI and EXEC as calls, like MONITOR lists them) sees
        // the same number of commands, client and script ones together, for the same operation.
        const stats = await commandStatsDuring(await c.prepare(lab), lab.counted);
        const calls = Object.values(stats).reduce((sum, count) => sum + count, 0);
        expect(calls, JSON.stringify(stats)).to.equal(commands.length);
        expect(stats.multi ?? 0).to.equal(names.filter((name) => name === "multi").length);
      });
    }

    it("listQueues: 1 client command", async () => {
      const names = clientCommands(await monitor(() => lab.rsmq.listQueuesAsync(), lab.counted));
      record("listQueues", "rsmq0124", names.length);
      expect(names).to.deep.equal(["smembers"]);
    });
  });
});
