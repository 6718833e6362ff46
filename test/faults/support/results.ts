/** The figures of each scenario run, printed as a line at once and as the table of docs/reliability.md at the end. */
import { TABLE_HEADER, summaryLine, tableRow } from "./ledger";
import type { Verdict } from "./ledger";

const verdicts: Verdict[] = [];

/**
 * Prints the scenario's summary line and keeps it for the table, once per verdict (a scenario
 * with checks of its own records before them, so its figures show even when one fails).
 */
export function record(verdict: Verdict): Verdict {
  if (verdicts.includes(verdict)) return verdict;
  verdicts.push(verdict);
  console.log(`      ${summaryLine(verdict)}`);
  return verdict;
}

/** The table of every scenario recorded so far (nothing if none was). */
export function printTable(): void {
  if (verdicts.length === 0) return;
  console.log(`\n${TABLE_HEADER}\n${verdicts.map(tableRow).join("\n")}\n`);
}
