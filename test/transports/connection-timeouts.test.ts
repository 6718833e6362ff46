/**
 * Nothing waits forever on the connection: a call made while Redis cannot be reached rejects with
 * `connectionTimeout` (naming the server and the cause) after offlineTimeoutMs; a call on a
 * silent link (a half-open connection, made for real by a proxy that stops forwarding) rejects
 * after commandTimeoutMs and the link is replaced; a sleeping Worker whose links went silent
 * notices (at its next look by default, whose health check of the wake subscription rides it; or
 * every subscriberPingMs when given) and handles what was sent meanwhile. The bounds are set small
 * here; the defaults are documented in docs/reliability.md.
 */
import { expect } from "chai";
import { createServer } from "net";
import RedisSMQ = require("../../lib");
import { singleServerOnly, singleServerOptions, uniqueNs } from "../support/server";
import { SilentListener } from "../support/silent-listener";
import { SilentProxy } from "../support/silent-proxy";
import { Cleanup, WorkerLog, sendFromChild, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single");

const { Worker } = RedisSMQ;
const THROUGH_PROXY = "a proxy in front of the single redis-server";

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address !== "object") throw new Error("no port");
  return address.port;
}

/** The rejection of `call`, failing if it resolves. */
async function rejectionOf(call: Promise<unknown>): Promise<Error> {
  try {
    await call;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}

describe("connection timeouts", () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  describe("an unreachable server", () => {
    it("rejects a call with connectionTimeout naming host:port and ECONNREFUSED after offlineTimeoutMs", async () => {
      const port = await closedPort();
      const rsmq = cleanup.rsmq(new RedisSMQ({ host: "127.0.0.1", port, offlineTimeoutMs: 500 }));
      rsmq.on("error", () => undefined);
      const error = await rejectionOf(rsmq.createQueueAsync({ qname: "x" }));
      expect(error).to.be.an.instanceOf(Error);
      expect(error.name).to.equal("connectionTimeout");
      expect(error.message).to.include(`127.0.0.1:${port}`);
      expect(error.message).to.include("ECONNREFUSED");
      expect(error.message).to.include("offlineTimeoutMs");
    });

    it("names ENOTFOUND for a host that does not resolve", async () => {
      const rsmq = cleanup.rsmq(new RedisSMQ({ host: "no-such-host.invalid", port: 6379, offlineTimeoutMs: 2000 }));
      rsmq.on("error", () => undefined);
      const error = await rejectionOf(rsmq.listQueuesAsync());
      expect(error.name).to.equal("connectionTimeout");
      expect(error.message).to.include("no-such-host.invalid:6379");
      expect(error.message).to.match(/ENOTFOUND|EAI_AGAIN/);
    });

    it("on Redis Cluster: rejects a call with connectionTimeout after clusterRetryMs when no root node answers", async () => {
      const port = await closedPort();
      const rsmq = cleanup.rsmq(
        new RedisSMQ({
          cluster: { rootNodes: [{ url: `redis://127.0.0.1:${port}` }] },
          clusterRetryMs: 500,
        } as RedisSMQ.ConstructorOptions),
      );
      rsmq.on("error", () => undefined);
      const error = await rejectionOf(rsmq.createQueueAsync({ qname: "x" }));
      expect(error.name).to.equal("connectionTimeout");
      expect(error.message).to.include(`127.0.0.1:${port}`);
      expect(error.message).to.include("ECONNREFUSED");
      expect(error.message).to.include("clusterRetryMs");
    });

    it("on Redis Cluster: quitAsync() while a root node accepts and never answers closes that socket, and emits no error", async () => {
      const listener = await SilentListener.start();
      cleanup.add(() => listener.close());
      const errors: Error[] = [];
      const rsmq = new RedisSMQ({ cluster: { rootNodes: [{ url: listener.url }] } } as RedisSMQ.ConstructorOptions);
      rsmq.on("error", (error) => errors.push(error));
      await waitFor(() => listener.accepted > 0, "the root node's connection");
      expect(await rsmq.quitAsync()).to.equal("OK");
      await waitFor(() => listener.openConnections === 0, "the root node's connection to be closed");
      expect(errors).to.deep.equal([]);
    });

    it("rejects a bad bound before opening anything", () => {
      expect(() => new RedisSMQ({ port: 1, offlineTimeoutMs: -1 })).to.throw(TypeError, /offlineTimeoutMs/);
      expect(() => new RedisSMQ({ port: 1, commandTimeoutMs: "5" as unknown as number })).to.throw(TypeError, /commandTimeoutMs/);
      expect(() => new RedisSMQ({ port: 1, subscriberPingMs: Number.NaN })).to.throw(TypeError, /subscriberPingMs/);
    });
  });

  describe("a silent link (half-open connection)", () => {
    let proxy: SilentProxy;
    let ns: string;

    beforeEach(async function () {
      singleServerOnly(this, THROUGH_PROXY);
      ns = uniqueNs();
      const { host, port } = singleServerOptions(ns);
      proxy = await SilentProxy.start({ host, port });
      cleanup.add(() => proxy.close());
    });

    it("rejects a call with connectionTimeout after commandTimeoutMs, and the next call works on a new connection", async () => {
      const rsmq = cleanup.rsmq(new RedisSMQ({ host: "127.0.0.1", port: proxy.port, ns, commandTimeoutMs: 1000 }));
      rsmq.on("error", () => undefined);
      await rsmq.createQueueAsync({ qname: "q" });
      proxy.silence();
      const error = await rejectionOf(rsmq.listQueuesAsync());
      expect(error.name).to.equal("connectionTimeout");
      expect(error.message).to.include(`127.0.0.1:${proxy.port}`);
      expect(error.message).to.include("commandTimeoutMs");
      expect(await rsmq.listQueuesAsync()).to.deep.equal(["q"]);
    });

    it("bounds a call through a client passed in too, and leaves that client's socket alone", async () => {
      const { createClient } = await import("redis");
      const client = createClient({ socket: { host: "127.0.0.1", port: proxy.port } });
      client.on("error", () => undefined);
      await client.connect();
      cleanup.add(() => client.disconnect());
      const rsmq = cleanup.rsmq(new RedisSMQ({ client, ns, commandTimeoutMs: 1000 }));
      await rsmq.createQueueAsync({ qname: "q" });
      proxy.silence();
      const error = await rejectionOf(rsmq.listQueuesAsync());
      expect(error.name).to.equal("connectionTimeout");
      expect(error.message).to.include("the caller's");
      expect(proxy.silentConnections).to.equal(1);
    });

    it("wakes a sleeping Worker whose subscription went silent: a message sent meanwhile by another client is handled, nothing lost", async function () {
      this.timeout(60_000);
      const options = { host: "127.0.0.1", port: proxy.port, ns, commandTimeoutMs: 1000, subscriberPingMs: 500 };
      const rsmq = cleanup.rsmq(new RedisSMQ(options));
      rsmq.on("error", () => undefined);
      // The sends come from another process, straight to the server: only the realtime publish
      // (not this process's own wakes) can wake the worker, and only on its subscriber connection.
      const sender = cleanup.rsmq(new RedisSMQ(singleServerOptions(ns)));
      await sender.createQueueAsync({ qname: "q" });
      const handled: string[] = [];
      const worker = cleanup.worker(
        new Worker(rsmq, { qname: "q", maxIdleSleepMs: 600_000, handler: (message) => void handled.push(message.message) }),
      );
      worker.on("error", () => undefined);
      const log = new WorkerLog(worker);
      worker.start();
      await sendFromChild(singleServerOptions(ns), ["q"], "before");
      await waitFor(() => handled.length === 1 && log.asleep, "the first message handled and the worker asleep", 10_000);
      // The worker's command connection (one, by default) and its subscriber both go through the proxy.
      expect(proxy.openConnections).to.equal(2);

      proxy.silence();
      await sendFromChild(singleServerOptions(ns), ["q"], "during the silence");
      await waitFor(() => handled.length === 2, "the message sent during the silence handled", 40_000);
      expect(handled).to.deep.equal(["before", "during the silence"]);
      expect((await sender.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
    });

    it("with subscriberPingMs left out: every link silent, a message sent meanwhile by another process is handled after the next look, nothing lost", async function () {
      this.timeout(60_000);
      // Small bounds for the mechanism; at the defaults the same takes at most 30 s + 10 s.
      const capMs = 2000;
      const commandTimeoutMs = 1000;
      const rsmq = cleanup.rsmq(new RedisSMQ({ host: "127.0.0.1", port: proxy.port, ns, commandTimeoutMs }));
      const errors: Error[] = [];
      rsmq.on("error", (error) => void errors.push(error));
      const sender = cleanup.rsmq(new RedisSMQ(singleServerOptions(ns)));
      await sender.createQueueAsync({ qname: "q" });
      const handled: string[] = [];
      const worker = cleanup.worker(
        new Worker(rsmq, { qname: "q", maxIdleSleepMs: capMs, handler: (message) => void handled.push(message.message) }),
      );
      worker.on("error", () => undefined);
      const log = new WorkerLog(worker);
      worker.start();
      await sendFromChild(singleServerOptions(ns), ["q"], "before");
      await waitFor(() => handled.length === 1 && log.asleep, "the first message handled and the worker asleep", 10_000);
      // One command connection (the default, as rsmq 0.12.4) and the wake subscription.
      expect(proxy.openConnections).to.equal(2);

      proxy.silence();
      await sendFromChild(singleServerOptions(ns), ["q"], "during the silence");
      // Bounded by the cap (the next look) + commandTimeoutMs (the silent look and PING found out), with room for a loaded machine.
      await waitFor(() => handled.length === 2, "the message sent during the silence handled", capMs + commandTimeoutMs + 15_000);
      expect(handled).to.deep.equal(["before", "during the silence"]);
      expect((await sender.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
      // The subscription was found silent too (its PING rode the look) and replaced.
      await waitFor(() => proxy.openConnections - proxy.silentConnections === 2, "two new links through the proxy", 15_000);
      expect(errors.map((error) => error.name)).to.include("connectionTimeout");
    });

    it("with subscriberPingMs left out: a wake subscription gone silent alone is found by the PING riding the next look, and wakes again", async function () {
      this.timeout(60_000);
      const capMs = 5000;
      const rsmq = cleanup.rsmq(new RedisSMQ({ host: "127.0.0.1", port: proxy.port, ns, commandTimeoutMs: 1000, connections: 1 }));
      const errors: Error[] = [];
      rsmq.on("error", (error) => void errors.push(error));
      const sender = cleanup.rsmq(new RedisSMQ(singleServerOptions(ns)));
      await sender.createQueueAsync({ qname: "q" });
      const worker = cleanup.worker(new Worker(rsmq, { qname: "q", maxIdleSleepMs: capMs, handler: () => undefined }));
      worker.on("error", () => undefined);
      const log = new WorkerLog(worker);
      worker.start();
      await waitFor(() => worker.counters.receives >= 2 && log.asleep, "the worker subscribed and asleep", 10_000);
      // The command connection, then the subscriber: silence the subscriber only.
      expect(proxy.openConnections).to.equal(2);
      proxy.silenceNewest();
      const silencedAt = log.events.length;

      await waitFor(() => errors.length > 0, "the silent subscription found out", 2 * capMs + 10_000);
      expect(errors[0].name).to.equal("connectionTimeout");
      // Subscribed again on a new link: every listener is called, for what was published meanwhile.
      await waitFor(() => log.outline(silencedAt).includes("wake woken") && log.asleep, "the wake after resubscribing", 10_000);
      expect(log.count("error")).to.equal(0);

      // A publish now reaches the new subscription (and the old one, which the server still counts).
      await waitFor(() => log.asleep, "the worker asleep", 10_000);
      const before = log.events.length;
      const channel = `${ns}:rt:q`;
      expect(await sender.redis.publish(channel, "1")).to.equal(2);
      await waitFor(() => log.outline(before).includes("wake woken"), "a wake from the new subscription", 10_000);
    });
  });
});
