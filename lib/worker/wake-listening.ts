/**
 * Where a Worker hears that its queue may have a message due sooner: sends in this process (the
 * in-process hub), and with `realtimeWakes` the queue's wake channels, where senders in every
 * process publish. Each channel is subscribed on its own and retried until it works or the worker
 * stops (wake-retry.ts), so a refusal of one leaves the other working.
 */
import type { ReportOnce } from "../errors/report-once";
import type { Clock } from "./clock";
import type { QueuePort } from "./queue-port";
import { keepSubscribing } from "./wake-retry";

/** What the listening needs of its worker. */
export interface WakeListening {
  readonly queue: QueuePort;
  readonly clock: Clock;
  /** The worker's stop: it ends the tries, and nothing stays subscribed after it. */
  readonly signal: AbortSignal;
  readonly problems: ReportOnce;
  readonly maxIdleSleepMs: number;
  readonly realtimeWakes: boolean;
  /** A wake, with the id of the send it carries when it carries one. */
  heard(id?: string): void;
  /** Looks at the queue once now: a send may have gone unheard while no channel was subscribed. */
  lookNow(): void;
  /** Keeps an unsubscribe, for the worker's stop. */
  keep(unsubscribe: () => unknown): void;
}

/** Starts listening: the hub at once, each wake channel as soon as its subscription works. */
export function listenForWakes(listening: WakeListening): void {
  const { queue, signal } = listening;
  listening.keep(queue.onWake((id) => listening.heard(id)));
  if (!listening.realtimeWakes) return;
  // A send between the first receive and the subscriptions would otherwise wait for the cap: one
  // look once each channel's first try is over (two confirmations make one look, not two).
  let untried = queue.wakeChannels.length;
  let subscribed = false;
  const tried = (succeeded: boolean): void => {
    subscribed ||= succeeded;
    if (--untried === 0 && subscribed && !signal.aborted) listening.lookNow();
  };
  for (const channel of queue.wakeChannels) void subscribeChannel(listening, channel, tried);
}

/** Subscribes to one wake channel, retrying until it works or the worker stops; `tried` is told when the first try is over. */
async function subscribeChannel(listening: WakeListening, channel: string, tried: (succeeded: boolean) => void): Promise<void> {
  const { queue, signal } = listening;
  let firstSucceeded = false;
  const unsubscribe = await keepSubscribing({
    channel,
    firstTry: (succeeded) => {
      firstSucceeded = succeeded;
      tried(succeeded);
    },
    subscribe: () => queue.subscribeWakes(channel, (message) => listening.heard(message)),
    clock: listening.clock,
    signal,
    problems: listening.problems,
    maxIdleSleepMs: listening.maxIdleSleepMs,
  });
  if (!unsubscribe) return;
  if (signal.aborted) return void unsubscribe();
  listening.keep(unsubscribe);
  // Subscribed after a refusal or failure: a send meanwhile was heard by no one.
  if (!firstSucceeded) listening.lookNow();
}
