/**
 * Nothing waits forever on an ioredis client either: a call made while its server is down rejects
 * with `connectionTimeout` after offlineTimeoutMs and never runs later (it was held by rsmq-next,
 * not queued in ioredis); a call on a silent link rejects after commandTimeoutMs and the caller's
 * socket is left alone; ioredis' own give-up (maxRetriesPerRequest) is a `connectionTimeout` that
 * says so. Real faults: a stopped redis-server, a proxy that stops forwarding. ioredis 6 on the
 * ioredis 6 pass, ioredis 5 otherwise (run-kind.ts).
 */
import { expect } from "chai";
import type Redis from "ioredis";
import type { RedisOptions } from "ioredis";
import RedisSMQ = require("../../../lib");
import { rejectionOf } from "../../support/old-rsmq";
import { startLocalRedis } from "../../support/redis-server";
import type { TestRedis } from "../../support/redis-server";
import { singleServerOptions, uniqueNs } from "../../support/server";
import { SilentProxy } from "../../support/silent-proxy";
import { Cleanup, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";
import { runIoredis } from "./run-kind";

runsOn("single", "client");

describe("an ioredis client: bounds", () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  /** An ioredis client of the test's own (of the run's ioredis version), closed after it. */
  function client(port: number, options: RedisOptions = {}): Redis {
    return runIoredis({ host: "127.0.0.1", port }, cleanup, options);
  }

  describe("a stopped server", () => {
    let server: TestRedis;

    beforeEach(async () => {
      server = await startLocalRedis();
      cleanup.add(() => server.close());
    });

    it("rejects a call with connectionTimeout after offlineTimeoutMs, and the call never runs later", async () => {
      const redis = client(server.port);
      const ns = uniqueNs("iobound");
      const rsmq = cleanup.rsmq(new RedisSMQ({ client: redis, ns, offlineTimeoutMs: 500 } as never));
      rsmq.on("error", () => undefined);
      await rsmq.createQueueAsync({ qname: "q" });
      await server.stopProcess();
      await waitFor(() => redis.status !== "ready", "the client to see the server gone");

      const error = await rejectionOf(rsmq.createQueueAsync({ qname: "late" }));
      expect(error.name).to.equal("connectionTimeout");
      expect(error.message).to.include(`127.0.0.1:${server.port}`).and.include("offlineTimeoutMs").and.include("was not run");

      await server.startProcess();
      await waitFor(() => redis.status === "ready", "the client back", 10_000);
      // A restarted server without persistence is empty: the timed-out call did not run on it.
      expect(await rsmq.listQueuesAsync()).to.deep.equal([]);
    });

    it("a call made while the server is down runs once it is back, within offlineTimeoutMs", async () => {
      const redis = client(server.port);
      const rsmq = cleanup.rsmq(new RedisSMQ({ client: redis, ns: uniqueNs("iobound"), offlineTimeoutMs: 20_000 } as never));
      rsmq.on("error", () => undefined);
      await rsmq.listQueuesAsync();
      await server.stopProcess();
      await waitFor(() => redis.status !== "ready", "the client to see the server gone");
      const created = rsmq.createQueueAsync({ qname: "q" });
      await server.startProcess();
      expect(await created).to.equal(1);
      expect(await rsmq.listQueuesAsync()).to.deep.equal(["q"]);
    });
  });

  describe("a silent link", () => {
    let proxy: SilentProxy;

    beforeEach(async () => {
      const { host, port } = singleServerOptions("unused");
      proxy = await SilentProxy.start({ host, port });
      cleanup.add(() => proxy.close());
    });

    it("rejects a call with connectionTimeout after commandTimeoutMs and leaves the caller's socket alone", async () => {
      const redis = client(proxy.port);
      const rsmq = cleanup.rsmq(new RedisSMQ({ client: redis, ns: uniqueNs("iobound"), commandTimeoutMs: 1000 } as never));
      await rsmq.createQueueAsync({ qname: "q" });
      proxy.silence();
      const error = await rejectionOf(rsmq.listQueuesAsync());
      expect(error.name).to.equal("connectionTimeout");
      expect(error.message).to.include(`127.0.0.1:${proxy.port}`).and.include("commandTimeoutMs").and.include("the caller's");
      expect(proxy.silentConnections).to.equal(1);
    });

    it("turns ioredis' maxRetriesPerRequest give-up into connectionTimeout", async () => {
      const redis = client(proxy.port, { maxRetriesPerRequest: 0 });
      const rsmq = cleanup.rsmq(new RedisSMQ({ client: redis, ns: uniqueNs("iobound"), commandTimeoutMs: 20_000 } as never));
      rsmq.on("error", () => undefined);
      await rsmq.createQueueAsync({ qname: "q" });
      proxy.silence();
      const call = rejectionOf(rsmq.sendMessageAsync({ qname: "q", message: "in flight" }));
      // The link drops with the call in flight, and the next connection attempt is refused.
      await proxy.close();
      const error = await call;
      expect(error.name).to.equal("connectionTimeout");
      expect(error.message).to.include("maxRetriesPerRequest").and.include("may have run");
    });
  });
});
