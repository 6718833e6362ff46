/**
 * The connection a RealtimeWakes listens on, for a single server or for Redis Cluster. Each is a
 * copy of the instance's own connection (a subscribed connection can run nothing else), opened on
 * first use and owned here.
 */
import { ErrorReply } from "redis";
import type { RedisClientOptions, RedisClientType, RedisClusterType } from "redis";
import { ClientCloser } from "./client-closer";
import { hashSlot } from "../cluster/hash-slot";
import { LinkWatchdog, nodeRedisLink } from "../watchdog/link-watchdog";
import type { LinkBounds } from "../watchdog/link-watchdog";
import { SubscriberHealth } from "../subscriber-health";
import { explainRefusal } from "../../errors/refusals";

export type ChannelListener = () => void;

export interface Subscriber {
  /** Resolves once the server has confirmed the subscription. */
  subscribe(channel: string, listener: ChannelListener): Promise<void>;
  unsubscribe(channel: string): Promise<void>;
  /** A Worker's poll, its cap `capMs`: the health check that rides it, where there is one (see subscriber-health.ts). */
  tick(capMs: number): void;
  close(): Promise<void>;
}

/**
 * SUBSCRIBE on a copy of a single-server client: where rsmq 0.12.4's realtime senders publish.
 * A subscribed connection hears nothing while no message is published, so a silent link (a
 * half-open connection) would leave it deaf for good: it is PINGed when quiet (with the Workers'
 * polls, or every `subscriberPingMs`: see subscriber-health.ts), and one PING left unanswered for
 * `commandTimeoutMs` drops the link and opens a new one, where node-redis subscribes again. Once
 * subscribed again every listener is called: a message published while the link was down or
 * silent was not heard, so the workers look for it.
 */
export class ClientSubscriber implements Subscriber {
  private readonly client: RedisClientType;
  /** Closes it at any point, a connection attempt in flight included. */
  private readonly closer = new ClientCloser();
  private readonly watchdog: LinkWatchdog;
  private readonly listeners = new Map<string, ChannelListener>();
  private readonly health: SubscriberHealth;

  /** @param pingMs `subscriberPingMs`: undefined rides the Workers' polls, 0 never PINGs, else a fixed interval */
  constructor(
    source: RedisClientType,
    private readonly onError: (error: Error) => void,
    bounds: LinkBounds,
    pingMs: number | undefined,
  ) {
    const { socket } = (source as { options?: RedisClientOptions }).options ?? {};
    // node-redis' own pingInterval is off here: its PING has no timeout, so it cannot find a silent link.
    const overrides = this.closer.guard({ legacyMode: false, pingInterval: undefined, socket }) as Parameters<
      RedisClientType["duplicate"]
    >[0];
    this.client = source.duplicate(overrides) as RedisClientType;
    this.watchdog = new LinkWatchdog(
      nodeRedisLink(this.client, (error) => this.closer.causedBy(error)),
      bounds,
      () => this.closer.drop(this.client),
    );
    this.client.on("error", (error: Error) => {
      if (!this.closer.closed && !this.closer.causedBy(error)) onError(error);
    });
    this.health = new SubscriberHealth(pingMs, () => this.ping());
    let everReady = false;
    this.client.on("ready", () => {
      this.health.heard();
      if (everReady) for (const listener of [...this.listeners.values()]) listener();
      everReady = true;
    });
    this.closer.connect(this.client);
  }

  async subscribe(channel: string, listener: ChannelListener): Promise<void> {
    const heard = (): void => {
      this.health.heard();
      listener();
    };
    // A SUBSCRIBE cannot be withdrawn from node-redis' offline queue: if it times out and runs
    // later, the listener is only called once more per message, which wakes a worker twice.
    await this.watchdog.call(() => this.client.subscribe(channel, heard));
    this.health.heard();
    this.listeners.set(channel, listener);
  }

  async unsubscribe(channel: string): Promise<void> {
    this.listeners.delete(channel);
    // While reconnecting, an UNSUBSCRIBE would wait for the server; node-redis drops the
    // subscription with the connection anyway.
    if (this.client.isReady)
      await this.watchdog
        .call(() => this.client.unsubscribe(channel))
        .catch((error: unknown) => this.onError(unsubscribeError(error, channel)));
  }

