/**
 * Load for the fault scenarios, in this process: producers that send numbered bodies at a steady
 * pace and record each send in a Ledger, and Workers whose handlers record each delivery and
 * handling. A send is never retried here: a retried send could store its body twice, which the
 * ledger would rightly call a duplicate.
 */
import RedisSMQ = require("../../../lib/index");
import type { WorkerOptions } from "../../../lib/worker/worker-options";
import { delay, waitFor } from "../../support/worker";
import type { Ledger, LedgerSink } from "./ledger";

const { Worker } = RedisSMQ;

export interface ProducerOptions {
  /** ms between two sends. */
  intervalMs: number;
  /**
   * Sends that may wait for their reply at once (default 1): while the server stalls, up to this
   * many pile up, as they would from a busy application.
   */
  maxInFlight?: number;
  /** Pads each body with dots to this many characters (to fill memory faster). */
  padTo?: number;
}

/** Sends through `send` every `intervalMs` (fewer while `maxInFlight` sends wait), until stopped. */
export class Producer {
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private count = 0;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly name: string,
    private readonly ledger: LedgerSink,
    private readonly send: (body: string) => Promise<string>,
    private readonly options: ProducerOptions,
  ) {}

  /** A producer sending with rsmq-next's sendMessageAsync. */
  static of(name: string, ledger: LedgerSink, rsmq: RedisSMQ, qname: string, options: ProducerOptions): Producer {
    return new Producer(name, ledger, (message) => rsmq.sendMessageAsync({ qname, message }), options);
  }

  /** Sends made so far. */
  get sent(): number {
    return this.count;
  }

  start(): this {
    this.running = true;
    this.loopDone = this.loop();
    return this;
  }

  /** Stops sending and waits, at most `timeoutMs`, until every send made has settled. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.running = false;
    await this.loopDone;
    try {
      await waitFor(() => this.inFlight.size === 0, `${this.name}'s sends in flight to settle`, timeoutMs);
    } catch (error) {
      throw new Error(`${(error as Error).message} (${this.inFlight.size} still waiting for a reply)`);
    }
  }

  private async loop(): Promise<void> {
    const maxInFlight = this.options.maxInFlight ?? 1;
    while (this.running) {
      if (this.inFlight.size >= maxInFlight) await Promise.race(this.inFlight);
      else this.sendOne();
      await delay(this.options.intervalMs);
    }
  }

  private sendOne(): void {
    const body = `${this.name}-${++this.count}`.padEnd(this.options.padTo ?? 0, ".");
    this.ledger.sent(body);
    const sending: Promise<unknown> = this.send(body)
      .then(
        (id) => this.ledger.acknowledged(body, id),
        (error: unknown) => this.ledger.refused(body, error),
      )
      .finally(() => this.inFlight.delete(sending));
    this.inFlight.add(sending);
  }
}

export interface LedgerWorkerOptions extends Omit<WorkerOptions, "handler"> {
  /** How long each handler works, in ms (when `work` is not given). */
  workMs?: number;
  /** The handler's work, after its delivery is recorded; by default a pause of `workMs`. */
  work?: (message: RedisSMQ.QueueMessage) => Promise<void>;
}

/**
 * A Worker whose handler records each delivery, its end and the delete that follows in `ledger`
 * under `name`. Its errors are kept in `errors` (a fault makes some), not thrown.
 */
export function ledgerWorker(
  name: string,
  ledger: LedgerSink,
  rsmq: RedisSMQ,
  options: LedgerWorkerOptions,
): { worker: RedisSMQ.Worker; errors: Error[] } {
  const { workMs = 0, work = () => delay(workMs), ...workerOptions } = options;
  const errors: Error[] = [];
  const worker = new Worker(rsmq, {
    ...workerOptions,
    handler: async (message) => {
      ledger.delivered(name, message);
      await work(message);
      ledger.handled(name, message.message);
    },
  });
  // The Worker says `handled` once the delete after the handler resolved.
  worker.on("handled", (message) => ledger.deleted(name, message.message));
  worker.on("error", (error) => errors.push(error));
  return { worker, errors };
}

/** Waits until every acknowledged message was handled; fails with how many were not, and which. */
export async function waitUntilHandled(ledger: Ledger, timeoutMs: number): Promise<void> {
  try {
    await waitFor(() => ledger.unhandled().length === 0, `${ledger.scenario}: every acknowledged message handled`, timeoutMs);
  } catch (error) {
    const left = ledger.unhandledHistory();
    throw new Error(`${(error as Error).message}; ${left.length} still unhandled: ${left.slice(0, 5).join("; ")}`);
  }
}
