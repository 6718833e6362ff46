/**
 * Reads the bench's figures back from the Markdown a reader sees (README.md's headline block,
 * bench/README.md's tables) and checks that they add up: each printed ratio is the ratio of the
 * printed figures beside it, to the printed precision, and the words about the machine, the
 * duration and the connections are those the run's record gives. Returns the problems found, each
 * naming the table and row, so a test can list them all at once.
 */
import { formatDuration, machineState, partLoad, PART } from "../../bench/machine-load";
import type { RunRecord } from "../../bench/readme-blocks";

/** A printed figure: its value (times in ms) and half its last printed digit, the rounding it hides. */
interface Figure {
  value: number;
  half: number;
}

const TIME_UNITS: Record<string, number> = { s: 1000, ms: 1, µs: 1 };

/** "177,597", "3.57 ms", "4.34 s", "37.0 µs", "1.32×", "-1.50": the first figure in a cell; undefined for "–", "n/a". */
export function parseFigure(cell: string): Figure | undefined {
  const match = /(-?[\d,]+(?:\.(\d+))?)\s*(ms|s|µs|×)?/.exec(cell.replace(/\*\*/g, ""));
  if (!match) return undefined;
  const scale = match[3] && match[3] !== "×" ? TIME_UNITS[match[3]] : 1;
  const decimals = match[2]?.length ?? 0;
  return { value: Number(match[1].replace(/,/g, "")) * scale, half: 0.5 * 10 ** -decimals * scale };
}

/** Whether a ratio printed as `ratio` can be `top / bottom` for some values that print as the figures. */
export function ratioFits(ratio: Figure, top: Figure, bottom: Figure): boolean {
  const low = (top.value - top.half) / (bottom.value + bottom.half);
  const high = bottom.value - bottom.half <= 0 ? Infinity : (top.value + top.half) / (bottom.value - bottom.half);
  return ratio.value + ratio.half >= low && ratio.value - ratio.half <= high;
}

const cellsOf = (line: string): string[] =>
  line
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

/** The header cells of the first Markdown table whose header line starts with `header`. */
export function tableHeaders(markdown: string, header: string): string[] {
  const line = markdown.split("\n").find((entry) => entry.startsWith(header));
  return line ? cellsOf(line) : [];
}

/**
 * Whether the ratio printed in `ratioCell` can be `topCell / bottomCell`. A ratio printed "n/a" (a zero or a missing
 * figure on either side) holds nothing to check, nor does a cell without a figure.
 */
export function cellsFit(ratioCell: string, topCell: string, bottomCell: string): boolean {
  const [ratio, top, bottom] = [ratioCell, topCell, bottomCell].map(parseFigure);
  return !ratio || !top || !bottom || ratioFits(ratio, top, bottom);
}

/** The rows of the first Markdown table whose header line starts with `header`, as cells; [] when there is none. */
export function tableRows(markdown: string, header: string): string[][] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.startsWith(header));
  if (start < 0) return [];
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(cellsOf(line));
  }
  return rows;
}

/** The text between a block's markers, each on a line of its own (prose may quote a marker). */
export function blockOf(markdown: string, name: string): string {
  const block = new RegExp(`^<!-- bench:${name}:start -->$([^]*?)^<!-- bench:${name}:end -->$`, "m").exec(markdown);
  return block ? block[1] : "";
}

const UP = /\b(higher|more)\b/;
const DOWN = /\b(lower|fewer|less)\b/;

/** The headline table: "**2.29× less**" is rsmq / rsmq-next, "**1.32× higher**" rsmq-next / rsmq. */
function headlineProblems(where: string, markdown: string): string[] {
  const rows = tableRows(markdown, "| Operation | rsmq 0.12.4 | rsmq-next |");
  if (rows.length === 0) return [`${where}: no headline table`];
  return rows.flatMap(([operation, rsmq, next, ratio]) => {
    const [old, now, printed] = [parseFigure(rsmq), parseFigure(next), parseFigure(ratio)];
    // A ratio with a zero on either side has no value: "n/a" is then what it should print.
    if (old && now && (old.value === 0 || now.value === 0))
      return /n\/a/.test(ratio) ? [] : [`${where}, "${operation}": ${ratio} of a zero`];
    if (!old || !now || !printed) return [`${where}, "${operation}": a figure is missing`];
    const up = UP.test(ratio);
    if (!up && !DOWN.test(ratio)) return [`${where}, "${operation}": "${ratio}" says neither higher nor lower`];
    const fits = up ? ratioFits(printed, now, old) : ratioFits(printed, old, now);
    return fits ? [] : [`${where}, "${operation}": ${ratio} is not ${up ? `${next} / ${rsmq}` : `${rsmq} / ${next}`}`];
  });
}

