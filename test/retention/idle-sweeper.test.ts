/**
 * The idle sweeper (lib/retention/idle-sweeper.ts) when Redis goes away while a sweep pass runs:
 * a chunk fails while a heartbeat is due, and the look rejects with nothing left unhandled
 * (an unhandled rejection ends a Node process).
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { IdleSweeper } from "../../lib/retention/idle-sweeper";
import { beatJson, newWorkerId } from "../../lib/operations/consumer-beat";
import { startRedisServer } from "../../lib/cli/redis/redis-server";
import { runsOn } from "../support/targets";

runsOn("single");

describe("idle sweeper: the server gone during a sweep pass", () => {
  it("a chunk failing while a beat is due rejects the look, and leaves no rejection unhandled", async () => {
    const server = await startRedisServer();
    const rsmq = new RedisSMQ({ host: server.host, port: server.port, ns: "sweeper", offlineTimeoutMs: 300 });
    rsmq.on("error", () => undefined);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      await rsmq.createQueueAsync({ qname: "q", retention: 60 });
      await rsmq.sendMessageAsync({ qname: "q", message: "kept" });
      const sweeper = new IdleSweeper(internalsOf(rsmq), "q", 60_000);
      await sweeper.look(); // a queue with a retention, never swept: the next look is a chunk
      await server.stop();
      const beat = { workerId: newWorkerId(), json: beatJson("test", process.pid, 1, Date.now()), ttlMs: 60_000 };
      const failed = await sweeper.look(beat).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed, "the look rejects").to.be.an("error");
      // Every call made settles by the end of quit; a rejection nobody handled is told a turn later.
      await rsmq.quitAsync().catch(() => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled.map(String)).to.deep.equal([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
      await rsmq.quitAsync().catch(() => undefined);
      if (server.running) await server.stop();
    }
  });
});
