/**
 * The realtime subscription that waiting receives share: one listener per channel on the
 * instance's RealtimeWakes (so one SUBSCRIBE per channel per instance, beside its Workers'),
 * reference counted by the waiting calls, and kept LINGER_MS after the last one ends. A loop of
 * waiting receives calls again within a tick of the last answer: without the linger each call
 * would pay a SUBSCRIBE, an UNSUBSCRIBE and the look that covers the gap between its first look
 * and the new subscription.
 */
import type { RealtimeWakes } from "./realtime-wakes";

/** How long a channel stays subscribed after its last waiting call ended. */
export const LINGER_MS = 1_000;

/** Called with the published message (a send's wake carries the message id); with none after a reconnection. */
type Wake = (message?: string) => void;

interface Held {
  readonly waiters: Set<Wake>;
  /** Resolves with RealtimeWakes' unsubscribe once the server confirmed; rejects when refused. */
  readonly subscribed: Promise<() => Promise<void>>;
  /** Whether the SUBSCRIBE has been confirmed. */
  live: boolean;
  linger: NodeJS.Timeout | undefined;
}

/** A waiting call's hold on a channel. */
export interface Hold {
  /** Whether the channel was already heard (confirmed) when the call asked for it. */
  readonly wasLive: boolean;
  release(): void;
}

const holders = new WeakMap<RealtimeWakes, Map<string, Held>>();

/**
 * Calls `wake` on every message published to `channel` until `release()`. Resolves once the
 * subscription is confirmed; rejects when it is refused or fails (the caller waits without it).
 */
export async function holdChannel(wakes: RealtimeWakes, channel: string, wake: Wake): Promise<Hold> {
  let channels = holders.get(wakes);
  if (!channels) holders.set(wakes, (channels = new Map<string, Held>()));
  const map = channels;
  let held = map.get(channel);
  if (!held) {
    const waiters = new Set<Wake>();
    const subscribed = wakes.subscribe(channel, (message) => {
      for (const each of [...waiters]) each(message);
    });
    const entry: Held = { waiters, subscribed, live: false, linger: undefined };
    subscribed.then(
      () => (entry.live = true),
      () => map.get(channel) === entry && map.delete(channel),
    );
    map.set(channel, (held = entry));
  }
  const current = held;
  // Heard already if this channel's hold, or a Worker of the instance, has a confirmed subscription.
  const wasLive = current.live || wakes.isHeard(channel);
  if (current.linger) clearTimeout(current.linger);
  current.linger = undefined;
  await current.subscribed;
  current.waiters.add(wake);
  return {
    wasLive,
    release() {
      if (!current.waiters.delete(wake) || current.waiters.size > 0) return;
      current.linger = setTimeout(() => {
        if (current.waiters.size > 0 || map.get(channel) !== current) return;
        map.delete(channel);
        void current.subscribed.then((unsubscribe) => unsubscribe()).catch(() => undefined);
      }, LINGER_MS);
      // A lingering subscription must not keep the process alive.
      current.linger.unref();
    },
  };
}
