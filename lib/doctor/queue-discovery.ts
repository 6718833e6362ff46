/**
 * Finds the queues of a namespace by their hashes, not by the registry (which may have lost
 * some): SCAN MATCH `<ns>:*:Q` TYPE hash, on the one server, or on every master of a Redis
 * Cluster, each reached through a key of a slot it serves (a cluster client routes a command by
 * the key it is given). A key whose middle is not a queue name is no queue's.
 */
import type { DoctorPort } from "./doctor-port";
import { QNAME_FORMAT, RESERVED_QNAME } from "../operations/rsmq-input-rules";
import { hashSlot } from "../transports/cluster/hash-slot";

/** SCAN's glob characters, escaped so that a namespace matches only itself. */
function globEscaped(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}

/** The queue names whose hashes SCAN finds, each once, in no particular order. */
export async function scanQueueNames(port: DoctorPort, count: number): Promise<string[]> {
  const { layout } = port;
  const prefix = layout.tagQueues ? `${layout.ns}:{` : `${layout.ns}:`;
  const suffix = layout.tagQueues ? "}:Q" : ":Q";
  const pattern = `${globEscaped(prefix)}*${globEscaped(suffix)}`;
  const names = new Set<string>();
  const routes = layout.cluster ? await oneKeyPerMaster(port) : [undefined];
  for (const route of routes) {
    let cursor = "0";
    do {
      const [next, keys] = (await port.command(["SCAN", cursor, "MATCH", pattern, "COUNT", String(count), "TYPE", "hash"], route)) as [
        string,
        string[],
      ];
      cursor = String(next);
      for (const key of keys) {
        if (!key.startsWith(prefix) || !key.endsWith(suffix)) continue;
        const qname = key.slice(prefix.length, key.length - suffix.length);
        if (QNAME_FORMAT.test(qname) && qname !== RESERVED_QNAME) names.add(qname);
      }
    } while (cursor !== "0");
  }
  return [...names];
}

type SlotRange = [number, number, [string, number, ...unknown[]], ...unknown[]];

/** For each master of the cluster (CLUSTER SLOTS), a key in one of its slots, to route SCAN to it. */
async function oneKeyPerMaster(port: DoctorPort): Promise<string[]> {
  const ranges = (await port.command(["CLUSTER", "SLOTS"])) as SlotRange[];
  const rangesOf = new Map<string, Array<[number, number]>>();
  for (const [start, end, [host, nodePort]] of ranges) {
    const master = `${host}:${nodePort}`;
    rangesOf.set(master, [...(rangesOf.get(master) ?? []), [Number(start), Number(end)]]);
  }
  const keys: string[] = [];
  for (const owned of rangesOf.values()) keys.push(keyInSlots(owned));
  return keys;
}

/** A key whose slot is in one of `ranges`: found by trying names in turn (a few thousand at most). */
function keyInSlots(ranges: ReadonlyArray<[number, number]>): string {
  for (let n = 0; ; n++) {
    const key = `rsmq-next-doctor-${n}`;
    const slot = hashSlot(key);
    if (ranges.some(([start, end]) => slot >= start && slot <= end)) return key;
  }
}
