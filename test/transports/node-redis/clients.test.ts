/**
 * A node-redis client of each major passed as `client` (4; 5 and 6 in RESP2 and RESP3): each
 * operation gives what the package's own connection gives, message bytes round-trip exactly, a
 * sleeping Worker is woken through the subscription, every operation is one EVALSHA on the
 * caller's connection, quitAsync() leaves the client open and usable, and a RESP3 client carries
 * the wake subscription itself: no further connection, no further HELLO. A call that waited too
 * long for a stopped server is withdrawn from the client's offline queue (node-redis 4 reads the
 * AbortSignal as `signal`, 5 and 6 as `abortSignal`), so it never runs later.
 */
import { expect } from "chai";
import OldRSMQ = require("rsmq");
import RedisSMQ = require("../../../lib");
import { standaloneTestClient } from "../../support/test-clients";
import type { TestClient, TestClientKind } from "../../support/test-clients";
import { keysOf, plainClient, singleServerOptions, testRedis, uniqueNs } from "../../support/server";
import { clientCommands, commandStatsDuring, connectionsNamed, monitor } from "../../support/wire";
import { Cleanup, WorkerLog, subscribersOf, waitFor } from "../../support/worker";
import { asMessage, rejectionOf } from "../../support/old-rsmq";
import { startLocalRedis } from "../../support/redis-server";
import { SilentProxy } from "../../support/silent-proxy";
import { runsOn } from "../../support/targets";
import { RESP_TYPES, createClient as createClient6 } from "redis6";
import { createClient as createClient5 } from "redis5";

runsOn("single");

const { Worker } = RedisSMQ;

const KINDS: TestClientKind[] = ["noderedis4", "noderedis5-resp2", "noderedis5-resp3", "noderedis6-resp2", "noderedis6-resp3"];
const CAP = 60_000;

/** A type mapping that changes every reply it can: strings as Buffers, arrays and sets as Sets, maps as Maps. */
const EVERY_TYPE_MAPPED = {
  [RESP_TYPES.BLOB_STRING]: Buffer,
  [RESP_TYPES.SIMPLE_STRING]: Buffer,
  [RESP_TYPES.VERBATIM_STRING]: Buffer,
  [RESP_TYPES.ARRAY]: Set,
  [RESP_TYPES.SET]: Set,
  [RESP_TYPES.MAP]: Map,
  [RESP_TYPES.DOUBLE]: Buffer,
};

/** What a node-redis client of any major offers a test. */
interface AnyNodeRedis {
  isOpen: boolean;
  isReady: boolean;
  sendCommand(args: string[]): Promise<unknown>;
}

/** A body that a lossy conversion would change: multi-byte UTF-8, a NUL, 64 KiB in all. */
function awkwardBody(): string {
  const head = "zß€😀\u0000ü";
  return head + "x".repeat(64 * 1024 - Buffer.byteLength(head));
}

/**
 * One course over the public operations, each once; what they return with ids, times and the
 * namespace replaced by placeholders (they differ from run to run, nothing else may).
 */
