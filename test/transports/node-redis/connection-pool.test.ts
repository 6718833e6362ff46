/**
 * `connections`: several command connections to one server behind one instance, opened at once
 * when asked for, and by default one with a second opened only under load. Counted with CLIENT
 * LIST (each instance names its connections), the wire read with MONITOR (which names the client
 * address of every command) and a counting proxy; a member's socket is killed for real (CLIENT
 * KILL ID), a connection refused for real (maxclients). The ordering rule is made deterministic
 * with CLIENT PAUSE: while the server holds every call, what is in flight on each connection is
 * known exactly.
 */
import { expect } from "chai";
import { spawn } from "child_process";
import type { ChildProcess } from "child_process";
import type { Socket } from "net";
import { join } from "path";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../../lib");
import { ConnectionPool } from "../../../lib/transports/node-redis/connection-pool";
import { resolveConstructorOptions } from "../../../lib/options/constructor-options";
import { LatencyProxy } from "../../../bench/latency-proxy";
import { openMonitor } from "../../support/monitor-socket";
import { rejectionOf } from "../../support/old-rsmq";
import { singleServerClient, singleServerOnly, singleServerOptions, uniqueNs } from "../../support/server";
import { startLocalRedis } from "../../support/redis-server";
import { Cleanup, waitFor, WorkerLog } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("single");

const WHY = "counts and kills connections of one server";

/** A command MONITOR saw: who sent it (client address) and its arguments. */
interface Seen {
  address: string;
  args: string[];
}

/** MONITOR on the single server, keeping each command's client address (scripts' own calls left out). */
async function watchAddresses(): Promise<{ seen: Seen[]; close(): void }> {
  const { host, port } = singleServerOptions("unused");
  const seen: Seen[] = [];
  const socket: Socket = await openMonitor(host, port, (line) => {
    const head = /^\d+\.\d+ \[\d+ ([^\]]+)\] /.exec(line);
    if (!head || head[1] === "lua") return;
    const args = [...line.slice(head[0].length).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]);
    seen.push({ address: head[1], args: [args[0].toLowerCase(), ...args.slice(1)] });
  });
  return { seen, close: () => socket.destroy() };
}

/** The CLIENT LIST lines of connections named `name`. */
async function clientsNamed(probe: RedisClientType, name: string): Promise<Array<{ id: string; address: string }>> {
  const list = await probe.sendCommand<string>(["CLIENT", "LIST"]);
  return list
    .split("\n")
    .filter((line) => line.includes(` name=${name} `))
    .map((line) => ({ id: /^id=(\d+)/.exec(line)![1], address: / addr=(\S+)/.exec(line)![1] }));
}

/** Resolves on the next turn of the event loop: what is called after it is another synchronous stretch. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The clients of an instance's connections (not public: `rsmq.redis` is the first). */
function poolClients(rsmq: RedisSMQ): RedisClientType[] {
  const { transport } = rsmq as unknown as { transport: { clients?: RedisClientType[]; client: RedisClientType } };
  return transport.clients ?? [transport.client];
}

/** An instance once every one of its connections is up (`connect` tells the first). */
async function connected(rsmq: RedisSMQ): Promise<RedisSMQ> {
  await waitFor(() => poolClients(rsmq).every((client) => client.isReady), "every connection up");
  return rsmq;
}

