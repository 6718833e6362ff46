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
 * RSMQ_TEST_TARGET=ioredis it is the single server again, reached through an ioredis client:
 * `connectionOptions()` gives `{ client: new Redis(...) }`, closed after the test (or, made in a
 * suite hook, after the run).
 */
import { randomBytes } from "crypto";
import Redis from "ioredis";
import type { RedisOptions } from "ioredis";
import { createClient, createCluster } from "redis";
import type { RedisClientType, RedisClusterType } from "redis";
import { KeyLayout } from "../../lib/keys";
import type { QueueKeys } from "../../lib/keys";
import { clusterUnavailableReason, startTestCluster } from "./cluster";
import type { TestCluster } from "./cluster";
import { startTestRedis } from "./redis-server";
import type { TestRedis } from "./redis-server";

let server: TestRedis | undefined;
let cluster: TestCluster | undefined;

/** Whether this run targets a Redis Cluster (RSMQ_TEST_TARGET=cluster). */
export function onCluster(): boolean {
  return process.env.RSMQ_TEST_TARGET === "cluster";
}

/** Whether this run reaches the single server through ioredis clients (RSMQ_TEST_TARGET=ioredis). */
export function onIoredis(): boolean {
  return process.env.RSMQ_TEST_TARGET === "ioredis";
}

/** ioredis clients made by connectionOptions(): during a test (closed after it), and in suite hooks (after the run). */
const ioredisClients = { test: [] as Redis[], suite: [] as Redis[] };
let inTest = false;

function closeIoredis(clients: Redis[]): void {
  for (const client of clients.splice(0)) client.disconnect();
}

export const mochaHooks = {
  beforeEach(): void {
    inTest = true;
  },
  afterEach(): void {
    inTest = false;
    closeIoredis(ioredisClients.test);
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
    closeIoredis(ioredisClients.suite);
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

/** Options for RedisSMQ pointing at the run's target: the single server, the cluster, or an ioredis client. */
export function connectionOptions(ns: string): { host: string; port: number; ns: string } {
  if (onCluster())
    return { cluster: { rootNodes: testCluster().rootNodes() }, ns } as unknown as { host: string; port: number; ns: string };
  if (onIoredis()) return { client: ioredisClient(), ns } as unknown as { host: string; port: number; ns: string };
  return singleServerOptions(ns);
}

/**
 * connectionOptions() with a connection setting that belongs to the client: node-redis' `name`,
 * `username`, `password` and `disableOfflineQueue` as top-level options, or on the ioredis target
 * the same settings of the ioredis client (`connectionName`, `enableOfflineQueue: false`).
 */
export function connectionOptionsWith(
  ns: string,
  settings: { name?: string; username?: string; password?: string; disableOfflineQueue?: boolean },
): ReturnType<typeof connectionOptions> {
  if (!onIoredis()) return { ...connectionOptions(ns), ...settings } as ReturnType<typeof connectionOptions>;
  const { name, username, password, disableOfflineQueue } = settings;
  const client = ioredisClient({
    ...(name === undefined ? {} : { connectionName: name }),
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    ...(disableOfflineQueue ? { enableOfflineQueue: false } : {}),
  });
  return { client, ns } as unknown as ReturnType<typeof connectionOptions>;
}

/** A new ioredis client on the single server, closed after the test (made in a suite hook: after the run). */
export function ioredisClient(options: RedisOptions = {}): Redis {
  const { host, port } = testRedis();
  const client = new Redis({ host, port, ...options });
  client.on("error", () => undefined);
  (inTest ? ioredisClients.test : ioredisClients.suite).push(client);
  return client;
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
