/**
 * A Worker process SIGKILLed inside a handler: the message it held comes back after its vt and
 * another Worker process handles it; nothing else is lost.
 */
import { expect } from "chai";
import { waitFor } from "../../support/worker";
import { FleetMember } from "../support/fleet";
import type { Verdict } from "../support/ledger";
import { record } from "../support/results";
import { inScene } from "../support/scene";
import { Producer, waitUntilHandled } from "../support/traffic";

export function workerKilledMidHandler(): Promise<Verdict> {
  return inScene("Worker process SIGKILLed mid-handler", [], async (scene) => {
    const { ledger, qname, ns } = scene;
    const { host, port } = scene.server;
    const vt = 1;
    const rsmq = scene.open({ realtime: true });
    await rsmq.createQueueAsync({ qname, vt });
    const target = "send-10"; // the body whose first handler never ends
    const members = await Promise.all(
      ["a", "b"].map((name) =>
        FleetMember.start({ role: "next-worker", name, host, port, ns, qname, concurrency: 2, workMs: 5, hangOn: target }, ledger),
      ),
    );
    for (const member of members) scene.cleanup.add(() => member.kill());

    const producer = Producer.of("send", ledger, rsmq, qname, { intervalMs: 10 }).start();
    await waitFor(() => ledger.deliveriesOf(target).length > 0, `${target} delivered to a worker process`, 10_000);
    const holder = ledger.deliveriesOf(target)[0].consumer;
    const victim = members.find((member) => member.setup.name === holder)!;
    await victim.kill();
    ledger.faultEnded();

    await waitFor(() => producer.sent >= 60, "60 sends", 10_000);
    await producer.stop();
    await waitUntilHandled(ledger, 15_000);
    await scene.waitEmpty(5000);
    for (const member of members) if (member !== victim) await member.stop();
    const verdict = record(ledger.verdict({ vtMs: vt * 1000 }));
    const [first, second] = ledger.deliveriesOf(target);
    expect(second, `${target} delivered again`).to.not.equal(undefined);
    expect(second.consumer, "the second delivery's worker process").to.not.equal(first.consumer);
    expect(second.rc, "its receive count").to.equal(2);
    return verdict;
  });
}