describe("connections: several command connections per instance", () => {
  const cleanup = new Cleanup();
  let probe: RedisClientType;
  let ns: string;
  let name: string;

  beforeEach(async function () {
    singleServerOnly(this, WHY);
    ns = uniqueNs("pool");
    name = `conn-${ns}`;
    probe = await singleServerClient();
    cleanup.add(() => probe.quit());
  });
  afterEach(() => cleanup.run());

  it("opens as many as asked at once, each call one command in one round trip, and quitAsync closes them all", async () => {
    const two = cleanup.rsmq(await connected(new RedisSMQ({ ...singleServerOptions(ns), name, connections: 2 })));
    expect(poolClients(two)).to.have.length(2);
    expect(await clientsNamed(probe, name)).to.have.length(2);
    await two.quitAsync();
    await waitFor(async () => (await clientsNamed(probe, name)).length === 0, "both connections closed");

    const proxy = await LatencyProxy.start(singleServerOptions(ns), 0);
    cleanup.add(() => proxy.close());
    const rsmq = cleanup.rsmq(await connected(new RedisSMQ({ ...singleServerOptions(ns), ...proxy.endpoint, name, connections: 3 })));
    expect(await clientsNamed(probe, name)).to.have.length(3);
    expect(rsmq.connected).to.equal(true);
    await rsmq.createQueueAsync({ qname: "q" });
    const calls: Array<[string, () => Promise<unknown>]> = [
      ["sendMessage", () => rsmq.sendMessageAsync({ qname: "q", message: "m" })],
      ["receiveMessage", () => rsmq.receiveMessageAsync({ qname: "q" })],
      ["getQueueAttributes", () => rsmq.getQueueAttributesAsync({ qname: "q" })],
      ["listQueues", () => rsmq.listQueuesAsync()],
    ];
    // Once to load the scripts (a first EVALSHA answers NOSCRIPT), then counted.
    for (const [, run] of calls) await run();
    for (const [call, run] of calls) {
      proxy.resetCount();
      await run();
      expect(proxy.roundTrips, call).to.equal(1);
    }
    await rsmq.quitAsync();
    await waitFor(async () => (await clientsNamed(probe, name)).length === 0, "all three connections closed");
  });

  it("uses a node-redis v4 client passed in alone, unless `connections` asks for more: then duplicates it, closes the duplicates and leaves the client open", async () => {
    const client = createClient({ url: `redis://${singleServerOptions(ns).host}:${singleServerOptions(ns).port}`, name });
    client.on("error", () => undefined);
    await client.connect();
    cleanup.add(() => client.quit());
    const alone = cleanup.rsmq(await connected(new RedisSMQ({ client, ns })));
    expect(await clientsNamed(probe, name)).to.have.length(1);
    expect(alone.redis).to.equal(client);
    await alone.quitAsync();

    const pooled = cleanup.rsmq(await connected(new RedisSMQ({ client, ns, connections: 3 })));
    expect(await clientsNamed(probe, name)).to.have.length(3);
    expect(pooled.redis).to.equal(client);
    await pooled.createQueueAsync({ qname: "q" });
    await pooled.quitAsync();
    await waitFor(async () => (await clientsNamed(probe, name)).length === 1, "the two duplicates closed");
    expect(client.isReady).to.equal(true);
    expect(await client.ping()).to.equal("PONG");
  });

  it("keeps the order of calls made without an `await` between them: they go on one connection, while other stretches spread", async () => {
    const rsmq = cleanup.rsmq(await connected(new RedisSMQ({ ...singleServerOptions(ns), name, connections: 4 })));
    await rsmq.createQueueAsync({ qname: "a" });
    await rsmq.createQueueAsync({ qname: "b" });
    const monitor = await watchAddresses();
    cleanup.add(async () => monitor.close());
    // The server holds every call for a while, so what each connection has in flight is exact.
    await probe.sendCommand(["CLIENT", "PAUSE", "300", "ALL"]);
    // Stretch 1: three sends, all on the first connection (all idle).
    const first = [1, 2, 3].map((n) => rsmq.sendMessageAsync({ qname: "a", message: `a${n}` }));
    await nextTurn();
    // Stretch 2: send, receive, send, receive. Fewest in flight per call would put each on another
    // connection, where the receive could run before the send; held on one, they run in order.
    const second = [
      rsmq.sendMessageAsync({ qname: "b", message: "b1" }),
      rsmq.receiveMessageAsync({ qname: "b" }),
      rsmq.sendMessageAsync({ qname: "b", message: "b2" }),
      rsmq.receiveMessageAsync({ qname: "b" }),
    ];
    const results = await Promise.all([...first, ...second]);
    expect((results[4] as { message: string }).message).to.equal("b1");
    expect((results[6] as { message: string }).message).to.equal("b2");
    await waitFor(() => monitor.seen.filter((command) => command.args[0] === "evalsha").length === 7, "the seven calls monitored");
    const scripts = monitor.seen.filter((command) => command.args[0] === "evalsha");
    const stretchOne = new Set(
      scripts
        .filter((command) => command.args.includes("a1") || command.args.includes("a2") || command.args.includes("a3"))
        .map((c) => c.address),
    );
    const stretchTwo = new Set(scripts.filter((command) => command.args.some((arg) => arg.endsWith(":b"))).map((c) => c.address));
    expect(stretchOne.size, "stretch 1 on one connection").to.equal(1);
    expect(stretchTwo.size, "stretch 2 on one connection").to.equal(1);
    expect([...stretchTwo][0], "stretch 2 on another connection than the busy one").to.not.equal([...stretchOne][0]);
  });

  it("spreads calls made in the continuations of replies that arrived together, one connection each", async () => {
    const rsmq = cleanup.rsmq(await connected(new RedisSMQ({ ...singleServerOptions(ns), name, connections: 2 })));
    await rsmq.createQueueAsync({ qname: "q" });
    // The script loaded first: on a fresh server each send's NOSCRIPT retry would spread the calls anyway.
    await rsmq.sendMessageAsync({ qname: "q", message: "loads the script" });
    const monitor = await watchAddresses();
    cleanup.add(async () => monitor.close());
    // Twenty sends in one stretch (one connection), held by the server so their replies come together;
    // each lane then sends once more from its own continuation.
    await probe.sendCommand(["CLIENT", "PAUSE", "200", "ALL"]);
    await Promise.all(
      Array.from({ length: 20 }, async (_, lane) => {
        await rsmq.sendMessageAsync({ qname: "q", message: `first${lane}` });
        await rsmq.sendMessageAsync({ qname: "q", message: `then${lane}` });
      }),
    );
    // Counted by message: the runner's one question of the user's rights (an EVALSHA of its own, after
    // 32 checking scripts) and a first run of a script's second text (NOSCRIPT) are not sends.
    const sent = (): number =>
      new Set(monitor.seen.flatMap(({ args }) => (args[0] === "evalsha" ? args.filter((arg) => /^(first|then)\d+$/.test(arg)) : []))).size;
    await waitFor(() => sent() === 40, "the forty sends monitored");
    const perAddress = new Map<string, number>();
    for (const { address, args } of monitor.seen) {
      if (args[0] === "evalsha" && args.some((arg) => arg.startsWith("then"))) perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    }
    expect(perAddress.size, "the follow-ups on both connections").to.equal(2);
    for (const [address, count] of perAddress) expect(count, address).to.be.at.least(5);
  });

  it("sends each write's WAIT (waitForReplicas) on the connection that ran the write", async () => {
    const rsmq = cleanup.rsmq(
      await connected(new RedisSMQ({ ...singleServerOptions(ns), name, connections: 3, waitForReplicas: 1, waitForReplicasMs: 20 })),
    );
    await rejectionOf(rsmq.createQueueAsync({ qname: "q" }));
    const monitor = await watchAddresses();
    cleanup.add(async () => monitor.close());
    await probe.sendCommand(["CLIENT", "PAUSE", "200", "ALL"]);
    const calls: Array<Promise<Error>> = [];
    for (let stretch = 0; stretch < 3; stretch += 1) {
      for (let n = 0; n < 4; n += 1) calls.push(rejectionOf(rsmq.sendMessageAsync({ qname: "q", message: `m${stretch}${n}` })));
      await nextTurn();
    }
    // No replica on the single server: every write stands, unconfirmed.
    for (const error of await Promise.all(calls)) expect(error.name).to.equal("replicationTimeout");
    await waitFor(() => monitor.seen.filter((command) => command.args[0] === "wait").length === 12, "the twelve WAITs monitored");
    const perAddress = new Map<string, { evalsha: number; wait: number }>();
    for (const { address, args } of monitor.seen) {
      if (args[0] !== "evalsha" && args[0] !== "wait") continue;
      const counts = perAddress.get(address) ?? { evalsha: 0, wait: 0 };
      counts[args[0]] += 1;
      perAddress.set(address, counts);
    }
    expect(perAddress.size, "the writes spread over the three connections").to.equal(3);
    for (const [address, counts] of perAddress) expect(counts, address).to.deep.equal({ evalsha: 4, wait: 4 });
  });

  it("goes on when one connection is killed: calls go on the others, its error is emitted, `connected` stays true", async () => {
    const rsmq = cleanup.rsmq(await connected(new RedisSMQ({ ...singleServerOptions(ns), name, connections: 2 })));
    await rsmq.createQueueAsync({ qname: "q" });
    const events: string[] = [];
    rsmq.on("connect", () => events.push("connect"));
    rsmq.on("disconnect", () => events.push("disconnect"));
    rsmq.on("error", (error) => events.push(`error ${error.message}`));
    const firstId = String(await rsmq.redis.sendCommand(["CLIENT", "ID"]));
    const otherId = (await clientsNamed(probe, name)).find((client) => client.id !== firstId)!.id;
    // The second connection, then the first (`rsmq.redis`).
    for (const [killed, index] of [
      [otherId, 1],
      [firstId, 0],
    ] as const) {
      events.length = 0;
      await probe.sendCommand(["CLIENT", "KILL", "ID", killed]);
      await waitFor(() => events.length > 0, "the lost connection noticed");
      // Calls made at once, while the lost connection comes back, all succeed.
      expect(rsmq.connected).to.equal(true);
      const ids = await Promise.all(Array.from({ length: 20 }, (_, n) => rsmq.sendMessageAsync({ qname: "q", message: `m${n}` })));
      expect(new Set(ids).size).to.equal(20);
      await waitFor(() => poolClients(rsmq)[index].isReady, "the lost connection back");
      expect(events).to.deep.equal(["error Socket closed unexpectedly"]);
      expect(await clientsNamed(probe, name)).to.have.length(2);
    }
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(40);
  });

  it("counts a reconnect of any member as a new connection epoch; an outage of all is one disconnect and its error emitted once", async () => {
    const proxy = await LatencyProxy.start(singleServerOptions(ns), 0);
    cleanup.add(() => proxy.close());
    const settings = resolveConstructorOptions({ ...singleServerOptions(ns), ...proxy.endpoint, name, connections: 2 }).connection;
    const events: string[] = [];
    const pool = new ConnectionPool(settings, 2, {
      connect: () => events.push("connect"),
      disconnect: () => events.push("disconnect"),
      error: (error) => events.push(`error ${error.message}`),
    });
    cleanup.add(() => pool.close());
    await waitFor(() => pool.clients.every((client) => client.isReady), "both connections up");
    expect(events).to.deep.equal(["connect"]);
    expect(pool.connectionEpoch).to.equal(0);
    const [, second] = await clientsNamed(probe, name);
    await probe.sendCommand(["CLIENT", "KILL", "ID", second.id]);
    await waitFor(() => pool.connectionEpoch === 1 && pool.clients[1].isReady, "the second connection back");
    events.length = 0;
    // The server gone for both (the proxy stops): one disconnect, the same error from both once.
    await proxy.close();
    await waitFor(() => events.filter((event) => event.includes("ECONNREFUSED")).length >= 2, "reconnect attempts refused");
    expect(pool.connected).to.equal(false);
    expect(events.filter((event) => event === "disconnect")).to.have.length(1);
    expect(events.filter((event) => event === "error Socket closed unexpectedly")).to.have.length(1);
    expect(events).to.not.include("connect");
  });
});

