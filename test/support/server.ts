/**
 * The servers for the whole run (mocha root hooks start and stop them), and the helpers every
 * suite needs: a unique namespace per test, connection options, and a plain client for looking at
 * the data.
 *
 * A run has a target. By default it is one redis-server. With RSMQ_TEST_TARGET=cluster it is a
 * local Redis Cluster (three masters, one replica each), and the suites that run on both targets
 * run their same bodies against it: `connectionOptions()` then gives cluster options,
 * `plainClient()` a cluster client, and the key helpers the cluster key layout. A single server
 * is started on both targets, for rsmq 0.12.4 (which cannot run on a cluster). With
 * RSMQ_TEST_CLIENT=<kind> (test-clients.ts) the calls go through a client the test passes in:
 * on the single server `connectionOptions()` gives `{ client }` (an ioredis or node-redis 4/5/6
 * client, RESP2 or RESP3), and with RSMQ_TEST_TARGET=cluster too, a cluster client of that kind on
 * the test cluster; each is closed after the test (or, made in a suite hook, after the run).
 * RSMQ_TEST_TARGET=ioredis is the older name of RSMQ_TEST_CLIENT=ioredis5.
 */
import { randomBytes } from "crypto";
import type Redis from "ioredis";
import type { RedisOptions } from "ioredis";
import { createClient, createCluster } from "redis";
import type { RedisClientType, RedisClusterType } from "redis";
import { KeyLayout } from "../../lib/keys";
import type { QueueKeys } from "../../lib/keys";
import { clusterUnavailableReason, startTestCluster } from "./cluster";
import type { TestCluster } from "./cluster";
import { answerReportRequests } from "./pass-report";
import { startTestRedis } from "./redis-server";
import type { TestRedis } from "./redis-server";
import { clusterTestClient, isIoredisKind, standaloneTestClient, testClientKindFromEnv } from "./test-clients";
import type { TestClient, TestClientKind, TestClientSettings } from "./test-clients";

let server: TestRedis | undefined;
let cluster: TestCluster | undefined;

// A pass that runs too long is asked what it is doing (run-passes.ts).
answerReportRequests();

/** Whether this run targets a Redis Cluster (RSMQ_TEST_TARGET=cluster). */
export function onCluster(): boolean {
  return process.env.RSMQ_TEST_TARGET === "cluster";
}

/** The client this run passes in as `client` (RSMQ_TEST_CLIENT), or undefined when the package opens its own connection. */
export function passedClientKind(): TestClientKind | undefined {
  if (process.env.RSMQ_TEST_TARGET === "ioredis") return "ioredis5";
  return testClientKindFromEnv();
}

/** Whether this run passes a client in (RSMQ_TEST_CLIENT): options then hold an object a child process cannot be given. */
export function onPassedClient(): boolean {
  return passedClientKind() !== undefined;
}

/** Whether this run passes an ioredis client in (RSMQ_TEST_CLIENT=ioredis5 or ioredis6). */
export function onIoredis(): boolean {
  const kind = passedClientKind();
  return kind !== undefined && isIoredisKind(kind);
}

/** Clients made by connectionOptions() and friends: during a test (closed after it), and in suite hooks (after the run). */
const madeClients = { test: [] as TestClient[], suite: [] as TestClient[] };
let inTest = false;

function closeClients(clients: TestClient[]): void {
  for (const made of clients.splice(0)) made.close();
}

function keep(made: TestClient): TestClient {
  (inTest ? madeClients.test : madeClients.suite).push(made);
  return made;
}

export const mochaHooks = {
  beforeEach(this: Mocha.Context): void {
    inTest = true;
    // Named in the diagnostic report of a pass killed for running too long (run-passes.ts).
    process.env.RSMQ_TEST_RUNNING = this.currentTest?.fullTitle() ?? "";
  },
  afterEach(): void {
    inTest = false;
    closeClients(madeClients.test);
  },
  async beforeAll(this: Mocha.Context): Promise<void> {
    this.timeout(120_000);
    if (onCluster()) {
      const reason = clusterUnavailableReason();
      if (reason) {
        console.log(`\n  Skipping every Redis Cluster test: ${reason}\n`);
        this.skip();
      }
      cluster = await startTestCluster();
    }
    server = await startTestRedis();
  },
  async afterAll(): Promise<void> {
    closeClients(madeClients.suite);
    await Promise.all([server?.close(), cluster?.close()]);
  },
};

export function testRedis(): TestRedis {
  if (!server) throw new Error("the test Redis server is not running (root hooks not loaded?)");
  return server;
}

