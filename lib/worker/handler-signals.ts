/**
 * Each handler's `signal`: it aborts when the worker stops (with the stop's reason), or when the
 * handler's own message is cancelled (a {@link MessageCancelledError}: the visibility extender
 * found it deleted, or received again elsewhere).
 *
 * Most handlers never read their signal, and an AbortController per message costs more client CPU
 * than the rest of a message's handling: a message's controller is made when its handler first
 * reads `signal`, and only then listed for the stop. The stop itself is one listener on the
 * worker's signal for all of them, not one per message (which would also trip Node's listener-leak
 * warning at a concurrency above 10).
 */
import type { QueueMessage } from "../types";
import type { HandlerContext } from "./worker-options";
import { MessageCancelledError } from "./message-cancelled-error";
import type { MessageHolder } from "./visibility-extender";

/** The handler signals of one worker. */
export class HandlerSignals {
  /** Controllers made (their handlers read `signal`) and not yet ended. */
  readonly open = new Set<AbortController>();

  /**
   * @param stopSignal the worker's own: aborts when it stops
   * @param qname the worker's queue
   * @param onCancelled told of each message cancelled while its handler runs
   */
  constructor(
    readonly stopSignal: AbortSignal,
    readonly qname: string,
    readonly onCancelled: (message: QueueMessage) => void,
  ) {
    stopSignal.addEventListener(
      "abort",
      () => {
        for (const controller of this.open) controller.abort(stopSignal.reason);
        this.open.clear();
      },
      { once: true },
    );
  }

  /** The context of one message's handler. */
  context(message: QueueMessage): MessageContext {
    return new MessageContext(this, message);
  }
}

/** One handler's context: its signal, made when first read; the visibility extender tells it of a cancel. */
export class MessageContext implements HandlerContext, MessageHolder {
  private controller: AbortController | undefined;
  /** Set once the message is cancelled. */
  cancelled: MessageCancelledError | undefined;

  constructor(
    private readonly signals: HandlerSignals,
    private readonly message: QueueMessage,
  ) {}

  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal;
    const controller = (this.controller = new AbortController());
    const { stopSignal, open } = this.signals;
    if (this.cancelled) controller.abort(this.cancelled);
    else if (stopSignal.aborted) controller.abort(stopSignal.reason);
    else open.add(controller);
    return controller.signal;
  }

  /** The message is gone, or another consumer holds it: aborts the signal with a MessageCancelledError, and tells the worker (once). */
  cancel(): void {
    if (this.cancelled) return;
    const { signals, message } = this;
    this.cancelled = new MessageCancelledError(message.id, signals.qname);
    const controller = this.controller;
    if (controller && !controller.signal.aborted) {
      signals.open.delete(controller);
      controller.abort(this.cancelled);
    }
    signals.onCancelled(message);
  }

  /** The handler ended: its signal no longer follows the stop. */
  end(): void {
    if (this.controller) this.signals.open.delete(this.controller);
  }
}
