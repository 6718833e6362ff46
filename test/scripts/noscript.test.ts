/**
 * Scripts vanish from the server's cache on SCRIPT FLUSH, restart and failover. Then EVALSHA is
 * answered NOSCRIPT (the script did not run), and rsmq-next runs it by EVAL: the operation succeeds,
 * takes effect exactly once, and the next call is a single EVALSHA again.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import { asMessage, openNextRsmq, rejectionOf } from "../support/old-rsmq";
import { connectionOptionsWith, plainClient, testRedis, uniqueNs } from "../support/server";
import { clientCommands, connectionsNamed, monitor } from "../support/wire";
import RedisSMQ = require("../../lib");
import { CHECK_RIGHTS_AFTER } from "../../lib/scripts/script-runner";
import { runsOn } from "../support/targets";

runsOn("single", "client");

/**
 * Resolves on the instance's next `event`. (events.once would also reject on the `error` events a
 * reconnect brings, and listening to `error` is what makes the instance emit them.)
 */
function nextEvent(instance: RedisSMQ, event: "connect" | "disconnect"): Promise<void> {
  return new Promise((resolve) => instance.once(event, () => resolve()));
}

describe("NOSCRIPT fallback", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  const Q = "q";

  const hget = async (field: string): Promise<string | undefined> => client.hGet(`${ns}:${Q}:Q`, field);
  const counter = async (field: string): Promise<number> => Number((await hget(field)) ?? 0);
  const zcard = (): Promise<number> => client.zCard(`${ns}:${Q}`);
  const flush = async (): Promise<void> => {
    expect(await client.sendCommand(["SCRIPT", "FLUSH"])).to.equal("OK");
  };

  before(async () => {
    ns = uniqueNs("noscript");
    rsmq = openNextRsmq(ns);
    client = await plainClient();
    await rsmq.createQueueAsync({ qname: Q });
    // Past the runner's question of the user's rights, so every case below sends the texts it
    // sends from then on (a script's second text is cached on its own: lib/scripts/script-runner.ts).
    await rsmq.createQueueAsync({ qname: "warm" });
    for (let sent = 0; sent <= CHECK_RIGHTS_AFTER; sent++) await rsmq.sendMessageAsync({ qname: "warm", message: "warm" });
  });
  after(async () => {
    await rsmq.quitAsync();
    await client.quit();
  });

  /**
   * One operation: `prepare` sets the stage and returns the call and a check that its effect
   * happened exactly once (state read before the call is captured in the closure).
   */
  interface FlushCase {
    op: string;
    /** A read-only script: EVALSHA_RO and EVAL_RO instead (Redis 7), which a write pause never holds. */
    readOnly?: true;
    prepare(): Promise<{ call(): Promise<unknown>; verify(result: unknown): Promise<void> }>;
  }

  let n = 0;
  const cases: FlushCase[] = [
    {
      op: "createQueue",
      async prepare() {
        const qname = `created${++n}`;
        return {
          call: () => rsmq.createQueueAsync({ qname }),
          // A second run of the script would have answered queueExists.
          async verify(result) {
            expect(result).to.equal(1);
            expect(await client.sIsMember(`${ns}:QUEUES`, qname)).to.equal(true);
          },
        };
      },
    },
    {
      op: "getQueueAttributes",
      readOnly: true,
      async prepare() {
        const totalsent = await counter("totalsent");
        return {
          call: () => rsmq.getQueueAttributesAsync({ qname: Q }),
          async verify(result) {
            expect(result).to.include({ totalsent, msgs: await zcard() });
          },
        };
      },
    },
    {
      op: "setQueueAttributes",
      async prepare() {
        const vt = 40 + ++n;
        return {
          call: () => rsmq.setQueueAttributesAsync({ qname: Q, vt }),
          async verify(result) {
            expect(result).to.include({ vt });
            expect(await hget("vt")).to.equal(String(vt));
          },
        };
      },
    },
    {
      op: "sendMessage",
      async prepare() {
        const [totalsent, msgs] = [await counter("totalsent"), await zcard()];
        return {
          // Delayed, so the receive cases below only ever see their own message.
          call: () => rsmq.sendMessageAsync({ qname: Q, message: "sent", delay: 3600 }),
          async verify(id) {
            expect(await counter("totalsent")).to.equal(totalsent + 1);
            expect(await zcard()).to.equal(msgs + 1);
            expect(await hget(id as string)).to.equal("sent");
          },
        };
      },
    },
    {
      op: "receiveMessage",
      async prepare() {
        const id = await rsmq.sendMessageAsync({ qname: Q, message: "to receive", delay: 0 });
        const totalrecv = await counter("totalrecv");
        return {
          call: () => rsmq.receiveMessageAsync({ qname: Q, vt: 600 }),
          async verify(result) {
            expect(asMessage(result as object)).to.include({ id, rc: 1 });
            expect(await counter("totalrecv")).to.equal(totalrecv + 1);
            expect(await hget(`${id}:rc`)).to.equal("1");
          },
        };
      },
    },
    {
      op: "receiveMessageOrNextDue",
      async prepare() {
        const id = await rsmq.sendMessageAsync({ qname: Q, message: "to receive", delay: 0 });
        const totalrecv = await counter("totalrecv");
        return {
          call: () => rsmq.receiveMessageOrNextDueAsync({ qname: Q, vt: 600 }),
          async verify(result) {
            expect(result).to.have.property("status", "received");
            expect((result as { message: RedisSMQ.QueueMessage }).message).to.include({ id, rc: 1 });
            expect(await counter("totalrecv")).to.equal(totalrecv + 1);
            expect(await hget(`${id}:rc`)).to.equal("1");
          },
        };
      },
    },
    {
      op: "popMessage",
      async prepare() {
        // Two due messages: a duplicated pop would take both.
        const first = await rsmq.sendMessageAsync({ qname: Q, message: "pop 1", delay: 0 });
        await rsmq.sendMessageAsync({ qname: Q, message: "pop 2", delay: 0 });
        const [totalrecv, msgs] = [await counter("totalrecv"), await zcard()];
        return {
          call: () => rsmq.popMessageAsync({ qname: Q }),
          async verify(result) {
            expect(asMessage(result as object)).to.include({ id: first, rc: 1 });
            expect(await counter("totalrecv")).to.equal(totalrecv + 1);
            expect(await zcard()).to.equal(msgs - 1);
            // The second one is still there and due.
            expect(asMessage(await rsmq.receiveMessageAsync({ qname: Q, vt: 600 })).message).to.equal("pop 2");
          },
        };
      },
    },
    {
      op: "changeMessageVisibility",
      async prepare() {
        const id = await rsmq.sendMessageAsync({ qname: Q, message: "hide", delay: 0 });
        const before = Number(await client.zScore(`${ns}:${Q}`, id));
        return {
          call: () => rsmq.changeMessageVisibilityAsync({ qname: Q, id, vt: 900 }),
          async verify(result) {
            expect(result).to.equal(1);
            expect(Number(await client.zScore(`${ns}:${Q}`, id)) - before).to.be.at.least(900_000);
          },
        };
      },
    },
    {
      op: "deleteMessage",
      async prepare() {
        const id = await rsmq.sendMessageAsync({ qname: Q, message: "delete", delay: 0 });
        return {
          // A second run would have answered 0 (already gone).
          call: () => rsmq.deleteMessageAsync({ qname: Q, id }),
          async verify(result) {
            expect(result).to.equal(1);
            expect(await client.hExists(`${ns}:${Q}:Q`, id)).to.equal(false);
          },
        };
      },
    },
    {
      op: "deleteQueue",
      async prepare() {
        const qname = `doomed${++n}`;
        await rsmq.createQueueAsync({ qname });
        return {
          // A second run would have answered queueNotFound.
          call: () => rsmq.deleteQueueAsync({ qname }),
          async verify(result) {
            expect(result).to.equal(1);
            expect(await client.sIsMember(`${ns}:QUEUES`, qname)).to.equal(false);
          },
        };
      },
    },
  ];

  for (const c of cases) {
    const [evalsha, evalCommand] = c.readOnly ? ["EVALSHA_RO", "EVAL_RO"] : ["EVALSHA", "EVAL"];
    it(`${c.op} after SCRIPT FLUSH: ${evalsha} (NOSCRIPT), one ${evalCommand}, effect once; then one ${evalsha}`, async () => {
      const first = await c.prepare();
      await flush();
      let result: unknown;
      const commands = await monitor(async () => (result = await first.call()));
      expect(clientCommands(commands)).to.deep.equal([evalsha.toLowerCase(), evalCommand.toLowerCase()]);
      await first.verify(result);

      const second = await c.prepare();
      const again = await monitor(async () => (result = await second.call()));
      expect(clientCommands(again)).to.deep.equal([evalsha.toLowerCase()]);
      await second.verify(result);
    });
  }

  it("concurrent calls after SCRIPT FLUSH each take effect exactly once", async () => {
    const [totalsent, msgs] = [await counter("totalsent"), await zcard()];
    await flush();
    const ids = await Promise.all(
      Array.from({ length: 5 }, (_, i) => rsmq.sendMessageAsync({ qname: Q, message: `burst ${i}`, delay: 3600 })),
    );
    expect(new Set(ids).size).to.equal(5);
    expect(await counter("totalsent")).to.equal(totalsent + 5);
    expect(await zcard()).to.equal(msgs + 5);
  });

  it("a missing queue after SCRIPT FLUSH is still queueNotFound, reported once", async () => {
    await flush();
    let error: Error | undefined;
    const commands = await monitor(async () => (error = await rejectionOf(rsmq.sendMessageAsync({ qname: "nope", message: "x" }))));
    expect(clientCommands(commands)).to.deep.equal(["evalsha", "eval"]);
    expect(error).to.include({ name: "queueNotFound", message: "Queue not found" });
  });
});

