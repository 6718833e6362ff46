/**
 * What a connection is to the rest of the library, whichever client is behind it: node-redis v4
 * on one server (one connection or a pool, node-redis/), Redis Cluster (cluster/) or the caller's
 * ioredis client (ioredis/). Types only: open-transport.ts picks the transport.
 * - A transport sends commands (CommandSender), has a write confirmed by replicas on the
 *   connection that ran it (ReplicatedWriter), opens the subscriber connection wakes listen on
 *   (Subscriber), and tells its state through the TransportEvents it was opened with.
 * - The script runner needs only a CommandSender; the operation runner also a ReplicatedWriter.
 * - Beside the three transport folders, what they share: watchdog/ (every call bounded),
 *   replica-acks.ts (WAIT), closed-by-user.ts, subscriber-health.ts, ready-watch.ts.
 */
import type { RedisClientType, RedisClusterType } from "redis";
import type { AnyIoredis } from "./ioredis/client-shape";
import type { ClosedByUser } from "./closed-by-user";
import type { Handover } from "./handover";

/** What runs a command on Redis: a transport, or a sender that has each write confirmed by replicas. */
export interface CommandSender {
  /** Sends one command; `firstKey` routes it in Redis Cluster (a single server ignores it). */
  sendCommand(args: string[], firstKey?: string): Promise<unknown>;
  /**
   * Changes whenever the connection is established anew (a reconnect, a new cluster client), so
   * what was learnt about the server it reached is learnt again. Absent: one connection for life.
   */
  readonly connectionEpoch?: number;
  /**
   * False where Redis 7's read-only script commands (EVALSHA_RO, EVAL_RO) would be routed to
   * another node than EVALSHA: an ioredis cluster client with `scaleReads` sends read-only
   * commands to replicas. Read-only scripts then go by EVALSHA, to the master. Absent: true.
   */
  readonly readOnlyScriptCommands?: boolean;
}

/** `waitForReplicas` and `waitForReplicasMs`, checked (see options/constructor-options.ts). */
export interface ReplicaAcks {
  /** How many replicas must confirm each write (1 and up: no ReplicaAcks at all means off). */
  readonly replicas: number;
  /** How long each WAIT may take, in ms. */
  readonly timeoutMs: number;
}

/** A connection that can send a write and WAIT for it on the very connection that ran it (see replica-acks.ts). */
export interface ReplicatedWriter {
  /**
   * Sends a write (`key` routes it in a cluster) and resolves its reply once `acks.replicas`
   * replicas confirm it. Rejects the write's own error when it did not run, and
   * `replicationTimeout` when it ran but is not confirmed: not in time, or the connection that
   * ran it was lost before WAIT answered (WAIT anywhere else would confirm nothing).
   */
  sendReplicated(args: string[], key: string | undefined, acks: ReplicaAcks): Promise<unknown>;
}

/** Called for each message on a subscribed channel. */
/** Called with each message published on the channel; with none when messages may have been missed (a reconnection). */
export type ChannelListener = (message?: string) => void;

/** The connection a RealtimeWakes listens on: a copy of the transport's own, opened and owned by it. */
export interface Subscriber {
  /** Resolves once the server has confirmed the subscription. */
  subscribe(channel: string, listener: ChannelListener): Promise<void>;
  unsubscribe(channel: string): Promise<void>;
  /** A Worker's poll, its cap `capMs`: the health check that rides it, where there is one (see subscriber-health.ts); whether it sent a PING. */
  tick(capMs: number): boolean;
  close(): Promise<void>;
}

/** How a transport tells the RedisSMQ instance about its connection. */
export interface TransportEvents {
  connect(): void;
  disconnect(): void;
  error(error: Error): void;
  /** The user closed the client they can reach (see closed-by-user.ts); never for a close of this library's. */
  closed?: ClosedByUser;
}

/** What RedisSMQ needs of its connection, whichever transport it is. */
export interface Transport extends CommandSender, ReplicatedWriter {
  readonly cluster: boolean;
  /** The client `rsmq.redis` gives: the caller's, or the one opened here (the first, in a pool). */
  readonly client: RedisClientType | RedisClusterType | AnyIoredis;
  /** Whether the connection is up right now (in a pool: any of its connections). */
  readonly connected: boolean;
  /** How a call's outcome reaches the caller (see handover.ts): a pool's spreads the calls continuations make. */
  readonly handover: Handover;
  /** A subscriber connection for realtime wakes, a copy of this one; opened on first use, owned by the caller. */
  openSubscriber(onError: (error: Error) => void): Subscriber;
  close(): Promise<"OK">;
}