async function course(rsmq: RedisSMQ, ns: string): Promise<string> {
  const qname = "q";
  const results: unknown[] = [];
  const record = (result: unknown): unknown => (results.push(result), result);
  record(await rsmq.createQueueAsync({ qname, vt: 30 }));
  record(await rsmq.listQueuesAsync());
  record(await rsmq.setQueueAttributesAsync({ qname, maxsize: 2048 }));
  const first = record(await rsmq.sendMessageAsync({ qname, message: "one" })) as string;
  record(await rsmq.sendMessagesAsync({ qname, messages: [{ message: "two" }, { message: "three", delay: 100 }] } as never));
  record(await rsmq.getQueueAttributesAsync({ qname }));
  record(await rsmq.peekMessagesAsync({ qname } as never));
  const received = asMessage(record(await rsmq.receiveMessageAsync({ qname })) as object);
  record(await rsmq.changeMessageVisibilityAsync({ qname, id: received.id, vt: 60 }));
  record(await rsmq.popMessageAsync({ qname }));
  record(await rsmq.receiveMessageAsync({ qname }));
  record(await rsmq.receiveMessagesAsync({ qname, count: 5 }));
  record(await rsmq.deleteMessageAsync({ qname, id: first }));
  record(await rsmq.deleteMessageAsync({ qname, id: first }));
  record(await rsmq.deleteMessagesAsync({ qname, ids: [received.id] }));
  record(await rsmq.pauseQueueAsync({ qname } as never));
  record(await rsmq.resumeQueueAsync({ qname } as never));
  record(await rsmq.setConcurrencyAsync({ qname, max: 3 } as never));
  record(await rsmq.removeConcurrencyAsync({ qname } as never));
  record(await rsmq.listConsumersAsync({ qname } as never));
  record(await rsmq.peekDeadLettersAsync({ qname } as never));
  record(await rsmq.doctorAsync());
  record(await rsmq.purgeQueueAsync({ qname } as never));
  record(await rsmq.deleteQueueAsync({ qname }));
  record(await rsmq.listQueuesAsync());
  const ids: string[] = [];
  const text = JSON.stringify(results, (key, value: unknown) => {
    if (typeof value === "number" && (value > 1e9 || key === "nextDueMs")) return "<time>";
    if (typeof value === "string" && /^[0-9a-zA-Z]{32}$/.test(value)) {
      if (!ids.includes(value)) ids.push(value);
      return `<id ${ids.indexOf(value)}>`;
    }
    return value;
  });
  return text.split(ns).join("<ns>");
}

