/**
 * Realtime wakes on an ioredis client: the Worker subscribes on a copy of the client, never on the
 * client itself; after the copy's connection is lost and comes back, it subscribes again and calls
 * every listener once, so a message published while it was away (and so never heard) is handled
 * long before the idle cap. The copy is closed by quitAsync(); the client is not.
 */
import { expect } from "chai";
import Redis from "ioredis";
import type { RedisClientType } from "redis";
import { createClient } from "redis";
import RedisSMQ = require("../../../lib");
import { subscribersOf } from "../../support/inspect";
import { startLocalRedis } from "../../support/redis-server";
import type { TestRedis } from "../../support/redis-server";
import { uniqueNs } from "../../support/server";
import { Cleanup, WorkerLog, sendFromChild, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

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
    const client = new Redis({ host: server.host, port: server.port, retryStrategy: () => 1000 });
    client.on("error", () => undefined);
    cleanup.add(async () => client.disconnect());
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

    // Only the subscriber connection is in pub/sub mode: the client itself stays connected.
    expect(await admin.sendCommand(["CLIENT", "KILL", "TYPE", "pubsub"])).to.equal(1);
    await waitFor(async () => (await subscribersOf(admin, channel)) === 0, "the subscription gone");
    // From another process, straight to the server: published to nobody.
    await sendFromChild({ host: server.host, port: server.port, ns }, ["q"], "missed");
    await waitFor(() => handled.includes("missed"), "the message sent while the subscriber was away", 10_000);
    expect(await subscribersOf(admin, channel)).to.equal(1);
    expect(client.status).to.equal("ready");
  });

  it("closes the subscriber copy on quitAsync() and leaves the client open", async () => {
    const ns = uniqueNs("iowake");
    const client = new Redis({ host: server.host, port: server.port, connectionName: ns });
    client.on("error", () => undefined);
    cleanup.add(async () => client.disconnect());
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
    await waitFor(
      async () => (await named()).sort().join() === "0,2" && log.asleep,
      "the client and its copy subscribed to the wake and realtime channels",
    );
    await rsmq.quitAsync();
    await waitFor(async () => (await named()).join() === "0", "only the client left");
    expect(await client.ping()).to.equal("PONG");
  });
});
