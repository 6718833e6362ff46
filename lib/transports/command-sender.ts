/**
 * What runs a command on Redis: either connection (one server or a cluster), or a sender that
 * has each write confirmed by replicas. The script runner needs nothing else of a connection.
 */
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
