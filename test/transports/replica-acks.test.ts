/**
 * `waitForReplicas`: after each write, WAIT on the connection that carried it, so a call resolves
 * only once its write is on a replica (read-only calls wait for nothing). On the single server,
 * which has no replica, every write is reported as `replicationTimeout` after `waitForReplicasMs`,
 * and still stands on the server; on the cluster (one replica per master) writes are confirmed.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib");
import { rejectionOf } from "../support/old-rsmq";
import { connectionOptions, onCluster, uniqueNs } from "../support/server";
import { clientCommands, monitor } from "../support/wire";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

/** The commands a client sent, without what replicas and the cluster bus send on their own. */
const sentByClients = (names: string[]): string[] => names.filter((name) => name !== "replconf" && name !== "ping");

describe("waitForReplicas", () => {
  let ns: string;
  let rsmq: RedisSMQ;

  beforeEach(() => {
    ns = uniqueNs("acks");
  });
  afterEach(() => rsmq?.quitAsync());

  it("rejects bad values at construction, before connecting", () => {
    for (const [waitForReplicas, waitForReplicasMs] of [
      [-1, undefined],
      [1.5, undefined],
      ["1", undefined],
      [1, 0],
      [1, "100"],
    ] as const) {
      expect(
        () => new RedisSMQ({ ...connectionOptions(ns), waitForReplicas, waitForReplicasMs } as never),
        `${waitForReplicas} / ${waitForReplicasMs}`,
      ).to.throw(TypeError, /waitForReplicas/);
    }
  });

  it("sends no WAIT when off (the default)", async () => {
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    const commands = await monitor(() => rsmq.sendMessageAsync({ qname: "q", message: "m" }));
    expect(sentByClients(clientCommands(commands)).filter((name) => name !== "eval")).to.deep.equal(["evalsha"]);
  });

  it("WAITs after each write and not after a read; resolves when a replica confirms, else rejects replicationTimeout with the write kept", async () => {
    rsmq = new RedisSMQ({ ...connectionOptions(ns), waitForReplicas: 1, waitForReplicasMs: 200 });
    if (onCluster()) {
      // The registry's SADD and the queue's script each go to their own master, each confirmed.
      const created = await monitor(() => rsmq.createQueueAsync({ qname: "q" }));
      expect(sentByClients(clientCommands(created)).filter((name) => name !== "eval")).to.deep.equal(["sadd", "wait", "evalsha", "wait"]);
      let id: unknown;
      const sent = await monitor(async () => (id = await rsmq.sendMessageAsync({ qname: "q", message: "kept" })));
      expect(sentByClients(clientCommands(sent)).filter((name) => name !== "eval")).to.deep.equal(["evalsha", "wait"]);
      expect(id).to.be.a("string");
    } else {
      // No replica: the write is done, but unconfirmed.
      const error = await rejectionOf(rsmq.createQueueAsync({ qname: "q" }));
      expect(error).to.include({ name: "replicationTimeout", message: "Write reached 0 of 1 replica within 200 ms" });
      const sent = await monitor(() => rejectionOf(rsmq.sendMessageAsync({ qname: "q", message: "kept" })));
      expect(sentByClients(clientCommands(sent)).filter((name) => name !== "eval")).to.deep.equal(["evalsha", "wait"]);
    }
    const read = await monitor(() => rsmq.getQueueAttributesAsync({ qname: "q" }));
    expect(sentByClients(clientCommands(read)).filter((name) => name !== "eval_ro")).to.deep.equal(["evalsha_ro"]);
    expect(await rsmq.getQueueAttributesAsync({ qname: "q" })).to.include({ msgs: 1, totalsent: 1 });
  });
});
