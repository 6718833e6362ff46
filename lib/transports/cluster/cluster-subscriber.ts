/**
 * The connection a RealtimeWakes listens on in Redis Cluster: one subscriber connection per node,
 * copies of the cluster client's node connections, opened on first use and owned here.
 */
import type { RedisClientOptions, RedisClientType, RedisClusterType } from "redis";
import { hashSlot } from "./hash-slot";
import { isErrorReply } from "./error-replies";
import { subscriberOverrides } from "./cluster-shapes";
import { duplicateClient, firstMasterClient, knownNodeAddresses, slotMasterAddress, socketOptionsOf } from "../node-redis/private-shapes";
import { unsubscribeError } from "../node-redis/client-subscriber";
import type { ChannelListener, Subscriber } from "../transport";

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
  tick(): boolean {
    return false;
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
          const moved = isErrorReply(error) ? /^MOVED \d+ (\S+)$/.exec(error.message) : null;
          if (moved) {
            node = moved[1];
            continue;
          }
          if (this.sharded && isErrorReply(error) && /unknown command/i.test(error.message)) {
            this.sharded = false;
            continue;
          }
          if (isErrorReply(error)) throw error; // refused (ACL, ...): no other node will say otherwise
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
    const owner = slotMasterAddress(cluster, hashSlot(channel));
    return [...new Set([...(owner ? [owner] : []), ...knownNodeAddresses(cluster)])];
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
    const template = await firstMasterClient(cluster);
    const separator = node.lastIndexOf(":");
    let connected = false;
    const client = duplicateClient(template, {
      ...subscriberOverrides(cluster),
      readonly: false,
      socket: {
        ...socketOptionsOf(template),
        host: node.slice(0, separator),
        port: Number(node.slice(separator + 1)),
        // A node that cannot be reached now is not waited for (the next candidate is tried), and
        // one lost for good is given up after a few tries (its channels move elsewhere).
        reconnectStrategy: (retries: number, cause: Error) => {
          if (connected && retries < 5) return Math.min(100 * 2 ** retries, 1000);
          if (connected) setImmediate(gone);
          return cause;
        },
      } as RedisClientOptions["socket"],
    });
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
