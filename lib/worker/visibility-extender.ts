/**
 * Keeps messages hidden while their handlers run: halfway through each visibility timeout it hides
 * the message for another vt, so a slow handler is not delivered twice. It stops when the
 * handler ends, when the worker gives up on it at stop, or when the message is gone.
 */
import type { RedisSMQInternals } from "../redis-smq";
import { MAX_TIMER_MS } from "./wakeable-sleep";

export interface Extension {
  /** Stops extending (the message then reappears when its current vt ends). */
  stop(): void;
  /** Local epoch ms at which the message becomes visible again, as far as this worker knows. */
  hiddenUntil(): number;
}

export class VisibilityExtender {
  private readonly active = new Set<Extension>();

  constructor(
    private readonly queue: RedisSMQInternals,
    private readonly qname: string,
    private readonly onExtended: () => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  keepHidden(id: string, vt: number): Extension {
    const vtMs = vt * 1000;
    let hiddenUntil = Date.now() + vtMs;
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const extension: Extension = {
      stop: () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        this.active.delete(extension);
      },
      hiddenUntil: () => hiddenUntil,
    };
    const schedule = (): void => {
      timer = setTimeout(extend, Math.min(vtMs / 2, MAX_TIMER_MS));
    };
    const extend = async (): Promise<void> => {
      try {
        const found = await this.queue.hideMessage(this.qname, id, vtMs);
        if (stopped) return;
        if (found === 0) return extension.stop();
        hiddenUntil = Date.now() + vtMs;
        this.onExtended();
      } catch (error) {
        this.onError(error);
      }
      if (!stopped) schedule();
    };
    // vt 0 hides nothing, so there is nothing to extend.
    if (vt > 0) {
      this.active.add(extension);
      schedule();
    }
    return extension;
  }

  stopAll(): void {
    for (const extension of [...this.active]) extension.stop();
  }
}
