/** What fleet.ts and fleet-member.ts say to each other over the IPC channel. */

export type Role = "next-producer" | "next-worker" | "old-producer" | "old-poller";

/** A member's set-up, passed as its one command-line argument (JSON). */
export interface MemberSetup {
  role: Role;
  /** The ledger name of this member: producers prefix their bodies with it. */
  name: string;
  host: string;
  port: number;
  ns: string;
  qname: string;
  /** Producers: ms between two sends. */
  intervalMs?: number;
  /** Producers: sends waiting for their reply at once (default 1). */
  maxInFlight?: number;
  /** Consumers: the visibility timeout, in s (the queue's when unset). */
  vt?: number;
  /** Consumers: ms each handler works. */
  workMs?: number;
  /** next-worker: handlers at once. */
  concurrency?: number;
  /** next-worker: the longest idle sleep. */
  maxIdleSleepMs?: number;
  /** next-worker: the body whose first delivery never finishes (the process is killed inside it). */
  hangOn?: string;
}

/** Reports from a member; the parent enters them in its Ledger. */
export type FleetReport =
  | { kind: "ready" }
  | { kind: "stopped" }
  | { kind: "sent"; body: string; at: number }
  | { kind: "acknowledged"; body: string; id: string }
  | { kind: "refused"; body: string; error: string }
  | { kind: "delivered"; consumer: string; body: string; id: string; rc: number; at: number }
  | { kind: "handled"; consumer: string; body: string; at: number }
  | { kind: "deleted"; consumer: string; body: string; at: number };
