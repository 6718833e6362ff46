/**
 * Realtime wakes on the caller's own ioredis 6 connection, when it speaks RESP3: there a subscribed
 * connection still runs every other command (messages come as push frames, apart from replies),
 * so no copy is opened: no second connection, no second handshake. Only for a standalone or
 * Sentinel-managed client; a Cluster client subscribes on connections of its own anyway (see
 * ioredis-subscriber.ts).
 *
 * The client is the caller's: this module SUBSCRIBEs and UNSUBSCRIBEs its own channels only,
 * never quits or drops the connection (a PING left unanswered is reported, the link left alone),
 * and listens to the client's `message` event beside the caller's own listeners: it acts only on
 * its channels and ignores the rest, while the caller's listeners also hear the messages of rsmq's
 * channels (`<ns>:rt:<qname>` and `<ns>:wake:<qname>`), which they should ignore in turn. Several
 * RedisSMQ instances on one client share a channel's subscription (channel-claims.ts): the last
 * one to let go unsubscribes it.
 *
 * After a reconnect ioredis subscribes the channels again itself (`autoResubscribe`, on by
 * default: SUBSCRIBE is written before `ready` is emitted, so before any look it triggers); with
 * `autoResubscribe: false` they are subscribed here. Then every listener is called, since a
 * message published while the link was down was not heard.
 */
import type { IoredisClient } from "./client-shape";
import { claimChannel, isClaimed, releaseChannels } from "./channel-claims";
import { ioredisLink } from "./ioredis-link";
import { LinkWatchdog } from "../watchdog/link-watchdog";
import type { LinkBounds } from "../watchdog/link-watchdog";
import { SubscriberHealth, pingAnswered } from "../subscriber-health";
import type { ChannelListener, Subscriber } from "../transport";

export class SameConnectionSubscriber implements Subscriber {
  /** No way to replace the link: a silent one is the caller's to drop. */
  private readonly watchdog: LinkWatchdog;
  private readonly listeners = new Map<string, ChannelListener>();
  /** The channels this subscriber holds a claim on (channel-claims.ts), from before SUBSCRIBE is sent. */
  private readonly claimed = new Set<string>();
  private readonly health: SubscriberHealth;
  private readonly detach: () => void;
  private closed = false;

  /** @param pingMs `subscriberPingMs`: undefined rides the Workers' polls, 0 never PINGs, else a fixed interval */
  constructor(
    private readonly client: IoredisClient,
    private readonly onError: (error: Error) => void,
    bounds: LinkBounds,
    pingMs: number | undefined,
  ) {
    this.watchdog = new LinkWatchdog(ioredisLink(client), bounds);
    this.health = new SubscriberHealth(pingMs, () => this.ping());
    const onMessage = (channel: string, message: string): void => {
      const listener = this.listeners.get(channel);
      if (!listener) return; // the caller's own channel
      this.health.heard();
      listener(message);
    };
    const onReady = (): void => {
      this.health.heard();
      void this.afterReconnect();
    };
    client.on("message", onMessage);
    client.on("ready", onReady);
    this.detach = () => {
      client.off("message", onMessage);
      client.off("ready", onReady);
    };
  }

  async subscribe(channel: string, listener: ChannelListener): Promise<void> {
    // Claimed before SUBSCRIBE goes out, so that another subscriber letting go meanwhile keeps it.
    const claimedNow = !this.claimed.has(channel);
    if (claimedNow) {
      this.claimed.add(channel);
      claimChannel(this.client, channel);
    }
    try {
      await this.watchdog.call(() => this.client.subscribe(channel));
    } catch (error) {
      if (claimedNow && this.claimed.delete(channel)) releaseChannels(this.client, [channel]);
      throw error;
    }
    this.health.heard();
    this.listeners.set(channel, listener);
  }

  async unsubscribe(channel: string): Promise<void> {
    this.listeners.delete(channel);
    if (!this.claimed.delete(channel)) return;
    await this.unsubscribeFromServer(releaseChannels(this.client, [channel]));
  }

  tick(capMs: number): boolean {
    return this.health.tick(capMs);
  }

  /** Unsubscribes what is still subscribed here; the client stays open, and subscribed to the caller's channels. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.health.close();
    this.detach();
    const channels = releaseChannels(this.client, [...this.claimed]);
    this.claimed.clear();
    this.listeners.clear();
    await this.unsubscribeFromServer(channels);
    this.watchdog.close();
  }

  /** UNSUBSCRIBE for channels no subscriber on this client listens to any more. */
  private async unsubscribeFromServer(channels: string[]): Promise<void> {
    if (channels.length === 0) return;
    if (this.client.status !== "ready") {
      // Nothing to unsubscribe from while reconnecting, but ioredis would subscribe the channels
      // again on the next link (autoResubscribe): undone once it is up, even after close(),
      // unless a subscriber claimed them again meanwhile.
      if (this.client.options.autoResubscribe !== false) this.client.once("ready", () => this.dropUnclaimed(channels));
      return;
    }
    await this.watchdog
      .call(() => this.client.unsubscribe(...channels))
      .catch((error: unknown) => this.onError(error instanceof Error ? error : new Error(String(error))));
  }

  private dropUnclaimed(channels: string[]): void {
    const unclaimed = channels.filter((channel) => !isClaimed(this.client, channel));
    if (unclaimed.length > 0) this.client.unsubscribe(...unclaimed).catch(() => undefined);
  }

  /** A new link: the channels subscribed again (by ioredis, or here), then every listener called. */
  private async afterReconnect(): Promise<void> {
    const channels = [...this.listeners.keys()];
    if (this.closed || channels.length === 0) return;
    if (this.client.options.autoResubscribe === false) {
      const failed = await this.watchdog
        .call(() => this.client.subscribe(...channels))
        .then(
          () => undefined,
          (error: Error) => error,
        );
      if (this.closed) return;
      if (failed) this.onError(failed);
    }
    for (const listener of [...this.listeners.values()]) listener();
  }

  /** One health check: a PING within commandTimeoutMs; false when not answered (reported, the link left to its owner). */
  private async ping(): Promise<boolean> {
    if (this.client.status !== "ready" || this.closed) return false;
    return pingAnswered(
      () => this.watchdog.call(() => this.client.call("PING")),
      () => this.closed,
      this.onError,
    );
  }
}
