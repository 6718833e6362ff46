/**
 * Closes a node-redis v4 client that this library opened, at any point of its life, so that
 * nothing is left open afterwards, and drops a connection attempt that hangs. node-redis has no
 * way to cancel an attempt in flight: `disconnect()` leaves a socket still connecting to connect
 * anyway (the process never exits), and during the handshake (CLIENT SETINFO, AUTH, SELECT, which
 * connectTimeout does not bound) it makes node-redis' own clean-up throw a TypeError, reported as
 * an `error`. So every socket the client opens carries an AbortSignal (net.connect's `signal`):
 * aborting it destroys the socket in flight as a failed attempt, which node-redis handles like
 * any other (once closing, it is not retried). Between attempts there is no socket, and
 * disconnecting ends the retries.
 */
import type { RedisClientOptions, RedisClientType } from "redis";

/**
 * The longest close() waits for node-redis to give up an attempt it aborted (it does on the next
 * turn of the event loop); after that it disconnects anyway.
 */
const ABORT_WAIT_MS = 1000;

/** How long close() lets a connection attempt in flight end by itself before cutting it short. */
const ANSWER_WAIT_MS = 100;

type ReconnectStrategy = false | number | ((retries: number, cause: Error) => false | Error | number);

export class ClientCloser {
  private closing = false;
  /** Whether node-redis is trying a connection right now (rather than waiting between attempts). */
  private attempting = false;
  private client: RedisClientType | undefined;
  /**
   * Aborts the socket of the current attempt. One per attempt: node does not always take its
   * listener off a signal when a socket fails to connect, so one signal for every retry of an
   * outage would gather them.
   */
  private attempt = new AbortController();
  /** The reason of this closer's aborts: what node-redis reports for them is no news. */
  private readonly aborted = new Error("rsmq-next cut this connection attempt short");

  /** Whether close() has been called. */
  get closed(): boolean {
    return this.closing;
  }

  /**
   * Client options whose reconnect strategy (the given one, or node-redis' default) gives up once
   * closing, and whose sockets this closer can destroy.
   */
  guard(options: RedisClientOptions): RedisClientOptions {
    const socket = { ...options.socket } as Record<string, unknown>;
    const given = socket.reconnectStrategy as ReconnectStrategy | undefined;
    socket.reconnectStrategy = (retries: number, cause: Error): false | Error | number => {
      if (this.closing) return false;
      if (given === false || typeof given === "number") return given;
      if (typeof given === "function") return given(retries, cause);
      // node-redis' own default.
      return Math.min(retries * 50, 500);
    };
    // Read by net.connect (and tls.connect) for each socket node-redis opens. Enumerable, so that a
    // copy of these options (tls.connect makes one) carries it; reading it changes nothing.
    Object.defineProperty(socket, "signal", { get: () => this.attempt.signal, enumerable: true, configurable: true });
    return { ...options, socket } as RedisClientOptions;
  }

  /** Whether `error` is what node-redis reported for an attempt this closer cut short. */
  causedBy(error: unknown): boolean {
    return (error as { cause?: unknown } | null)?.cause === this.aborted;
  }

  /** Starts connecting `client` (made with guard()'s options); failures arrive as its `error` events. */
  connect(client: RedisClientType): void {
    this.client = client;
    // node-redis reports a failed attempt, then waits before the next one.
    client.on("error", () => {
      if (!client.isReady) this.attempting = false;
    });
    // Emitted just before node-redis opens the next socket.
    client.on("reconnecting", () => this.newAttempt());
    client.on("ready", () => (this.attempting = false));
    this.start(client);
  }

  /**
   * Drops the link of `client` to open a new one (see LinkWatchdog): a ready connection is
   * disconnected and opened again; an attempt in flight is cut short, and node-redis retries as
   * its reconnect strategy says; between attempts the next one is coming anyway. Nothing once
   * closing.
   */
  async drop(client: RedisClientType): Promise<void> {
    if (this.closing || !client.isOpen) return;
    if (client.isReady) {
      await client.disconnect();
      if (!this.closing && !client.isOpen) this.start(client);
    } else if (this.attempting) this.attempt.abort(this.aborted);
  }

  /**
   * QUIT when up; otherwise cuts an attempt in flight short and disconnects. `sendQuit` sends
   * QUIT as a plain, bounded command (see LinkWatchdog): node-redis' own quit() marks the client
   * closed before the reply, so on a silent link it could neither be answered nor be
   * disconnected, and would wait for ever.
   */
  async close(sendQuit?: () => Promise<unknown>): Promise<void> {
    this.closing = true;
    const client = this.client;
    if (!client) return;
    if (client.isReady && client.isOpen) {
      // The reply comes before the server closes the socket, so the disconnect is ours, not a lost connection.
      const quit = sendQuit ? sendQuit().then(() => disconnect(client)) : client.quit();
      await quit.catch(() => disconnect(client));
      return;
    }
    // An attempt the server answers (a refusal: maxclients, a wrong password) ends by itself now
    // that no retry follows. Aborting it instead could destroy its socket with the server's reply
    // already read and its command already failed, and node-redis then throws, uncaught, on a
    // reply with no command waiting. So only an attempt still in flight after a short wait (a
    // silent server) is cut short.
    if (client.isOpen && this.attempting) await closedOrAfter(client, ANSWER_WAIT_MS);
    // Destroys the socket in flight, if any (and, closing, no attempt comes after it).
    this.attempt.abort(this.aborted);
    // A disconnect() before node-redis has given the aborted attempt up would run into its clean-up.
    if (client.isOpen && this.attempting) await closedOrAfter(client, ABORT_WAIT_MS);
    await disconnect(client);
  }

  private start(client: RedisClientType): void {
    this.newAttempt();
    client.connect().catch(() => undefined);
  }

  private newAttempt(): void {
    if (this.closing) return;
    this.attempting = true;
    this.attempt = new AbortController();
  }
}

async function disconnect(client: RedisClientType): Promise<void> {
  if (client.isOpen) await client.disconnect().catch(() => undefined);
}

/** Resolves when node-redis has marked `client` closed (it reports that with an `error`), or after `ms` at most. */
function closedOrAfter(client: RedisClientType, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      client.off("error", check);
      resolve();
    };
    const check = (): void => {
      if (!client.isOpen) done();
    };
    const timer = setTimeout(done, ms);
    client.on("error", check);
    check();
  });
}
