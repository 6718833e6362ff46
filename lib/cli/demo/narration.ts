/** How the demo tells its story: lines stamped with the time since the start, and a live line. */
import { duration } from "../format";
import { LiveLine, progressBar } from "../live-line";
import type { Output } from "../output";

/** The demo's lines: on stdout, or on stderr with --json (stdout then carries the summary alone). */
export class Narration {
  readonly live: LiveLine;
  private readonly startedAt = Date.now();

  constructor(private readonly out: Output) {
    this.live = new LiveLine(out.streams.err, out.interactiveErr && !out.json);
  }

  /** The colours of stdout. */
  get color(): Output["color"] {
    return this.out.color;
  }

  /** Ms since the demo started. */
  get elapsedMs(): number {
    return Date.now() - this.startedAt;
  }

  /** A line as it is. */
  readonly print = (line: string): void => (this.out.json ? void this.out.streams.err.write(`${line}\n`) : this.out.line(line));

  /** A line after the time since the start. */
  readonly say = (text: string): void => this.print(`${this.color.dim(duration(this.elapsedMs).padStart(6))}  ${text}`);

  /** The live line of a timed window: `ms` of `windowMs` gone, and the commands counted so far. */
  showWindow(ms: number, windowMs: number, commands: number): void {
    this.live.show(`  ${progressBar(ms, windowMs)} ${(ms / 1000).toFixed(1)}s | Redis commands so far: ${commands}`);
  }
}
