/**
 * Optional replica acknowledgement of writes (`waitForReplicas`): after each write, WAIT on the
 * connection that ran it until that many replicas have it. Redis replicates asynchronously, so
 * without this a write acknowledged by a master that dies a moment later can be missing on the
 * replica that replaces it; with it, a call resolves only once its write is on a replica.
 */
import { tooFewReplicas, unconfirmedWrite } from "../errors/replication-timeouts";
import type { CommandSender, ReplicaAcks, ReplicatedWriter } from "./transport";

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
    throw tooFewReplicas(confirmed, acks);
  }
}

/** A sender for the ScriptRunner whose every command is a write confirmed by replicas. */
export function replicatedSender(writer: ReplicatedWriter, acks: ReplicaAcks): CommandSender {
  return { sendCommand: (args, firstKey) => writer.sendReplicated(args, firstKey, acks) };
}
