/**
 * Bounds every call on one client (node-redis v4, or ioredis: see WatchedLink), so that nothing
 * waits forever: node-redis v4 holds a call made while disconnected in its offline queue for as
 * long as the server stays away, and waits for a reply on a silent socket (a half-open link)
 * until the kernel gives up, many minutes later. Here a call waits at most `offlineTimeoutMs` for a connection and, once sent,
 * at most `commandTimeoutMs` for its reply; then it rejects with `connectionTimeout`, which names
 * the server and the last connection error the client reported. A link that let a reply time out
 * is silent: when the client is ours it is dropped and opened again (node-redis resubscribes a
 * subscriber on the new one).
 */
import { noConnectionWithin, noReplyWithin } from "../../errors/connection-timeouts";
import { closedBeforeReady } from "../../errors/connection-closed";
import { PendingReplies, PendingReply } from "./pending-replies";

/**
 * What the watchdog needs of a client: node-redis v4's (transports/node-redis/node-redis-link.ts),
 * or an ioredis one (transports/ioredis/ioredis-link.ts). Both emit `error`, `connect` (a socket is up) and `ready`.
 */
export interface WatchedLink {
  /** Whether commands go out now. */
  readonly isReady: boolean;
  /** "host:port" (or what names the server), for error messages. */
  readonly where: string;
  /**
   * Whether a call queued while disconnected can be withdrawn with the AbortSignal it is given
   * (node-redis). When not (ioredis), a call is held here until the link is ready and sent only
   * then, so a call that waited too long never runs.
   */
  readonly withdrawable: boolean;
  on(event: "error" | "connect" | "ready", listener: (error: Error) => void): unknown;
  off(event: "error" | "connect" | "ready", listener: (error: Error) => void): unknown;
}

/** `offlineTimeoutMs` and `commandTimeoutMs`, checked (see options/constructor-options.ts); 0 turns a bound off. */
export interface LinkBounds {
  offlineTimeoutMs: number;
  commandTimeoutMs: number;
}

/** What the watchdog does to a silent link; absent for a client the caller owns (it is left as it is). */
export type ReplaceLink = () => Promise<void>;

/** How often a connection with calls in flight looks for an overdue reply (so a bound may run over by this much). */
const SWEEP_MS = 250;

export class LinkWatchdog {
  /** Calls sent on a connected client, until their reply (or its bound) comes. */
  private readonly pending = new PendingReplies();
  private sweeper: NodeJS.Timeout | undefined;
  private lastError: Error | undefined;
  /** Sockets connected so far: a call queued offline goes out with the handshake of the next one. */
  private connects = 0;
  /** Calls that wait for a connection, re-armed with the reply bound when it is up. */
  private readonly offline = new Set<() => void>();
  private replacing: Promise<void> | undefined;
  /**
   * How to end each call still waiting for a connection, for close(): never sent, it must not
   * hold its offlineTimeoutMs timer (which would keep the process alive) after the link is closed.
   */
  private readonly waiting = new Set<(error: Error) => void>();
  private readonly detach: () => void;

  constructor(
    private readonly client: WatchedLink,
    private readonly bounds: LinkBounds,
    private readonly replace?: ReplaceLink,
  ) {
    const onError = (error: Error): void => {
      this.lastError = error;
    };
    const onConnect = (): void => {
      this.connects += 1;
    };
    const onReady = (): void => {
      for (const rearm of [...this.offline]) rearm();
    };
    client.on("error", onError);
    client.on("connect", onConnect);
    client.on("ready", onReady);
    this.detach = () => {
      client.off("error", onError);
      client.off("connect", onConnect);
      client.off("ready", onReady);
    };
  }

  /** "host:port" (or the socket path) of the client's server, for error messages. */
  get where(): string {
    return this.client.where;
  }

  /**
   * Runs `send` within the bounds. `send` is given an AbortSignal for node-redis' command options
   * only while the client is not connected, to withdraw a call that waited too long. `extraMs`
   * lengthens the reply bound for a command that waits on the server by design (WAIT).
   */
  call<T>(send: (signal?: AbortSignal) => Promise<T>, extraMs = 0): Promise<T> {
    // A link being replaced: the call goes out on the new one (node-redis rejects calls on a closed client).
    if (this.replacing) return this.replacing.then(() => this.call(send, extraMs));
    if (this.client.isReady) return this.awaitReply(send(), extraMs);
    if (!this.client.withdrawable) return this.sendWhenReady(send, extraMs);
    return this.awaitConnection(send, extraMs);
  }

