/**
 * Keeps messages hidden while their handlers run: halfway through each visibility timeout it hides
 * the message for another vt, so a slow handler is not delivered twice. It stops when the
 * handler ends, when the worker gives up on it at stop, or when the message is gone.
 *
 * Almost every handler ends long before half its vt, so a message in hand must cost next to
 * nothing: one sleep serves all of them, armed for the earliest extension due. A message due after
 * it adds a set entry and nothing else, and a message leaving leaves the sleep armed (cancelling and
 * arming a timer for each message cost more than the rest of its extension's work): it ends once,
 * finds nothing due, and is not armed again until a message is in hand. stopAll() cancels it, so
 * no timer keeps a stopped worker's process alive.
 */
import type { Clock } from "./clock";
import type { WakeableSleep } from "./wakeable-sleep";

export interface Extension {
  /** Stops extending (the message then reappears when its current vt ends). */
  stop(): void;
  /** Local epoch ms at which the message becomes visible again, as far as this worker knows. */
  hiddenUntil(): number;
}

/** Whoever holds a message and must know when it is gone (its handler's context). */
export interface MessageHolder {
  /** The message was deleted, or received again elsewhere: this delivery is over. */
  cancel(): void;
}

/** While its hide is in flight a message waits for no sleep. */
const IN_FLIGHT = Number.POSITIVE_INFINITY;

/** One message in hand: its own schedule, with methods on the prototype rather than closures. */
class HeldMessage implements Extension {
  /** Local epoch ms at which it is next hidden for another vt; IN_FLIGHT while that hide runs. */
  dueAt: number;
  until: number;
  stopped = false;

  constructor(
    private readonly leave: (message: HeldMessage) => void,
    readonly id: string,
    readonly rc: number | undefined,
    readonly vtMs: number,
    now: number,
    readonly holder: MessageHolder | undefined,
  ) {
    this.dueAt = now + vtMs / 2;
    this.until = now + vtMs;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.leave(this);
  }

  hiddenUntil(): number {
    return this.until;
  }
}

export class VisibilityExtender {
  private readonly held = new Set<HeldMessage>();
  /** The one sleep, armed for `sleepEndsAt` (the earliest due extension when it was armed). */
  private sleep: WakeableSleep | undefined;
  private sleepEndsAt = IN_FLIGHT;

  /** @param hide hides a held message for `ms` from now, while its receive count still is `rc`; 0 when it is gone or received again */
  constructor(
    private readonly hide: (id: string, ms: number, rc: number | undefined) => Promise<0 | 1>,
    private readonly clock: Clock,
    private readonly onExtended: () => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Keeps message `id` (received as delivery `rc`, for `vt` seconds) hidden; `holder` is told when it is gone.
   * Without `rc` its hides carry no receipt. */
  keepHidden(id: string, vt: number, rc?: number, holder?: MessageHolder): Extension {
    const message = new HeldMessage(this.release, id, rc, vt * 1000, this.clock.now(), holder);
    // vt 0 hides nothing, so there is nothing to extend.
    if (vt > 0) {
      this.held.add(message);
      this.wakeBy(message.dueAt);
    }
    return message;
  }

  /** Stops every extension and cancels the sleep (the worker stops). */
  stopAll(): void {
    for (const message of [...this.held]) message.stop();
    this.cancelSleep();
  }

  /** A message leaves; an armed sleep stays (it may then find nothing due, and is not armed again). */
  private readonly release = (message: HeldMessage): void => {
    this.held.delete(message);
  };

  /** Makes sure the sleep ends by `at`: arms it, or brings it forward; later than the armed end costs nothing. */
  private wakeBy(at: number): void {
    if (at >= this.sleepEndsAt) return;
    this.sleepEndsAt = at;
    const ms = at - this.clock.now();
    if (this.sleep) return this.sleep.shortenTo(ms);
    const sleep = this.clock.sleep(ms);
    this.sleep = sleep;
    sleep.done.then(() => this.onSleepEnd(sleep), this.onError);
  }

  private cancelSleep(): void {
    const sleep = this.sleep;
    this.sleep = undefined;
    this.sleepEndsAt = IN_FLIGHT;
    sleep?.wake();
  }

  private onSleepEnd(sleep: WakeableSleep): void {
    // A cancelled sleep ends too: by then another may be armed, or none is needed.
    if (sleep !== this.sleep) return;
    this.sleep = undefined;
    this.sleepEndsAt = IN_FLIGHT;
    const now = this.clock.now();
    let next = IN_FLIGHT;
    for (const message of this.held) {
      if (message.dueAt <= now) this.extend(message).catch(this.onError);
      else if (message.dueAt < next) next = message.dueAt;
    }
    if (next !== IN_FLIGHT) this.wakeBy(next);
  }

  /** Hides `message` for another vt; each runs on its own, and the next is due half a vt after it settles. */
  private async extend(message: HeldMessage): Promise<void> {
    message.dueAt = IN_FLIGHT;
    try {
      const found = await this.hide(message.id, message.vtMs, message.rc);
      if (message.stopped) return;
      if (found === 0) {
        message.stop();
        return message.holder?.cancel();
      }
      message.until = this.clock.now() + message.vtMs;
      this.onExtended();
    } catch (error) {
      this.onError(error);
    }
    if (message.stopped) return;
    message.dueAt = this.clock.now() + message.vtMs / 2;
    this.wakeBy(message.dueAt);
  }
}
