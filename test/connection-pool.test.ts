/**
 * `connections`: several command connections to one server behind one instance. Counted with
 * CLIENT LIST (each instance names its connections), the wire read with MONITOR (which names the
 * client address of every command) and a counting proxy; one member's socket is killed for real
 * (CLIENT KILL ID). The ordering rule is made deterministic with CLIENT PAUSE: while the server
 * holds every call, what is in flight on each connection is known exactly.
 */
import { expect } from "chai";
import type { Socket } from "net";
import { createClient, type RedisClientType } from "redis";
import RedisSMQ = require("../lib/index");
import { ConnectionPool } from "../lib/connection/connection-pool";
import { resolveConstructorOptions } from "../lib/options/constructor-options";
import { LatencyProxy } from "../bench/latency-proxy";
import { openMonitor } from "./support/monitor-socket";
import { rejectionOf } from "./support/old-rsmq";
import { singleServerClient, singleServerOnly, singleServerOptions, uniqueNs } from "./support/server";
import { Cleanup, waitFor } from "./support/worker";

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
  const list = (await probe.sendCommand(["CLIENT", "LIST"])) as string;
  return list
    .split("\n")
    .filter((line) => line.includes(` name=${name} `))
    .map((line) => ({ id: /^id=(\d+)/.exec(line)![1], address: / addr=(\S+)/.exec(line)![1] }));
}

/** Resolves on the next turn of the event loop: what is called after it is another synchronous stretch. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The clients of an instance's connections (not public: `rsmq.redis` is the first). */
function poolClients(rsmq: RedisSMQ): RedisClientType[] {
  const { connection } = rsmq as unknown as { connection: { clients?: RedisClientType[]; client: RedisClientType } };
  return connection.clients ?? [connection.client];
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

  it("opens as many as asked (2 by default), each call one command in one round trip, and quitAsync closes them all", async () => {
    const byDefault = cleanup.rsmq(await connected(new RedisSMQ({ ...singleServerOptions(ns), name })));
    expect(poolClients(byDefault)).to.have.length(2);
    expect(await clientsNamed(probe, name)).to.have.length(2);
    await byDefault.quitAsync();
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
    await waitFor(() => monitor.seen.filter((command) => command.args[0] === "evalsha").length === 40, "the forty sends monitored");
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
