/**
 * The deletes of handled messages, held for the Worker's next receive: while the loop is about to
 * receive (see WorkerLoop), a handler that resolves leaves its delete here and the loop sends it
 * with that receive, one script call for both (deleteAndReceive). While the loop is not about to
 * receive (it sleeps, looks, backs off or stops) nothing is held: a delete goes out on its own at
 * once (the port still coalesces a burst into one deleteMessages), so none waits behind a sleep.
 */
import { MAX_BATCH } from "../operations/rsmq-input-rules";
import type { ReceivedBatch } from "../operations/receive-message";
import type { QueuePort } from "./queue-port";

/** A delete waiting for the next receive: its id and receipt, and how its handler learns the outcome. */
export interface PendingAck {
  readonly id: string;
  /** The receipt: the delivery's `rc`. */
  readonly rc: number;
  /** 1: the message was there and is deleted; 0: it was gone already, or received again since. */
  readonly resolve: (found: 0 | 1) => void;
  readonly reject: (error: unknown) => void;
}

/** Deletes a message held as delivery `rc` on its own; 0 when it was no longer there (or received again since). */
export type RemoveAlone = (id: string, rc: number) => Promise<0 | 1>;

export class PendingAcks {
  private pending: PendingAck[] = [];
  private isHolding = false;

  constructor(private readonly removeAlone: RemoveAlone) {}

  /** The delete of a handled message: held for the next receive while the loop holds, else sent now. */
  add(id: string, rc: number): Promise<0 | 1> {
    if (!this.isHolding) return this.removeAlone(id, rc);
    return new Promise<0 | 1>((resolve, reject) => this.pending.push({ id, rc, resolve, reject }));
  }

  /** Whether deletes are held, waiting for the next receive. */
  get waiting(): boolean {
    return this.pending.length > 0;
  }

  /** The loop will receive next: deletes added from now on wait for that receive. */
  hold(): void {
    this.isHolding = true;
  }

  /** Whether a delete added now waits for the next receive. */
  get holding(): boolean {
    return this.isHolding;
  }

  /** The loop will not receive soon: the deletes held go out on their own now, and later ones at once. */
  release(): void {
    this.isHolding = false;
    this.sendAlone(this.pending.splice(0));
  }

  /** Takes the deletes held (at most one batch's worth) for the receive about to be sent. */
  take(): PendingAck[] {
    return this.pending.length <= MAX_BATCH ? this.pending.splice(0) : this.pending.splice(0, MAX_BATCH);
  }

  /**
   * Sends `acks` on their own: those a combined call failed to deliver as a whole go again this
   * way (a delete is idempotent), so a failed receive never loses a delete.
   */
  sendAlone(acks: readonly PendingAck[]): void {
    for (const ack of acks) this.removeAlone(ack.id, ack.rc).then(ack.resolve, ack.reject);
  }
}

/** Hands each held delete its outcome from a combined call (1: the message was there). */
export function settleAcks(acks: readonly PendingAck[], deleted: ReadonlyArray<0 | 1>): void {
  for (let index = 0; index < acks.length; index += 1) acks[index].resolve(deleted[index] === 1 ? 1 : 0);
}

/**
 * A receive that carries the deletes held (one call for both), or a receive alone when none are
 * held. The deletes' outcomes are settled from the call itself, whatever the loop does with its
 * reply (a stop may have left it): a call that fails as a whole sends them again on their own,
 * so no delete is lost; a refused receive part (`receiveError`) fails the poll, its deletes done.
 */
export function receiveCarrying(
  acks: PendingAcks,
  queue: Pick<QueuePort, "receive" | "deleteAndReceive">,
  count: number,
): Promise<ReceivedBatch> {
  const taken = acks.take();
  if (taken.length === 0) return queue.receive(count);
  return queue.deleteAndReceive!(
    taken.map((ack) => ack.id),
    taken.map((ack) => ack.rc),
    count,
  ).then(
    ({ deleted, batch, receiveError }) => {
      settleAcks(taken, deleted);
      if (receiveError !== undefined) throw receiveError;
      return batch;
    },
    (error: unknown) => {
      acks.sendAlone(taken);
      throw error;
    },
  );
}
