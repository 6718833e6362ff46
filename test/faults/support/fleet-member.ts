/**
 * One process of a fault scenario, started by fleet.ts with fork(): a producer or a consumer of
 * rsmq 0.12.4 or rsmq-next on one queue. It reports every send, acknowledgement, delivery and
 * handling to its parent (which keeps the Ledger), and on "stop" finishes what it is doing, closes
 * its connections and exits. A parent may also SIGKILL it at any point: that is the fault.
 */
import { close, isMessage, open, openNext } from "../../../bench/clients";
import type { QueueApi } from "../../../bench/clients";
import { Producer, ledgerWorker } from "./traffic";
import type { FleetReport, MemberSetup } from "./fleet-protocol";
import type { LedgerSink } from "./ledger";
import { delay } from "../../support/worker";

const report = (message: FleetReport): void => void process.send?.(message);

/** Forwards what a Producer or a ledger worker records to the parent, in order. */
const forwarding: LedgerSink = {
  sent: (body) => report({ kind: "sent", body, at: Date.now() }),
  acknowledged: (body, id) => report({ kind: "acknowledged", body, id }),
  refused: (body, error) =>
    report({ kind: "refused", body, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
  delivered: (consumer, message) =>
    report({ kind: "delivered", consumer, body: message.message, id: message.id, rc: message.rc, at: Date.now() }),
  handled: (consumer, body) => report({ kind: "handled", consumer, body, at: Date.now() }),
  deleted: (consumer, body) => report({ kind: "deleted", consumer, body, at: Date.now() }),
};

/** Runs the member's role until `stopped` resolves; resolves with what closes it. */
async function run(setup: MemberSetup, stopped: Promise<void>): Promise<() => Promise<unknown>> {
  const endpoint = { host: setup.host, port: setup.port };
  const { name, qname } = setup;
  switch (setup.role) {
    case "next-producer":
    case "old-producer": {
      const api = await open(setup.role === "old-producer" ? "rsmq" : "rsmq-next", endpoint, { ns: setup.ns, realtime: true });
      quietErrors(api);
      const producer = new Producer(name, forwarding, (message) => api.sendMessageAsync({ qname, message }), {
        intervalMs: setup.intervalMs ?? 20,
        maxInFlight: setup.maxInFlight,
      });
      producer.start();
      report({ kind: "ready" });
      await stopped;
      await producer.stop();
      return () => close(api);
    }
    case "next-worker": {
      const rsmq = await openNext(endpoint, { ns: setup.ns });
      rsmq.on("error", () => undefined);
      const { hangOn, workMs = 0 } = setup;
      const { worker } = ledgerWorker(name, forwarding, rsmq, {
        qname,
        vt: setup.vt,
        concurrency: setup.concurrency ?? 1,
        maxIdleSleepMs: setup.maxIdleSleepMs ?? 1000,
        stopTimeoutMs: 2000,
        // The fault's target (hangOn): its first delivery never ends, so the process dies inside its handler.
        work: (message) => (message.message === hangOn && message.rc === 1 ? new Promise<void>(() => undefined) : delay(workMs)),
      });
      worker.start();
      report({ kind: "ready" });
      await stopped;
      await worker.stop();
      return () => rsmq.quitAsync();
    }
    case "old-poller": {
      const api = await open("rsmq", endpoint, { ns: setup.ns });
      quietErrors(api);
      let polling = true;
      void stopped.then(() => (polling = false));
      report({ kind: "ready" });
      while (polling) {
        const received = await api.receiveMessageAsync({ qname, vt: setup.vt }).catch(() => ({}));
        if (!isMessage(received)) {
          await delay(20);
          continue;
        }
        forwarding.delivered(name, received);
        if (setup.workMs) await delay(setup.workMs);
        forwarding.handled(name, received.message);
        // A failed delete leaves the message to reappear after vt.
        if (
          await api.deleteMessageAsync({ qname, id: received.id }).then(
            () => true,
            () => false,
          )
        )
          forwarding.deleted(name, received.message);
      }
      return () => close(api);
    }
  }
}

function quietErrors(api: QueueApi): void {
  (api as unknown as NodeJS.EventEmitter).on("error", () => undefined);
}

async function main(): Promise<void> {
  const setup = JSON.parse(process.argv[2]) as MemberSetup;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.on("message", (message: unknown) => {
    if (message === "stop") stop();
  });
  const closeAll = await run(setup, stopped);
  await closeAll();
  report({ kind: "stopped" });
  process.disconnect();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
