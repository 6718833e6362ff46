/**
 * The Redis connection behind a RedisSMQ instance: opened here (and then owned and closed here),
 * or the caller's node-redis 4, 5 or 6 client (borrowed: never closed here). Connection state becomes
 * `connect`, `disconnect` and `error` events. A connection opened here always has an `error`
 * listener, so an outage never crashes the process; node-redis reconnects on its own and holds
 * calls made meanwhile in its offline queue until the server is back.
 */
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import { ClientCloser } from "./client-closer";
import { toClientOptions } from "../../options/connection/client-options";
import { ignoredNestedKeys, warnIgnoredNestedOnce } from "../../options/connection/nested-options";
import { callOptionsFor, duplicateClient, promiseApiOf, respOf, socketOptionsOf } from "./private-shapes";
import type { CallOptionsOf } from "./private-shapes";
import { nodeRedisLink } from "./node-redis-link";
import { ClientSubscriber } from "./client-subscriber";
import { SharedConnectionSubscriber } from "./shared-connection-subscriber";
import { LinkWatchdog } from "../watchdog/link-watchdog";
import { isV3Client, isV4Client, settingsOfV3Client, warnV3ClientOnce } from "../../options/connection/given-client";
import { awaitReplicas } from "../replica-acks";
import { unconfirmedWrite } from "../../errors/replication-timeouts";
import type { ReplicaAcks, Subscriber, Transport, TransportEvents } from "../transport";
import type { ConnectionSettings } from "../../options/connection/connection-settings";
import { NODE_REDIS_CLOSED } from "../closed-by-user";
import { watchReady } from "../ready-watch";
import type { ReadyWatch } from "../ready-watch";
import { HAND_OUT_AS_IS } from "../handover";

export class NodeRedisTransport implements Transport {
  readonly cluster = false;
  readonly handover = HAND_OUT_AS_IS;
  /** The node-redis client in use (4, 5 or 6 when borrowed; 4 when opened here). */
  readonly client: RedisClientType;
  /** Whether this instance opened the client and so must close it. */
  readonly owned: boolean;
  /** Where commands go: the client, or its `.v4` face in legacyMode. */
  private readonly commands: RedisClientType;
  /** How each call carries its AbortSignal, as this client's major reads it. */
  private readonly callOptions: CallOptionsOf;
  /** Up or not, told as `connect` and `disconnect`, with the reconnects counted (set before the client's events are heard). */
  private readonly state: ReadyWatch;
  /** Closes an owned client at any point of its life, a connection attempt in flight included. */
  private readonly closer = new ClientCloser();
  /** Set while this library drops a silent link: the `end` that causes is its own, not the user's. */
  private reopening = false;
  private readonly detach: () => void;
  /** Bounds every call (offlineTimeoutMs, commandTimeoutMs); drops a silent link of an owned client. */
  private readonly watchdog: LinkWatchdog;
  /** The wakes' subscription when it shares this connection (see openSubscriber). */
  private sharedSubscriber: SharedConnectionSubscriber | undefined;

  /**
   * Opens the connection the settings describe, or borrows their `client`; with `duplicateOf`,
   * opens (and owns) a duplicate of that client instead: a pool's further connections beside a
   * client passed in.
   */
  constructor(
    private readonly settings: ConnectionSettings,
    private readonly events: TransportEvents,
    duplicateOf?: RedisClientType,
  ) {
    const given = settings.given.client;
    if (duplicateOf) {
      this.client = duplicateClient(duplicateOf, this.closer.guard({ legacyMode: false, socket: socketOptionsOf(duplicateOf) }));
      this.owned = true;
    } else if (isV4Client(given)) {
      this.client = given;
      this.owned = false;
    } else {
      let options = settings.given;
      if (isV3Client(given)) {
        warnV3ClientOnce();
        options = { ...options, ...definedOnly(settingsOfV3Client(given)) };
      }
      const honor = settings.honorNestedOptions;
      const clientOptions = toClientOptions(options, honor);
      warnIgnoredNestedOnce(ignoredNestedKeys(options, honor), clientOptions, toClientOptions(options, true));
      this.client = createClient(this.closer.guard(clientOptions)) as RedisClientType;
      this.owned = true;
    }
    this.commands = promiseApiOf(this.client);
    this.callOptions = callOptionsFor(this.client);
    this.state = watchReady(events, this.client.isReady);
    this.detach = this.listen();
    // A borrowed client's calls are bounded too, but its socket is the caller's to manage.
    this.watchdog = new LinkWatchdog(
      nodeRedisLink(this.client, (error) => this.closer.causedBy(error)),
      settings.bounds,
      this.owned ? () => this.dropLink() : undefined,
    );
    if (!this.client.isReady && !this.client.isOpen) {
      // node-redis retries until it connects; failures along the way arrive as `error` events.
      this.closer.connect(this.client);
    }
  }

