/**
 * The Redis connection behind a RedisSMQ instance: opened here (and then owned and closed here),
 * or the caller's node-redis v4 client (borrowed: never closed here). Connection state becomes
 * `connect`, `disconnect` and `error` events. A connection opened here always has an `error`
 * listener, so an outage never crashes the process; node-redis reconnects on its own and holds
 * calls made meanwhile in its offline queue until the server is back.
 */
import { createClient, type RedisClientType } from "redis";
import { toClientOptions } from "./client-options";
import { isV3Client, isV4Client, settingsOfV3Client, warnV3ClientOnce } from "./given-client";
import type { CommandSender } from "../scripts/script-runner";

export interface ConnectionEvents {
  connect(): void;
  disconnect(): void;
  error(error: Error): void;
}

export class Connection implements CommandSender {
  readonly cluster = false;
  /** The node-redis v4 client in use. */
  readonly client: RedisClientType;
  /** Whether this instance opened the client and so must close it. */
  readonly owned: boolean;
  /** Where commands go: the client, or its `.v4` face in legacyMode. */
  private readonly commands: RedisClientType;
  private ready = false;
  /** Whether the connection has been up at least once. */
  private everReady = false;
  /** Reconnects so far: what the script runner learnt of the server holds for one epoch only. */
  private epoch = 0;
  private readonly detach: () => void;

  constructor(options: Record<string, unknown>, private readonly events: ConnectionEvents) {
    const given = options.client;
    if (isV4Client(given)) {
      this.client = given;
      this.owned = false;
    } else {
      let settings = options;
      if (isV3Client(given)) {
        warnV3ClientOnce();
        settings = { ...options, ...definedOnly(settingsOfV3Client(given)) };
      }
      this.client = createClient(toClientOptions(settings)) as RedisClientType;
      this.owned = true;
    }
    // A client in node-redis' legacyMode keeps the promise API under `.v4`.
    this.commands = (this.client as { options?: { legacyMode?: boolean } }).options?.legacyMode
      ? (this.client as unknown as { v4: RedisClientType }).v4
      : this.client;
    this.detach = this.listen();
    if (this.client.isReady) {
      this.ready = true;
      this.everReady = true;
      // Emitted on the next tick so listeners added right after construction hear it.
      process.nextTick(() => this.events.connect());
    } else if (!this.client.isOpen) {
      // node-redis retries until it connects; failures along the way arrive as `error` events.
      this.client.connect().catch(() => undefined);
    }
  }

  /** Whether the connection is up right now. */
  get connected(): boolean {
    return this.ready;
  }

  /** Counts reconnects: after one, the server may be another (restarted, replaced, upgraded). */
  get connectionEpoch(): number {
    return this.epoch;
  }

  sendCommand(args: string[], _firstKey?: string, options: { sameConnection?: boolean } = {}): Promise<unknown> {
    // Reconnecting: a command now would wait for, and go out on, the next connection. (Before the
    // first `ready`, replies to queued commands can arrive while isReady is still false.)
    if (options.sameConnection && this.everReady && !this.client.isReady) {
      return Promise.reject(new Error("rsmq-next: the connection was lost before the command could be sent"));
    }
    return this.commands.sendCommand(args);
  }

  /** Closes an owned connection (QUIT when up, otherwise at once); leaves a borrowed one open. */
  async close(): Promise<"OK"> {
    if (!this.owned) {
      this.detach();
      this.ready = false;
      return "OK";
    }
    if (this.client.isReady) await this.client.quit();
    else if (this.client.isOpen) await this.client.disconnect();
    return "OK";
  }

  private listen(): () => void {
    const onReady = (): void => {
      if (this.everReady) this.epoch += 1;
      this.ready = true;
      this.everReady = true;
      this.events.connect();
    };
    const onLost = (): void => {
      if (!this.ready) return;
      this.ready = false;
      this.events.disconnect();
    };
    const onError = (error: Error): void => {
      onLost();
      this.events.error(error);
    };
    this.client.on("ready", onReady);
    this.client.on("end", onLost);
    this.client.on("error", onError);
    return () => {
      this.client.off("ready", onReady);
      this.client.off("end", onLost);
      this.client.off("error", onError);
    };
  }
}

function definedOnly(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined && value !== null));
}
