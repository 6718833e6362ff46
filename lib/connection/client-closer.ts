/**
 * Closes a node-redis v4 client that this library opened, at any point of its life, so that
 * nothing is left open afterwards. node-redis cannot cancel a connection attempt in flight:
 * `disconnect()` then leaves the socket it is opening to connect anyway, and the process never
 * exits. So an attempt in flight is let finish (its connectTimeout bounds it; once closing, a
 * failed attempt is not retried) and a connection it opened is closed at once; between attempts
 * there is no socket, and disconnecting ends the retries.
 */
import type { RedisClientOptions, RedisClientType } from "redis";

/**
 * The longest close() waits for a connection attempt in flight (node-redis' connectTimeout, 5 s by
 * default, normally ends it first); after that it disconnects anyway.
 */
const ATTEMPT_WAIT_MS = 10_000;

type ReconnectStrategy = false | number | ((retries: number, cause: Error) => false | Error | number);

export class ClientCloser {
  private closing = false;
  /** Whether node-redis is trying a connection right now (rather than waiting between attempts). */
  private attempting = false;
  private client: RedisClientType | undefined;

  /** Whether close() has been called. */
  get closed(): boolean {
    return this.closing;
  }

  /** Client options whose reconnect strategy (the given one, or node-redis' default) gives up once closing. */
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
    return { ...options, socket } as RedisClientOptions;
  }

  /** Starts connecting `client` (made with guard()'s options); failures arrive as its `error` events. */
  connect(client: RedisClientType): void {
    this.client = client;
    // node-redis reports a failed attempt, then waits before the next one.
    client.on("error", () => {
      if (!client.isReady) this.attempting = false;
    });
    client.on("reconnecting", () => (this.attempting = true));
    client.on("ready", () => (this.attempting = false));
    this.attempting = true;
    client.connect().catch(() => undefined);
  }

  /**
   * Opens again a client that was disconnected to drop a silent link (see LinkWatchdog); nothing
   * once closing.
   */
  reopen(client: RedisClientType): void {
    if (this.closing || client.isOpen) return;
    this.attempting = true;
    client.connect().catch(() => undefined);
  }

  /**
   * QUIT when up, otherwise disconnect; waits for an attempt in flight first (see above).
   * `sendQuit` sends QUIT as a plain, bounded command (see LinkWatchdog): node-redis' own quit()
   * marks the client closed before the reply, so on a silent link it could neither be answered
   * nor be disconnected, and would wait for ever.
   */
  async close(sendQuit?: () => Promise<unknown>): Promise<void> {
    this.closing = true;
    const client = this.client;
    if (!client) return;
    if (client.isOpen && !client.isReady && this.attempting) await attemptSettled(client);
    if (client.isReady && client.isOpen) {
      // The reply comes before the server closes the socket, so the disconnect is ours, not a lost connection.
      const quit = sendQuit ? sendQuit().then(() => disconnect(client)) : client.quit();
      await quit.catch(() => disconnect(client));
    } else await disconnect(client);
  }
}

async function disconnect(client: RedisClientType): Promise<void> {
  if (client.isOpen) await client.disconnect().catch(() => undefined);
}

/** Resolves when the attempt in flight succeeds or fails, or after ATTEMPT_WAIT_MS at most. */
function attemptSettled(client: RedisClientType): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      client.off("ready", done);
      client.off("error", done);
      resolve();
    };
    const timer = setTimeout(done, ATTEMPT_WAIT_MS);
    client.on("ready", done);
    client.on("error", done);
  });
}
