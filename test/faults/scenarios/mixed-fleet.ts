/**
 * A rolling deploy for 20 s: rsmq 0.12.4 and rsmq-next processes on one queue, a producer of each
 * (both with `realtime`), an rsmq 0.12.4 polling consumer and an rsmq-next Worker. Every message
 * either library acknowledged is handled once (unless a vt expired).
 */
import { expect } from "chai";
import type { Verdict } from "../support/ledger";
import { record } from "../support/results";
import { FleetMember } from "../support/fleet";
import type { MemberSetup } from "../support/fleet-protocol";
import { inScene } from "../support/scene";
import { delay } from "../../support/worker";
import { waitUntilHandled } from "../support/traffic";

/** The scenario's length, fixed by the issue that asked for it. */
const RUN_MS = 20_000;

export function mixedFleet(): Promise<Verdict> {
  return inScene("mixed fleet 20 s (rsmq 0.12.4 + rsmq-next)", [], async (scene) => {
    const { ledger, qname, ns } = scene;
    const { host, port } = scene.server;
    const vt = 5;
    await scene.open().createQueueAsync({ qname, vt });
    const base = { host, port, ns, qname };
    const consumers: MemberSetup[] = [
      { ...base, role: "old-poller", name: "old-poller", workMs: 2 },
      { ...base, role: "next-worker", name: "next-worker", workMs: 2, concurrency: 2 },
    ];
    const producers: MemberSetup[] = [
      { ...base, role: "old-producer", name: "old-producer", intervalMs: 20 },
      { ...base, role: "next-producer", name: "next-producer", intervalMs: 20 },
    ];
    const start = (setups: MemberSetup[]): Promise<FleetMember[]> =>
      Promise.all(
        setups.map(async (setup) => {
          const member = await FleetMember.start(setup, ledger);
          scene.cleanup.add(() => member.kill());
          return member;
        }),
      );
    const consuming = await start(consumers);
    const producing = await start(producers);
    await delay(RUN_MS); // the fleet runs side by side for the scenario's fixed length
    await Promise.all(producing.map((member) => member.stop()));
    ledger.faultEnded();
    await waitUntilHandled(ledger, 15_000);
    await scene.waitEmpty(10_000);
    await Promise.all(consuming.map((member) => member.stop()));
    const verdict = record(ledger.verdict({ vtMs: vt * 1000 }));
    // Both libraries really took part, on both sides.
    const handledBy = ledger.handledBy();
    for (const { name } of consumers) expect(handledBy[name] ?? 0, `messages ${name} handled`).to.be.above(0);
    for (const { name } of producers) expect(ledger.acknowledgedBy(name), `sends of ${name} acknowledged`).to.be.above(0);
    return verdict;
  });
}
