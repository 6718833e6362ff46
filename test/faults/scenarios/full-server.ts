/**
 * A full server: maxmemory with noeviction, filled by producers until Redis refuses. Producers get
 * the named `outOfMemory` error and leave nothing half-written; a Worker then drains the queue to
 * empty on the still-full server (Redis 7: consumer scripts flagged `allow-oom`).
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import { KeyLayout } from "../../../lib/keys";
import { waitFor } from "../../support/worker";
import type { Verdict } from "../support/ledger";
import { inScene } from "../support/scene";
import { Producer, ledgerWorker, waitUntilHandled } from "../support/traffic";

const MESSAGE_FIELD = /^([a-z0-9]{10}[A-Za-z0-9]{22})(:rc|:fr)?$/;

/**
 * Every way the queue's keys could disagree about a message: a member of the sorted set without
 * its body, a body or receive field without its member, and totalsent not matching the sends
 * that were acknowledged.
 */
async function halfWritten(admin: RedisClientType, ns: string, qname: string, acknowledged: number): Promise<string[]> {
  const keys = KeyLayout.for(ns, false).queue(qname);
  const members = new Set(await admin.zRange(keys.messages, 0, -1));
  const hash = await admin.hGetAll(keys.hash);
  const problems: string[] = [];
  for (const id of members) if (!(id in hash)) problems.push(`${id} queued without a body`);
  for (const field of Object.keys(hash)) {
    const match = MESSAGE_FIELD.exec(field);
    if (match && !members.has(match[1])) problems.push(`hash field ${field} without a queued message`);
  }
  if (Number(hash.totalsent) !== acknowledged) problems.push(`totalsent ${hash.totalsent}, acknowledged sends ${acknowledged}`);
  return problems;
}

export function fullServer(): Promise<Verdict> {
  return inScene("full server (maxmemory, noeviction)", ["--maxmemory-policy", "noeviction"], async (scene) => {
    const { admin, ledger, ns, qname } = scene;
    const rsmq = scene.open();
    await rsmq.createQueueAsync({ qname, vt: 5 });
    const used = Number(/used_memory:(\d+)/.exec(await admin.info("memory"))![1]);
    await admin.configSet("maxmemory", String(used + 1024 * 1024));

    // Fill it: 2 KB bodies until Redis refuses.
    const producer = Producer.of("fill", ledger, rsmq, qname, { intervalMs: 0, maxInFlight: 4, padTo: 2048 }).start();
    await waitFor(() => ledger.refusals().size > 0, "a send refused by the full server", 15_000);
    await producer.stop();
    const refusals = [...ledger.refusals().keys()];
    const acknowledged = ledger.verdict({ vtMs: 5000 }).acknowledged;
    expect(acknowledged, "sends stored before the server was full").to.be.above(100);
    expect(await halfWritten(admin, ns, qname, acknowledged), "queue state after the refusals").to.deep.equal([]);

    // Still full: the Worker must drain it anyway. Both contracts are checked, and both reported.
    ledger.faultEnded();
    const { worker, errors } = ledgerWorker("drain", ledger, rsmq, { qname, concurrency: 4, batchSize: 20, stopTimeoutMs: 2000 });
    scene.cleanup.worker(worker).start();
    const problems = refusals
      .filter((refusal) => !refusal.startsWith("outOfMemory: "))
      .map((refusal) => `a producer was refused with "${refusal}", not outOfMemory`);
    try {
      await waitUntilHandled(ledger, 10_000);
      await scene.waitEmpty(5000);
    } catch (error) {
      const workerErrors = [...new Set(errors.map((e) => `${e.name}: ${e.message}`))];
      problems.push(`${(error as Error).message}; the Worker's errors: ${workerErrors.join(" | ")}`);
    }
    if (problems.length > 0) throw new Error(`full server: ${problems.join(" || ")}`);
    return ledger.verdict({ vtMs: 5000 });
  });
}
