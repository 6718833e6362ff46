/**
 * An ioredis 5 or 6 client as rsmq-next sees it: structural interfaces of its own, so that the
 * package neither loads ioredis nor needs its types (ioredis is an optional peer dependency: a
 * caller who passes an ioredis client has it installed). A client is recognised by its shape, not
 * by its constructor's name or version: a standalone or Sentinel-managed `new Redis(...)`, or
 * `new Redis.Cluster(...)`. ioredis 6 speaks RESP3 by default (HELLO 3, RESP2 when the server
 * refuses it); with either `replyMapping` its replies to rsmq's commands are what ioredis 5 gives.
 */

/** The events of an ioredis client that rsmq-next listens to. */
export type IoredisEvent = "ready" | "connect" | "close" | "end" | "error" | "message" | "smessage";

/** Just enough of an ioredis pipeline: commands by name, and their results, one [error, reply] each. */
export interface IoredisPipeline {
  call(command: string, ...args: string[]): IoredisPipeline;
  exec(): Promise<Array<[Error | null, unknown]> | null>;
}

/** What both kinds of ioredis client (standalone and Cluster) have, in ioredis 5 and 6. */
interface IoredisCommon {
  /** "wait", "connecting", "connect", "ready", "close", "reconnecting", "end". */
  readonly status: string;
  /** Runs one command by name; resolves its reply. */
  call(command: string, ...args: string[]): Promise<unknown>;
  pipeline(): IoredisPipeline;
  connect(): Promise<void>;
  disconnect(reconnect?: boolean): void;
  quit(): Promise<unknown>;
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(...channels: string[]): Promise<unknown>;
  ssubscribe(...channels: string[]): Promise<unknown>;
  sunsubscribe(...channels: string[]): Promise<unknown>;
  on(event: IoredisEvent, listener: (...args: never[]) => void): unknown;
  once(event: IoredisEvent, listener: (...args: never[]) => void): unknown;
  off(event: IoredisEvent, listener: (...args: never[]) => void): unknown;
}

/** The options of a standalone ioredis client that rsmq-next reads. */
export interface IoredisOptions {
  host?: string;
  port?: number;
  path?: string;
  keyPrefix?: string;
  /** Integer replies as strings. */
  stringNumbers?: boolean;
  /** Sentinel-managed: the sentinels and the name of the primary they watch. */
  sentinels?: ReadonlyArray<{ host?: string; port?: number }> | null;
  name?: string;
  maxRetriesPerRequest?: number | null;
  enableOfflineQueue?: boolean;
  /** Whether the client subscribes its channels again after a reconnect (default true). */
  autoResubscribe?: boolean;
  /** ioredis 6: the protocol asked for with HELLO (3 by default); ioredis 5 has no such option (RESP2). */
  protocol?: number;
}

/** ioredis 6: the state of the current connection, `protocol` as negotiated (2 when the server refused HELLO 3). */
export interface IoredisCondition {
  protocol?: number;
}

/** A standalone (or Sentinel-managed) ioredis client: `new Redis(...)`. */
export interface IoredisClient extends IoredisCommon {
  readonly isCluster?: false;
  readonly options: IoredisOptions;
  /** Set once it connects (ioredis 5 has it too, without `protocol`). */
  readonly condition?: IoredisCondition | null;
  /** A new client with the same options (and `override` on top). */
  duplicate(override?: Record<string, unknown>): IoredisClient;
}

/** An ioredis Redis Cluster client: `new Redis.Cluster(...)`. */
export interface IoredisCluster extends IoredisCommon {
  readonly isCluster: true;
  readonly options: {
    keyPrefix?: string;
    enableOfflineQueue?: boolean;
    redisOptions?: IoredisOptions;
    /** Where read-only commands go: "master" (the default), "slave", "all", or a function that picks a node. */
    scaleReads?: unknown;
  };
  /** The node clients, by role. */
  nodes(role?: "all" | "master" | "slave"): IoredisClient[];
  /** A new cluster client with the same startup nodes and options (and `options` on top). */
  duplicate(startupNodes?: unknown[], options?: Record<string, unknown>): IoredisCluster;
}

/** An ioredis client of either kind. */
export type AnyIoredis = IoredisClient | IoredisCluster;

function hasIoredisShape(candidate: Record<string, unknown>): boolean {
  return (
    typeof candidate.call === "function" &&
    typeof candidate.duplicate === "function" &&
    typeof candidate.pipeline === "function" &&
    typeof candidate.status === "string" &&
    typeof candidate.options === "object" &&
    candidate.options !== null
  );
}

/** A standalone or Sentinel-managed ioredis client (checked before the node-redis v3 shape, which it also has). */
export function isIoredisClient(client: unknown): client is IoredisClient {
  if (typeof client !== "object" || client === null) return false;
  const candidate = client as Record<string, unknown>;
  return candidate.isCluster !== true && hasIoredisShape(candidate);
}

/** An ioredis Redis Cluster client. */
export function isIoredisCluster(client: unknown): client is IoredisCluster {
  if (typeof client !== "object" || client === null) return false;
  const candidate = client as Record<string, unknown>;
  return candidate.isCluster === true && typeof candidate.nodes === "function" && hasIoredisShape(candidate);
}

/** An ioredis client of either kind. */
export function isIoredis(client: unknown): client is AnyIoredis {
  return isIoredisClient(client) || isIoredisCluster(client);
}

/**
 * Whether a standalone client's connection speaks RESP3 now (ioredis 6, after HELLO 3): commands
 * then go on while it is subscribed, so wake subscriptions can share it. Read once it is ready.
 */
export function speaksResp3(client: IoredisClient): boolean {
  return client.condition?.protocol === 3;
}

/** Whether a standalone client asks for RESP3 when it connects (ioredis 6 unless `protocol: 2`). */
export function asksForResp3(client: IoredisClient): boolean {
  return client.options.protocol === 3;
}

/** The `keyPrefix` an ioredis client would add to every key (which would move rsmq's keys), or undefined. */
export function keyPrefixOf(client: AnyIoredis): string | undefined {
  const prefix = client.isCluster ? (client.options.keyPrefix ?? client.options.redisOptions?.keyPrefix) : client.options.keyPrefix;
  return prefix ? prefix : undefined;
}

/** Whether an ioredis client returns integer replies as strings (`stringNumbers`), which rsmq's replies are not. */
export function hasStringNumbers(client: AnyIoredis): boolean {
  return (client.isCluster ? client.options.redisOptions?.stringNumbers : client.options.stringNumbers) === true;
}

/** Where an ioredis client connects, for error messages. */
export function whereOf(client: AnyIoredis): string {
  if (client.isCluster) {
    const nodes = client.nodes("master").map((node) => `${node.options.host ?? "localhost"}:${node.options.port ?? 6379}`);
    return nodes.length > 0 ? `the ioredis Cluster (${nodes.join(", ")})` : "the ioredis Cluster";
  }
  const options = client.options;
  if (options.sentinels && options.sentinels.length > 0) return `the primary "${options.name ?? "mymaster"}" named by Sentinel`;
  if (options.path) return options.path;
  return `${options.host ?? "localhost"}:${options.port ?? 6379}`;
}