// Its own suite, so the suite above has closed its connections before the server restarts.
describe("NOSCRIPT fallback after a server restart", () => {
  const Q = "q";
  /** Whether this suite stopped the server and has not started it again. */
  let stopped = false;

  afterEach(async () => {
    // Never leave the shared server down for the suites that follow.
    if (stopped) await testRedis().startProcess();
    stopped = false;
  });

  it("the same instance reconnects, and scripts reload transparently (the data is gone)", async function () {
    if (!testRedis().restartable) this.skip();
    const restartNs = uniqueNs("restart");
    // Named, so the counts below take its commands only: after the restart every client of this
    // process reconnects, and an ioredis client's ready check (INFO) may land in a window.
    const instance = new RedisSMQ(connectionOptionsWith(restartNs, { name: restartNs }));
    try {
      await instance.createQueueAsync({ qname: Q });
      await instance.sendMessageAsync({ qname: Q, message: "before" });

      const lost = nextEvent(instance, "disconnect");
      const back = nextEvent(instance, "connect");
      await testRedis().restart();
      await lost;
      await back;

      // No persistence: the queue went with the old process.
      const missing = await rejectionOf(instance.getQueueAttributesAsync({ qname: Q }));
      expect(missing.name).to.equal("queueNotFound");

      const only = await connectionsNamed(restartNs);
      expect(only, "the instance's connection, by its name").to.have.length(1);
      // Each script is new to the restarted server: NOSCRIPT, then EVAL, once.
      const created = await monitor(() => instance.createQueueAsync({ qname: Q }), { only });
      expect(clientCommands(created)).to.deep.equal(["evalsha", "eval"]);
      const sent = await monitor(() => instance.sendMessageAsync({ qname: Q, message: "after" }), { only });
      expect(clientCommands(sent)).to.deep.equal(["evalsha", "eval"]);
      const received = asMessage(await instance.receiveMessageAsync({ qname: Q }));
      expect(received).to.include({ message: "after", rc: 1 });

      // Cached again.
      const next = await monitor(() => instance.sendMessageAsync({ qname: Q, message: "cached" }), { only });
      expect(clientCommands(next)).to.deep.equal(["evalsha"]);
      expect(await instance.getQueueAttributesAsync({ qname: Q })).to.include({ totalsent: 2, totalrecv: 1, msgs: 2 });
    } finally {
      await instance.quitAsync();
    }
  });

  it("a call made while the server is down runs once it is back", async function () {
    if (!testRedis().restartable) this.skip();
    const outageNs = uniqueNs("outage");
    const instance = openNextRsmq(outageNs);
    const probe = await plainClient();
    try {
      await instance.createQueueAsync({ qname: "warm" }); // connected, createQueue script cached

      const lost = nextEvent(instance, "disconnect");
      stopped = true;
      await testRedis().stopProcess();
      await lost;
      // node-redis holds this call in its offline queue; the restarted server has no scripts.
      const pending = instance.createQueueAsync({ qname: Q });
      await testRedis().startProcess();
      stopped = false;

      expect(await pending).to.equal(1);
      expect(await instance.sendMessageAsync({ qname: Q, message: "m" })).to.have.length(32);
      expect(await probe.zCard(`${outageNs}:${Q}`)).to.equal(1);
      expect(await probe.hGet(`${outageNs}:${Q}:Q`, "totalsent")).to.equal("1");
    } finally {
      await instance.quitAsync();
      await probe.quit();
    }
  });
});
