/**
 * Puts the registry `<ns>:QUEUES` right: lists queues it lacks, unlists names with no queue.
 *
 * Where the registry shares the queues' slot (one server, or a namespace that is a hash tag) each
 * change is one script that checks the queue's hash in the same step. In Redis Cluster otherwise
 * it cannot, and createQueue lists a name BEFORE it writes the queue's hash (create-queue.ts), so
 * a name with no queue may be a queue being created. There a name is unlisted only once it has
 * been seen without a queue twice, at least REGISTRY_GRACE_MS apart; after the SREM the hash is
 * looked at once more and the name listed again if a queue appeared. What is left is a create
 * stalled for longer than the grace between its two round trips: its queue would be unlisted
 * until the next doctor run lists it again. A queue is listed by a plain SADD; if it is deleted
 * meanwhile, the name stays listed with no queue, as a crashed createQueue leaves it (harmless:
 * calls answer queueNotFound, the next run unlists it), never a queue that is not listed.
 */
import type { DoctorPort } from "./doctor-port";
import { lookAtQueue, repairRegistry } from "./doctor-operations";
import type { FindingTally } from "./finding-tally";

/** How long a listed name must stay without a queue before it is unlisted (Redis Cluster), in ms. */
export const REGISTRY_GRACE_MS = 1_000;

/** A registry problem the passes saw, and when (ms, this process's clock). */
export interface RegistryProblem {
  readonly kind: "registryWithoutQueue" | "queueNotInRegistry";
  readonly qname: string;
  readonly seenAt: number;
}

async function isQueue(port: DoctorPort, qname: string): Promise<boolean> {
  const { values } = await port.run(() => lookAtQueue(port.layout.queue(qname), ["vt", "delay", "maxsize"]));
  return values.some((value) => value !== null);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Repairs `problems` (with `fix`) or only counts them. */
export async function handleRegistryProblems(
  port: DoctorPort,
  tally: FindingTally,
  problems: readonly RegistryProblem[],
  fix: boolean,
): Promise<void> {
  if (!fix) {
    for (const { kind, qname } of problems) tally.add(kind, { qname, item: qname });
    return;
  }
  const { layout } = port;
  if (!layout.registryWithQueues) {
    const lastSeen = Math.max(0, ...problems.filter(({ kind }) => kind === "registryWithoutQueue").map(({ seenAt }) => seenAt));
    const wait = lastSeen + REGISTRY_GRACE_MS - Date.now();
    if (wait > 0) await sleep(wait);
  }
  for (const { kind, qname } of problems) {
    const repaired = layout.registryWithQueues
      ? await port.run(() => repairRegistry(layout.queue(qname), kind === "queueNotInRegistry" ? "list" : "unlist", qname))
      : kind === "queueNotInRegistry"
        ? await listApart(port, qname)
        : await unlistApart(port, qname);
    tally.add(kind, { qname, item: qname }, repaired ? "fixed" : "resolved");
  }
}

async function listApart(port: DoctorPort, qname: string): Promise<boolean> {
  if (!(await isQueue(port, qname))) return false;
  return (await port.command(["SADD", port.layout.registry, qname], port.layout.registry)) === 1;
}

async function unlistApart(port: DoctorPort, qname: string): Promise<boolean> {
  const registry = port.layout.registry;
  if (await isQueue(port, qname)) return false;
  const removed = (await port.command(["SREM", registry, qname], registry)) === 1;
  if (removed && (await isQueue(port, qname))) {
    await port.command(["SADD", registry, qname], registry);
    return false;
  }
  return removed;
}
