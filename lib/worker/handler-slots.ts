/**
 * A Worker's handler slots: how many handlers run, each message's handling until it is settled
 * (what stop() waits for), and the loop's wait while every slot is taken.
 *
 * A delete held for the next receive frees its slot at once: that receive carries it. One sent on
 * its own (and a failure's settlement) frees it once answered, so no receive can find the message
 * still there, hidden, and sleep until its vt for nothing.
 */
import type { QueueMessage } from "../types";
import { handleMessage } from "./handle-message";
import type { Handling } from "./handle-message";
import type { PendingAcks } from "./pending-acks";

export class HandlerSlots {
  /** Each message's handling until it is settled (its delete answered): what stop() waits for. */
  readonly running = new Set<Promise<void>>();
  private busy = 0;
  private freed: (() => void) | undefined;

  /**
   * @param onFree told whenever a slot frees (its handler's delete queued, or its settlement done):
   *   the loop, held at the queue's concurrency limit, receives at once
   */
  constructor(
    private readonly concurrency: number,
    private readonly handling: Handling,
    private readonly acks: Pick<PendingAcks, "holding">,
    private readonly onFree: () => void,
  ) {}

  /** Slots free now. */
  get free(): number {
    return this.concurrency - this.busy;
  }

  /** Resolves once a slot frees, or at release(). */
  async whenFree(): Promise<void> {
    await new Promise<void>((resolve) => (this.freed = resolve));
    this.freed = undefined;
  }

  /** Ends a wait for a free slot (the worker stops). */
  release(): void {
    this.freed?.();
  }

  /** Hands `message` (received for `vt` seconds) to a handler in a slot of its own. */
  dispatch(message: QueueMessage, vt: number): void {
    this.busy += 1;
    let slotHeld = true;
    const freeSlot = (): void => {
      if (!slotHeld) return;
      slotHeld = false;
      this.busy -= 1;
      this.freed?.();
      this.onFree();
    };
    const acknowledged = (): void => {
      if (this.acks.holding) freeSlot();
    };
    const task = handleMessage(message, vt, this.handling, acknowledged).finally(() => {
      this.running.delete(task);
      freeSlot();
    });
    this.running.add(task);
  }
}
