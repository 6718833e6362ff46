/**
 * The clients a test can pass as `client`, by name (RSMQ_TEST_CLIENT picks the one a `client`
 * pass uses, see server.ts): ioredis 5 and 6, and node-redis 4, 5 and 6 in RESP2 or RESP3, each
 * installed as its own package (`ioredis6`, `redis5`, `redis6` are npm aliases in package.json).
 * Each maker returns the client unconnected but connecting, with an `error` listener, and a close
 * that ends it whatever state it is in.
 */
import Redis5 from "ioredis";
import type { RedisOptions } from "ioredis";
import Redis6 from "ioredis6";
import { createClient as createClient4, createCluster as createCluster4 } from "redis";
import { createClient as createClient5, createCluster as createCluster5 } from "redis5";
import { createClient as createClient6, createCluster as createCluster6 } from "redis6";

/** Every client a test can pass in. */
export const TEST_CLIENTS = [
  "ioredis5",
  "ioredis6",
  "noderedis4",
  "noderedis5-resp2",
  "noderedis5-resp3",
  "noderedis6-resp2",
  "noderedis6-resp3",
] as const;

/** One of {@link TEST_CLIENTS}. */
export type TestClientKind = (typeof TEST_CLIENTS)[number];

/** A client made for a test, and how to end it. */
export interface TestClient {
  readonly kind: TestClientKind;
  /** The client object, to pass as `client`. */
  readonly client: unknown;
  /** Ends the client at once (no QUIT), whether or not it ever connected. */
  close(): void;
}

/** Settings that belong to the client, named as rsmq-next's own options name them. */
export interface TestClientSettings {
  name?: string;
  username?: string;
  password?: string;
  disableOfflineQueue?: boolean;
}

/** The client RSMQ_TEST_CLIENT names, or undefined when unset; an unknown name throws. */
export function testClientKindFromEnv(value = process.env.RSMQ_TEST_CLIENT): TestClientKind | undefined {
  if (value === undefined || value === "") return undefined;
  const kind = TEST_CLIENTS.find((known) => known === value);
  if (!kind) throw new Error(`RSMQ_TEST_CLIENT=${value}: expected one of ${TEST_CLIENTS.join(", ")}`);
  return kind;
}

/** Whether `kind` is an ioredis client. */
export function isIoredisKind(kind: TestClientKind): boolean {
  return kind.startsWith("ioredis");
}

function respOf(kind: TestClientKind): 2 | 3 {
  return kind.endsWith("resp3") ? 3 : 2;
}

type NodeRedisClient = { connect(): Promise<unknown>; on(event: "error", listener: () => void): unknown; isOpen: boolean };

function endNodeRedis(
  client: NodeRedisClient & { destroy?: () => unknown; disconnect(): Promise<unknown> },
  connected: Promise<void>,
): void {
  const { destroy } = client;
  if (client.isOpen) {
    if (typeof destroy === "function") destroy.call(client);
    else client.disconnect().catch(() => undefined);
  }
  if (typeof destroy !== "function") return;
  // A node-redis 5 cluster client destroyed while it connects still connects to its masters
  // afterwards, and those connections kept the process alive: ended again once its connect settles.
  // (Already closed, it throws or rejects: nothing was left to end.)
  void connected.then(() => destroy.call(client)).catch(() => undefined);
}

/** A client of `kind` on the server at host:port; `ioredisOptions` go to an ioredis client as they are. */
export function standaloneTestClient(
  kind: TestClientKind,
  where: { host: string; port: number },
  settings: TestClientSettings = {},
  ioredisOptions: RedisOptions = {},
): TestClient {
  const { name, username, password, disableOfflineQueue } = settings;
  if (isIoredisKind(kind)) {
    const options: RedisOptions = {
      host: where.host,
      port: where.port,
      ...(name === undefined ? {} : { connectionName: name }),
      ...(username === undefined ? {} : { username }),
      ...(password === undefined ? {} : { password }),
      ...(disableOfflineQueue ? { enableOfflineQueue: false } : {}),
      ...ioredisOptions,
    };
    const client = kind === "ioredis6" ? new Redis6(options as Record<string, unknown>) : new Redis5(options);
    client.on("error", () => undefined);
    return { kind, client, close: () => client.disconnect() };
  }
  const options = {
    socket: { host: where.host, port: where.port },
    ...(name === undefined ? {} : { name }),
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    ...(disableOfflineQueue ? { disableOfflineQueue } : {}),
  };
  const client = (kind === "noderedis4"
    ? createClient4(options)
    : kind.startsWith("noderedis5")
      ? createClient5({ ...options, RESP: respOf(kind) })
      : createClient6({ ...options, RESP: respOf(kind) })) as unknown as NodeRedisClient & { disconnect(): Promise<unknown> };
  client.on("error", () => undefined);
  const connected = client.connect().then(
    () => undefined,
    () => undefined,
  );
  return { kind, client, close: () => endNodeRedis(client, connected) };
}

/**
 * A cluster client of `kind` on the cluster reached through `rootNodes` (node-redis `{ url }` root
 * nodes), with `settings` on every node's connection (node-redis `defaults`, ioredis `redisOptions`).
 */
export function clusterTestClient(
  kind: TestClientKind,
  rootNodes: ReadonlyArray<{ url: string }>,
  settings: TestClientSettings = {},
): TestClient {
  const { name, username, password, disableOfflineQueue } = settings;
  if (isIoredisKind(kind)) {
    const nodes = rootNodes.map(({ url }) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) }));
    const redisOptions = {
      ...(name === undefined ? {} : { connectionName: name }),
      ...(username === undefined ? {} : { username }),
      ...(password === undefined ? {} : { password }),
    };
    const clusterOptions = { redisOptions, ...(disableOfflineQueue ? { enableOfflineQueue: false } : {}) };
    const client = kind === "ioredis6" ? new Redis6.Cluster(nodes, clusterOptions) : new Redis5.Cluster(nodes, clusterOptions);
    client.on("error", () => undefined);
    return { kind, client, close: () => client.disconnect() };
  }
  const defaults = {
    ...(name === undefined ? {} : { name }),
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    ...(disableOfflineQueue ? { disableOfflineQueue } : {}),
  };
  const options = { rootNodes: rootNodes.map(({ url }) => ({ url })), defaults };
  const client = (kind === "noderedis4"
    ? createCluster4(options)
    : kind.startsWith("noderedis5")
      ? createCluster5({ ...options, RESP: respOf(kind) })
      : createCluster6({ ...options, RESP: respOf(kind) })) as unknown as NodeRedisClient & { disconnect(): Promise<unknown> };
  client.on("error", () => undefined);
  const connected = client.connect().then(
    () => undefined,
    () => undefined,
  );
  return { kind, client, close: () => endNodeRedis(client, connected) };
}
