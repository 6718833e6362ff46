/**
 * One line of live progress on a terminal (the demo's progress, `redrive`'s): redrawn in place,
 * the cursor hidden while it shows and shown again when it is cleared. Off a terminal it writes
 * nothing, so piped output, --json and the tests that read stderr see the other lines alone.
 */
import { clearLine, cursorTo } from "readline";

const HIDE_CURSOR = "\x1b[?25l";
const SHOW_CURSOR = "\x1b[?25h";

/** `██████░░░░`: `value` of `total` as a bar `width` characters wide. */
export function progressBar(value: number, total: number, width = 24): string {
  const share = total > 0 ? Math.min(1, Math.max(0, value / total)) : 0;
  const filled = Math.round(share * width);
  return "\u2588".repeat(filled) + "\u2591".repeat(width - filled);
}

/** `text` cut to fit in `columns` less one, so that it never wraps (a wrapped line cannot be redrawn in place). */
function fit(text: string, columns: number | undefined): string {
  const room = Math.max(1, (columns || 80) - 1);
  const chars = [...text];
  return chars.length > room ? chars.slice(0, room).join("") : text;
}

export class LiveLine {
  /** What the line shows now; undefined when nothing is shown. */
  private shown: string | undefined;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    /** Whether to draw at all: a terminal, and not --json. */
    readonly enabled: boolean,
  ) {}

  /** Shows `text` (plain, no colour codes) in place of what the line showed. */
  show(text: string): void {
    if (!this.enabled) return;
    const line = fit(text, this.stream.columns);
    if (line === this.shown) return;
    if (this.shown === undefined) this.stream.write(HIDE_CURSOR);
    cursorTo(this.stream, 0);
    this.stream.write(line);
    clearLine(this.stream, 1);
    this.shown = line;
  }

  /** Erases the line and shows the cursor again; does nothing when nothing is shown. */
  clear(): void {
    if (this.shown === undefined) return;
    cursorTo(this.stream, 0);
    clearLine(this.stream, 0);
    this.stream.write(SHOW_CURSOR);
    this.shown = undefined;
  }
}