/** The run's cluster; throws on the single-server target. */
export function testCluster(): TestCluster {
  if (!cluster) throw new Error("no test cluster: this run targets one redis-server (RSMQ_TEST_TARGET=cluster starts one)");
  return cluster;
}

/** Skips the calling test or suite on the cluster target, saying why (rsmq 0.12.4, a server restart, ...). */
export function singleServerOnly(context: Mocha.Context, why: string): void {
  if (!onCluster()) return;
  if (context.test) context.test.title += ` (single server only: ${why})`;
  context.skip();
}

/** A namespace no other test uses, so tests never see each other's keys. */
export function uniqueNs(prefix = "t"): string {
  return `${prefix}${randomBytes(4).toString("hex")}`;
}

/** Options for RedisSMQ pointing at the run's target: the single server, the cluster, or a client passed in (on either). */
export function connectionOptions(ns: string): { host: string; port: number; ns: string } {
  const kind = passedClientKind();
  if (onCluster()) {
    if (kind)
      return { client: keep(clusterTestClient(kind, testCluster().rootNodes())).client, ns } as unknown as ReturnType<
        typeof connectionOptions
      >;
    return { cluster: { rootNodes: testCluster().rootNodes() }, ns } as unknown as { host: string; port: number; ns: string };
  }
  if (kind) return { client: keep(standaloneTestClient(kind, testRedis())).client, ns } as unknown as ReturnType<typeof connectionOptions>;
  return singleServerOptions(ns);
}

/**
 * connectionOptions() with a connection setting that belongs to the client: node-redis' `name`,
 * `username`, `password` and `disableOfflineQueue` as top-level options, or, when the run passes
 * a client in, the same settings of that client (ioredis: `connectionName`, `enableOfflineQueue: false`).
 */
export function connectionOptionsWith(ns: string, settings: TestClientSettings): ReturnType<typeof connectionOptions> {
  const kind = passedClientKind();
  if (!kind) return { ...connectionOptions(ns), ...settings } as ReturnType<typeof connectionOptions>;
  const client = onCluster()
    ? keep(clusterTestClient(kind, testCluster().rootNodes(), settings)).client
    : keep(standaloneTestClient(kind, testRedis(), settings)).client;
  return { client, ns } as unknown as ReturnType<typeof connectionOptions>;
}

/**
 * Options a child process can be given for the run's target: connectionOptions(ns) when the run
 * passes no client; else the server or cluster that client reaches, for the child to connect to itself.
 */
export function childProcessOptions(ns: string): ReturnType<typeof connectionOptions> {
  if (!onPassedClient()) return connectionOptions(ns);
  if (onCluster()) return { cluster: { rootNodes: testCluster().rootNodes() }, ns } as unknown as ReturnType<typeof connectionOptions>;
  return singleServerOptions(ns);
}

/**
 * A new ioredis client on the single server (ioredis 6 on the ioredis6 run, 5 otherwise), closed
 * after the test (made in a suite hook: after the run).
 */
export function ioredisClient(options: RedisOptions = {}): Redis {
  const kind = passedClientKind() === "ioredis6" ? "ioredis6" : "ioredis5";
  const made = keep(standaloneTestClient(kind, testRedis(), {}, options));
  return made.client as Redis;
}

/** Options for the single server, whatever the target: for rsmq 0.12.4, and single-server-only tests. */
export function singleServerOptions(ns: string): { host: string; port: number; ns: string } {
  const { host, port } = testRedis();
  return { host, port, ns };
}

/**
 * A connected plain client on the run's target; close it with `quit()`. On the cluster target it
 * is a node-redis cluster client, typed as a single client: every one-key command works the same;
 * for what needs a node (KEYS, TIME, PUBSUB), use the helpers in inspect.ts.
 */
export async function plainClient(): Promise<RedisClientType> {
  if (onCluster()) {
    const client = createCluster({ rootNodes: testCluster().rootNodes() }) as unknown as RedisClusterType;
    client.on("error", () => undefined);
    await client.connect();
    return client as unknown as RedisClientType;
  }
  return singleServerClient();
}

/** A connected client on the single server, whatever the target. */
export async function singleServerClient(): Promise<RedisClientType> {
  const client = createClient({ url: testRedis().url }) as RedisClientType;
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

/** Where a queue's data lives on the run's target (`<ns>:{q}` in a cluster, `<ns>:q` otherwise). */
export function keysOf(ns: string, qname: string): QueueKeys {
  return KeyLayout.for(ns, onCluster()).queue(qname);
}
