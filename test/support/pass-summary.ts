/**
 * Whether a mocha pass of `npm test` really tested something: a pass that exits 0 with no test
 * run (every test skipped by a root hook, as the cluster pass is without Redis 7+, or a `--grep`
 * that matches nothing in it) must fail CI, saying why, instead of adding "0 passing" to the total.
 */

/** The counts of mocha's closing summary ("N passing", "N failing", "N pending"). */
export interface PassSummary {
  passing: number;
  failing: number;
  pending: number;
}

/** Colour codes, which mocha writes when it prints to a terminal. */
const ANSI = new RegExp(String.fromCharCode(27) + "\\[[0-9;]*m", "g");

/** Reads the last summary in a pass's output; undefined when mocha printed none (it died first). */
export function readSummary(output: string): PassSummary | undefined {
  const text = output.replace(ANSI, "");
  const count = (word: string): number | undefined => {
    const all = [...text.matchAll(new RegExp(`^ *(\\d+) ${word}\\b`, "gm"))];
    return all.length === 0 ? undefined : Number(all[all.length - 1][1]);
  };
  const passing = count("passing");
  if (passing === undefined) return undefined;
  return { passing, failing: count("failing") ?? 0, pending: count("pending") ?? 0 };
}

/**
 * Why a pass must fail although mocha exited 0, or undefined when it ran at least one test. The
 * reason names the pass, its counts and the line that said why its tests were skipped, if any
 * ("Skipping every Redis Cluster test: ...").
 */
export function emptyPassReason(pass: string, output: string): string | undefined {
  const summary = readSummary(output);
  if (summary === undefined) return `the ${pass} pass printed no mocha summary, so no test is known to have run`;
  if (summary.passing + summary.failing > 0) return undefined;
  const skipped = /^ *(Skipping every .*)$/m.exec(output.replace(ANSI, ""))?.[1];
  return (
    `the ${pass} pass ran no test (0 passing, ${summary.pending} pending): ` +
    (skipped ?? "every test was skipped or none matched (a --grep that matches nothing in this pass?)")
  );
}
