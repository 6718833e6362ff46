/**
 * Where the data lives in Redis Cluster, read on the nodes themselves: each queue's keys are
 * `<ns>:{q}` and `<ns>:{q}:Q` (its name a hash tag, so both share a slot), queues spread over every
 * master, and a namespace that is itself a hash tag keeps rsmq 0.12.4's exact layout in one slot,
 * where the whole API (the atomic dead-letter and redrive scripts included) works. Plus: a half
 * hash tag namespace is refused, and a borrowed cluster client stays open while an owned one is
 * closed by quit().
 */
import { expect } from "chai";
import { createCluster } from "redis";
import RedisSMQ = require("../../../lib");
import { internalsOf } from "../../../lib/internals";
import { script } from "../../../lib/scripts/script-files";
import type { TestCluster } from "../../support/cluster";
import { NodeClients } from "../../support/cluster-tools";
import { MonitorWatch } from "../../support/monitor-socket";
import { builtEntry, runChild } from "../../support/child-process";
import { asMessage } from "../../support/old-rsmq";
import { connectionOptions, keysOf, onCluster, testCluster, uniqueNs } from "../../support/server";
import { Cleanup, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("cluster");

const { Worker, PoisonError } = RedisSMQ;

describe("cluster: key layout", function () {
  this.timeout(30_000);
  let cluster: TestCluster;
  let nodes: NodeClients;
  const cleanup = new Cleanup();

  before(function () {
    if (!onCluster()) this.skip();
    cluster = testCluster();
    nodes = new NodeClients();
  });
  afterEach(() => cleanup.run());
  after(() => nodes?.close());

  /** Every key of the namespace, by the port of the master holding it. */
  async function keysByMaster(pattern: string): Promise<Map<number, string[]>> {
    const byMaster = new Map<number, string[]>();
    for (const master of await cluster.masters()) byMaster.set(master.port, await nodes.keys(master, pattern));
    return byMaster;
  }

  it("keeps a queue at <ns>:{q} (sorted set) and <ns>:{q}:Q (hash), both on the master of the tag's slot", async () => {
    const ns = uniqueNs();
    const rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    await rsmq.createQueueAsync({ qname: "q" });
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "hello" });

    expect(keysOf(ns, "q")).to.deep.include({ messages: `${ns}:{q}`, hash: `${ns}:{q}:Q`, registry: `${ns}:QUEUES` });
    const slot = cluster.slotOf("q");
    const owner = await cluster.masterOfSlot(slot);
    expect(await nodes.run(owner, ["CLUSTER", "KEYSLOT", `${ns}:{q}`])).to.equal(slot);
    expect(await nodes.run(owner, ["CLUSTER", "KEYSLOT", `${ns}:{q}:Q`])).to.equal(slot);
    expect(await nodes.keys(owner, `${ns}:{q}*`)).to.deep.equal([`${ns}:{q}`, `${ns}:{q}:Q`]);
    expect(await nodes.run(owner, ["TYPE", `${ns}:{q}`])).to.equal("zset");
    expect(await nodes.run(owner, ["TYPE", `${ns}:{q}:Q`])).to.equal("hash");
    expect(await nodes.run(owner, ["ZRANGE", `${ns}:{q}`, "0", "-1"])).to.deep.equal([id]);
    expect(await nodes.run(owner, ["HMGET", `${ns}:{q}:Q`, "vt", "delay", "maxsize", "totalsent", id])).to.deep.equal([
      "30",
      "0",
      "65536",
      "1",
      "hello",
    ]);

    // The registry sits in its own slot; the namespace holds these three keys and nothing else.
    const registryOwner = await cluster.masterOfSlot(cluster.slotOf(`${ns}:QUEUES`));
    expect(await nodes.run(registryOwner, ["SMEMBERS", `${ns}:QUEUES`])).to.deep.equal(["q"]);
    const all = [...(await keysByMaster(`${ns}:*`)).values()].flat().sort();
    expect(all).to.deep.equal([`${ns}:QUEUES`, `${ns}:{q}`, `${ns}:{q}:Q`].sort());
  });

  it("spreads 100 queues over all 3 masters, each queue's sorted set and hash on the same master", async () => {
    const ns = uniqueNs();
    const rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    const qnames = Array.from({ length: 100 }, (_, i) => `queue-${i}`);
    await Promise.all(
      qnames.map(async (qname) => {
        await rsmq.createQueueAsync({ qname });
        await rsmq.sendMessageAsync({ qname, message: `to ${qname}` });
      }),
    );

    const masters = await cluster.masters();
    expect(masters).to.have.length(3);
    const byMaster = await keysByMaster(`${ns}:{*`);
    const holderOf = (key: string): number[] => [...byMaster].filter(([, keys]) => keys.includes(key)).map(([port]) => port);
    const queuesPerMaster = new Map<number, number>(masters.map((master) => [master.port, 0]));
    for (const qname of qnames) {
      const { messages, hash } = keysOf(ns, qname);
      const [holder, ...others] = holderOf(hash);
      expect(others, `${hash} on more than one master`).to.deep.equal([]);
      expect(holderOf(messages), `${qname}'s sorted set and hash on different masters`).to.deep.equal([holder]);
      expect(holder, `${qname} not on the master of its slot`).to.equal((await cluster.masterOfSlot(cluster.slotOf(hash))).port);
      queuesPerMaster.set(holder, queuesPerMaster.get(holder)! + 1);
    }
    for (const [port, count] of queuesPerMaster) expect(count, `queues on master ${port}`).to.be.greaterThan(0);
    expect([...queuesPerMaster.values()].reduce((a, b) => a + b)).to.equal(100);
    expect([...byMaster.values()].flat()).to.have.length(200);
    expect((await rsmq.listQueuesAsync()).sort()).to.deep.equal([...qnames].sort());
  });

  describe('a namespace that is itself a hash tag ("{myapp}")', () => {
    let ns: string;
    let rsmq: RedisSMQ;

    beforeEach(() => {
      ns = `{${uniqueNs("myapp")}}`;
      rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    });

    it("keeps rsmq 0.12.4's exact layout, every key on the one master of the tag's slot", async () => {
      await rsmq.createQueueAsync({ qname: "q" });
      await rsmq.createQueueAsync({ qname: "other" });
      await rsmq.sendMessageAsync({ qname: "q", message: "hello" });
      await rsmq.sendMessageAsync({ qname: "other", message: "hello" });

      expect(keysOf(ns, "q")).to.deep.include({ messages: `${ns}:q`, hash: `${ns}:q:Q`, registry: `${ns}:QUEUES` });
      const owner = await cluster.masterOfSlot(cluster.slotOf(ns));
      const byMaster = await keysByMaster(`${ns}:*`);
      const expected = [`${ns}:q`, `${ns}:q:Q`, `${ns}:other`, `${ns}:other:Q`, `${ns}:QUEUES`].sort();
      for (const [port, keys] of byMaster) expect(keys, `keys on ${port}`).to.deep.equal(port === owner.port ? expected : []);
      expect(await nodes.run(owner, ["TYPE", `${ns}:q`])).to.equal("zset");
      expect(await nodes.run(owner, ["TYPE", `${ns}:q:Q`])).to.equal("hash");
      expect(((await nodes.run(owner, ["SMEMBERS", `${ns}:QUEUES`])) as string[]).sort()).to.deep.equal(["other", "q"]);
      // So every queue of the namespace may share a script: dead-letter moves and redrives are atomic.
      expect(internalsOf(rsmq).layout.sameSlot("q", "other")).to.equal(true);
      expect(internalsOf(rsmq).layout.registryWithQueues).to.equal(true);
    });

    it("runs the whole API", async () => {
      expect(await rsmq.createQueueAsync({ qname: "q", vt: 60 })).to.equal(1);
      expect(await rejectionOf(rsmq.createQueueAsync({ qname: "q" }))).to.include({ name: "queueExists" });
      expect(await rsmq.listQueuesAsync()).to.deep.equal(["q"]);
      expect(await rsmq.setQueueAttributesAsync({ qname: "q", delay: 0, maxsize: 2048 })).to.include({ vt: 60, delay: 0, maxsize: 2048 });

      const ids = [];
      for (const message of ["one", "two", "three", "four", "five"]) ids.push(await rsmq.sendMessageAsync({ qname: "q", message }));
      expect(await rsmq.getQueueAttributesAsync({ qname: "q" })).to.include({ msgs: 5, hiddenmsgs: 0, totalsent: 5 });

      const first = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
      expect(first).to.include({ id: ids[0], message: "one", rc: 1 });
      expect(await rsmq.changeMessageVisibilityAsync({ qname: "q", id: first.id, vt: 120 })).to.equal(1);
      expect(await rsmq.deleteMessageAsync({ qname: "q", id: ids[0] })).to.equal(1);
      expect(await rsmq.deleteMessageAsync({ qname: "q", id: ids[0] })).to.equal(0);
      expect(asMessage(await rsmq.popMessageAsync({ qname: "q" }))).to.include({ id: ids[1], message: "two" });
      const next = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
      expect(next.status === "received" && next.message).to.include({ id: ids[2], message: "three" });
      const { messages } = await rsmq.receiveMessagesAsync({ qname: "q", count: 10 });
      expect(messages.map((message) => message.message)).to.deep.equal(["four", "five"]);
      expect(
        await rsmq.deleteMessagesAsync({ qname: "q", ids: [...messages.map((message) => message.id), "nope".padEnd(32, "x")] }),
      ).to.deep.equal([1, 1, 0]);
      expect(await rsmq.receiveMessageOrNextDueAsync({ qname: "q" })).to.include({ status: "waiting" });
      // The callback API too.
      const attributes = await new Promise((resolve, reject) =>
        rsmq.getQueueAttributes({ qname: "q" }, (error, value) => (error ? reject(error) : resolve(value))),
      );
      expect(attributes).to.include({ msgs: 1, hiddenmsgs: 1, totalrecv: 5, totalsent: 5 });

      expect(await rsmq.deleteQueueAsync({ qname: "q" })).to.equal(1);
      expect(await rsmq.listQueuesAsync()).to.deep.equal([]);
      expect([...(await keysByMaster(`${ns}:*`)).values()].flat()).to.deep.equal([]);
    });

    it("dead-letters and redrives with the atomic one-script moves (same slot)", async () => {
      await rsmq.createQueueAsync({ qname: "src" });
      const owner = await cluster.masterOfSlot(cluster.slotOf(ns));
      const monitor = await MonitorWatch.open(await cluster.masters());
      cleanup.add(() => monitor.close());
      const worker = cleanup.worker(
        new Worker(rsmq, {
          qname: "src",
          maxIdleSleepMs: 60_000,
          handler: (message) => {
            if (message.message === "bad") throw new PoisonError("cannot parse");
          },
        }),
      );
      const stops: string[] = [];
      worker.on("stop", (message, info) => stops.push(`${message.message}:${info.action}`));
      worker.start();
      await rsmq.sendMessageAsync({ qname: "src", message: "good" });
      const bad = await rsmq.sendMessageAsync({ qname: "src", message: "bad" });
      await waitFor(() => stops.length === 1 && worker.counters.handled === 1, "the good message handled and the bad one dead-lettered");
      await worker.stop();

      expect(stops).to.deep.equal(["bad:deadLettered"]);
      const [peeked] = await rsmq.peekDeadLettersAsync({ qname: "src-dlq" });
      expect(peeked).to.deep.include({ id: bad, message: "bad" });
      expect(peeked.deadLetter).to.include({ source: "src", reason: "poison", error: "cannot parse" });
      expect(await rsmq.redriveAsync({ from: "src-dlq" })).to.equal(1);
      expect(asMessage(await rsmq.receiveMessageAsync({ qname: "src" }))).to.include({ message: "bad", rc: 1 });
      expect(await rsmq.getQueueAttributesAsync({ qname: "src-dlq" })).to.include({ msgs: 0 });
      expect((await rsmq.listQueuesAsync()).sort()).to.deep.equal(["src", "src-dlq"]);

      const scriptCalls = (await monitor.commands())
        .filter((command) => !command.fromScript && /^eval(sha)?(_ro)?$/.test(command.args[0]))
        .map((command) => ({ port: command.port, name: scriptName(command.args[1]) }));
      const names = scriptCalls.map((call) => call.name);
      expect(names).to.include.members(["deadLetter", "redrive"]);
      expect(names).to.not.include.members(["deadLetterCopy"]);
      expect(names).to.not.include("redriveCopy");
      expect(names).to.not.include("hideMessage");
      expect(new Set(scriptCalls.map((call) => call.port))).to.deep.equal(new Set([owner.port]));
    });
  });

  it('rejects a namespace holding half a hash tag ("my{app") at construction, with a TypeError', async () => {
    for (const ns of ["my{app", "my}app", "}my{app", "{}app"]) {
      expect(() => new RedisSMQ(connectionOptions(ns)), ns).to.throw(TypeError, /hash tag/);
    }
    const borrowed = createCluster({ rootNodes: cluster.rootNodes() });
    borrowed.on("error", () => undefined);
    await borrowed.connect();
    cleanup.add(() => borrowed.quit());
    expect(() => new RedisSMQ({ client: borrowed, ns: "my{app" } as RedisSMQ.ConstructorOptions)).to.throw(TypeError, /hash tag/);
  });

  it("uses a borrowed createCluster client passed as `client`, and leaves it open on quit()", async () => {
    const ns = uniqueNs();
    const borrowed = createCluster({ rootNodes: cluster.rootNodes() });
    borrowed.on("error", () => undefined);
    await borrowed.connect();
    cleanup.add(() => borrowed.quit());
    const rsmq = new RedisSMQ({ client: borrowed, ns } as RedisSMQ.ConstructorOptions);
    expect(rsmq.redis).to.equal(borrowed);

    await rsmq.createQueueAsync({ qname: "q" });
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "borrowed" });
    expect(asMessage(await rsmq.popMessageAsync({ qname: "q" }))).to.include({ id, message: "borrowed" });
    expect(await borrowed.hGet(keysOf(ns, "q").hash, "totalsent")).to.equal("1");

    expect(await rsmq.quitAsync()).to.equal("OK");
    expect(borrowed.isOpen).to.equal(true);
    expect(await borrowed.sIsMember(`${ns}:QUEUES`, "q")).to.equal(true);
  });

  it("opens its own cluster client from `cluster` options, and closes it on quit()", async () => {
    const ns = uniqueNs();
    const rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    await rsmq.sendMessageAsync({ qname: "q", message: "owned" });
    const client = rsmq.redis;
    expect(client.isOpen).to.equal(true);
    expect(await client.hGet(keysOf(ns, "q").hash, "totalsent")).to.equal("1");

    expect(await rsmq.quitAsync()).to.equal("OK");
    expect(client.isOpen).to.equal(false);
    expect(rsmq.connected).to.equal(false);
  });

  it("leaves no timer running once quit() has resolved, so a script that quits can exit at once", async () => {
    // Timers in the process itself: a pending one keeps `node script.js` (and each CLI command) alive.
    const program = `
      const RedisSMQ = require(${JSON.stringify(builtEntry)});
      (async () => {
        const rsmq = new RedisSMQ(${JSON.stringify(connectionOptions(uniqueNs()))});
        await rsmq.createQueueAsync({ qname: "q" });
        await rsmq.quitAsync();
        process.stdout.write(JSON.stringify(process.getActiveResourcesInfo().filter((name) => name === "Timeout")));
      })();`;
    const outcome = await runChild(program);
    expect([outcome.code, outcome.stderr]).to.deep.equal([0, ""]);
    expect(JSON.parse(outcome.stdout)).to.deep.equal([]);
  });
});

/** Which lua/ script an EVALSHA (or EVALSHA_RO) names (by either of its SHA1s), or an EVAL carries. */
function scriptName(shaOrSource: string): string {
  for (const name of [
    "deadLetter",
    "deadLetterCopy",
    "redrive",
    "redriveCopy",
    "hideMessage",
    "receiveMessage",
    "deleteMessage",
    "deleteMessages",
    "sendMessage",
    "createQueue",
    "createQueueHash",
    "getQueueAttributes",
    "peekDeadLetters",
  ]) {
    const { sha1, flagged } = script(name);
    if (shaOrSource === sha1 || shaOrSource === flagged.sha1) return name;
  }
  return shaOrSource.length === 40 ? `unknown ${shaOrSource}` : "eval";
}

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}