/** This instance's connections at the server: command connections, and wake subscriptions. */
async function footprint(probe: RedisClientType, name: string): Promise<{ commands: number; subscriptions: number }> {
  const list = await probe.sendCommand<string>(["CLIENT", "LIST"]);
  const lines = list.split("\n").filter((line) => line.includes(` name=${name} `));
  const subscribed = (line: string): boolean => / sub=[1-9]/.test(line) || / psub=[1-9]/.test(line);
  return { commands: lines.filter((line) => !subscribed(line)).length, subscriptions: lines.filter(subscribed).length };
}

/** A pool that grows as by default, but gives an idle extra connection up after `idleMs`. */
function growingPool(options: Record<string, unknown>, idleMs: number): { pool: ConnectionPool; events: string[] } {
  const settings = resolveConstructorOptions(options).connection;
  const events: string[] = [];
  const pool = new ConnectionPool(settings, settings.connections, record(events), { ...settings.growth!, idleMs });
  return { pool, events };
}

function record(events: string[]): { connect(): void; disconnect(): void; error(error: Error): void } {
  return {
    connect: () => events.push("connect"),
    disconnect: () => events.push("disconnect"),
    error: (error) => events.push(`error ${error.message}`),
  };
}

/** Calls made in one synchronous stretch, enough to open the second connection. */
function burst<T>(count: number, call: (n: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, n) => call(n)));
}

