/**
 * The command line's live progress line (the demo's, redrive's), written to a stream that records
 * what a terminal would get: drawn in place with the cursor hidden, never wider than the terminal,
 * erased with the cursor shown again; nothing at all when it is off (no terminal, or --json).
 */
import { expect } from "chai";
import { Writable } from "stream";
import { LiveLine, progressBar } from "../../lib/cli/live-line";
import { runsOn } from "../support/targets";

runsOn("single");

const HIDE = "\x1b[?25l";
const SHOW = "\x1b[?25h";
const TO_COLUMN_1 = "\x1b[1G";
const ERASE_TO_END = "\x1b[0K";
const ERASE_LINE = "\x1b[2K";

/** A terminal of `columns` columns that keeps every write. */
function terminal(columns = 80): { stream: NodeJS.WriteStream; writes: string[] } {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString());
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(stream, { isTTY: true, columns });
  return { stream, writes };
}

describe("CLI: live line", () => {
  it("off: writes nothing", () => {
    const { stream, writes } = terminal();
    const line = new LiveLine(stream, false);
    line.show("progress");
    line.clear();
    expect(writes).to.deep.equal([]);
  });

  it("hides the cursor once, redraws in place only when the text changes, and clears with the cursor shown", () => {
    const { stream, writes } = terminal();
    const line = new LiveLine(stream, true);
    line.show("1/3 done");
    line.show("1/3 done");
    line.show("2/3 done");
    expect(writes.join("")).to.equal(`${HIDE}${TO_COLUMN_1}1/3 done${ERASE_TO_END}${TO_COLUMN_1}2/3 done${ERASE_TO_END}`);
    writes.length = 0;
    line.clear();
    line.clear();
    expect(writes.join("")).to.equal(`${TO_COLUMN_1}${ERASE_LINE}${SHOW}`);
  });

  it("cuts the text to one column less than the terminal, so it never wraps", () => {
    const { stream, writes } = terminal(10);
    new LiveLine(stream, true).show("0123456789abc");
    expect(writes).to.include("012345678");
  });

  it("progressBar: the share of the total, clamped, in the width asked", () => {
    expect(progressBar(0, 10, 10)).to.equal("░".repeat(10));
    expect(progressBar(5, 10, 10)).to.equal("█".repeat(5) + "░".repeat(5));
    expect(progressBar(10, 10, 10)).to.equal("█".repeat(10));
    expect(progressBar(15, 10, 10)).to.equal("█".repeat(10));
    expect(progressBar(3, 0, 10)).to.equal("░".repeat(10));
    expect(progressBar(1, 3)).to.have.length(24);
  });
});