const THROUGHPUT_HEADER = "| Library | What | C | msg/s | × rsmq |";

/** The throughput table, row by row against the rows the record says each is divided by. */
function throughputProblems(markdown: string, record: RunRecord): string[] {
  const rows = tableRows(markdown, THROUGHPUT_HEADER);
  if (rows.length !== record.throughput.length)
    return [`throughput table: ${rows.length} rows, the record has ${record.throughput.length}`];
  const headers = tableHeaders(markdown, THROUGHPUT_HEADER);
  const column = (name: string): number => headers.indexOf(name);
  const [perSecond, ratioColumn, floorColumn, cpu, cpuRatio] = ["msg/s", "× rsmq", "of floor", "Redis CPU µs/msg", "Redis CPU × rsmq"].map(
    column,
  );
  if ([perSecond, ratioColumn, floorColumn, cpu, cpuRatio].includes(-1))
    return [`throughput table: a column is missing in ${headers.join(", ")}`];
  const at = (key: string | undefined): string[] | undefined => rows[record.throughput.findIndex((row) => row.key === key)];
  const problems: string[] = [];
  record.throughput.forEach((entry, i) => {
    const row = rows[i];
    const base = at(entry.baseline);
    const name = `throughput table, ${row[0]} "${row[1]}"`;
    if (!base) return problems.push(`${name}: its baseline ${entry.baseline} is not in the table`);
    const check = (ratioCell: string, top: string, bottom: string, what: string): void => {
      if (!cellsFit(ratioCell, top, bottom)) problems.push(`${name}: ${what} ${ratioCell} is not ${top} / ${bottom}`);
    };
    if (entry.key !== entry.baseline) {
      check(row[ratioColumn], row[perSecond], base[perSecond], "× rsmq");
      check(row[cpuRatio], row[cpu], base[cpu], "Redis CPU × rsmq");
    }
    const floor = at(entry.floor);
    const ofFloor = parseFigure(row[floorColumn]);
    if (floor && ofFloor && entry.kind !== "floor" && entry.callsPerMessage) {
      const calls = parseFigure(row[perSecond]);
      const floorCalls = parseFigure(floor[perSecond]);
      if (!calls || !floorCalls) return undefined;
      const callsPerSecond = { value: calls.value * entry.callsPerMessage, half: calls.half * entry.callsPerMessage };
      if (!ratioFits(ofFloor, callsPerSecond, floorCalls))
        problems.push(`${name}: of floor ${row[floorColumn]} is not ${entry.callsPerMessage} × ${row[perSecond]} / ${floor[perSecond]}`);
    }
    return undefined;
  });
  return problems;
}

/** The Goals table: 1 / (client + Redis) from the printed CPU figures. */
function goalsProblems(markdown: string): string[] {
  return tableRows(markdown, "| Goal | Target | Measured | Verdict | rsmq-next CPU").flatMap((row) => {
    const pair = /^(-?[\d.]+) \+ (-?[\d.]+)$/.exec(row[4]);
    const bound = parseFigure(row[5]);
    if (!pair || !bound) return [];
    const [client, redis] = [parseFigure(pair[1])!, parseFigure(pair[2])!];
    const sum = { value: client.value + redis.value, half: client.half + redis.half };
    return ratioFits(bound, { value: 1e6, half: 0 }, sum) ? [] : [`goals table, "${row[0]}": ${row[5]} is not 1e6 / (${row[4]})`];
  });
}

/** The network table: p50 × rsmq = rsmq-next p50 / rsmq p50. */
function networkProblems(markdown: string): string[] {
  return tableRows(markdown, "| Call | rsmq p50 | rsmq p99 | rsmq-next p50 |").flatMap(([call, oldP50, , nextP50, , ratio]) =>
    cellsFit(ratio, nextP50, oldP50) ? [] : [`network table, ${call}: ${ratio} is not ${nextP50} / ${oldP50}`],
  );
}

