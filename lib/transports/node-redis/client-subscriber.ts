/**
 * The connection a RealtimeWakes listens on for a single server (one connection or a pool): a
 * copy of the transport's client (a subscribed connection can run nothing else), opened on first
 * use and owned here.
 */
import type { RedisClientType } from "redis";
import { ClientCloser } from "./client-closer";
import { callOptionsFor, duplicateClient, socketOptionsOf } from "./private-shapes";
import { nodeRedisLink } from "./node-redis-link";
import { LinkWatchdog } from "../watchdog/link-watchdog";
import type { LinkBounds } from "../watchdog/link-watchdog";
import { SubscriberHealth, pingAnswered } from "../subscriber-health";
import type { ChannelListener, Subscriber } from "../transport";
import { explainRefusal } from "../../errors/refusals";

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
    const socket = socketOptionsOf(source);
    // node-redis' own pingInterval is off here: its PING has no timeout, so it cannot find a silent link.
    this.client = duplicateClient(source, this.closer.guard({ legacyMode: false, pingInterval: undefined, socket }));
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
    const heard = (message: string): void => {
      this.health.heard();
      listener(message);
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

  tick(capMs: number): boolean {
    return this.health.tick(capMs);
  }

  async close(): Promise<void> {
    this.health.close();
    await this.closer.close(() => this.watchdog.call((signal) => this.client.sendCommand(["QUIT"], callOptionsFor(this.client)(signal))));
    this.watchdog.close();
  }

  /** One health check: a PING within commandTimeoutMs, which replaces a silent link; false when not answered. */
  private async ping(): Promise<boolean> {
    if (!this.client.isReady || this.closer.closed) return false;
    return pingAnswered(
      () => this.watchdog.call((signal) => this.client.sendCommand(["PING"], callOptionsFor(this.client)(signal))),
      () => this.closer.closed,
      this.onError,
    );
  }
}

/** A failed UNSUBSCRIBE (the channel stays subscribed until the connection closes): named when the ACL refused it. */
export function unsubscribeError(error: unknown, channel: string): Error {
  const named = explainRefusal(error, { operation: `Unsubscribing the wakes of ${channel}`, channel });
  return named instanceof Error ? named : new Error(String(named));
}