  tick(capMs: number): void {
    this.health.tick(capMs);
  }

  async close(): Promise<void> {
    this.health.close();
    await this.closer.close(() => this.watchdog.call((signal) => this.client.sendCommand(["QUIT"], { signal })));
    this.watchdog.close();
  }

  /** One health check: a PING within commandTimeoutMs, which replaces a silent link; false when not answered. */
  private async ping(): Promise<boolean> {
    if (!this.client.isReady || this.closer.closed) return false;
    try {
      await this.watchdog.call((signal) => this.client.sendCommand(["PING"], { signal }));
      return true;
    } catch (error) {
      if (!this.closer.closed && (error as Error).name === "connectionTimeout") this.onError(error as Error);
      return false;
    }
  }
}

/**
 * In Redis Cluster: SSUBSCRIBE, so a wake is delivered by the shard that owns the queue's slot and
 * does not travel to every node; plain SUBSCRIBE on a server without sharded pub/sub (before
 * Redis 7), where sendMessage's script publishes with PUBLISH for the same reason.
 *
 * The subscriptions are kept here, one connection per node, not by node-redis v4's cluster client:
 * that one loses a shard subscription for good when its slot moves (it listens for an event its own
 * client never emits) and when its node dies (it never subscribes elsewhere). Here a channel whose
 * slot moved, or whose node went away, is subscribed again on the slot's owner, found from the
 * cluster client's slot map and from MOVED replies, retrying with backoff until it works.
 */
export class ClusterSubscriber implements Subscriber {
  /** One subscriber connection per node, by "host:port" (connecting, or connected). */
  private readonly clients = new Map<string, Promise<RedisClientType>>();
  /** The connected ones, to tell which connection an `end` belongs to. */
  private readonly live = new Map<string, RedisClientType>();
  /** The channels asked for, with the node each is subscribed on. */
  private readonly wanted = new Map<string, { listener: ChannelListener; node?: string }>();
  private sharded = true;
  private closed = false;

  /** @param connection the instance's cluster connection, whose client knows the slot map (a new client after a topology refresh) */
  constructor(
    private readonly connection: { readonly client: RedisClusterType; whenReady(): Promise<void> },
    private readonly onError: (error: Error) => void,
  ) {}

  async subscribe(channel: string, listener: ChannelListener): Promise<void> {
    this.wanted.set(channel, { listener });
    try {
      await this.connection.whenReady();
      await this.place(channel);
    } catch (error) {
      this.wanted.delete(channel);
      throw error;
    }
  }

  async unsubscribe(channel: string): Promise<void> {
    const node = this.wanted.get(channel)?.node;
    this.wanted.delete(channel);
    const client = node === undefined ? undefined : await this.clients.get(node)?.catch(() => undefined);
    // Only on a live connection: on a dead node's, node-redis v4 would wait forever.
    if (!client?.isReady) return;
    await (this.sharded ? client.sUnsubscribe(channel) : client.unsubscribe(channel)).catch((error: unknown) =>
      this.onError(unsubscribeError(error, channel)),
    );
  }

  /**
   * No health check here: a node's connection is replaced when the node goes away or its slot
   * moves, but a silent one goes unnoticed (the Workers' looks still bound lateness by their cap).
   */
  tick(): void {
    return undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wanted.clear();
    const clients = await Promise.all([...this.clients.values()].map((client) => client.catch(() => undefined)));
    this.clients.clear();
    this.live.clear();
    await Promise.all(clients.map((client) => (client?.isOpen ? client.disconnect().catch(() => undefined) : undefined)));
  }