  get connected(): boolean {
    return this.state.connected;
  }

  /** Counts reconnects: what the script runner learnt of the server holds for one epoch only. */
  get connectionEpoch(): number {
    return this.state.epoch;
  }

  sendCommand(args: string[], _firstKey?: string): Promise<unknown> {
    const reply = this.watchdog.call((signal) => this.commands.sendCommand(args, this.callOptions(signal)));
    // A reply on a connection the wakes share proves their subscription's link works: no PING needed.
    if (this.sharedSubscriber) void reply.then(this.sharedSubscriber.heard, () => undefined);
    return reply;
  }

  async sendReplicated(args: string[], _key: string | undefined, acks: ReplicaAcks): Promise<unknown> {
    const reply = await this.sendCommand(args);
    // Reconnecting: WAIT now would wait for, and go out on, the next connection, which wrote
    // nothing. (Before the first `ready`, replies to queued commands can arrive while isReady is
    // still false.) The reply just arrived, so a ready client still has the socket that carried it.
    if (this.state.everReady && !this.client.isReady) throw unconfirmedWrite(acks, "the connection was lost after the write");
    // WAIT waits on the server by design, up to waitForReplicasMs: that is not silence.
    await awaitReplicas(
      (wait) => this.watchdog.call((signal) => this.commands.sendCommand(wait, this.callOptions(signal)), acks.timeoutMs),
      acks,
    );
    return reply;
  }

  /**
   * SUBSCRIBE on a copy of this client, bounded as this one is; on the caller's RESP3 client
   * (node-redis 5/6), on that very connection, which runs commands while subscribed.
   */
  openSubscriber(onError: (error: Error) => void): Subscriber {
    const { bounds, subscriberPingMs } = this.settings;
    if (this.owned || respOf(this.client) !== 3) return new ClientSubscriber(this.client, onError, bounds, subscriberPingMs);
    const shared = new SharedConnectionSubscriber(this.client, onError, bounds, subscriberPingMs);
    this.sharedSubscriber = shared;
    return shared;
  }

  /** Closes an owned connection (QUIT when up; see ClientCloser); leaves a borrowed one open. */
  async close(): Promise<"OK"> {
    if (!this.owned) {
      this.watchdog.close();
      this.detach();
      this.state.stop();
      return "OK";
    }
    await this.closer.close(() => this.watchdog.call((signal) => this.commands.sendCommand(["QUIT"], this.callOptions(signal))));
    this.watchdog.close();
    this.detach();
    return "OK";
  }

  /** Drops the silent link of an owned client for a new one (see ClientCloser.drop): its `end` is no news. */
  private async dropLink(): Promise<void> {
    this.reopening = true;
    try {
      await this.closer.drop(this.client);
    } finally {
      this.reopening = false;
    }
  }

  private listen(): () => void {
    const onReady = (): void => {
      // A connect that finished after close() is being closed: it is no news.
      if (!this.closer.closed) this.state.ready();
    };
    const onLost = (): void => this.state.lost();
    // node-redis emits `end` only from quit() and disconnect(): when not this library's, the user's.
    // Told before the loss, so that a pool closing its other connections does not check them first.
    const onEnd = (): void => {
      if (!this.closer.closed && !this.reopening) this.events.closed?.(NODE_REDIS_CLOSED);
      onLost();
    };
    const onError = (error: Error): void => {
      onLost();
      // What close() itself causes, or a drop of a stuck attempt, is no news.
      if (!this.closer.closed && !this.closer.causedBy(error)) this.events.error(error);
    };
    this.client.on("ready", onReady);
    this.client.on("end", onEnd);
    this.client.on("error", onError);
    return () => {
      this.client.off("ready", onReady);
      this.client.off("end", onEnd);
      // An owned client keeps ClientCloser's `error` listener: a late socket error crashes nothing.
      this.client.off("error", onError);
    };
  }
}

function definedOnly(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined && value !== null));
}