for (const kind of KINDS) {
  const resp3 = kind.endsWith("resp3");

  describe(`a ${kind} client passed as \`client\``, function () {
    this.timeout(30_000);
    const cleanup = new Cleanup();
    let made: TestClient;
    let client: AnyNodeRedis;
    let ns: string;
    let name: string;
    let rsmq: RedisSMQ;

    beforeEach(async () => {
      ns = uniqueNs("clients");
      name = `clients-${ns}`;
      made = standaloneTestClient(kind, testRedis(), { name });
      client = made.client as AnyNodeRedis;
      await waitFor(() => client.isReady, `the ${kind} client ready`);
      rsmq = cleanup.rsmq(new RedisSMQ({ client: made.client, ns } as never));
    });
    afterEach(async () => {
      await cleanup.run();
      made.close();
    });

    it("is `rsmq.redis`, and each operation gives what the package's own connection gives", async () => {
      expect(rsmq.redis).to.equal(made.client);
      const ownNs = uniqueNs("clients");
      const own = cleanup.rsmq(new RedisSMQ(singleServerOptions(ownNs)));
      expect(await course(rsmq, ns)).to.equal(await course(own, ownNs));
    });

    if (kind !== "noderedis4") {
      it("gives the same with the caller's type mapping on the client (withTypeMapping: Buffers, Sets, Maps)", async () => {
        const mapped = (made.client as { withTypeMapping(mapping: object): unknown }).withTypeMapping(EVERY_TYPE_MAPPED);
        const mappedNs = uniqueNs("clients");
        const through = cleanup.rsmq(new RedisSMQ({ client: mapped, ns: mappedNs } as never));
        const ownNs = uniqueNs("clients");
        const own = cleanup.rsmq(new RedisSMQ(singleServerOptions(ownNs)));
        expect(await course(through, mappedNs)).to.equal(await course(own, ownNs));
      });
    }

    it("round-trips a body of multi-byte UTF-8, a NUL and 64 KiB exactly, through send, receive and pop", async () => {
      const body = awkwardBody();
      await rsmq.createQueueAsync({ qname: "q" });
      await rsmq.sendMessageAsync({ qname: "q", message: body });
      await rsmq.sendMessageAsync({ qname: "q", message: body });
      const received = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
      const popped = asMessage(await rsmq.popMessageAsync({ qname: "q" }));
      for (const message of [received.message, popped.message]) {
        expect(Buffer.from(message).equals(Buffer.from(body)), "the same bytes").to.equal(true);
      }
    });

    it("sends each operation as one EVALSHA on the caller's connection", async () => {
      await rsmq.createQueueAsync({ qname: "q" });
      const only = await connectionsNamed(name);
      expect(only).to.have.length(1);
      const sent = clientCommands(await monitor(() => rsmq.sendMessageAsync({ qname: "q", message: "m" }), { only }));
      const received = clientCommands(await monitor(() => rsmq.receiveMessageAsync({ qname: "q" }), { only }));
      expect([...sent, ...received]).to.deep.equal(["evalsha", "evalsha"]);
    });

    it(`wakes a sleeping Worker through the subscription, ${resp3 ? "on the caller's own connection (no HELLO, no connection more)" : "on one copy of the connection"}`, async () => {
      await rsmq.createQueueAsync({ qname: "q" });
      const handled: string[] = [];
      const worker = cleanup.worker(
        new Worker(rsmq, { qname: "q", maxIdleSleepMs: CAP, handler: (message) => void handled.push(message.message) }),
      );
      const log = new WorkerLog(worker);
      const probe = await plainClient();
      cleanup.add(() => probe.quit());
      const stats = await commandStatsDuring(async () => {
        worker.start();
        await waitFor(async () => (await subscribersOf(probe, keysOf(ns, "q").realtimeChannel)) === 1, "the realtime subscription");
        await waitFor(() => log.asleep && worker.counters.receives >= 2, "the worker asleep");
      });
      const connections = await connectionsNamed(name);
      if (resp3) {
        expect(connections, "the caller's connection alone").to.have.length(1);
        expect(stats.hello, "no HELLO").to.equal(undefined);
      } else {
        expect(connections, "the caller's connection and the subscriber").to.have.length(2);
      }
      // rsmq 0.12.4 with realtime publishes, and never reaches this process' own wakes.
      const old = new OldRSMQ({ ...singleServerOptions(ns), realtime: true });
      cleanup.add(() => new Promise((resolve) => old.quit(resolve)));
      await old.sendMessageAsync({ qname: "q", message: "published" });
      await waitFor(() => handled.includes("published"), "the message handled, long before the cap");
      expect(log.named("wake").map((event) => event.args[0])).to.include("woken");
    });

    it("is left open and usable by quitAsync(), after a Worker subscribed through it", async () => {
      await rsmq.createQueueAsync({ qname: "q" });
      const worker = new Worker(rsmq, { qname: "q", maxIdleSleepMs: CAP, handler: () => undefined });
      const log = new WorkerLog(worker);
      worker.start();
      await waitFor(() => log.asleep && worker.counters.receives >= 2, "the worker asleep, subscribed");
      await worker.stop();
      expect(await rsmq.quitAsync()).to.equal("OK");
      expect(client.isOpen).to.equal(true);
      expect(await client.sendCommand(["PING"])).to.equal("PONG");
      // The copy made for the subscription (RESP2) is closed; the caller's stays.
      await waitFor(async () => (await connectionsNamed(name)).length === 1, "the caller's connection alone left");
      const probe = await plainClient();
      cleanup.add(() => probe.quit());
      expect(await subscribersOf(probe, keysOf(ns, "q").realtimeChannel)).to.equal(0);
    });
  });
}

