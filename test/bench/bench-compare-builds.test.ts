/**
 * The bench's build comparison (bench/compare-builds.ts) on a tiny run, this checkout against
 * itself, so its code path cannot rot: every case measured on each build, the table. It checks
 * that figures exist, never how fast anything was.
 */
import { expect } from "chai";
import { resolve } from "path";
import { hasCombinedCall } from "../../bench/combined-call";
import { compareBuilds, compareTable } from "../../bench/compare-builds";
import type { CompareCase, CompareRow } from "../../bench/compare-builds";
import { OPERATIONS } from "../../lib/methods/registry";
import { runsOn } from "../support/targets";

runsOn("single");

const TINY: readonly CompareCase[] = [
  { kind: "send", concurrency: 2, messages: 40 },
  { kind: "receive+delete", concurrency: 2, messages: 40 },
  { kind: "combined", concurrency: 2, messages: 40 },
  { kind: "worker", concurrency: 1, messages: 40 },
  { kind: "worker", concurrency: 2, messages: 40 },
];

describe("bench: two builds side by side (tiny run)", function () {
  this.timeout(60_000);
  let rows: CompareRow[];

  before(async () => {
    const checkout = resolve(__dirname, "../../..");
    rows = await compareBuilds({ before: checkout, after: checkout }, TINY, 1);
  });

  it("measures every case on both builds: messages a second, client and server CPU per message", () => {
    expect(rows.map((row) => row.label)).to.deep.equal(["send C=2", "receive+delete C=2", "combined C=2", "worker C=1", "worker C=2"]);
    for (const row of rows) {
      // The combined call's case is skipped by a build without the call (this one, until it has it).
      if (row.label.startsWith("combined") && !hasCombinedCall(OPERATIONS)) {
        expect([row.before, row.after], row.label).to.deep.equal([undefined, undefined]);
        continue;
      }
      for (const figures of [row.before!, row.after!]) {
        expect(figures.perSecond, row.label).to.be.above(0).and.finite;
        expect(figures.clientMicros, row.label).to.be.above(0).and.finite;
        expect(figures.serverMicros, row.label).to.be.at.least(0).and.finite;
      }
    }
  });

  it("prints one Markdown row per case with the after/before ratios", () => {
    const lines = compareTable(rows).split("\n");
    expect(lines).to.have.length(2 + TINY.length);
    expect(lines[2]).to.match(/^\| send C=2 \| \d+ \| \d+ \| \d+\.\d{3} \|/);
    const combined = lines.find((line) => line.startsWith("| combined C=2 |"))!;
    if (hasCombinedCall(OPERATIONS)) expect(combined).to.match(/^\| combined C=2 \| \d+ \| \d+ \| \d+\.\d{3} \|/);
    else expect(combined).to.equal("| combined C=2 | – | – | – | – | – | – | – | – | – |");
  });
});
