/**
 * Scripts on a cluster: each runs on the master of its queue's slot, behind a Redis 7 shebang (so
 * the server checks every key and shard channel against that slot), read-only ones flagged
 * no-writes; a SCRIPT FLUSH on every master is answered with one EVAL, and the call takes effect
 * once.
 */
import { expect } from "chai";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../../lib");
import { script } from "../../../lib/scripts/script-files";
import { connectionOptions, keysOf, onCluster, plainClient, testCluster, uniqueNs } from "../../support/server";
import { runsOn } from "../../support/targets";

runsOn("cluster");

/** A plain client on the master that owns `key`'s slot. */
async function masterClientFor(key: string): Promise<RedisClientType> {
  const cluster = testCluster();
  const master = await cluster.masterOfSlot(cluster.slotOf(key));
  const client = createClient({ url: master.url }) as RedisClientType;
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

describe("cluster: scripts", () => {
  let ns: string;
  let rsmq: RedisSMQ;

  before(function () {
    if (!onCluster()) this.skip();
  });
  beforeEach(async () => {
    ns = uniqueNs("scripts");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => rsmq.quitAsync());

  it("sends every script with its shebang: no-writes on the read-only ones, allow-oom on the draining ones", () => {
    for (const name of ["sendMessage", "createQueueHash", "redriveCopy"]) {
      expect(script(name).flagged.source.split("\n")[0], name).to.equal("#!lua");
    }
    for (const name of ["receiveMessage", "deleteQueueKeys", "deadLetterCopy"]) {
      expect(script(name).flagged.source.split("\n")[0], name).to.equal("#!lua flags=allow-oom");
    }
    for (const name of ["getQueueAttributes", "peekDeadLetters", "queueStates", "nextDue"]) {
      expect(script(name).flagged.source.split("\n")[0], name).to.equal("#!lua flags=no-writes");
    }
  });

  it("runs the flagged script, not the plain one, on the master of the queue's slot", async () => {
    const key = keysOf(ns, "q").messages;
    const owner = await masterClientFor(key);
    try {
      await owner.sendCommand(["SCRIPT", "FLUSH"]);
      await rsmq.sendMessageAsync({ qname: "q", message: "m" });
      const send = script("sendMessage");
      expect(await owner.sendCommand(["SCRIPT", "EXISTS", send.flagged.sha1, send.sha1])).to.deep.equal([1, 0]);
      expect(await owner.hGet(keysOf(ns, "q").hash, "totalsent")).to.equal("1");
    } finally {
      await owner.quit();
    }
  });

  it("refuses a write in a no-writes script: the flags are really applied by the server", async () => {
    // What the flag does, shown with the real getQueueAttributes text plus a write: Redis rejects it.
    const key = keysOf(ns, "q").hash;
    const owner = await masterClientFor(key);
    try {
      const source = `${script("getQueueAttributes").flagged.source.split("\n")[0]}\nreturn redis.call("HSET", KEYS[1], "x", "1")`;
      let error: Error | undefined;
      try {
        await owner.sendCommand(["EVAL", source, "1", key]);
      } catch (caught) {
        error = caught as Error;
      }
      expect(error?.message).to.match(/Write commands are not allowed from read-only scripts/);
      expect(await owner.hExists(key, "x")).to.equal(false);
    } finally {
      await owner.quit();
    }
  });

  it("makes the server refuse a key outside the declared keys' slot, even on the same node", async () => {
    // Why the shebang: without it Redis runs a script that strays into another slot of the same node.
    const cluster = testCluster();
    const declared = keysOf(ns, "q").hash;
    const owner = await cluster.masterOfSlot(cluster.slotOf(declared));
    let stray = "";
    for (let i = 0; !stray; i++) {
      const candidate = `${ns}:stray${i}`;
      const slot = cluster.slotOf(candidate);
      if (slot !== cluster.slotOf(declared) && (await cluster.masterOfSlot(slot)).port === owner.port) stray = candidate;
    }
    const client = await masterClientFor(declared);
    try {
      const body = 'return redis.call("EXISTS", ARGV[1])';
      expect(await client.sendCommand(["EVAL", body, "1", declared, stray])).to.equal(0);
      let error: Error | undefined;
      try {
        await client.sendCommand(["EVAL", `#!lua\n${body}`, "1", declared, stray]);
      } catch (caught) {
        error = caught as Error;
      }
      expect(error?.message).to.match(/do not hash to the same slot/);
    } finally {
      await client.quit();
    }
  });

  it("answers a SCRIPT FLUSH on every master with one EVAL: the call succeeds and takes effect once", async () => {
    const cluster = testCluster();
    for (const master of await cluster.masters()) {
      const client = createClient({ url: master.url });
      client.on("error", () => undefined);
      await client.connect();
      await client.sendCommand(["SCRIPT", "FLUSH"]);
      await client.quit();
    }
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "after flush" });
    const inspect = await plainClient();
    try {
      expect(await inspect.zCard(keysOf(ns, "q").messages)).to.equal(1);
      expect(await inspect.hGet(keysOf(ns, "q").hash, id)).to.equal("after flush");
      expect(await inspect.hGet(keysOf(ns, "q").hash, "totalsent")).to.equal("1");
    } finally {
      await inspect.quit();
    }
  });
});