  /** Subscribes on the slot's owner: first the node the slot map names, then any other known node, following MOVED. */
  private async place(channel: string): Promise<void> {
    let lastError: unknown;
    for (const start of this.candidates(channel)) {
      let node = start;
      for (let hop = 0; hop < 5; hop++) {
        const entry = this.wanted.get(channel);
        if (!entry || this.closed) return;
        let client: RedisClientType;
        try {
          client = await this.clientFor(node);
        } catch (error) {
          lastError = error;
          break;
        }
        try {
          if (this.sharded) await client.sSubscribe(channel, entry.listener);
          else await client.subscribe(channel, entry.listener);
          entry.node = node;
          return;
        } catch (error) {
          lastError = error;
          const moved = error instanceof ErrorReply ? /^MOVED \d+ (\S+)$/.exec(error.message) : null;
          if (moved) {
            node = moved[1];
            continue;
          }
          if (this.sharded && error instanceof ErrorReply && /unknown command/i.test(error.message)) {
            this.sharded = false;
            continue;
          }
          if (error instanceof ErrorReply) throw error; // refused (ACL, ...): no other node will say otherwise
          break;
        }
      }
    }
    throw lastError ?? new Error(`rsmq-next: no cluster node to subscribe ${channel} on`);
  }

  /** Subscribes again until it works (or the channel is no longer wanted); a failure is reported once per loss. */
  private async resubscribe(channel: string): Promise<void> {
    for (let attempt = 0; !this.closed && this.wanted.has(channel); attempt++) {
      try {
        await this.place(channel);
        return;
      } catch (error) {
        if (attempt === 0) this.onError(error as Error);
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 2000)));
      }
    }
  }

  /** "host:port" of the slot's owner in the cluster client's map, then every other node it knows. */
  private candidates(channel: string): string[] {
    const cluster = this.connection.client;
    const address = (node: { host: string; port: number }): string => `${node.host}:${node.port}`;
    const owner = cluster.slots[hashSlot(channel)]?.master;
    const all = [...cluster.masters, ...cluster.replicas].map(address);
    return [...new Set([...(owner ? [address(owner)] : []), ...all])];
  }

  private clientFor(node: string): Promise<RedisClientType> {
    if (this.closed) return Promise.reject(new Error("rsmq-next: the subscriber is closed"));
    let client = this.clients.get(node);
    if (!client) {
      client = this.open(node);
      this.clients.set(node, client);
      client.catch(() => {
        if (this.clients.get(node) === client) this.clients.delete(node);
      });
    }
    return client;
  }

  /** A subscriber connection to one node, with the cluster's credentials and TLS settings. */
  private async open(node: string): Promise<RedisClientType> {
    const cluster = this.connection.client;
    const template = (await cluster.nodeClient(cluster.masters[0])) as unknown as RedisClientType;
    const separator = node.lastIndexOf(":");
    let connected = false;
    const client = template.duplicate({
      readonly: false,
      socket: {
        ...template.options?.socket,
        host: node.slice(0, separator),
        port: Number(node.slice(separator + 1)),
        // A node that cannot be reached now is not waited for (the next candidate is tried), and
        // one lost for good is given up after a few tries (its channels move elsewhere).
        reconnectStrategy: (retries: number, cause: Error) => {
          if (connected && retries < 5) return Math.min(100 * 2 ** retries, 1000);
          if (connected) setImmediate(gone);
          return cause;
        },
      },
    } as never) as RedisClientType;
    /** node-redis emits no `end` when it gives up reconnecting, only when closed: both land here. */
    const gone = (): void => {
      if (this.live.get(node) !== client) return;
      this.live.delete(node);
      this.clients.delete(node);
      for (const [channel, entry] of this.wanted) if (entry.node === node) void this.resubscribe(channel);
    };
    client.on("error", () => undefined);
    client.on("sharded-channel-moved", (channel: string) => {
      // The server ended the subscription: the slot has moved to another node.
      const entry = this.wanted.get(channel);
      if (entry?.node === node) void this.resubscribe(channel);
    });
    client.on("end", gone);
    await client.connect();
    if (this.closed) {
      // close() ran while this connected: it is no longer anyone's to close.
      await client.disconnect().catch(() => undefined);
      throw new Error("rsmq-next: the subscriber is closed");
    }
    connected = true;
    this.live.set(node, client);
    return client;
  }
}

/** A failed UNSUBSCRIBE (the channel stays subscribed until the connection closes): named when the ACL refused it. */
function unsubscribeError(error: unknown, channel: string): Error {
  const named = explainRefusal(error, { operation: `Unsubscribing the wakes of ${channel}`, channel });
  return named instanceof Error ? named : new Error(String(named));
}
