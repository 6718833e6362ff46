/**
 * Where the command line writes: results to stdout (aligned tables for people, JSON with --json),
 * notes, progress and errors to stderr. Colours only when the stream is a terminal and NO_COLOR is
 * not set, so piped output stays plain.
 */
import pc = require("picocolors");

type Colors = ReturnType<typeof pc.createColors>;

export interface Column {
  readonly title: string;
  /** Right-align (numbers). */
  readonly right?: boolean;
}

export interface Streams {
  out: NodeJS.WriteStream;
  err: NodeJS.WriteStream;
}

function colorsEnabled(stream: NodeJS.WriteStream): boolean {
  if ("NO_COLOR" in process.env) return false;
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== "0") return true;
  return Boolean(stream.isTTY);
}

const ANSI = /\x1b\[[0-9;]*m/g;

/** Characters a cell takes on screen (colour codes take none). */
export function visibleLength(text: string): number {
  return [...text.replace(ANSI, "")].length;
}

function pad(text: string, width: number, right: boolean): string {
  const fill = " ".repeat(Math.max(0, width - visibleLength(text)));
  return right ? fill + text : text + fill;
}

export class Output {
  /** Colours for stdout. */
  readonly color: Colors;
  /** Colours for stderr. */
  readonly errColor: Colors;

  constructor(
    /** --json: results as JSON on stdout. */
    readonly json: boolean,
    readonly streams: Streams = { out: process.stdout, err: process.stderr },
  ) {
    this.color = pc.createColors(colorsEnabled(streams.out));
    this.errColor = pc.createColors(colorsEnabled(streams.err));
  }

  /** Whether stdout is a terminal (live redraws only make sense there). */
  get interactive(): boolean {
    return Boolean(this.streams.out.isTTY);
  }

  /** Whether stderr is a terminal (progress bars go there). */
  get interactiveErr(): boolean {
    return Boolean(this.streams.err.isTTY);
  }

  line(text = ""): void {
    this.streams.out.write(`${text}\n`);
  }

  /** A value for scripts: pretty JSON. */
  data(value: unknown): void {
    this.line(JSON.stringify(value, null, 2));
  }

  /** One JSON value per line, for streams of events or refreshes. */
  event(value: unknown): void {
    this.line(JSON.stringify(value));
  }

  /** A side remark for people, on stderr so it never mixes into results. */
  note(text: string): void {
    this.streams.err.write(`${this.errColor.dim(text)}\n`);
  }

  error(message: string, hint?: string): void {
    this.streams.err.write(`${this.errColor.red("error:")} ${message}\n`);
    if (hint) this.streams.err.write(`${this.errColor.dim(`hint: ${hint}`)}\n`);
  }

  /** Table lines, columns padded to their widest cell, two spaces apart. */
  tableLines(columns: readonly Column[], rows: readonly string[][]): string[] {
    const widths = columns.map((column, i) => Math.max(visibleLength(column.title), ...rows.map((row) => visibleLength(row[i] ?? ""))));
    const render = (cells: readonly string[]): string =>
      columns
        .map((column, i) => pad(cells[i] ?? "", widths[i], Boolean(column.right)))
        .join("  ")
        .trimEnd();
    const header = this.color.dim(render(columns.map((column) => column.title)));
    return [header, ...rows.map(render)];
  }

  table(columns: readonly Column[], rows: readonly string[][]): void {
    for (const line of this.tableLines(columns, rows)) this.line(line);
  }

  /** `label  value` lines with the labels aligned. */
  fieldLines(fields: ReadonlyArray<readonly [string, string]>): string[] {
    const width = Math.max(...fields.map(([label]) => visibleLength(label)));
    return fields.map(([label, value]) => `${this.color.dim(pad(label, width, false))}  ${value}`.trimEnd());
  }

  fields(fields: ReadonlyArray<readonly [string, string]>): void {
    for (const line of this.fieldLines(fields)) this.line(line);
  }
}