describe("a node-redis client passed in, its server stopped", function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  for (const kind of KINDS) {
    it(`${kind}: a call that waited offlineTimeoutMs rejects with connectionTimeout, and never runs later`, async () => {
      const server = await startLocalRedis();
      cleanup.add(() => server.close());
      const made = standaloneTestClient(kind, { host: server.host, port: server.port });
      cleanup.add(async () => made.close());
      const client = made.client as AnyNodeRedis;
      const rsmq = cleanup.rsmq(new RedisSMQ({ client: made.client, ns: uniqueNs("clients"), offlineTimeoutMs: 500 } as never));
      rsmq.on("error", () => undefined);
      await rsmq.createQueueAsync({ qname: "q" });
      await server.stopProcess();
      await waitFor(() => !client.isReady, "the client to see the server gone");

      const error = await rejectionOf(rsmq.createQueueAsync({ qname: "late" }));
      expect(error.name).to.equal("connectionTimeout");
      expect(error.message).to.include("offlineTimeoutMs").and.include("was not run");

      await server.startProcess();
      await waitFor(() => client.isReady, "the client back", 10_000);
      // A restarted server without persistence is empty: the timed-out call did not run on it. It
      // would have failed there (NOSCRIPT, the script cache is new): not even sent, its EVALSHA is
      // not among the server's calls, read after a call that queued behind anything still held.
      expect(await rsmq.listQueuesAsync()).to.deep.equal([]);
      const stats = String(await client.sendCommand(["INFO", "commandstats"]));
      expect(stats).not.to.match(/cmdstat_evalsha/);
    });
  }
});

describe("a node-redis client passed in: the wake subscription through a reconnect, and the caller's own", function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  let made: TestClient | undefined;
  afterEach(async () => {
    await cleanup.run();
    made?.close();
  });

  /** A sleeping, subscribed Worker on the passed client of `kind`; what it handles. */
  async function sleepingWorker(kind: TestClientKind) {
    const ns = uniqueNs("clients");
    const name = `clients-${ns}`;
    made = standaloneTestClient(kind, testRedis(), { name });
    const client = made.client as AnyNodeRedis;
    await waitFor(() => client.isReady, `the ${kind} client ready`);
    const rsmq = cleanup.rsmq(new RedisSMQ({ client: made.client, ns } as never));
    rsmq.on("error", () => undefined);
    await rsmq.createQueueAsync({ qname: "q" });
    const handled: string[] = [];
    const worker = cleanup.worker(
      new Worker(rsmq, { qname: "q", maxIdleSleepMs: CAP, handler: (message) => void handled.push(message.message) }),
    );
    const log = new WorkerLog(worker);
    worker.start();
    const probe = await plainClient();
    cleanup.add(() => probe.quit());
    const channel = keysOf(ns, "q").realtimeChannel;
    await waitFor(async () => (await subscribersOf(probe, channel)) === 1, "the realtime subscription");
    await waitFor(() => log.asleep && worker.counters.receives >= 2, "the worker asleep");
    return { ns, name, client, rsmq, worker, handled, probe, channel };
  }

  for (const kind of KINDS) {
    it(`${kind}: each connection dropped by the server, the Worker looks for what it may have missed, and is woken again after`, async () => {
      const { ns, name, handled, probe, channel } = await sleepingWorker(kind);
      // Neither published nor sent in this process: only a look finds it.
      const quiet = new OldRSMQ(singleServerOptions(ns));
      cleanup.add(() => new Promise((resolve) => quiet.quit(resolve)));
      await quiet.sendMessageAsync({ qname: "q", message: "unannounced" });
      const list = String(await probe.sendCommand(["CLIENT", "LIST"]));
      const ids = list
        .split("\n")
        .filter((line) => line.split(" ").includes(`name=${name}`))
        .map((line) => /(?:^| )id=(\d+)/.exec(line)![1]);
      expect(ids.length).to.be.at.least(1);
      for (const id of ids) await probe.sendCommand(["CLIENT", "KILL", "ID", id]);
      await waitFor(() => handled.includes("unannounced"), "the unannounced message handled, long before the cap");
      await waitFor(async () => (await subscribersOf(probe, channel)) === 1, "subscribed again");
      const loud = new OldRSMQ({ ...singleServerOptions(ns), realtime: true });
      cleanup.add(() => new Promise((resolve) => loud.quit(resolve)));
      await loud.sendMessageAsync({ qname: "q", message: "published" });
      await waitFor(() => handled.includes("published"), "the published message handled, long before the cap");
    });
  }

  for (const kind of ["noderedis5-resp3", "noderedis6-resp3"] as const) {
    it(`${kind}: the caller's own listener on the wake channel stays through the Worker's stop and quitAsync()`, async () => {
      const { client, rsmq, worker, probe, channel } = await sleepingWorker(kind);
      const heard: string[] = [];
      await (client as unknown as { subscribe(channel: string, listener: (message: string) => void): Promise<void> }).subscribe(
        channel,
        (message) => heard.push(message),
      );
      await worker.stop();
      await rsmq.quitAsync();
      expect(await subscribersOf(probe, channel)).to.equal(1);
      await probe.sendCommand(["PUBLISH", channel, "for the caller"]);
      await waitFor(() => heard.includes("for the caller"), "the caller's listener called");
      expect(await client.sendCommand(["PING"])).to.equal("PONG");
    });
  }
});

