/**
 * Realtime wakes on an ioredis 6 client's own RESP3 connection (same-connection-subscriber.ts),
 * beside the caller's own use of it: the caller's subscriptions and `message` listeners keep
 * working (and hear rsmq's wake messages too, which they should ignore), commands run while the
 * connection is subscribed, and quitAsync() unsubscribes rsmq's channels only. Two instances on
 * one client share a channel; `autoResubscribe: false` is made up for; a client not ready when the
 * Worker subscribes (its server down) is looked at once it is; `protocol: 2`, or a server that refuses HELLO 3,
 * subscribes on a copy, as ioredis 5 does.
 */
import { expect } from "chai";
import { mkdtempSync, rmSync } from "fs";
import Redis6 from "ioredis6";
import { tmpdir } from "os";
import { join } from "path";
import type { RedisClientType } from "redis";
import { createClient } from "redis";
import RedisSMQ = require("../../../lib");
import { openIoredisSubscriber } from "../../../lib/transports/ioredis/wake-subscriber";
import { subscribersOf } from "../../support/inspect";
import { startLocalRedis } from "../../support/redis-server";
import type { TestRedis } from "../../support/redis-server";
import { uniqueNs } from "../../support/server";
import { Cleanup, WorkerLog, sendFromChild, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("single");

const { Worker } = RedisSMQ;

/** Far beyond how long a wake may take: a message handled before it was woken, not found by the timer. */
const IDLE_CAP_MS = 60_000;

/** The defaults of offlineTimeoutMs and commandTimeoutMs. */
const BOUNDS = { offlineTimeoutMs: 20_000, commandTimeoutMs: 5_000 };

describe("an ioredis 6 client: wakes on its own connection", function () {
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

  function ioredis6(options: Record<string, unknown> = {}): Redis6 {
    const client = new Redis6({ host: server.host, port: server.port, ...options });
    client.on("error", () => undefined);
    cleanup.add(async () => client.disconnect());
    return client;
  }

  /** `sub=` of each connection named `name` (CLIENT LIST), sorted. */
  async function subscriptionsNamed(name: string): Promise<string> {
    const list = await admin.sendCommand<string>(["CLIENT", "LIST"]);
    return list
      .split("\n")
      .filter((line) => line.includes(` name=${name} `))
      .map((line) => / sub=(\d+)/.exec(line)![1])
      .sort()
      .join();
  }

  /** A Worker on queue "q" of `rsmq`, started and asleep with its wake and realtime channels subscribed. */
  async function sleepingWorker(rsmq: RedisSMQ, ns: string) {
    const handled: string[] = [];
    const worker = cleanup.worker(
      new Worker(rsmq, { qname: "q", maxIdleSleepMs: IDLE_CAP_MS, handler: (message) => void handled.push(message.message) }),
    );
    worker.on("error", () => undefined);
    const log = new WorkerLog(worker);
    worker.start();
    await waitFor(async () => (await subscribersOf(admin, `${ns}:rt:q`)) === 1 && log.asleep, "the worker listening and asleep");
    return { worker, log, handled };
  }

  it("beside the caller's own subscription and listener: both hear theirs, commands run, quitAsync() unsubscribes rsmq's channels only", async () => {
    const ns = uniqueNs("io6");
    const client = ioredis6({ connectionName: ns });
    const heard: string[] = [];
    client.on("message", (channel: string, message: string) => void heard.push(`${channel} ${message}`));
    await client.subscribe("app:news");
    const rsmq = new RedisSMQ({ client, ns } as never);
    await rsmq.createQueueAsync({ qname: "q" });
    const { worker, log, handled } = await sleepingWorker(rsmq, ns);
    // One connection, the caller's: the caller's channel and rsmq's two.
    expect(await subscriptionsNamed(ns)).to.equal("3");

    await admin.publish("app:news", "for the app");
    await waitFor(() => heard.includes("app:news for the app"), "the caller's listener to hear its channel");
    await sendFromChild({ host: server.host, port: server.port, ns }, ["q"], "for the worker");
    await waitFor(() => handled.includes("for the worker"), "the worker woken by the send", 5_000);
    expect(log.named("wake").map((event) => event.args[0])).to.include("woken");
    // What the caller's listener sees of rsmq: the realtime publish on `<ns>:rt:q` (the queue's length).
    expect(heard.filter((entry) => entry.startsWith(`${ns}:rt:q `))).to.deep.equal([`${ns}:rt:q 1`]);
    expect(heard.filter((entry) => !entry.startsWith(`${ns}:`))).to.deep.equal(["app:news for the app"]);
    // Commands still run on the subscribed connection.
    expect(await client.set(`${ns}:app`, "v")).to.equal("OK");
    expect(await client.get(`${ns}:app`)).to.equal("v");

    await worker.stop();
    await rsmq.quitAsync();
    expect(await subscriptionsNamed(ns)).to.equal("1");
    expect(await subscribersOf(admin, `${ns}:rt:q`)).to.equal(0);
    expect(await subscribersOf(admin, "app:news")).to.equal(1);
    await admin.publish("app:news", "still heard");
    await waitFor(() => heard.includes("app:news still heard"), "the caller's listener after quitAsync()");
    expect(client.status).to.equal("ready");
  });

  it("two instances on one client share the channels: the first to quit leaves the other's Worker listening", async () => {
    const ns = uniqueNs("io6");
    const client = ioredis6({ connectionName: ns });
    const first = new RedisSMQ({ client, ns } as never);
    const second = cleanup.rsmq(new RedisSMQ({ client, ns } as never));
    await first.createQueueAsync({ qname: "q" });
    const one = await sleepingWorker(first, ns);
    const two = await sleepingWorker(second, ns);
    await one.worker.stop();
    await first.quitAsync();
    expect(await subscribersOf(admin, `${ns}:rt:q`)).to.equal(1);
    expect(await subscriptionsNamed(ns)).to.equal("2");
    await sendFromChild({ host: server.host, port: server.port, ns }, ["q"], "for the second");
    await waitFor(() => two.handled.includes("for the second"), "the second instance's worker woken", 5_000);
    expect(one.handled).to.deep.equal([]);
  });

  it("with autoResubscribe: false, subscribes again itself after a reconnect and finds a message published meanwhile", async () => {
    const ns = uniqueNs("io6");
    // Reconnects 1 s after a loss, long enough to publish while it is away.
    const client = ioredis6({ autoResubscribe: false, retryStrategy: () => 1000 });
    const rsmq = cleanup.rsmq(new RedisSMQ({ client, ns } as never));
    rsmq.on("error", () => undefined);
    await rsmq.createQueueAsync({ qname: "q" });
    const { handled } = await sleepingWorker(rsmq, ns);
    expect(await admin.sendCommand(["CLIENT", "KILL", "TYPE", "pubsub"])).to.equal(1);
    await waitFor(async () => (await subscribersOf(admin, `${ns}:rt:q`)) === 0, "the subscription gone");
    await sendFromChild({ host: server.host, port: server.port, ns }, ["q"], "missed");
    await waitFor(() => handled.includes("missed"), "the message sent while the client was away", 10_000);
    await waitFor(async () => (await subscribersOf(admin, `${ns}:rt:q`)) === 1, "subscribed again");
  });

  it("not ready when the wake subscriber is opened (its server down): subscribes on its own connection once ready", async () => {
    const down = await persistentServer();
    const ns = uniqueNs("io6");
    const client = await queueAndClient(down.redis, ns);
    const { subscriber, heard } = await subscribeWhileDown(down, client, `${ns}:rt:q`);
    expect(await down.subscriptionsNamed(ns)).to.equal("1");
    expect(await client.set(`${ns}:still`, "usable")).to.equal("OK");
    await down.inspector.publish(`${ns}:rt:q`, "hello");
    await waitFor(() => heard.includes("hello"), "the message on the client's own connection");
    await subscriber.close();
    expect(await down.subscriptionsNamed(ns)).to.equal("0");
  });

  it("with protocol: 2 subscribes on a copy, as with ioredis 5, and closes it on quitAsync()", async () => {
    const ns = uniqueNs("io6");
    const client = ioredis6({ protocol: 2, connectionName: ns });
    const rsmq = new RedisSMQ({ client, ns } as never);
    await rsmq.createQueueAsync({ qname: "q" });
    const { worker } = await sleepingWorker(rsmq, ns);
    expect(await subscriptionsNamed(ns)).to.equal("0,2");
    await worker.stop();
    await rsmq.quitAsync();
    await waitFor(async () => (await subscriptionsNamed(ns)) === "0", "only the client left");
    expect(await client.ping()).to.equal("PONG");
  });

  it("on a server that refuses HELLO 3 (the client falls back to RESP2): a Worker subscribes on a copy", async () => {
    // HELLO renamed away: "unknown command", as from a server before Redis 6.
    const old = await persistentServer(["--rename-command", "HELLO", ""]);
    const ns = uniqueNs("io6");
    const client = await queueAndClient(old.redis, ns);
    const rsmq = cleanup.rsmq(new RedisSMQ({ client, ns } as never));
    await client.ping();
    const { log, handled } = sleepingWorkerOn(rsmq);
    await waitFor(async () => (await old.subscriptionsNamed(ns)) === "0,2" && log.asleep, "the client, and its copy holding both channels");
    // The client itself is not in (RESP2) subscriber mode.
    expect(await client.set(`${ns}:still`, "usable")).to.equal("OK");
    await sendFromChild({ host: old.redis.host, port: old.redis.port, ns }, ["q"], "woken");
    await waitFor(() => handled.includes("woken"), "the worker woken", 5_000);
  });

  it("on a server that refuses HELLO 3, not ready when the wake subscriber is opened: subscribes on a copy once ready", async () => {
    const old = await persistentServer(["--rename-command", "HELLO", ""]);
    const ns = uniqueNs("io6");
    const client = await queueAndClient(old.redis, ns);
    const { subscriber, heard } = await subscribeWhileDown(old, client, `${ns}:rt:q`);
    expect(await old.subscriptionsNamed(ns)).to.equal("0,1");
    expect(await client.set(`${ns}:still`, "usable")).to.equal("OK");
    await old.inspector.publish(`${ns}:rt:q`, "hello");
    await waitFor(() => heard.includes("hello"), "the message on the copy");
    await subscriber.close();
    await waitFor(async () => (await old.subscriptionsNamed(ns)) === "0", "the copy closed");
  });

  /** A redis-server of the test's own that keeps its data over a restart (AOF), and a client to look at it. */
  async function persistentServer(args: string[] = []) {
    const dir = mkdtempSync(join(tmpdir(), "rsmq-next-io6-"));
    const redis = await startLocalRedis({ dir, args: ["--appendonly", "yes", "--appendfsync", "always", ...args] });
    const inspector = createClient({ url: redis.url }) as RedisClientType;
    inspector.on("error", () => undefined);
    await inspector.connect();
    cleanup.add(async () => {
      await inspector.disconnect().catch(() => undefined);
      await redis.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const subscriptionsNamed = async (name: string): Promise<string> =>
      (await inspector.sendCommand<string>(["CLIENT", "LIST"]))
        .split("\n")
        .filter((line) => line.includes(` name=${name} `))
        .map((line) => / sub=(\d+)/.exec(line)![1])
        .sort()
        .join();
    return { redis, inspector, subscriptionsNamed };
  }

  /** Queue "q" made on `redis`, and an ioredis 6 client there named `ns` that retries every 100 ms. */
  async function queueAndClient(redis: TestRedis, ns: string): Promise<Redis6> {
    const setup = new RedisSMQ({ host: redis.host, port: redis.port, ns });
    await setup.createQueueAsync({ qname: "q" });
    await setup.quitAsync();
    const client = new Redis6({ host: redis.host, port: redis.port, connectionName: ns, retryStrategy: () => 100 });
    client.on("error", () => undefined);
    cleanup.add(async () => client.disconnect());
    return client;
  }

  /** A Worker on queue "q" of `rsmq`, started. */
  function sleepingWorkerOn(rsmq: RedisSMQ) {
    const handled: string[] = [];
    const worker = cleanup.worker(
      new Worker(rsmq, { qname: "q", maxIdleSleepMs: IDLE_CAP_MS, handler: (message) => void handled.push(message.message) }),
    );
    worker.on("error", () => undefined);
    const log = new WorkerLog(worker);
    worker.start();
    return { worker, log, handled };
  }

  /**
   * Opens the wake subscriber of `client` (as a RedisSMQ does on its first subscription) while its
   * server is down, and subscribes `channel`: the subscription waits for the client to be ready.
   * The server comes back once the client has failed to reconnect twice since.
   */
  async function subscribeWhileDown(server: Awaited<ReturnType<typeof persistentServer>>, client: Redis6, channel: string) {
    await server.redis.stopProcess();
    await waitFor(() => client.status === "reconnecting", "the client to see its server gone");
    let attempts = 0;
    const onReconnecting = (): void => void attempts++;
    client.on("reconnecting", onReconnecting);
    const errors: Error[] = [];
    const subscriber = openIoredisSubscriber(client as never, (error) => errors.push(error), BOUNDS, undefined);
    cleanup.add(() => subscriber.close());
    const heard: Array<string | undefined> = [];
    const subscribed = subscriber.subscribe(channel, (message) => heard.push(message));
    await waitFor(() => attempts >= 2, "two reconnect attempts since the subscriber opened");
    client.off("reconnecting", onReconnecting);
    expect(client.status).to.not.equal("ready");
    await server.redis.startProcess();
    await subscribed;
    expect(errors).to.deep.equal([]);
    return { subscriber, heard };
  }
});
