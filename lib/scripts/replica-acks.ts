/**
 * Optional replica acknowledgement of writes (`waitForReplicas`): after each write, WAIT on the
 * same connection until that many replicas have it. Redis replicates asynchronously, so without
 * this a write acknowledged by a master that dies a moment later can be missing on the replica that
 * replaces it; with it, a call resolves only once its write is on a replica.
 */
import { rsmqError } from "../errors";
import type { CommandSender } from "./script-runner";

export interface ReplicaAcks {
  readonly replicas: number;
  readonly timeoutMs: number;
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
 * WAIT on the connection that carried the write (`key` routes it to the same node in a cluster).
 * Rejects `replicationTimeout` when fewer replicas confirmed in time, and the connection's error
 * when it was lost before WAIT answered: either way the write may stand, unconfirmed, so the caller
 * should treat the call as failed (retrying a send may then deliver a message twice, never lose it).
 */
export async function awaitReplicas(sender: CommandSender, key: string, acks: ReplicaAcks): Promise<void> {
  // WAIT speaks of its own connection's writes: sent anywhere else, it would confirm nothing.
  const confirmed = Number(await sender.sendCommand(["WAIT", String(acks.replicas), String(acks.timeoutMs)], key, { sameConnection: true }));
  if (confirmed < acks.replicas) {
    throw rsmqError(
      "replicationTimeout",
      `Write reached ${confirmed} of ${acks.replicas} replica${acks.replicas === 1 ? "" : "s"} within ${acks.timeoutMs} ms`,
    );
  }
}
