/**
 * When the wake subscription's connection is checked. A subscribed connection hears nothing while
 * no one publishes, so a silent (half-open) link would leave it deaf for good: a check is one
 * PING, and one left unanswered for commandTimeoutMs drops the link (the watchdog), after which a
 * new one subscribes again and the sleeping Workers look for what they missed.
 *
 * By default (`subscriberPingMs` left out) the check has no clock of its own: it rides the
 * Workers' polls. A Worker asks for one with each poll ({@link SubscriberHealth.tick}, given its
 * cap), and a PING goes out only when the connection has been quiet (no reply, no message, no new
 * link) for about that cap. An idle instance thus sends one PING per cap on its subscription,
 * beside each Worker's look and however many Workers share it, and none while messages are
 * heard. A silent subscription costs wake latency only, never a message: the look itself bounds
 * lateness by the cap. A `subscriberPingMs` given is a fixed interval of its own, and 0 none.
 *
 * Where the subscription shares the command connection (the caller's RESP3 node-redis 5/6
 * client: node-redis/shared-connection-subscriber.ts), every reply on it counts as heard, so the
 * Workers' own polls keep it checked and no PING goes out; an unanswered one is reported, and the
 * link, the caller's, is left as it is.
 */

/**
 * How much sooner than a whole cap a Worker's poll may check again: the poll after a cap's sleep
 * comes a little over a cap after the last check, and a timer may fire a millisecond early.
 */
export function checkSlackMs(capMs: number): number {
  return Math.min(1_000, capMs / 10);
}

/** Whether a poll of a Worker with cap `capMs` checks the connection, last known to work at `lastHeardAt`. */
export function checkDue(now: number, lastHeardAt: number, capMs: number): boolean {
  return now - lastHeardAt >= capMs - checkSlackMs(capMs);
}

/** One check: resolves whether the PING was answered (a failure is the caller's to report). */
export type HealthPing = () => Promise<boolean>;

export class SubscriberHealth {
  /** When the link was last known to work: a PING's send time once answered, a message, a new link. */
  private lastHeardAt: number;
  private checking = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  /**
   * @param pingMs the `subscriberPingMs` option: undefined to ride the Workers' polls, 0 for no check, else a fixed interval
   * @param ping sends one PING (when the link is up; resolves false otherwise)
   */
  constructor(
    private readonly pingMs: number | undefined,
    private readonly ping: HealthPing,
    private readonly now: () => number = Date.now,
  ) {
    this.lastHeardAt = now();
    this.schedule();
  }

  /** The link works now: a message or a subscription reply came, or a new link is up. */
  heard(): void {
    this.lastHeardAt = this.now();
  }

  /**
   * A Worker's poll (its cap `capMs`): checks the link if it has been quiet that long, by default
   * only. Returns whether a check (one PING) started: the commands telemetry counts.
   */
  tick(capMs: number): boolean {
    if (this.pingMs !== undefined || this.checking || this.closed) return false;
    if (!checkDue(this.now(), this.lastHeardAt, capMs)) return false;
    void this.check();
    return true;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async check(): Promise<void> {
    this.checking = true;
    const sentAt = this.now();
    try {
      // The reply proves the link carried everything up to when the PING was sent.
      if (await this.ping().catch(() => false)) this.lastHeardAt = Math.max(this.lastHeardAt, sentAt);
    } finally {
      this.checking = false;
    }
  }

  /** The fixed interval of an explicit `subscriberPingMs`. */
  private schedule(): void {
    if (this.pingMs === undefined || this.pingMs <= 0 || this.closed) return;
    this.timer = setTimeout(() => void this.check().finally(() => this.schedule()), this.pingMs);
    // The pings keep nothing alive: the connection itself does, until closed.
    this.timer.unref();
  }
}

/**
 * One health check's outcome: `ping` (a PING, bounded by the subscriber's watchdog) answered is
 * true, any failure false; a `connectionTimeout` is reported through `onError` unless the
 * subscriber was closed meanwhile (its own close cuts the PING short: no news).
 */
export async function pingAnswered(
  ping: () => Promise<unknown>,
  isClosed: () => boolean,
  onError: (error: Error) => void,
): Promise<boolean> {
  try {
    await ping();
    return true;
  } catch (error) {
    if (!isClosed() && (error as Error).name === "connectionTimeout") onError(error as Error);
    return false;
  }
}
