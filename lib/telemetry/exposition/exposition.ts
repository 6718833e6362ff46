/**
 * The Prometheus text exposition format (version 0.0.4), written by hand: a HELP and a TYPE line
 * per family, then one line per sample. No prom-client: the exporter and the dashboard serve it
 * without any optional peer installed.
 */

/** The Content-Type of the text format, as Prometheus asks for it. */
export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** A family's type, as the TYPE line names it. */
export type FamilyType = "gauge" | "counter";

/** One sample: its label values (names in order of insertion) and its value. */
export interface Sample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** One metric family: every sample of one name. */
export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: FamilyType;
  readonly samples: readonly Sample[];
}

/** HELP text escapes the backslash and the newline. */
function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** A label value escapes the backslash, the double quote and the newline. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** A value as the format writes it: Go's float syntax for the special values. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function sampleLine(name: string, sample: Sample): string {
  const labels = Object.entries(sample.labels).map(([label, value]) => `${label}="${escapeLabelValue(value)}"`);
  return `${name}${labels.length > 0 ? `{${labels.join(",")}}` : ""} ${formatValue(sample.value)}`;
}

/** The families as one exposition text, ending with a newline (an empty list gives an empty text). */
export function renderExposition(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) lines.push(sampleLine(family.name, sample));
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
