/**
 * Optional replica acknowledgement of writes (`waitForReplicas`): after each write, WAIT on the
 * connection that ran it until that many replicas have it. Redis replicates asynchronously, so
 * without this a write acknowledged by a master that dies a moment later can be missing on the
 * replica that replaces it; with it, a call resolves only once its write is on a replica.
 */
import { rsmqError } from "../errors";
import type { CommandSender } from "./command-sender";

export interface ReplicaAcks {
  readonly replicas: number;
  readonly timeoutMs: number;
}

/** A connection that can send a write and WAIT for it on the very connection that ran it. */
export interface ReplicatedWriter {
  /**
   * Sends a write (`key` routes it in a cluster) and resolves its reply once `acks.replicas`
   * replicas confirm it. Rejects the write's own error when it did not run, and
   * `replicationTimeout` when it ran but is not confirmed: not in time, or the connection that
   * ran it was lost before WAIT answered (WAIT anywhere else would confirm nothing).
   */
  sendReplicated(args: string[], key: string | undefined, acks: ReplicaAcks): Promise<unknown>;
}

/** How long WAIT may take when `waitForReplicasMs` is not given. */
export const DEFAULT_WAIT_FOR_REPLICAS_MS = 1_000;

/** Reads `waitForReplicas` and `waitForReplicasMs` from the constructor options; undefined when off. */
export function replicaAcksOf(options: Record<string, unknown>): ReplicaAcks | undefined {
  const replicas = options.waitForReplicas ?? 0;
  const timeoutMs = options.waitForReplicasMs ?? DEFAULT_WAIT_FOR_REPLICAS_MS;
  if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0) {
    throw new TypeError(`rsmq-next: \`waitForReplicas\` must be a whole number of replicas >= 0, got ${String(replicas)}`);
  }
  if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new TypeError(`rsmq-next: \`waitForReplicasMs\` must be a whole number of ms >= 1, got ${String(timeoutMs)}`);
  }
  return replicas === 0 ? undefined : { replicas, timeoutMs };
}

/**
 * Sends WAIT with `sendWait`, which must put it on the connection that carried the write. Rejects
 * `replicationTimeout` when fewer replicas confirmed in time, or when WAIT itself failed (the
 * connection was lost): either way the write may stand, unconfirmed, so the caller should treat
 * the call as failed (retrying a send may then deliver a message twice, never lose it).
 */
export async function awaitReplicas(sendWait: (args: string[]) => Promise<unknown>, acks: ReplicaAcks): Promise<void> {
  let confirmed: number;
  try {
    confirmed = Number(await sendWait(["WAIT", String(acks.replicas), String(acks.timeoutMs)]));
  } catch (error) {
    throw unconfirmedWrite(acks, `WAIT failed: ${(error as Error).message}`);
  }
  if (confirmed < acks.replicas) {
    throw rsmqError("replicationTimeout", `Write reached ${confirmed} of ${replicasText(acks)} within ${acks.timeoutMs} ms`);
  }
}

/** The error for a write that ran but whose replication could not be checked. */
export function unconfirmedWrite(acks: ReplicaAcks, why: string): Error {
  return rsmqError("replicationTimeout", `Write ran, but could not be confirmed by ${replicasText(acks)}: ${why}`);
}

/** A sender for the ScriptRunner whose every command is a write confirmed by replicas. */
export function replicatedSender(writer: ReplicatedWriter, acks: ReplicaAcks): CommandSender {
  return { sendCommand: (args, firstKey) => writer.sendReplicated(args, firstKey, acks) };
}

function replicasText(acks: ReplicaAcks): string {
  return `${acks.replicas} replica${acks.replicas === 1 ? "" : "s"}`;
}
