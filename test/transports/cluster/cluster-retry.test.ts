/**
 * The retry rules of a Redis Cluster call (lib/transports/cluster/cluster-retry.ts), with fake
 * attempts and no server: which failures pass, which refresh the topology, the backoff, and the
 * one loop both kinds of call run.
 */
import { expect } from "chai";
import { ErrorReply } from "redis";
import { backoffMs, isMoved, isTransient, retrying, staleTopology } from "../../../lib/transports/cluster/cluster-retry";
import { runsOn } from "../../support/targets";

runsOn("single");

describe("cluster: retry rules", () => {
  const reply = (message: string): ErrorReply => new ErrorReply(message);

  it("isTransient: a connection failure or a resharding/failover reply; not a refusal or a script error", () => {
    for (const message of ["TRYAGAIN x", "CLUSTERDOWN x", "MOVED 1 h:1", "ASK 1 h:1", "LOADING x", "MASTERDOWN x", "READONLY x"]) {
      expect(isTransient(reply(message)), message).to.equal(true);
    }
    expect(isTransient(new Error("Socket closed unexpectedly"))).to.equal(true);
    expect(isTransient(reply("NOPERM no"))).to.equal(false);
    expect(isTransient(reply("ERR script"))).to.equal(false);
    expect(isTransient("not an error")).to.equal(false);
  });

  it("staleTopology and isMoved: which failures have the slot map read afresh", () => {
    expect(staleTopology(reply("CLUSTERDOWN x"))).to.equal(true);
    expect(staleTopology(new Error("connection lost"))).to.equal(true);
    expect(staleTopology(reply("TRYAGAIN x"))).to.equal(false);
    expect(staleTopology(reply("MOVED 1 h:1"))).to.equal(false);
    expect(isMoved(reply("MOVED 1 h:1"))).to.equal(true);
    expect(isMoved(reply("ASK 1 h:1"))).to.equal(false);
  });

  it("backoffMs: doubles from 25 ms up to 500 ms, never past the deadline", () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((attempt) => backoffMs(attempt, 10_000, 0))).to.deep.equal([25, 50, 100, 200, 400, 500, 500]);
    expect(backoffMs(4, 1_030, 1_000)).to.equal(30);
    expect(backoffMs(0, 1_000, 2_000)).to.equal(0);
  });

  it("retrying: transient failures are tried again (recover between), others end the call", async () => {
    const seen: string[] = [];
    const failures = [reply("TRYAGAIN x"), new Error("lost")];
    const result = await retrying(Date.now() + 5_000, {
      ready: () => Promise.resolve(void seen.push("ready")),
      attempt: () => (failures.length > 0 ? Promise.reject(failures.shift()!) : Promise.resolve("done")),
      recover: (error) => Promise.resolve(seen.push(`recover ${(error as Error).message}`) > 0),
    });
    expect(result).to.equal("done");
    expect(seen).to.deep.equal(["ready", "recover TRYAGAIN x", "ready", "recover lost", "ready"]);

    const refused = reply("NOPERM no");
    let recovered = 0;
    const call = { ready: () => Promise.resolve(), recover: () => Promise.resolve(++recovered > 0) };
    const error = await retrying(Date.now() + 5_000, { ...call, attempt: () => Promise.reject(refused) }).catch((e: unknown) => e);
    expect(error).to.equal(refused);
    expect(recovered).to.equal(0);
  });

  it("retrying: gives up at the deadline, when recover says so, and when ready rejects", async () => {
    const lost = new Error("lost");
    let attempts = 0;
    const always = { ready: () => Promise.resolve(), attempt: () => Promise.reject(lost).finally(() => attempts++) };
    expect(await retrying(Date.now() - 1, { ...always, recover: () => Promise.resolve(true) }).catch((e: unknown) => e)).to.equal(lost);
    expect(attempts).to.equal(1);
    expect(await retrying(Date.now() + 5_000, { ...always, recover: () => Promise.resolve(false) }).catch((e: unknown) => e)).to.equal(
      lost,
    );
    expect(attempts).to.equal(2);
    const closed = new Error("closed");
    const notReady = { ready: () => Promise.reject(closed), attempt: () => Promise.resolve(1), recover: () => Promise.resolve(true) };
    expect(await retrying(Date.now() + 5_000, notReady).catch((e: unknown) => e)).to.equal(closed);
  });
});
