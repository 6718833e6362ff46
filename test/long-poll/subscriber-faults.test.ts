/**
 * A waiting receive whose wake subscription is cut for real (CLIENT KILL TYPE pubsub on every
 * server) while it waits: the shared subscription comes back on a new connection, and a realtime
 * send from another process still ends the wait. The wait is the longest allowed (60 s), longer
 * than the test's timeout: without the subscription's return the test fails, it does not pass
 * through the final look.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { keysOf, plainClient } from "../support/server";
import { Cleanup, freshQueue, onEveryServer, sendFromChildProcess, subscribersOf, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("long polling: a wake subscription killed while a receive waits", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;

  beforeEach(async () => {
    ({ ns, rsmq } = await freshQueue(cleanup));
    rsmq.on("error", () => undefined);
  });
  afterEach(() => cleanup.run());

  async function subscribers(): Promise<number> {
    const client = await plainClient();
    try {
      return await subscribersOf(client, keysOf(ns, "q").realtimeChannel);
    } finally {
      await client.quit();
    }
  }

  /** The ids of the pub/sub connections on every server. */
  async function pubsubClients(): Promise<string[]> {
    const lists = await onEveryServer(["CLIENT", "LIST", "TYPE", "pubsub"]);
    return lists.flatMap((list) => [...String(list).matchAll(/\bid=(\d+)/g)].map((match) => match[1]));
  }

  it("subscribes again, and a realtime send from another process still ends the wait", async () => {
    const waiting = rsmq.receiveMessageAsync({ qname: "q", waitMs: 60_000 });
    let settled = false;
    void waiting.finally(() => (settled = true)).catch(() => undefined);
    await waitFor(async () => (await subscribers()) > 0, "the waiting call's subscription");
    const killed = await pubsubClients();
    await onEveryServer(["CLIENT", "KILL", "TYPE", "pubsub"]);
    // Back on a new connection: one that was not there before the kill, with the channel on it.
    await waitFor(
      async () => (await pubsubClients()).some((id) => !killed.includes(id)) && (await subscribers()) > 0,
      "the subscription back on a new connection",
    );
    expect(settled, "the kill did not end the call").to.equal(false);
    const id = await sendFromChildProcess(ns, "q", "after the kill");
    expect(await waiting).to.include({ id, message: "after the kill" });
  });
});
