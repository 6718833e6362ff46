/**
 * The RedisSMQ constructor's options: resolved once, with their defaults; a bad one is a TypeError
 * in the package's one message style (the option, what was expected, what was given), thrown
 * before any connection is opened.
 */
import { expect } from "chai";
import { connect, createServer } from "net";
import type { Server, Socket } from "net";
import { createClient } from "redis";
import RedisSMQ = require("../../lib");
import { CONSTRUCTOR_DEFAULTS, resolveConstructorOptions } from "../../lib/options/constructor-options";
import { describeValue } from "../../lib/options/checks";
import { singleServerOptions, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

/** A TCP proxy to the test Redis that counts the connections it accepts. */
class CountingProxy {
  accepted = 0;
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  constructor(upstream: { host: string; port: number }) {
    this.server = createServer((client) => {
      this.accepted += 1;
      const server = connect(upstream.port, upstream.host);
      for (const socket of [client, server]) {
        this.sockets.add(socket);
        socket.on("error", () => socket.destroy());
        socket.on("close", () => this.sockets.delete(socket));
      }
      client.pipe(server).pipe(client);
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", () => resolve()));
    return (this.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe("constructor options", () => {
  describe("defaults", () => {
    it("resolves no options to rsmq's namespace, no realtime, a single server and the documented bounds", () => {
      const resolved = resolveConstructorOptions({});
      expect(resolved.ns).to.equal("rsmq");
      expect(resolved.realtime).to.equal(false);
      expect(resolved.layout.cluster).to.equal(false);
      expect(resolved.replicaAcks).to.equal(undefined);
      expect(resolved.connection).to.deep.include({
        cluster: false,
        honorNestedOptions: false,
        bounds: { offlineTimeoutMs: 20_000, commandTimeoutMs: 10_000 },
        // Left out: the wake subscription's health check rides the Workers' polls.
        subscriberPingMs: undefined,
        clusterRetryMs: 30_000,
      });
      expect(CONSTRUCTOR_DEFAULTS).to.include({ waitForReplicas: 0, waitForReplicasMs: 1_000 });
      // Off: no span, no metric, and @opentelemetry/api is not loaded.
      expect(resolved.telemetry).to.equal(false);
    });

    it("takes telemetry as a boolean or an object, an undefined member left out", () => {
      expect(resolveConstructorOptions({ telemetry: true }).telemetry).to.equal(true);
      const given = { tracing: false, processContext: "link" as const, metrics: undefined };
      expect(resolveConstructorOptions({ telemetry: given }).telemetry).to.equal(given);
    });

    it("reads null as not given, as rsmq does, and keeps rsmq's tolerance for ns and realtime", () => {
      const resolved = resolveConstructorOptions({ ns: null, offlineTimeoutMs: null, waitForReplicas: null } as never);
      expect(resolved.ns).to.equal("rsmq");
      expect(resolved.connection.bounds.offlineTimeoutMs).to.equal(20_000);
      expect(resolved.replicaAcks).to.equal(undefined);
      expect(resolveConstructorOptions({ ns: 42, realtime: "yes" } as never)).to.include({ ns: "42", realtime: true });
    });

    it("turns waitForReplicas on with its timeout, and takes 0 for the bounds that 0 turns off", () => {
      const resolved = resolveConstructorOptions({
        waitForReplicas: 2,
        waitForReplicasMs: 50,
        offlineTimeoutMs: 0,
        commandTimeoutMs: 0,
        subscriberPingMs: 0,
      });
      expect(resolved.replicaAcks).to.deep.equal({ replicas: 2, timeoutMs: 50 });
      expect(resolved.connection.bounds).to.deep.equal({ offlineTimeoutMs: 0, commandTimeoutMs: 0 });
      expect(resolved.connection.subscriberPingMs).to.equal(0);
    });

    it("opens 1 command connection by default and a 2nd on demand, as many as asked at once, 1 with a client passed in, and 1 in a cluster", () => {
      const connections = (options: Record<string, unknown>): { connections: number; growth: unknown } => {
        const { connection } = resolveConstructorOptions(options);
        return { connections: connection.connections, growth: connection.growth };
      };
      expect(connections({})).to.deep.equal({ connections: 1, growth: { most: 2, openAtInFlight: 4, idleMs: 10_000 } });
      expect(connections({ connections: 4 })).to.deep.equal({ connections: 4, growth: undefined });
      expect(connections({ connections: 1 })).to.deep.equal({ connections: 1, growth: undefined });
      const client = createClient();
      expect(connections({ client })).to.deep.equal({ connections: 1, growth: undefined });
      expect(connections({ client, connections: 3 })).to.deep.equal({ connections: 3, growth: undefined });
      // A node-redis v3 client only lends its settings: the connections are opened here, as by default.
      expect(connections({ client: { send_command: () => undefined } })).to.deep.equal(connections({}));
      const cluster = { rootNodes: [{ url: "redis://127.0.0.1:1" }] };
      expect(connections({ cluster })).to.deep.equal({ connections: 1, growth: undefined });
      expect(connections({ cluster, connections: 1 })).to.deep.equal({ connections: 1, growth: undefined });
    });

    it("does not touch the caller's options object", () => {
      const options = Object.freeze({ ns: "x", waitForReplicas: 1 });
      resolveConstructorOptions(options);
      expect(options).to.deep.equal({ ns: "x", waitForReplicas: 1 });
    });
  });

  describe("a bad option", () => {
    let proxy: CountingProxy;
    let port: number;

    beforeEach(async () => {
      proxy = new CountingProxy(singleServerOptions("unused"));
      port = await proxy.listen();
    });
    afterEach(() => proxy.close());

    /** [option overrides, the whole message]; every case points at the proxy, on one server or as a cluster's root node. */
    const cases = (): Array<[Record<string, unknown>, string]> => {
      const cluster = { cluster: { rootNodes: [{ url: `redis://127.0.0.1:${port}` }] } };
      return [
        [{ waitForReplicas: -1 }, "Expected `waitForReplicas` to be an integer from 0 and up, got `-1` (number)"],
        [{ waitForReplicas: 1.5 }, "Expected `waitForReplicas` to be an integer from 0 and up, got `1.5` (number)"],
        [{ waitForReplicas: "1" }, "Expected `waitForReplicas` to be an integer from 0 and up, got `1` (string)"],
        [{ waitForReplicas: 1, waitForReplicasMs: 0 }, "Expected `waitForReplicasMs` to be an integer from 1 and up, got `0` (number)"],
        [{ waitForReplicasMs: "100" }, "Expected `waitForReplicasMs` to be an integer from 1 and up, got `100` (string)"],
        [{ offlineTimeoutMs: -1 }, "Expected `offlineTimeoutMs` to be a number from 0 and up (0 turns it off), got `-1` (number)"],
        [{ commandTimeoutMs: "5" }, "Expected `commandTimeoutMs` to be a number from 0 and up (0 turns it off), got `5` (string)"],
        [{ subscriberPingMs: Number.NaN }, "Expected `subscriberPingMs` to be a number from 0 and up (0 turns it off), got `NaN` (number)"],
        [
          { commandTimeoutMs: Infinity },
          "Expected `commandTimeoutMs` to be a number from 0 and up (0 turns it off), got `Infinity` (number)",
        ],
        [{ honorNestedOptions: "yes" }, "Expected `honorNestedOptions` to be a boolean, got `yes` (string)"],
        [{ connections: 0 }, "Expected `connections` to be an integer from 1 to 16, got `0` (number)"],
        [{ connections: 2.5 }, "Expected `connections` to be an integer from 1 to 16, got `2.5` (number)"],
        [{ connections: 17 }, "Expected `connections` to be an integer from 1 to 16, got `17` (number)"],
        [{ connections: "2" }, "Expected `connections` to be an integer from 1 to 16, got `2` (string)"],
        [
          { ...cluster, connections: 2 },
          "Expected `connections` to be 1 or left out in Redis Cluster (the cluster client keeps one connection per node), got `2` (number)",
        ],
        [{ ...cluster, clusterRetryMs: -1 }, "Expected `clusterRetryMs` to be a number from 0 and up, got `-1` (number)"],
        [{ clusterRetryMs: "30000" }, "Expected `clusterRetryMs` to be a number from 0 and up, got `30000` (string)"],
        [{ telemetry: "on" }, "Expected `telemetry` to be a boolean or an object of telemetry options, got `on` (string)"],
        [{ telemetry: [] }, "Expected `telemetry` to be a boolean or an object of telemetry options, got `[0 items]` (object)"],
        [{ telemetry: { tracing: true, tracng: false } }, "Unknown telemetry option `tracng`: did you mean `tracing`?"],
        [
          { telemetry: { sampler: {} } },
          "Unknown telemetry option `sampler`; known options: tracerProvider, meterProvider, propagator, tracing, metrics, processContext, carryContext, queueState, tenantLabels",
        ],
        [{ telemetry: { tracing: "yes" } }, "Expected `telemetry.tracing` to be a boolean, got `yes` (string)"],
        [{ telemetry: { metrics: 1 } }, "Expected `telemetry.metrics` to be a boolean, got `1` (number)"],
        [{ telemetry: { carryContext: "false" } }, "Expected `telemetry.carryContext` to be a boolean, got `false` (string)"],
        [{ telemetry: { processContext: "child" } }, 'Expected `telemetry.processContext` to be "parent" or "link", got `child` (string)'],
        [
          { telemetry: { tracerProvider: { getMeter: () => undefined } } },
          "Expected `telemetry.tracerProvider` to be a TracerProvider (with getTracer), got `{ getMeter }` (object)",
        ],
        [
          { telemetry: { meterProvider: "global" } },
          "Expected `telemetry.meterProvider` to be a MeterProvider (with getMeter), got `global` (string)",
        ],
        [
          { telemetry: { propagator: { inject: () => undefined } } },
          "Expected `telemetry.propagator` to be a TextMapPropagator (with inject and extract), got `{ inject }` (object)",
        ],
        [
          { cluster: { rootNode: [{ url: `redis://127.0.0.1:${port}` }] } },
          "Expected `cluster` to be node-redis cluster options with a `rootNodes` array, got `{ rootNode }` (object)",
        ],
        [
          { cluster: `redis://127.0.0.1:${port}` },
          `Expected \`cluster\` to be node-redis cluster options with a \`rootNodes\` array, got \`redis://127.0.0.1:${port}\` (string)`,
        ],
        [
          { ...cluster, ns: "my{app" },
          "Expected `ns` to be a namespace holding a whole hash tag like `{myapp}`, or no braces at all, in Redis Cluster, got `my{app` (string)",
        ],
        [
          { ...cluster, ns: "{}app" },
          "Expected `ns` to be a namespace holding a whole hash tag like `{myapp}`, or no braces at all, in Redis Cluster, got `{}app` (string)",
        ],
      ];
    };

    it("throws a TypeError naming the option, what was expected and what was given, and opens no connection", async () => {
      for (const [overrides, message] of cases()) {
        const construct = (): unknown => new RedisSMQ({ host: "127.0.0.1", port, ns: uniqueNs(), ...overrides });
        expect(construct, JSON.stringify(overrides)).to.throw(TypeError).with.property("message", message);
      }
      // Made after them all, this instance's one connection is the first the proxy sees: the bad ones opened none.
      const control = new RedisSMQ({ host: "127.0.0.1", port, ns: uniqueNs(), connections: 1 });
      try {
        await control.listQueuesAsync();
      } finally {
        await control.quitAsync();
      }
      expect(proxy.accepted).to.equal(1);
    });

    it("a half hash tag in ns is fine on a single server, where there are no slots", () => {
      expect(resolveConstructorOptions({ ns: "my{app" }).layout.tagQueues).to.equal(false);
    });
  });

  describe("how a given value is shown", () => {
    it("as the value and its type; an object by its keys only (its values may be credentials)", () => {
      expect(describeValue(0)).to.equal("`0` (number)");
      expect(describeValue("fast")).to.equal("`fast` (string)");
      expect(describeValue(null)).to.equal("`null` (object)");
      expect(describeValue(undefined)).to.equal("`undefined` (undefined)");
      expect(describeValue({ rootNodes: "x", password: "secret" })).to.equal("`{ rootNodes, password }` (object)");
      expect(describeValue({})).to.equal("`{}` (object)");
      expect(describeValue([1, 2])).to.equal("`[2 items]` (object)");
      expect(describeValue(Object.create(null))).to.equal("`{}` (object)");
      expect(describeValue(function handler() {})).to.equal("`[function handler]` (function)");
      expect(describeValue(Symbol("s"))).to.equal("`Symbol(s)` (symbol)");
    });
  });
});