/** The connections table: × rsmq = msg/s / rsmq 0.12.4's msg/s of the same kind (receive+delete's for the Worker). */
function connectionsProblems(markdown: string): string[] {
  const rows = tableRows(markdown, "| what | library | msg/s | × rsmq |");
  const kindOf = (what: string): string => (what.startsWith("Worker") ? "receive+delete" : what);
  return rows.flatMap(([what, library, perSecond, ratio]) => {
    const base = rows.find((row) => row[0] === kindOf(what) && row[1] === "rsmq 0.12.4");
    if (!base) return [`connections table, ${what} ${library}: no rsmq 0.12.4 row to divide by`];
    return cellsFit(ratio, perSecond, base[2]) ? [] : [`connections table, ${what} ${library}: ${ratio} is not ${perSecond} / ${base[2]}`];
  });
}

/** Every "quiet machine (...)" / "loaded machine (...)" in `text` says what the record's loads say. */
function machineProblems(where: string, text: string, record: RunRecord): string[] {
  const state = machineState(record);
  const said = [...text.matchAll(/\b(quiet|loaded) machine \(load (?:at most )?([\d.]+) on (\d+) cores?\)/g)];
  const problems: string[] = [];
  if (said.length === 0 && state.quiet !== undefined) problems.push(`${where}: does not say whether the machine was quiet or loaded`);
  for (const [words, kind, load, cores] of said) {
    if (Number(cores) !== record.machine.cpus) problems.push(`${where}: "${words}" but the record has ${record.machine.cpus} cores`);
    if (state.peak === undefined || load !== state.peak.toFixed(2))
      problems.push(`${where}: "${words}" but the highest recorded load is ${state.peak}`);
    const actually = state.quiet === true ? "quiet" : state.quiet === false ? "loaded" : "not shown quiet";
    if ((kind === "quiet") !== (state.quiet === true)) problems.push(`${where}: "${words}" but by the recorded loads it was ${actually}`);
  }
  if (/\bquiet machine\b(?! \(load)/.test(text)) problems.push(`${where}: calls the machine quiet without its load`);
  return problems;
}

/** A part's load note in a caption says what the record has for that part. */
function loadNoteProblems(markdown: string, record: RunRecord): string[] {
  const problems: string[] = [];
  const throughput = partLoad(record, PART.throughput);
  const caption = markdown.split("\n").find((line) => line.startsWith("Median of ") && line.includes("100-byte bodies")) ?? "";
  const expected = throughput
    ? `over this part: ${throughput.start.toFixed(2)} at the start, ${throughput.end.toFixed(2)} at the end`
    : "load not recorded";
  if (!caption.includes(expected)) problems.push(`throughput caption: does not say "${expected}"`);
  const connections = partLoad(record, PART.connections);
  if (record.connections && connections) {
    const words = `load average ${connections.start.toFixed(2)} at the start of this part, ${connections.end.toFixed(2)} at the end`;
    if (!markdown.includes(words)) problems.push(`connections caption: does not say "${words}"`);
  }
  return problems;
}

/** The throughput caption states the connections the record has, never "one connection per client". */
function connectionCountProblems(markdown: string, record: RunRecord): string[] {
  if (/one connection per client/.test(markdown)) return ['says "one connection per client"'];
  const recorded = record.connectionsPerClient;
  if (!recorded)
    return markdown.includes("not recorded in this run") ? [] : ["the connections per client are not recorded, and it does not say so"];
  const next = recorded["rsmq-next"];
  const words = `rsmq-next on ${next} connection${next === 1 ? "" : "s"}`;
  return markdown.includes(words) ? [] : [`throughput caption: does not say "${words}"`];
}

/** The last run's duration, as bench/README.md's duration block and results say it. */
function durationProblems(markdown: string, record: RunRecord): string[] {
  const minutes = formatDuration(record.durationMs);
  const block = blockOf(markdown, "duration");
  return block.includes(`took ${minutes}`) ? [] : [`duration block: does not say "took ${minutes}" (${record.durationMs} ms recorded)`];
}

/** Every problem with the figures of README.md (its headline block) and bench/README.md, against the run they quote. */
export function figureProblems(readme: string, benchReadme: string, record: RunRecord): string[] {
  const headline = blockOf(readme, "headline");
  const results = blockOf(benchReadme, "results");
  return [
    ...headlineProblems("README.md headline", headline),
    ...headlineProblems("bench/README.md In short", results),
    ...throughputProblems(results, record),
    ...goalsProblems(results),
    ...networkProblems(results),
    ...connectionsProblems(blockOf(benchReadme, "connections")),
    ...machineProblems("README.md headline", headline, record),
    ...machineProblems("bench/README.md", benchReadme, record),
    ...loadNoteProblems(benchReadme, record),
    ...connectionCountProblems(results, record),
    ...durationProblems(benchReadme, record),
  ];
}
