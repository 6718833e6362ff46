/**
 * Cross-process wakes: one subscriber connection per RedisSMQ instance, shared by its workers,
 * listening on `<ns>:rt:<qname>`, where rsmq's `realtime` senders (rsmq 0.12.4 ones included)
 * publish after every sendMessage.
 */
import type { RedisClientType } from "redis";

type Listener = () => void;

export class RealtimeWakes {
  private subscriber: RedisClientType | undefined;
  /** Per channel: its listeners, and the SUBSCRIBE every caller waits for. */
  private readonly channels = new Map<string, { listeners: Set<Listener>; subscribed: Promise<void> }>();

  /**
   * @param source the connection to copy settings from (node-redis `duplicate()`)
   * @param onError where the subscriber's connection errors go
   */
  constructor(
    private readonly source: RedisClientType,
    private readonly onError: (error: Error) => void,
  ) {}

  /**
   * Calls `listener` on every message published to `channel`. Resolves once the server has
   * confirmed the subscription, with a function that removes the listener again. A refused
   * SUBSCRIBE rejects, and the next caller tries again.
   */
  async subscribe(channel: string, listener: Listener): Promise<() => Promise<void>> {
    let entry = this.channels.get(channel);
    if (!entry) {
      const listeners = new Set<Listener>();
      const subscribed = this.connection().subscribe(channel, () => {
        for (const wake of [...listeners]) wake();
      });
      entry = { listeners, subscribed };
      this.channels.set(channel, entry);
    }
    const current = entry;
    try {
      await current.subscribed;
    } catch (error) {
      if (this.channels.get(channel) === current) this.channels.delete(channel);
      throw error;
    }
    current.listeners.add(listener);
    return async () => {
      current.listeners.delete(listener);
      if (current.listeners.size > 0 || this.channels.get(channel) !== current) return;
      this.channels.delete(channel);
      // While reconnecting, an UNSUBSCRIBE would wait for the server; node-redis drops the
      // subscription with the connection anyway.
      if (this.subscriber?.isReady) await this.subscriber.unsubscribe(channel).catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.channels.clear();
    if (subscriber?.isOpen) await subscriber.disconnect().catch(() => undefined);
  }

  private connection(): RedisClientType {
    if (!this.subscriber) {
      // A subscriber connection cannot run other commands, so it is a copy, owned here.
      const subscriber = this.source.duplicate({ legacyMode: false }) as RedisClientType;
      subscriber.on("error", this.onError);
      subscriber.connect().catch(() => undefined);
      this.subscriber = subscriber;
    }
    return this.subscriber;
  }
}
