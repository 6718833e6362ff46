/**
 * Every process warning code the library can emit is in docs/api.md's "Process warnings" table:
 * the codes are read from lib/ itself (each `"RSMQ_NEXT_..."` string literal, less the environment
 * variables the command line reads through commander's `.env(...)`, which docs/cli.md documents).
 */
import { expect } from "chai";
import { readdirSync, readFileSync } from "fs";
import * as path from "path";
import { readDoc, repositoryRoot, section } from "../support/markdown";
import { runsOn } from "../support/targets";

runsOn("single");

/** Every .ts file under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** The `RSMQ_NEXT_*` string literals of `source` that are not environment variable names. */
function warningCodesIn(source: string): string[] {
  const codes: string[] = [];
  for (const match of source.matchAll(/(\.env\(\s*)?"(RSMQ_NEXT_[A-Z0-9_]+)"/g)) {
    if (match[1] === undefined) codes.push(match[2]);
  }
  return codes;
}

/** The codes in the first column of the table under `## Process warnings`. */
function documentedCodes(): string[] {
  const table = section(readDoc("docs/api.md"), "Process warnings");
  return [...table.matchAll(/^\| `(RSMQ_NEXT_[A-Z0-9_]+)` \|/gm)].map((match) => match[1]);
}

describe("Documentation: every process warning code is in docs/api.md", () => {
  const used = [...new Set(sources(path.join(repositoryRoot, "lib")).flatMap((file) => warningCodesIn(readFileSync(file, "utf8"))))].sort();

  it("finds the codes in lib/ (and not the environment variables)", () => {
    expect(used).to.include.members(["RSMQ_NEXT_UNKNOWN_OPTION", "RSMQ_NEXT_WORKER_ERROR"]);
    expect(used).to.not.include("RSMQ_NEXT_DEMO_SCALE");
    expect(warningCodesIn(`.env("RSMQ_NEXT_X") { code: "RSMQ_NEXT_Y" }`)).to.deep.equal(["RSMQ_NEXT_Y"]);
  });

  it("lists each of them in the warnings table", () => {
    const documented = new Set(documentedCodes());
    expect(used.filter((code) => !documented.has(code))).to.deep.equal([]);
  });

  it("lists no code that lib/ does not use", () => {
    expect(documentedCodes().filter((code) => !used.includes(code))).to.deep.equal([]);
  });
});
