/**
 * The `replicationTimeout` errors of `waitForReplicas` (transports/replica-acks.ts): the write ran
 * on the master either way, so each says what was confirmed and what was not.
 */
import { rsmqError } from "./rsmq-errors";

/** How many replicas a write must reach, and within how long. */
export interface ReplicaTarget {
  readonly replicas: number;
  readonly timeoutMs: number;
}

/** Fewer than `acks.replicas` confirmed the write within `acks.timeoutMs`. */
export function tooFewReplicas(confirmed: number, acks: ReplicaTarget): Error {
  return rsmqError("replicationTimeout", `Write reached ${confirmed} of ${replicasText(acks)} within ${acks.timeoutMs} ms`);
}

/** The error for a write that ran but whose replication could not be checked. */
export function unconfirmedWrite(acks: ReplicaTarget, why: string): Error {
  return rsmqError("replicationTimeout", `Write ran, but could not be confirmed by ${replicasText(acks)}: ${why}`);
}

function replicasText(acks: ReplicaTarget): string {
  return `${acks.replicas} replica${acks.replicas === 1 ? "" : "s"}`;
}
