/**
 * Cross-process wakes: one subscriber connection per RedisSMQ instance, shared by its workers,
 * listening on each queue's realtime channel, where rsmq's `realtime` senders (rsmq 0.12.4 ones
 * included) publish after every sendMessage.
 */
import type { ChannelListener, Subscriber } from "../transports/transport";

interface Channel {
  readonly listeners: Set<ChannelListener>;
  /** The SUBSCRIBE every caller waits for. */
  readonly subscribed: Promise<void>;
  /** Set once the server confirmed it. */
  confirmed?: boolean;
}

export class RealtimeWakes {
  private subscriber: Subscriber | undefined;
  private readonly channels = new Map<string, Channel>();
  /** After close() nothing new is opened: a connection opened then would never be closed. */
  private closed = false;

  /**
   * @param openSubscriber opens the subscriber connection, on first use
   * @param sent told of each command sent on it (SUBSCRIBE, UNSUBSCRIBE, a health check's PING), for telemetry
   */
  constructor(
    private readonly openSubscriber: () => Subscriber,
    private readonly sent: (count: number) => void = () => undefined,
  ) {}

  /**
   * Calls `listener` on every message published to `channel`. Resolves once the server has
   * confirmed the subscription, with a function that removes the listener again. A refused
   * SUBSCRIBE rejects, and the next caller tries again.
   */
  async subscribe(channel: string, listener: ChannelListener): Promise<() => Promise<void>> {
    let entry = this.channels.get(channel);
    if (!entry) {
      const listeners = new Set<ChannelListener>();
      const dispatch = (message?: string): void => {
        for (const wake of [...listeners]) wake(message);
      };
      const made: Channel = { listeners, subscribed: this.connection().subscribe(channel, dispatch) };
      made.subscribed.then(
        () => (made.confirmed = true),
        () => undefined,
      );
      entry = made;
      this.sent(1);
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
      if (this.subscriber) this.sent(1);
      await this.subscriber?.unsubscribe(channel);
    };
  }

  /** Whether `channel` is subscribed and confirmed already: a send published now is heard (a waiting receive asks). */
  isHeard(channel: string): boolean {
    return this.channels.get(channel)?.confirmed === true;
  }

  /**
   * A Worker's poll (its cap `capMs`): the subscription's health check rides it, when one is due
   * (see transports/subscriber-health.ts). Opens nothing.
   */
  tick(capMs: number): void {
    if (this.subscriber?.tick(capMs)) this.sent(1);
  }

  async close(): Promise<void> {
    this.closed = true;
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    this.channels.clear();
    await subscriber?.close();
  }

  private connection(): Subscriber {
    if (this.closed) throw new Error("rsmq-next: this RedisSMQ instance has quit (quitAsync): no new wake subscription");
    this.subscriber ??= this.openSubscriber();
    return this.subscriber;
  }
}
