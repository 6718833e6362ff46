/**
 * Keeps messages hidden while their handlers run: halfway through each visibility timeout it hides
 * the message for another vt, so a slow handler is not delivered twice. It stops when the
 * handler ends, when the worker gives up on it at stop, or when the message is gone.
 */
import type { Clock } from "./clock";
import type { WakeableSleep } from "./wakeable-sleep";

export interface Extension {
  /** Stops extending (the message then reappears when its current vt ends). */
  stop(): void;
  /** Local epoch ms at which the message becomes visible again, as far as this worker knows. */
  hiddenUntil(): number;
}

export class VisibilityExtender {
  private readonly active = new Set<Extension>();

  /** @param hide hides a held message for `ms` from now; 0 when it is gone */
  constructor(
    private readonly hide: (id: string, ms: number) => Promise<0 | 1>,
    private readonly clock: Clock,
    private readonly onExtended: () => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  keepHidden(id: string, vt: number): Extension {
    const vtMs = vt * 1000;
    let hiddenUntil = this.clock.now() + vtMs;
    let pause: WakeableSleep | undefined;
    let stopped = false;
    const extension: Extension = {
      stop: () => {
        stopped = true;
        pause?.wake();
        this.active.delete(extension);
      },
      hiddenUntil: () => hiddenUntil,
    };
    const keep = async (): Promise<void> => {
      while (!stopped) {
        pause = this.clock.sleep(vtMs / 2);
        await pause.done;
        if (stopped) return;
        try {
          const found = await this.hide(id, vtMs);
          if (stopped) return;
          if (found === 0) return extension.stop();
          hiddenUntil = this.clock.now() + vtMs;
          this.onExtended();
        } catch (error) {
          this.onError(error);
        }
      }
    };
    // vt 0 hides nothing, so there is nothing to extend.
    if (vt > 0) {
      this.active.add(extension);
      keep().catch(this.onError);
    }
    return extension;
  }

  stopAll(): void {
    for (const extension of [...this.active]) extension.stop();
  }
}
