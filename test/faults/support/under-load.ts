/**
 * The common shape of a fault under load: a producer sends steadily, Workers consume, the fault is
 * injected once the queue is busy, then the producer stops and everything it got acknowledged must
 * be handled and the queue left empty. Every wait is bounded and names what it waited for.
 */
import { waitFor } from "../../support/worker";
import { FleetMember } from "./fleet";
import type { Verdict } from "./ledger";
import type { Scene } from "./scene";
import { Producer, ledgerWorker, waitUntilHandled } from "./traffic";

/** Sends a producer lets wait for their reply at once: what piles up while the server stalls. */
const MAX_IN_FLIGHT = 50;

export interface LoadOptions {
  /** The queue's visibility timeout, in s. */
  vt: number;
  /** Workers (each on an rsmq-next instance of its own). */
  workers?: number;
  concurrency?: number;
  /** ms each handler works. */
  workMs?: number;
  maxIdleSleepMs?: number;
  /** Where the producer runs: here, or in a process of its own (its wakes then travel by realtime publish). */
  producer?: "here" | "child";
  /** See Ledger.verdict. */
  clockSlackMs?: number;
  /** ms between two sends of the producer (default 5). */
  intervalMs?: number;
  /** Messages handled before the fault starts, and again after it before the producer stops. */
  warmUp?: number;
  /** Bound of each wait after the fault (first handling, drain, empty queue). */
  recoveryTimeoutMs?: number;
}

export async function underLoad(scene: Scene, options: LoadOptions, fault: () => Promise<void>): Promise<Verdict> {
  const { ledger, qname, cleanup } = scene;
  const { vt, workers = 1, concurrency = 4, workMs = 2, maxIdleSleepMs = 1000, warmUp = 20, recoveryTimeoutMs = 15_000 } = options;
  const setup = scene.open();
  await setup.createQueueAsync({ qname, vt });

  for (let n = 1; n <= workers; n++) {
    const { worker } = ledgerWorker(`worker${n}`, ledger, scene.open(), {
      qname,
      concurrency,
      workMs,
      maxIdleSleepMs,
      stopTimeoutMs: 2000,
    });
    cleanup.worker(worker).start();
  }
  const producer = await startProducer(scene, options.producer ?? "here", options.intervalMs ?? 5);

  await waitFor(() => ledger.handledSince(0) >= warmUp, `${ledger.scenario}: ${warmUp} messages handled before the fault`, 10_000);
  await fault();
  const faultEnd = Date.now();
  ledger.faultEnded(faultEnd);
  await waitFor(() => ledger.handledSince(faultEnd) > 0, `${ledger.scenario}: a message handled after the fault`, recoveryTimeoutMs);
  await waitFor(
    () => ledger.handledSince(faultEnd) >= warmUp,
    `${ledger.scenario}: ${warmUp} messages handled after the fault`,
    recoveryTimeoutMs,
  );
  await producer.stop();
  await waitUntilHandled(ledger, recoveryTimeoutMs);
  await scene.waitEmpty(recoveryTimeoutMs);
  return ledger.verdict({ vtMs: vt * 1000, clockSlackMs: options.clockSlackMs });
}

async function startProducer(scene: Scene, where: "here" | "child", intervalMs: number): Promise<{ stop(): Promise<void> }> {
  if (where === "here")
    return Producer.of("here", scene.ledger, scene.open(), scene.qname, { intervalMs, maxInFlight: MAX_IN_FLIGHT }).start();
  const { host, port } = scene.server;
  const member = await FleetMember.start(
    { role: "next-producer", name: "child", host, port, ns: scene.ns, qname: scene.qname, intervalMs, maxInFlight: MAX_IN_FLIGHT },
    scene.ledger,
  );
  scene.cleanup.add(() => member.kill());
  return member;
}