describe("connections left out: one command connection, a second one only under load", () => {
  const cleanup = new Cleanup();
  let probe: RedisClientType;
  let ns: string;
  let name: string;

  beforeEach(async function () {
    singleServerOnly(this, WHY);
    ns = uniqueNs("grow");
    name = `grow-${ns}`;
    probe = await singleServerClient();
    cleanup.add(() => probe.quit());
  });
  afterEach(() => cleanup.run());

  it("holds one command connection, as rsmq 0.12.4 does: fresh, after calls one at a time, and beside a Worker (plus its wake subscription)", async () => {
    const rsmq = cleanup.rsmq(await connected(new RedisSMQ({ ...singleServerOptions(ns), name })));
    expect(await footprint(probe, name)).to.deep.equal({ commands: 1, subscriptions: 0 });
    await rsmq.createQueueAsync({ qname: "q" });
    for (let n = 0; n < 5; n += 1) {
      const id = await rsmq.sendMessageAsync({ qname: "q", message: `m${n}` });
      await rsmq.getQueueAttributesAsync({ qname: "q" });
      await rsmq.receiveMessageAsync({ qname: "q" });
      await rsmq.deleteMessageAsync({ qname: "q", id });
      await rsmq.listQueuesAsync();
    }
    expect(await footprint(probe, name)).to.deep.equal({ commands: 1, subscriptions: 0 });

    // A Worker at concurrency 50 has one call in flight at a time (a receive, then the batch's deletes in one call).
    const handled: string[] = [];
    const worker = cleanup.worker(
      new RedisSMQ.Worker(rsmq, {
        qname: "q",
        concurrency: 50,
        maxIdleSleepMs: 100,
        handler: (message) => void handled.push(message.message),
      }),
    );
    const log = new WorkerLog(worker);
    worker.start();
    await waitFor(() => log.count("sleep") >= 3, "the Worker idle, three looks");
    expect(await footprint(probe, name)).to.deep.equal({ commands: 1, subscriptions: 1 });
    // Sent by another instance (one connection, unnamed), all at once.
    const producer = cleanup.rsmq(new RedisSMQ({ ...singleServerOptions(ns), connections: 1 }));
    await burst(200, (n) => producer.sendMessageAsync({ qname: "q", message: `w${n}` }));
    await waitFor(() => handled.length === 200, "the 200 messages handled");
    await waitFor(() => log.asleep, "the Worker idle again");
    expect(await footprint(probe, name)).to.deep.equal({ commands: 1, subscriptions: 1 });
  });

  it("opens a second connection while calls pile up, spreads calls over both, closes it after an idle period, and emits nothing for it", async () => {
    const { pool, events } = growingPool({ ...singleServerOptions(ns), name }, 1000);
    cleanup.add(() => pool.close());
    const monitor = await watchAddresses();
    cleanup.add(async () => monitor.close());
    await waitFor(() => pool.connected, "the first connection up");
    expect(pool.clients).to.have.length(1);
    // One at a time: never more than one.
    for (let n = 0; n < 20; n += 1) await pool.sendCommand(["PING"]);
    expect(pool.clients).to.have.length(1);
    // Many at once: a second opens, and takes calls once it is up.
    await burst(20, () => pool.sendCommand(["PING"]));
    await waitFor(async () => (await footprint(probe, name)).commands === 2, "a second connection open");
    await waitFor(() => pool.clients.every((client) => client.isReady), "the second connection up");
    // Two stretches: the first's calls, in flight on one connection, send the second's to the other.
    const spread = burst(10, (n) => pool.sendCommand(["ECHO", `spread${n}`]));
    pool.handover.startNewStretch();
    await Promise.all([spread, burst(10, (n) => pool.sendCommand(["ECHO", `spread${10 + n}`]))]);
    await waitFor(() => monitor.seen.filter((command) => command.args[0] === "echo").length === 20, "the 20 ECHOs monitored");
    expect(new Set(monitor.seen.filter((command) => command.args[0] === "echo").map((command) => command.address)).size).to.equal(2);
    // Calls one at a time go on the first: the second, idle, is closed, and not opened again.
    while ((await footprint(probe, name)).commands === 2) await pool.sendCommand(["PING"]);
    expect(pool.clients).to.have.length(1);
    expect(pool.connectionEpoch).to.equal(0);
    expect(events).to.deep.equal(["connect"]);
    // Under load again: open again.
    await burst(20, () => pool.sendCommand(["PING"]));
    await waitFor(async () => (await footprint(probe, name)).commands === 2, "a second connection open again");
    await pool.close();
    expect(await footprint(probe, name)).to.deep.equal({ commands: 0, subscriptions: 0 });
    expect(events).to.deep.equal(["connect", "disconnect"]);
  });

  it("keeps the order of calls made without an `await` between them while the second connection opens", async () => {
    const rsmq = cleanup.rsmq(await connected(new RedisSMQ({ ...singleServerOptions(ns), name })));
    await rsmq.createQueueAsync({ qname: "a" });
    await rsmq.createQueueAsync({ qname: "b" });
    const monitor = await watchAddresses();
    cleanup.add(async () => monitor.close());
    // Writes (every script call) held; a connection still opens (CLIENT SETNAME is no write).
    await probe.sendCommand(["CLIENT", "PAUSE", "1000", "WRITE"]);
    // Stretch 1: eight sends on the one connection; the fourth opens a second, which takes none of them.
    const first = burst(8, (n) => rsmq.sendMessageAsync({ qname: "a", message: `a${n}` }));
    await waitFor(() => poolClients(rsmq).length === 2 && poolClients(rsmq)[1].isReady, "the second connection up");
    // Stretch 2: on the second (fewer in flight), all of it, in order.
    const second = [
      rsmq.sendMessageAsync({ qname: "b", message: "b1" }),
      rsmq.receiveMessageAsync({ qname: "b" }),
      rsmq.sendMessageAsync({ qname: "b", message: "b2" }),
      rsmq.receiveMessageAsync({ qname: "b" }),
    ];
    expect(new Set(await first).size).to.equal(8);
    const results = await Promise.all(second);
    expect((results[1] as { message: string }).message).to.equal("b1");
    expect((results[3] as { message: string }).message).to.equal("b2");
    await waitFor(() => monitor.seen.filter((command) => command.args[0] === "evalsha").length === 12, "the twelve calls monitored");
    const scripts = monitor.seen.filter((command) => command.args[0] === "evalsha");
    const addresses = (queue: string): Set<string> =>
      new Set(scripts.filter((command) => command.args.some((arg) => arg.endsWith(`:${queue}`))).map((command) => command.address));
    expect(addresses("a").size, "stretch 1 on one connection").to.equal(1);
    expect(addresses("b").size, "stretch 2 on one connection").to.equal(1);
    expect([...addresses("b")][0], "stretch 2 on the new connection").to.not.equal([...addresses("a")][0]);
    expect((await rsmq.getQueueAttributesAsync({ qname: "a" })).msgs).to.equal(8);
  });

  it("closes the second connection only once it carries nothing: calls held on it past its idle period all answer, in order", async () => {
    const { pool, events } = growingPool({ ...singleServerOptions(ns), name }, 400);
    cleanup.add(() => pool.close());
    await waitFor(() => pool.connected, "the first connection up");
    const key = `${ns}:counter`;
    await probe.sendCommand(["CLIENT", "PAUSE", "2000", "WRITE"]);
    const first = burst(8, () => pool.sendCommand(["INCR", `${key}:a`]));
    await waitFor(() => pool.clients.length === 2 && pool.clients[1].isReady, "the second connection up");
    // Held by the pause for several idle periods of the second connection.
    const second = burst(4, () => pool.sendCommand(["INCR", key]));
    expect(await second).to.deep.equal([1, 2, 3, 4]);
    expect(await first).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
    await waitFor(async () => (await footprint(probe, name)).commands === 1, "the idle second connection closed");
    expect(events).to.deep.equal(["connect"]);
  });

  it("closes a second connection that is lost, or refused (maxclients), without an event; calls go on on the first", async () => {
    const { pool, events } = growingPool({ ...singleServerOptions(ns), name }, 10_000);
    cleanup.add(() => pool.close());
    await waitFor(() => pool.connected, "the first connection up");
    await burst(20, () => pool.sendCommand(["PING"]));
    await waitFor(() => pool.clients.length === 2 && pool.clients[1].isReady, "the second connection up");
    const firstId = String(await pool.clients[0].sendCommand(["CLIENT", "ID"]));
    const second = (await clientsNamed(probe, name)).find((client) => client.id !== firstId)!;
    await probe.sendCommand(["CLIENT", "KILL", "ID", second.id]);
    await waitFor(() => pool.clients.length === 1, "the lost connection given up");
    expect(await burst(20, () => pool.sendCommand(["PING"]))).to.have.length(20);
    expect(await footprint(probe, name)).to.deep.equal({ commands: 1, subscriptions: 0 });
    expect(events).to.deep.equal(["connect"]);

    // A server that takes no more connections: the second is refused, and given up.
    const server = await startLocalRedis();
    const full = growingPool({ host: server.host, port: server.port, ns, name }, 10_000);
    const admin = createClient({ url: server.url });
    admin.on("error", () => undefined);
    // The server last: a client closed after it would wait for it.
    cleanup.add(async () => {
      await full.pool.close();
      if (admin.isOpen) await admin.quit();
      await server.close();
    });
    await waitFor(() => full.pool.connected, "the first connection up");
    await admin.connect();
    await admin.sendCommand(["CONFIG", "SET", "maxclients", "2"]);
    await burst(20, () => full.pool.sendCommand(["PING"]));
    const rejected = async (): Promise<number> => Number(/rejected_connections:(\d+)/.exec(await admin.info("stats"))![1]);
    await waitFor(async () => (await rejected()) === 1 && full.pool.clients.length === 1, "the refused connection given up");
    expect(await burst(20, () => full.pool.sendCommand(["PING"]))).to.have.length(20);
    expect(full.events).to.deep.equal(["connect"]);
  });

  it("quitAsync closes the second connection, also one still connecting, and so does `rsmq.redis.quit()`; the process exits by itself", async function () {
    this.timeout(60_000);
    const entry = join(__dirname, "..", "..", "..", "lib", "index.js");
    for (const when of ["up", "connecting", "rsmq.redis.quit()"]) {
      const program = `
        const RedisSMQ = require(${JSON.stringify(entry)});
        const rsmq = new RedisSMQ(${JSON.stringify({ ...singleServerOptions(ns), name })});
        (async () => {
          await rsmq.createQueueAsync({ qname: "q" }).catch(() => undefined);
          const sends = Array.from({ length: 20 }, () => rsmq.sendMessageAsync({ qname: "q", message: "m" }));
          if (${JSON.stringify(when)} !== "connecting") {
            await Promise.all(sends);
            const open = async () => (await rsmq.redis.sendCommand(["CLIENT", "LIST"])).split("\\n").filter((line) => line.includes(" name=${name} ")).length;
            for (let tries = 0; tries < 500 && (await open()) < 2; tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
            process.stdout.write(String(await open()));
          }
          // The rsmq-cli pattern: the first connection closed by its user closes the second too.
          if (${JSON.stringify(when)} === "rsmq.redis.quit()") process.nextTick(() => rsmq.redis.quit());
          else await rsmq.quitAsync();
        })().catch((error) => { console.error(error); process.exit(1); });
      `;
      const { code, out } = await exitOf(spawn(process.execPath, ["-e", program], { stdio: ["ignore", "pipe", "pipe"] }), 20_000, when);
      expect(code, when).to.equal(0);
      if (when !== "connecting") expect(out, `both connections open before ${when}`).to.equal("2");
      expect(await footprint(probe, name), when).to.deep.equal({ commands: 0, subscriptions: 0 });
    }
  });
});

/** Resolves when the child exits by itself; rejects (and kills it) if it is still running after `ms`. */
function exitOf(child: ChildProcess, ms: number, what: string): Promise<{ code: number | null; out: string }> {
  let out = "";
  let err = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the child (${what}) did not exit within ${ms} ms after quitAsync: a connection keeps it alive. stderr: ${err}`));
    }, ms);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out: out.trim() });
      if (code !== 0) console.error(err);
    });
  });
}
