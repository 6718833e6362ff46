/**
 * The demo's one live line (a cli-progress bar on stderr), shown only on a terminal; elsewhere
 * it does nothing, so piped output and tests see the timeline lines alone.
 */
import { SingleBar } from "cli-progress";

export type Payload = Record<string, string | number>;

export class LiveLine {
  private bar: SingleBar | undefined;

  constructor(readonly enabled: boolean) {}

  start(format: string, total: number, payload: Payload = {}): void {
    this.stop();
    if (!this.enabled) return;
    this.bar = new SingleBar({ format, barsize: 24, hideCursor: true, clearOnComplete: true, stopOnComplete: false, fps: 12 });
    this.bar.start(total, 0, payload);
  }

  update(value: number, payload: Payload = {}): void {
    this.bar?.update(value, payload);
  }

  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}
