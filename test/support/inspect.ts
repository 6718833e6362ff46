/**
 * Looking at the data on either target: what needs a particular node (KEYS, TIME, PUBSUB) is asked
 * of every master of a cluster, or of the master that owns the slot; a single server answers
 * itself. Key names read back are made layout-independent, so a snapshot taken on a cluster
 * compares with one taken on a single server.
 */
import type { RedisClientType, RedisClusterType } from "redis";
import { isClusterClient } from "../../lib/transports/node-redis/private-shapes";

/** Any plain client a test holds: a single-server client, or a cluster client typed as one. */
type AnyClient = RedisClientType | RedisClusterType;

/** Whether a plain client is a cluster client (the library's own test). */
export const isCluster: (client: AnyClient) => client is RedisClusterType = isClusterClient;

/** KEYS `pattern` over the whole keyspace: every master of a cluster. */
export async function allKeys(client: AnyClient, pattern: string): Promise<string[]> {
  if (!isCluster(client)) return client.keys(pattern);
  const perMaster = await Promise.all(client.masters.map(async (master) => (await client.nodeClient(master)).keys(pattern)));
  return perMaster.flat();
}

/** The server clock, epoch ms (the clock every score is written with). */
export async function serverNowMs(client: AnyClient): Promise<number> {
  return Math.floor((await serverNowUs(client)) / 1000);
}

/** The server clock, epoch microseconds (the clock message ids are made of); below 2^53, so exact. */
export async function serverNowUs(client: AnyClient): Promise<number> {
  const reply = isCluster(client) ? await client.sendCommand(undefined, true, ["TIME"]) : await client.sendCommand(["TIME"]);
  const [seconds, micros] = reply as [string, string];
  return Number(seconds) * 1_000_000 + Number(micros);
}

/** How many connections listen on a realtime channel (sharded channels in a cluster, on the slot's master). */
export async function subscribersOf(client: AnyClient, channel: string): Promise<number> {
  const reply = isCluster(client)
    ? await client.sendCommand(channel, true, ["PUBSUB", "SHARDNUMSUB", channel])
    : await client.sendCommand(["PUBSUB", "NUMSUB", channel]);
  return Number((reply as [string, number])[1]);
}

/**
 * A key as rsmq 0.12.4 would name it: the hash tag a cluster puts around the queue name removed
 * (`<ns>:{q}:Q` becomes `<ns>:q:Q`). Keys outside `ns` are left as they are.
 */
export function logicalKey(ns: string, key: string): string {
  if (!key.startsWith(`${ns}:`)) return key;
  return `${ns}:${key.slice(ns.length + 1).replace(/^(rt:)?\{([^}]*)\}/, "$1$2")}`;
}
