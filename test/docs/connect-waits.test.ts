/**
 * How long a newcomer waits when Redis is down is said where they meet it, with the figures the
 * code uses: the README's quick start (whose files wait for a connection up to the constructor's
 * `offlineTimeoutMs`, then fail) and docs/cli.md (whose command gives up on its first connection
 * after CONNECT_TIMEOUT_MS) each name both waits. The quick start says it in its prose, so its code
 * stays as it is.
 */
import { expect } from "chai";
import { CONNECT_TIMEOUT_MS } from "../../lib/cli/connect";
import { CONSTRUCTOR_OPTIONS } from "../../lib/options/constructor-option-table";
import { codeBlocks, readDoc, section } from "../support/markdown";
import { runsOn } from "../support/targets";

runsOn("single");

const libraryWait = `\`offlineTimeoutMs\` (${CONSTRUCTOR_OPTIONS.offlineTimeoutMs.default / 1000} s)`;
const commandWait = `${CONNECT_TIMEOUT_MS / 1000} s`;

/** The Markdown without its fenced code blocks. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```$/gm, "");
}

/** The paragraph of `markdown` that holds `text`, with its lines joined. */
function paragraphWith(markdown: string, text: string): string | undefined {
  return prose(markdown)
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s*\n\s*/g, " "))
    .find((paragraph) => paragraph.includes(text));
}

describe("Documentation: how long a call waits for a Redis that is down", () => {
  it("the code's waits: 20 s for a library call, 2 s for the command's first connection", () => {
    expect(libraryWait).to.equal("`offlineTimeoutMs` (20 s)");
    expect(commandWait).to.equal("2 s");
  });

  it("README.md's quick start says both in its prose, not in its code", () => {
    const quickStart = section(readDoc("README.md"), "Quick start");
    const paragraph = paragraphWith(quickStart, libraryWait);
    expect(paragraph, `a paragraph of the quick start naming ${libraryWait}`).to.be.a("string");
    expect(paragraph).to.include("`rsmq-next` command").and.to.include(commandWait);
    for (const { code } of codeBlocks(quickStart)) expect(code).not.to.include("offlineTimeoutMs");
  });

  it("docs/cli.md says both where it tells how the first connection gives up", () => {
    const paragraph = paragraphWith(readDoc("docs/cli.md"), `The first connection gives up after ${commandWait}`);
    expect(paragraph, "docs/cli.md's paragraph on the first connection").to.be.a("string");
    expect(paragraph).to.include(`\`offlineTimeoutMs\`, ${CONSTRUCTOR_OPTIONS.offlineTimeoutMs.default / 1000} s by default`);
    expect(paragraph).to.include("README's quick start");
  });
});