type MakeClient = (options: object) => AnyNodeRedis & {
  on(event: "error", listener: () => void): unknown;
  connect(): Promise<unknown>;
  destroy(): void;
};

describe("a node-redis 5/6 client made without `RESP`: its default protocol decides where wakes listen", function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  for (const [major, createClient, connections] of [
    ["5 (RESP2 by default): on a copy", createClient5 as unknown as MakeClient, 2],
    ["6 (RESP3 by default): on the caller's own connection", createClient6 as unknown as MakeClient, 1],
  ] as const) {
    it(`node-redis ${major}`, async () => {
      const ns = uniqueNs("clients");
      const name = `clients-${ns}`;
      const { host, port } = testRedis();
      const client = createClient({ socket: { host, port }, name });
      client.on("error", () => undefined);
      await client.connect();
      cleanup.add(async () => client.destroy());
      const rsmq = cleanup.rsmq(new RedisSMQ({ client, ns } as never));
      await rsmq.createQueueAsync({ qname: "q" });
      const worker = cleanup.worker(new Worker(rsmq, { qname: "q", maxIdleSleepMs: CAP, handler: () => undefined }));
      const log = new WorkerLog(worker);
      worker.start();
      await waitFor(() => log.asleep && worker.counters.receives >= 2, "the worker asleep, subscribed");
      expect(await connectionsNamed(name)).to.have.length(connections);
    });
  }
});

describe("a RESP3 node-redis client passed in: the health check of the subscription it carries", function () {
  this.timeout(30_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  for (const kind of ["noderedis5-resp3", "noderedis6-resp3"] as const) {
    it(`${kind}: with subscriberPingMs, a PING unanswered within commandTimeoutMs is reported, and the caller's socket left alone`, async () => {
      const proxy = await SilentProxy.start(testRedis());
      cleanup.add(() => proxy.close());
      const made = standaloneTestClient(kind, { host: "127.0.0.1", port: proxy.port });
      cleanup.add(async () => made.close());
      const client = made.client as AnyNodeRedis;
      await waitFor(() => client.isReady, `the ${kind} client ready`);
      const ns = uniqueNs("clients");
      const rsmq = cleanup.rsmq(new RedisSMQ({ client: made.client, ns, subscriberPingMs: 300, commandTimeoutMs: 1000 } as never));
      const errors: Error[] = [];
      rsmq.on("error", (error: Error) => errors.push(error));
      await rsmq.createQueueAsync({ qname: "q" });
      const worker = cleanup.worker(new Worker(rsmq, { qname: "q", maxIdleSleepMs: CAP, handler: () => undefined }));
      const log = new WorkerLog(worker);
      worker.start();
      await waitFor(() => log.asleep && worker.counters.receives >= 2, "the worker asleep, subscribed");
      expect(proxy.openConnections, "one connection: the subscription rides the caller's").to.equal(1);
      proxy.silence();
      await waitFor(() => errors.some((error) => error.name === "connectionTimeout"), "the unanswered PING reported");
      expect(errors.find((error) => error.name === "connectionTimeout")!.message).to.include("commandTimeoutMs");
      expect(proxy.silentConnections, "the caller's socket, left as it is").to.equal(1);
    });
  }
});
