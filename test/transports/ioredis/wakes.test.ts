/**
 * Realtime wakes on an ioredis client (ioredis 6 on the ioredis 6 pass, ioredis 5 otherwise:
 * run-kind.ts). ioredis 5 subscribes on a copy of the client, never on the client itself; ioredis 6
 * (RESP3) on the client's own connection, opening none. After the subscribed connection is lost
 * and comes back, the channels are subscribed again and every listener is called once, so a
 * message published while it was away (and so never heard) is handled long before the idle cap.
 * quitAsync() closes the copy, or unsubscribes rsmq's channels from the client; the client stays open.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import { createClient } from "redis";
import RedisSMQ = require("../../../lib");
import { subscribersOf } from "../../support/inspect";
import { startLocalRedis } from "../../support/redis-server";
import type { TestRedis } from "../../support/redis-server";
import { uniqueNs } from "../../support/server";
import { Cleanup, WorkerLog, sendFromChild, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";
import { runIoredis, wakesOnOwnConnection } from "./run-kind";

runsOn("single", "client");

const { Worker } = RedisSMQ;

/** Far beyond how long a wake may take: a message handled before it was woken, not found by the timer. */
const IDLE_CAP_MS = 60_000;

describe("an ioredis client: realtime wakes", function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  let server: TestRedis;
  let admin: RedisClientType;

  beforeEach(async () => {
    server = await startLocalRedis();
    admin = createClient({ url: server.url }) as RedisClientType;
    admin.on("error", () => undefined);
    await admin.connect();
  });
  afterEach(async () => {
    await cleanup.run();
    await admin.quit();
    await server.close();
  });

  it("subscribes again after the subscriber's connection is lost, and finds a message published meanwhile", async () => {
    const ns = uniqueNs("iowake");
    const channel = `${ns}:rt:q`;
    // The copy reconnects 1 s after a loss, long enough to publish while it is away.
    const client = runIoredis(server, cleanup, { retryStrategy: () => 1000 });
    const rsmq = cleanup.rsmq(new RedisSMQ({ client, ns } as never));
    rsmq.on("error", () => undefined);
    await rsmq.createQueueAsync({ qname: "q" });
    const handled: string[] = [];
    const worker = cleanup.worker(
      new Worker(rsmq, { qname: "q", maxIdleSleepMs: IDLE_CAP_MS, handler: (message) => void handled.push(message.message) }),
    );
    worker.on("error", () => undefined);
    const log = new WorkerLog(worker);
    worker.start();
    await waitFor(async () => (await subscribersOf(admin, channel)) === 1 && log.asleep, "the worker listening and asleep");

    // Only one connection is in pub/sub mode: the copy (ioredis 5), or the client's own (ioredis 6).
    expect(await admin.sendCommand(["CLIENT", "KILL", "TYPE", "pubsub"])).to.equal(1);
    await waitFor(async () => (await subscribersOf(admin, channel)) === 0, "the subscription gone");
    // From another process, straight to the server: published to nobody.
    await sendFromChild({ host: server.host, port: server.port, ns }, ["q"], "missed");
    await waitFor(() => handled.includes("missed"), "the message sent while the subscriber was away", 10_000);
    expect(await subscribersOf(admin, channel)).to.equal(1);
    expect(client.status).to.equal("ready");
  });

  const closes = wakesOnOwnConnection()
    ? "subscribes on the client's own connection, opening none, and unsubscribes on quitAsync(), leaving the client open"
    : "closes the subscriber copy on quitAsync() and leaves the client open";
  it(closes, async () => {
    const ns = uniqueNs("iowake");
    const client = runIoredis(server, cleanup, { connectionName: ns });
    const rsmq = new RedisSMQ({ client, ns } as never);
    await rsmq.createQueueAsync({ qname: "q" });
    const worker = new Worker(rsmq, { qname: "q", maxIdleSleepMs: IDLE_CAP_MS, handler: () => undefined });
    const log = new WorkerLog(worker);
    worker.start();
    const named = async (): Promise<string[]> =>
      (await admin.sendCommand<string>(["CLIENT", "LIST"]))
        .split("\n")
        .filter((line) => line.includes(` name=${ns} `))
        .map((line) => / sub=(\d+)/.exec(line)![1]);
    // `sub=` of each connection named so: the copy holds the wake and realtime channels, or the client does.
    const subscribed = wakesOnOwnConnection() ? "2" : "0,2";
    await waitFor(async () => (await named()).sort().join() === subscribed && log.asleep, "the wake and realtime channels subscribed");
    await rsmq.quitAsync();
    await waitFor(async () => (await named()).join() === "0", "only the client left");
    expect(await client.ping()).to.equal("PONG");
  });
});
