/**
 * Faults of the server under a producer and Workers: killed and restarted from its AOF, its script
 * cache flushed again and again, its clients killed, paused, and the whole server stalled past a
 * visibility timeout. Each runs on a redis-server of its own (see scene.ts).
 */
import { expect } from "chai";
import { subscribersOf } from "../../support/inspect";
import { delay, waitFor } from "../../support/worker";
import type { Verdict } from "../support/ledger";
import { record } from "../support/results";
import { inScene } from "../support/scene";
import { underLoad } from "../support/under-load";
import { KeyLayout } from "../../../lib/keys";

/** Runs `fault` every 50 to 100 ms for `forMs`. */
async function storm(forMs: number, fault: (round: number) => Promise<unknown>): Promise<number> {
  const end = Date.now() + forMs;
  let round = 0;
  while (Date.now() < end) {
    await fault(round++);
    await delay(50 + Math.floor(Math.random() * 50));
  }
  return round;
}

/** How often the server answered an error named `name` (INFO errorstats). */
async function errorCount(admin: { info(section: string): Promise<string> }, name: string): Promise<number> {
  const match = new RegExp(`errorstat_${name}:count=(\\d+)`).exec(await admin.info("errorstats"));
  return match ? Number(match[1]) : 0;
}

/** kill -9 of the server and a restart on the same port from its AOF (fsync on every write). */
export function killAndRestartWithAof(): Promise<Verdict> {
  return inScene("kill -9 + AOF restart", ["--appendonly", "yes", "--appendfsync", "always"], async (scene) => {
    const runId = async (): Promise<string> => /run_id:(\w+)/.exec(await scene.admin.info("server"))![1];
    const before = await runId();
    const verdict = record(
      await underLoad(scene, { vt: 2 }, async () => {
        await scene.server.stopProcess(); // SIGKILL
        await delay(500); // the outage: sends wait in the client's offline queue meanwhile
        await scene.server.startProcess();
      }),
    );
    expect(await runId(), "the server's run_id (a new process)").to.not.equal(before);
    return verdict;
  });
}

/** SCRIPT FLUSH every 50 to 100 ms for 3 s: each NOSCRIPT is answered by one EVAL, nothing runs twice. */
export async function scriptFlushStorm(): Promise<Verdict> {
  return inScene("SCRIPT FLUSH storm", [], async (scene) => {
    let rounds = 0;
    const verdict = await underLoad(scene, { vt: 30 }, async () => {
      rounds = await storm(3000, () => scene.admin.scriptFlush());
    });
    record(verdict);
    expect(rounds, "flushes").to.be.at.least(20);
    expect(await errorCount(scene.admin, "NOSCRIPT"), "NOSCRIPT replies the storm caused").to.be.above(0);
    // vt 30 s never expired during the run: no message may come twice.
    expect(verdict.duplicated, "duplicates").to.equal(0);
    return verdict;
  });
}

/**
 * CLIENT KILL every 50 to 100 ms for 3 s, alternating TYPE normal (the producer's and the workers'
 * command connections) and TYPE pubsub (the Worker's wake subscriber). The producer runs in
 * another process with `realtime`, so the Worker hears of its sends only through that subscriber.
 */
export async function clientKillStorm(): Promise<Verdict> {
  return inScene("CLIENT KILL storm (normal + pubsub)", [], async (scene) => {
    const killed = { normal: 0, pubsub: 0 };
    const verdict = await underLoad(scene, { vt: 2, producer: "child", maxIdleSleepMs: 2000 }, async () => {
      await storm(3000, async (round) => {
        const type = round % 2 === 0 ? "normal" : "pubsub";
        killed[type] += Number(await scene.admin.sendCommand(["CLIENT", "KILL", "TYPE", type]));
      });
    });
    record(verdict);
    expect(killed.normal, "normal connections killed").to.be.above(0);
    expect(killed.pubsub, "subscriber connections killed").to.be.above(0);
    // The Worker's wake subscription came back by itself.
    const channel = KeyLayout.for(scene.ns, false).queue(scene.qname).realtimeChannel;
    await waitFor(async () => (await subscribersOf(scene.admin, channel)) === 1, "the Worker's wake subscription back", 5000);
    return verdict;
  });
}

/** CLIENT PAUSE ALL for 2 s, then CLIENT PAUSE WRITE for 2 s, under load. */
export async function clientPause(): Promise<Verdict> {
  return inScene("CLIENT PAUSE ALL + WRITE", [], async (scene) => {
    const verdict = await underLoad(scene, { vt: 10 }, async () => {
      await scene.admin.sendCommand(["CLIENT", "PAUSE", "2000", "ALL"]);
      await scene.admin.ping(); // answered once the pause ends
      await scene.admin.sendCommand(["CLIENT", "PAUSE", "2000", "WRITE"]);
      await scene.admin.set("fault:probe", "1"); // a write: answered once the write pause ends
      await scene.admin.del("fault:probe");
    });
    record(verdict);
    expect(verdict.duplicated, "duplicates (vt 10 s never expired)").to.equal(0);
    return verdict;
  });
}

/**
 * DEBUG SLEEP 2 s with vt 1 s: the messages in flight expire during the stall, so a second Worker
 * may get one again once the server is back; that is the only kind of duplicate allowed here.
 */
export async function debugSleep(): Promise<Verdict> {
  return inScene("DEBUG SLEEP 2 s, vt 1 s", ["--enable-debug-command", "yes"], (scene) =>
    // A stalled reply reaches its handler late: the local gap between two deliveries may be up to the stall shorter.
    underLoad(scene, { vt: 1, workers: 2, workMs: 100, intervalMs: 20, clockSlackMs: 2000 }, async () => {
      await scene.admin.sendCommand(["DEBUG", "SLEEP", "2"]);
    }),
  );
}
