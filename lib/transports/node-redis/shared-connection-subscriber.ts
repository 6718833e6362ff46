/**
 * Realtime wakes on the caller's own node-redis 5/6 client when it speaks RESP3: there a
 * subscribed connection still runs commands (messages come as push replies beside them), so the
 * subscription shares the command connection and opens none of its own (no further connection,
 * no further HELLO).
 *
 * The client stays the caller's: only this library's listeners are added and taken away
 * (node-redis sends UNSUBSCRIBE once a channel has no listener left, so a subscription of the
 * caller's own to the same channel stays), and it is never closed or reconnected here. node-redis
 * subscribes again by itself on each new connection; once it is ready again every listener is
 * called, since a message published while the link was down was not heard.
 */
import type { RedisClientType } from "redis";
import { nodeRedisLink } from "./node-redis-link";
import { LinkWatchdog } from "../watchdog/link-watchdog";
import type { LinkBounds } from "../watchdog/link-watchdog";
import { SubscriberHealth, pingAnswered } from "../subscriber-health";
import type { ChannelListener, Subscriber } from "../transport";
import { unsubscribeError } from "./client-subscriber";
import { callOptionsFor } from "./private-shapes";

type MessageListener = (message: string) => void;

/** The pub/sub methods of a node-redis 5/6 client: a listener is removed alone, by identity. */
interface PubSubClient {
  subscribe(channel: string, listener: MessageListener): Promise<void>;
  unsubscribe(channel: string, listener: MessageListener): Promise<void>;
}

export class SharedConnectionSubscriber implements Subscriber {
  private readonly watchdog: LinkWatchdog;
  /** Each subscribed channel: the caller's listener, and the one node-redis holds (removed by identity). */
  private readonly channels = new Map<string, { listener: ChannelListener; heard: MessageListener }>();
  private readonly health: SubscriberHealth;
  private readonly onReady: () => void;
  private closed = false;

  /** @param pingMs `subscriberPingMs`: undefined rides the Workers' polls, 0 never PINGs, else a fixed interval */
  constructor(
    private readonly client: RedisClientType,
    private readonly onError: (error: Error) => void,
    bounds: LinkBounds,
    pingMs: number | undefined,
  ) {
    // No ReplaceLink: the socket is the caller's to manage.
    this.watchdog = new LinkWatchdog(nodeRedisLink(client), bounds);
    this.health = new SubscriberHealth(pingMs, () => this.ping());
    let wasReady = client.isReady;
    this.onReady = () => {
      this.health.heard();
      if (wasReady) for (const { listener } of [...this.channels.values()]) listener();
      wasReady = true;
    };
    client.on("ready", this.onReady);
  }

  /** A reply came on the shared connection: the link works, and so the subscription on it. */
  readonly heard = (): void => this.health.heard();

  async subscribe(channel: string, listener: ChannelListener): Promise<void> {
    const heard: MessageListener = (message) => {
      this.health.heard();
      listener(message);
    };
    try {
      await this.watchdog.call(() => this.pubSub.subscribe(channel, heard));
    } catch (error) {
      // node-redis holds the listener from the call on: one left behind would wake twice once the channel is subscribed again.
      void this.pubSub.unsubscribe(channel, heard).catch(() => undefined);
      throw error;
    }
    this.health.heard();
    this.channels.set(channel, { listener, heard });
  }

  async unsubscribe(channel: string): Promise<void> {
    const entry = this.channels.get(channel);
    if (!entry) return;
    this.channels.delete(channel);
    await this.withdraw(channel, entry.heard);
  }

  tick(capMs: number): boolean {
    return this.health.tick(capMs);
  }

  /** Takes this library's listeners off the caller's client, which stays open. */
  async close(): Promise<void> {
    this.closed = true;
    this.health.close();
    this.client.off("ready", this.onReady);
    const left = [...this.channels];
    this.channels.clear();
    await Promise.all(left.map(([channel, { heard }]) => this.withdraw(channel, heard)));
    this.watchdog.close();
  }

  private get pubSub(): PubSubClient {
    return this.client as unknown as PubSubClient;
  }

  /** Removes one listener; node-redis drops it at once, and sends UNSUBSCRIBE when it was the channel's last. */
  private async withdraw(channel: string, heard: MessageListener): Promise<void> {
    const sent = this.pubSub.unsubscribe(channel, heard);
    // While reconnecting, the UNSUBSCRIBE would wait for the server: the new connection subscribes without it anyway.
    if (!this.client.isReady) {
      void sent.catch(() => undefined);
      return;
    }
    await this.watchdog.call(() => sent).catch((error: unknown) => this.onError(unsubscribeError(error, channel)));
  }

  /** One health check: a PING within commandTimeoutMs; false when not answered (the caller's link is left as it is). */
  private async ping(): Promise<boolean> {
    if (!this.client.isReady || this.closed) return false;
    return pingAnswered(
      () => this.watchdog.call((signal) => this.client.sendCommand(["PING"], callOptionsFor(this.client)(signal))),
      () => this.closed,
      this.onError,
    );
  }
}
