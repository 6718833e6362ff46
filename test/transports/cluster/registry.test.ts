/**
 * The queue registry (`<ns>:QUEUES`) in Redis Cluster, where it sits in another slot than the
 * queues: createQueue lists the name first (SADD) and writes the queue second (one script), and
 * deleteQueue deletes the queue first and unlists the name second (only when it deleted a queue).
 * So the only state a crash in between can leave is a listed name with no queue, which every queue
 * operation reports as queueNotFound, listQueues shows, and the next createQueue completes; never a
 * queue that takes messages but is not listed. Checked command by command with MONITOR.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../../lib");
import { script } from "../../../lib/scripts/script-files";
import type { TestCluster } from "../../support/cluster";
import { MonitorWatch } from "../../support/monitor-socket";
import type { MonitoredLine } from "../../support/monitor-socket";
import { allKeys } from "../../support/inspect";
import { asMessage, rejectionOf } from "../../support/old-rsmq";
import { connectionOptions, keysOf, onCluster, plainClient, testCluster, uniqueNs } from "../../support/server";
import { runsOn } from "../../support/targets";

runsOn("cluster");

describe("cluster: queue registry", function () {
  this.timeout(30_000);
  let cluster: TestCluster;
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;

  before(function () {
    if (!onCluster()) this.skip();
    cluster = testCluster();
  });
  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    client = await plainClient();
  });
  afterEach(async () => {
    await rsmq?.quitAsync();
    await client?.quit();
  });

  /** What clients (not scripts) sent about this namespace while `action` ran, on every master, in order. */
  async function clientCommandsDuring(action: () => Promise<unknown>): Promise<MonitoredLine[]> {
    const monitor = await MonitorWatch.open(await cluster.masters());
    try {
      await action();
      return (await monitor.commands()).filter((command) => !command.fromScript && command.args.some((arg) => arg.startsWith(`${ns}:`)));
    } finally {
      await monitor.close();
    }
  }

  /** A command as `name key...`, a script call as `evalsha <script> <keys>` (EVAL for the fallback). */
  function describeCommand(command: MonitoredLine): string {
    const [name, ...rest] = command.args;
    if (name === "evalsha" || name === "eval") {
      const [shaOrSource, numberOfKeys, ...tail] = rest;
      const which = name === "eval" ? "source" : scriptBySha(shaOrSource);
      return [name, which, ...tail.slice(0, Number(numberOfKeys))].join(" ");
    }
    return command.args.join(" ");
  }

  function scriptBySha(sha: string): string {
    for (const name of ["createQueueHash", "deleteQueueKeys", "createQueue", "deleteQueue"]) {
      if (script(name).flagged.sha1 === sha) return `${name}(flagged)`;
      if (script(name).sha1 === sha) return name;
    }
    return sha;
  }

  /** Each command once, with EVAL after a NOSCRIPT EVALSHA of the same keys folded into it. */
  function withoutNoscriptFallback(commands: string[]): string[] {
    return commands.filter((command, i) => !(command.startsWith("eval source") && commands[i - 1]?.startsWith("evalsha ")));
  }

  it("createQueue is SADD <ns>:QUEUES, then one script writing the queue hash; deleteQueue is one script, then SREM", async () => {
    const { hash, messages, registry } = keysOf(ns, "q");
    const created = (await clientCommandsDuring(() => rsmq.createQueueAsync({ qname: "q" }))).map(describeCommand);
    expect(withoutNoscriptFallback(created)).to.deep.equal([`sadd ${registry} q`, `evalsha createQueueHash(flagged) ${hash}`]);
    // An EVAL only as the NOSCRIPT fallback of that one EVALSHA.
    expect(created.length).to.be.oneOf([2, 3]);
    if (created.length === 3) expect(created[2]).to.equal(`eval source ${hash}`);

    const sadd = (await clientCommandsDuring(() => rsmq.createQueueAsync({ qname: "r" }))).map(describeCommand);
    expect(withoutNoscriptFallback(sadd)).to.deep.equal([`sadd ${registry} r`, `evalsha createQueueHash(flagged) ${keysOf(ns, "r").hash}`]);

    const deleted = (await clientCommandsDuring(() => rsmq.deleteQueueAsync({ qname: "q" }))).map(describeCommand);
    // With the queue's concurrency leases (a key it may have: its TTL would end it, the delete ends it now).
    const { leases } = keysOf(ns, "q");
    expect(withoutNoscriptFallback(deleted)).to.deep.equal([
      `evalsha deleteQueueKeys(flagged) ${hash} ${messages} ${leases}`,
      `srem ${registry} q`,
    ]);
    expect(deleted.length).to.be.oneOf([2, 3]);
  });

  it("a listed name with no queue (a crash between SADD and the script): queueNotFound for sends, receives and attributes; listQueues shows it; the next createQueue completes it", async () => {
    await client.sAdd(keysOf(ns, "half").registry, "half");

    // One call at a time: rejections made up front and awaited later would be reported as unhandled.
    for (const attempt of [
      () => rsmq.sendMessageAsync({ qname: "half", message: "never stored" }),
      () => rsmq.receiveMessageAsync({ qname: "half" }),
      () => rsmq.popMessageAsync({ qname: "half" }),
      () => rsmq.getQueueAttributesAsync({ qname: "half" }),
      () => rsmq.setQueueAttributesAsync({ qname: "half", vt: 5 }),
    ]) {
      expect(await rejectionOf(attempt())).to.include({ name: "queueNotFound", message: "Queue not found" });
    }
    expect(await rsmq.listQueuesAsync()).to.deep.equal(["half"]);
    // Nothing was written by the failed calls.
    expect(await allKeys(client, `${ns}:*`)).to.deep.equal([`${ns}:QUEUES`]);

    expect(await rsmq.createQueueAsync({ qname: "half", vt: 45 })).to.equal(1);
    expect(await rsmq.listQueuesAsync()).to.deep.equal(["half"]);
    expect(await rsmq.getQueueAttributesAsync({ qname: "half" })).to.include({ vt: 45, msgs: 0 });
    const id = await rsmq.sendMessageAsync({ qname: "half", message: "now stored" });
    expect(asMessage(await rsmq.receiveMessageAsync({ qname: "half" }))).to.include({ id, message: "now stored" });
  });

  it("deleteQueue on a listed name with no queue rejects queueNotFound and writes nothing (one script, no SREM); createQueue then completes it, and deleteQueue removes both", async () => {
    const { registry, hash, messages, leases } = keysOf(ns, "half");
    await client.sAdd(registry, "half");
    const commands = await clientCommandsDuring(async () => {
      expect(await rejectionOf(rsmq.deleteQueueAsync({ qname: "half" }))).to.include({ name: "queueNotFound", message: "Queue not found" });
    });
    // No SREM: it could unlist a queue that a concurrent createQueue has listed and is about to write.
    expect(withoutNoscriptFallback(commands.map(describeCommand))).to.deep.equal([
      `evalsha deleteQueueKeys(flagged) ${hash} ${messages} ${leases}`,
    ]);
    expect(await rsmq.listQueuesAsync()).to.deep.equal(["half"]);
    expect(await allKeys(client, `${ns}:*`)).to.deep.equal([registry]);

    expect(await rsmq.createQueueAsync({ qname: "half" })).to.equal(1);
    expect(await rsmq.deleteQueueAsync({ qname: "half" })).to.equal(1);
    expect(await rsmq.listQueuesAsync()).to.deep.equal([]);
    expect(await allKeys(client, `${ns}:*`)).to.deep.equal([]);
    expect(await rejectionOf(rsmq.deleteQueueAsync({ qname: "half" }))).to.include({ name: "queueNotFound" });
  });

  it("a normal deleteQueue removes the queue's keys and its name", async () => {
    await rsmq.createQueueAsync({ qname: "q" });
    await rsmq.createQueueAsync({ qname: "stays" });
    await rsmq.sendMessageAsync({ qname: "q", message: "gone with the queue" });
    expect(await rsmq.deleteQueueAsync({ qname: "q" })).to.equal(1);

    expect(await rsmq.listQueuesAsync()).to.deep.equal(["stays"]);
    expect((await allKeys(client, `${ns}:*`)).sort()).to.deep.equal([`${ns}:QUEUES`, keysOf(ns, "stays").hash].sort());
    expect(await rejectionOf(rsmq.sendMessageAsync({ qname: "q", message: "x" }))).to.include({ name: "queueNotFound" });
  });

  it("never leaves a queue that is not listed: when the SADD fails, the queue is not written", async () => {
    // The registry key holding a string makes SADD fail with WRONGTYPE, as a crash before it would.
    await client.set(keysOf(ns, "q").registry, "not a set");
    expect((await rejectionOf(rsmq.createQueueAsync({ qname: "q" }))).message).to.match(/^WRONGTYPE/);
    expect(await client.exists(keysOf(ns, "q").hash)).to.equal(0);
    expect(await rejectionOf(rsmq.sendMessageAsync({ qname: "q", message: "x" }))).to.include({ name: "queueNotFound" });
  });

  it("a createQueue racing a deleteQueue of the same name never leaves a queue that is not listed", async () => {
    // The delete's script may find nothing (the create has listed the name but not written the
    // queue yet): it must then leave the name alone, or the create's queue would end up unlisted.
    const other = new RedisSMQ(connectionOptions(ns));
    try {
      const names = Array.from({ length: 20 }, (_, i) => `race${i}`);
      await Promise.all(names.map((qname) => Promise.allSettled([rsmq.createQueueAsync({ qname }), other.deleteQueueAsync({ qname })])));
      const listed = new Set(await rsmq.listQueuesAsync());
      for (const qname of names) {
        const exists = (await client.exists(keysOf(ns, qname).hash)) === 1;
        if (exists) expect(listed.has(qname), `${qname} exists but is not listed`).to.equal(true);
      }
    } finally {
      await other.quitAsync();
    }
  });

  it("createQueue on an existing queue rejects queueExists, and lists its name again", async () => {
    await rsmq.createQueueAsync({ qname: "q", vt: 12 });
    await rsmq.sendMessageAsync({ qname: "q", message: "kept" });
    // A queue that lost its name (by hand: createQueue and deleteQueue never leave one).
    await client.sRem(keysOf(ns, "q").registry, "q");
    expect(await rsmq.listQueuesAsync()).to.deep.equal([]);

    expect(await rejectionOf(rsmq.createQueueAsync({ qname: "q", vt: 99 }))).to.include({ name: "queueExists", message: "Queue exists" });
    expect(await rsmq.listQueuesAsync()).to.deep.equal(["q"]);
    // The queue itself is untouched.
    expect(await rsmq.getQueueAttributesAsync({ qname: "q" })).to.include({ vt: 12, msgs: 1, totalsent: 1 });
  });
});
