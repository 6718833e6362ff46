/**
 * A write whose replicas must confirm it (`waitForReplicas`) in Redis Cluster: sent to its slot's
 * owner here, not by node-redis' routing, so that WAIT goes to the node connection that ran it.
 * node-redis follows ASK and MOVED out of sight, and would route the WAIT by its slot map: to a
 * migration's source when the write ran on its target.
 */
import type { RedisClusterType } from "redis";
import { hashSlot } from "./hash-slot";
import { isErrorReply } from "./error-replies";
import { abortOption } from "./cluster-shapes";
import { nodeClientAt, slotMasterClient } from "../node-redis/private-shapes";
import { awaitReplicas } from "../replica-acks";
import { unconfirmedWrite } from "../../errors/replication-timeouts";
import type { ReplicaAcks } from "../transport";

/** One node's connection inside the cluster client. */
type NodeClient = { readonly isReady: boolean; sendCommand(args: string[], options?: ReturnType<typeof abortOption>): Promise<unknown> };

/** A write's reply, and the node connection that ran it. */
export interface RanWrite {
  readonly reply: unknown;
  readonly node: NodeClient;
}

/**
 * Sends a command to the master of its slot in `cluster`'s map, following ASK to the migration
 * target (ASKING first); resolves the reply and the node client that ran it. Other replies, MOVED
 * included, are the caller's to handle.
 */
export async function sendToSlotOwner(cluster: RedisClusterType, args: string[], key: string, signal?: AbortSignal): Promise<RanWrite> {
  const owner = slotMasterClient(cluster, hashSlot(key));
  // Not an error reply: the topology is read afresh and the write retried.
  if (!owner) throw new Error(`rsmq-next: no master known for slot ${hashSlot(key)}`);
  const node: NodeClient = await owner;
  try {
    return { reply: await node.sendCommand(args, abortOption(cluster, signal)), node };
  } catch (error) {
    const address = askedAddress(error);
    if (address === undefined) throw error;
    const target = nodeClientAt(cluster, address);
    if (!target) throw new Error(`rsmq-next: ASK names ${address}, a node this client does not know yet`);
    const asked: NodeClient = await target;
    // Queued together in one turn, so no other command of this process can come between them
    // (ASKING lets only the next command in).
    const [, reply] = await Promise.all([asked.sendCommand(["ASKING"]), asked.sendCommand(args)]);
    return { reply, node: asked };
  }
}

/**
 * WAIT on the node connection that ran the write, then its reply. Call it as soon as the write's
 * reply arrived, with no turn of the event loop since: a node client that is ready then still has
 * the socket that carried the write (a reconnect, or a refresh closing this client, would take one).
 */
export async function confirmOnNode(ran: RanWrite, acks: ReplicaAcks): Promise<unknown> {
  const { reply, node } = ran;
  if (!node.isReady) throw unconfirmedWrite(acks, "the connection to the node that ran it was lost");
  await awaitReplicas((wait) => node.sendCommand(wait), acks);
  return reply;
}

/** "host:port" of an `ASK <slot> <host:port>` reply, else undefined. */
function askedAddress(error: unknown): string | undefined {
  if (!isErrorReply(error) || !error.message.startsWith("ASK ")) return undefined;
  return error.message.slice(error.message.lastIndexOf(" ") + 1);
}