  /**
   * A call made while a client that cannot withdraw calls is not connected: held here, and sent
   * once it is ready; if that takes longer than offlineTimeoutMs, it was never sent.
   */
  private sendWhenReady<T>(send: (signal?: AbortSignal) => Promise<T>, extraMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const stopWaiting = (): void => {
        clearTimeout(timer);
        this.offline.delete(onReady);
        this.waiting.delete(abandon);
      };
      const onReady = (): void => {
        stopWaiting();
        this.call(send, extraMs).then(resolve, reject);
      };
      const abandon = (error: Error): void => {
        stopWaiting();
        reject(error);
      };
      this.offline.add(onReady);
      this.waiting.add(abandon);
      const ms = this.bounds.offlineTimeoutMs;
      if (ms > 0) timer = setTimeout(() => abandon(this.offlineError(true)), ms);
    });
  }

  /**
   * The hot path: a call on a connected client. No timer and no AbortController of its own (each
   * costs more than the call itself at high rates): one sweep per connection finds a reply overdue.
   */
  private awaitReply<T>(sent: Promise<T>, extraMs: number): Promise<T> {
    const ms = this.bounds.commandTimeoutMs + extraMs;
    if (ms <= 0) return sent;
    return new Promise<T>((resolve, reject) => {
      const pending = new PendingReply(Date.now() + ms, extraMs, reject);
      this.pending.add(pending);
      this.sweepWhilePending();
      sent.then(
        (value) => {
          if (this.pending.delete(pending)) resolve(value);
        },
        (error: unknown) => {
          // Another call found the link silent: this one was flushed with it ("Disconnects client").
          if (this.pending.delete(pending)) reject(this.replacing ? this.silentError(extraMs) : error);
        },
      );
    });
  }

  private sweepWhilePending(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    // The calls' own sockets keep the process alive while they wait; the sweep need not.
    this.sweeper.unref();
  }

  /** Rejects the calls whose reply is overdue, and replaces the silent link once. */
  private sweep(): void {
    if (this.pending.size === 0) return this.stopSweep();
    const expired = this.pending.takeExpired(Date.now());
    for (const pending of expired) pending.reject(this.silentError(pending.extraMs));
    if (expired.length > 0 && this.replace) void this.replaceLink();
  }

  private stopSweep(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** A call made while the client is not connected: withdrawn if it waits too long for a connection. */
  private awaitConnection<T>(send: (signal?: AbortSignal) => Promise<T>, extraMs: number): Promise<T> {
    const controller = new AbortController();
    const sent = send(controller.signal);
    const connectsAtStart = this.connects;
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const finish = (): void => {
        settled = true;
        clearTimeout(timer);
        this.offline.delete(rearm);
        this.waiting.delete(abandon);
      };
      // Closed while it waits for a connection: withdrawn, so it cannot run later.
      const abandon = (error: Error): void => {
        if (settled) return;
        finish();
        controller.abort();
        reject(error);
      };
      const expire = (): void => {
        if (settled) return;
        finish();
        if (!this.client.isReady) {
          const unsent = this.connects === connectsAtStart;
          // Never sent (no socket since the call was made): withdrawn, so it cannot run later.
          // Otherwise it went out with a handshake that did not finish: dropping the link flushes it.
          if (unsent) controller.abort();
          else if (this.replace) void this.replaceLink();
          reject(this.offlineError(unsent));
          return;
        }
        reject(this.silentError(extraMs));
        if (this.replace) void this.replaceLink();
      };
      const arm = (ms: number): void => {
        clearTimeout(timer);
        timer = ms > 0 ? setTimeout(expire, ms) : undefined;
      };
      // Ready: the call goes out now, and from here on only its reply (or its bound) ends it.
      const rearm = (): void => {
        this.waiting.delete(abandon);
        arm(this.bounds.commandTimeoutMs + extraMs);
      };
      if (this.client.isReady) rearm();
      else {
        this.offline.add(rearm);
        this.waiting.add(abandon);
        arm(this.bounds.offlineTimeoutMs);
      }
      sent.then(
        (value) => {
          if (settled) return;
          finish();
          resolve(value);
        },
        (error: unknown) => {
          if (settled) return;
          finish();
          // Another call found the link silent: this one was flushed with it ("Disconnects client").
          reject(this.replacing ? this.silentError(extraMs) : error);
        },
      );
    });
  }

  /** Drops a silent link and opens a new one (once, however many calls found it silent). */
  replaceLink(): Promise<void> {
    if (!this.replace) return Promise.resolve();
    this.replacing ??= this.replace()
      .catch(() => undefined)
      .finally(() => (this.replacing = undefined));
    return this.replacing;
  }

  /** Stops watching; the calls still waiting for a connection reject with connectionClosed (they were never sent). */
  close(): void {
    this.stopSweep();
    this.detach();
    for (const abandon of [...this.waiting]) abandon(closedBeforeReady(this.where));
  }

  private offlineError(unsent: boolean): Error {
    return noConnectionWithin(this.where, this.bounds.offlineTimeoutMs, this.lastError, unsent);
  }

  private silentError(extraMs: number): Error {
    return noReplyWithin(this.where, this.bounds.commandTimeoutMs + extraMs, this.replace !== undefined);
  }
}
