/**
 * The connection realtime wakes listen on, for an ioredis client whose own connection cannot carry
 * them (RESP2, or a Cluster client: see wake-subscriber.ts): a copy of it (`duplicate()`, so a
 * Sentinel-managed client's copy follows the primary too), opened on first use, owned and closed
 * here. The caller's client is never put in subscriber mode.
 *
 * Standalone or Sentinel: SUBSCRIBE. The copy does not resubscribe by itself (`autoResubscribe`
 * off): on every reconnect the channels are subscribed here again, and once they are, every
 * listener is called, since a message published while the link was down was not heard. A
 * subscribed connection hears nothing while nothing is published, so it is PINGed when quiet
 * (with the Workers' polls, or every `subscriberPingMs`: see subscriber-health.ts); a PING left
 * unanswered for `commandTimeoutMs` drops the link, and ioredis reconnects (`disconnect(true)`).
 *
 * Redis Cluster: SSUBSCRIBE on a copy of the cluster client made with ioredis'
 * `shardedSubscribers: true` (ioredis 5.9 and later), which keeps one subscriber per master and
 * moves a channel's subscription when its slot moves or its master fails over; sendMessage
 * publishes with SPUBLISH there. After the copy reconnects, every listener is called too.
 */
import type { AnyIoredis, IoredisClient, IoredisCluster } from "./client-shape";
import { ioredisLink } from "./ioredis-link";
import { LinkWatchdog } from "../watchdog/link-watchdog";
import type { LinkBounds } from "../watchdog/link-watchdog";
import { SubscriberHealth, pingAnswered } from "../subscriber-health";
import type { ChannelListener, Subscriber } from "../transport";

export class IoredisSubscriber implements Subscriber {
  private readonly client: AnyIoredis;
  private readonly sharded: boolean;
  private readonly watchdog: LinkWatchdog;
  private readonly listeners = new Map<string, ChannelListener>();
  private readonly health: SubscriberHealth;
  private closed = false;

  /** @param pingMs `subscriberPingMs`: undefined rides the Workers' polls, 0 never PINGs, else a fixed interval */
  constructor(
    source: AnyIoredis,
    private readonly onError: (error: Error) => void,
    bounds: LinkBounds,
    pingMs: number | undefined,
  ) {
    this.sharded = source.isCluster === true;
    this.client = source.isCluster ? duplicateCluster(source) : duplicateClient(source);
    this.watchdog = new LinkWatchdog(ioredisLink(this.client), bounds, this.sharded ? undefined : () => this.reconnect());
    this.client.on("error", (error: Error) => {
      if (!this.closed) onError(error);
    });
    // The copy of a cluster client keeps one link per master and moves its subscriptions itself: not checked here.
    this.health = new SubscriberHealth(this.sharded ? 0 : pingMs, () => this.ping());
    this.client.on(this.sharded ? "smessage" : "message", (channel: string, message: string) => {
      this.health.heard();
      this.listeners.get(channel)?.(message);
    });
    let everReady = false;
    this.client.on("ready", () => {
      this.health.heard();
      if (everReady) void this.resubscribe();
      everReady = true;
    });
  }

  async subscribe(channel: string, listener: ChannelListener): Promise<void> {
    await this.watchdog.call(() => (this.sharded ? this.client.ssubscribe(channel) : this.client.subscribe(channel)));
    this.health.heard();
    this.listeners.set(channel, listener);
  }

  async unsubscribe(channel: string): Promise<void> {
    this.listeners.delete(channel);
    // While reconnecting there is nothing to unsubscribe from: the subscription went with the link.
    if (this.client.status !== "ready") return;
    await this.watchdog
      .call(() => (this.sharded ? this.client.sunsubscribe(channel) : this.client.unsubscribe(channel)))
      .catch((error: unknown) => this.onError(error instanceof Error ? error : new Error(String(error))));
  }

  tick(capMs: number): boolean {
    return this.health.tick(capMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.health.close();
    if (this.client.status === "ready") await this.watchdog.call(() => this.client.quit()).catch(() => undefined);
    this.watchdog.close();
    // Ends a connection attempt in flight or a pending reconnect too.
    this.client.disconnect();
  }

  /** Subscribes every channel again on the new link, then calls every listener (a publish may have been missed). */
  private async resubscribe(): Promise<void> {
    if (this.closed) return;
    // The copy of a cluster client resubscribes its sharded channels itself.
    const channels = [...this.listeners.keys()];
    if (!this.sharded && channels.length > 0) {
      await this.watchdog
        .call(() => this.client.subscribe(...channels))
        .catch((error: Error) => {
          if (!this.closed) this.onError(error);
        });
    }
    if (this.closed) return;
    for (const listener of [...this.listeners.values()]) listener();
  }

  /** One health check: a PING within commandTimeoutMs, which replaces a silent link; false when not answered. */
  private async ping(): Promise<boolean> {
    if (this.client.status !== "ready" || this.closed) return false;
    return pingAnswered(
      () => this.watchdog.call(() => this.client.call("PING")),
      () => this.closed,
      this.onError,
    );
  }

  /** Drops a silent link; ioredis opens a new one, and `ready` subscribes again. */
  private reconnect(): Promise<void> {
    if (!this.closed) this.client.disconnect(true);
    return Promise.resolve();
  }
}

/** A copy that connects now (whatever `lazyConnect` said) and leaves resubscribing to this module. */
function duplicateClient(source: IoredisClient): IoredisClient {
  return source.duplicate({ lazyConnect: false, autoResubscribe: false });
}

function duplicateCluster(source: IoredisCluster): IoredisCluster {
  const copy = source.duplicate([], { shardedSubscribers: true, lazyConnect: false });
  return copy;
}
