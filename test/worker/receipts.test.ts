/**
 * The Worker's receipts, end to end on a real Redis: every delete and hide it makes carries the
 * `rc` its receive returned. A Worker whose delivery was superseded (the message made visible
 * again and received by another consumer, as when its vt lapses) cannot delete or re-hide it: its
 * delete or retry answers 0, it tells `cancelled` (no `handled`, no `retry`, no `error`), and the
 * message stays for the second holder, who can delete it.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { keysOf, plainClient } from "../support/server";
import { Cleanup, deferred, freshQueue, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;

describe("Worker: receipts", function () {
  this.timeout(20_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  /** A worker whose handler waits until released (or throws, with `fail`); its events recorded. */
  async function superseded(fail: boolean) {
    const { ns, rsmq, sender } = await freshQueue(cleanup);
    const id = await sender.sendMessageAsync({ qname: "q", message: "contested" });
    const release = deferred();
    let started = false;
    const events: string[] = [];
    const worker = cleanup.worker(
      new Worker(rsmq, {
        qname: "q",
        // Long enough that no extension runs before the handler ends.
        vt: 30,
        realtimeWakes: false,
        handler: async () => {
          started = true;
          await release.promise;
          if (fail) throw new Error("try again");
        },
      }),
    );
    for (const name of ["handled", "cancelled", "retry", "failed", "error"] as const) {
      worker.on(name, (...args: unknown[]) => void events.push(args[0] instanceof Error ? `error ${args[0].message}` : name));
    }
    worker.start();
    await waitFor(() => started, "the worker to hold the message");
    // Another consumer takes it: visible again (as when the vt lapses), then received (rc 2).
    expect(await sender.changeMessageVisibilityAsync({ qname: "q", id, vt: 0 })).to.equal(1);
    const second = await sender.receiveMessageAsync({ qname: "q", vt: 30 });
    expect(second).to.include({ id, rc: 2 });
    release.resolve();
    await waitFor(() => events.length > 0 && worker.counters.cancelled === 1, "the worker to find its receipt superseded");
    return { ns, sender, id, worker, events };
  }

  it("a handler that resolves after another consumer received its message: its delete answers 0 (`cancelled`, no error); the second holder deletes it", async () => {
    const { sender, id, worker, events } = await superseded(false);
    expect(events).to.deep.equal(["cancelled"]);
    expect(worker.counters).to.deep.include({ handled: 0, cancelled: 1, errors: 0 });
    // Still there, for the second holder: a delete with its receipt works, one with the first fails.
    expect(await sender.deleteMessageAsync({ qname: "q", id, rc: 1 })).to.equal(0);
    expect(await sender.deleteMessageAsync({ qname: "q", id, rc: 2 })).to.equal(1);
  });

  it("a handler that fails after another consumer received its message: its retry's hide answers 0 (`failed`, `cancelled`, no retry); the message keeps the second holder's vt", async () => {
    const { ns, sender, id, worker, events } = await superseded(true);
    expect(events).to.deep.equal(["failed", "cancelled"]);
    expect(worker.counters).to.deep.include({ failed: 1, retried: 0, cancelled: 1, errors: 0 });
    // Not re-hidden for a backoff (a second or so): still hidden for most of the second holder's 30 s.
    const client = await plainClient();
    cleanup.add(() => client.quit());
    const score = Number(await client.zScore(keysOf(ns, "q").messages, id));
    expect(score - Date.now()).to.be.above(20_000);
    expect(await sender.deleteMessageAsync({ qname: "q", id, rc: 2 })).to.equal(1);
  });
});
