/**
 * The dashboard sits on top: it reads through lib/queue-state/ and serves lib/telemetry/'s text
 * format, and nothing under it imports it back. Every import of lib/ is read from the sources,
 * `import type`, `export ... from`, `require()` and `import()` included (a type-only import still
 * makes a circle for whoever reads the code, and the package's main entry must never load the
 * dashboard).
 */
import { expect } from "chai";
import { readdirSync, readFileSync } from "fs";
import * as path from "path";
import { runsOn } from "../support/targets";

runsOn("single");

const lib = path.resolve(__dirname, "../../../lib");

/** Folders of lib/ that must not import `above`. */
const BELOW_THE_DASHBOARD = ["operations", "telemetry", "queue-state"];
const ABOVE = "dashboard";

/** Every .ts file under `dir`, as paths relative to lib/ with forward slashes. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(full);
    return entry.name.endsWith(".ts") ? [path.relative(lib, full).split(path.sep).join("/")] : [];
  });
}

/** The module specifiers `source` names: static imports and exports (type-only ones too), require() and import(). */
function specifiersOf(source: string): string[] {
  const found: string[] = [];
  const patterns = [/\b(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']/g, /\b(?:require|import)\s*\(\s*["']([^"']+)["']\s*\)/g];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]);
  return found;
}

/** The lib/ folder (first path segment) a relative specifier of `file` lands in; undefined for a package. */
function folderOf(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
  return target.includes("/") ? target.split("/")[0] : target;
}

/** "file -> specifier" for each import of a file under `folders` into `above`. */
function importsInto(files: ReadonlyMap<string, string>, folders: readonly string[], above: string): string[] {
  const wrong: string[] = [];
  for (const [file, source] of files) {
    if (!folders.includes(file.split("/")[0])) continue;
    for (const specifier of specifiersOf(source)) if (folderOf(file, specifier) === above) wrong.push(`${file} -> ${specifier}`);
  }
  return wrong;
}

describe("layers of lib/", () => {
  it("operations/, telemetry/ and queue-state/ import nothing from dashboard/", () => {
    const files = new Map(sourcesUnder(lib).map((file): [string, string] => [file, readFileSync(path.join(lib, file), "utf8")]));
    expect(files.size).to.be.above(100);
    expect(importsInto(files, BELOW_THE_DASHBOARD, ABOVE)).to.deep.equal([]);
  });

  it("the rule sees type-only imports, re-exports, require() and import() (and nothing else)", () => {
    const files = new Map([
      ["queue-state/a.ts", 'import type { QueueRow } from "../dashboard/api-types";'],
      ["telemetry/otel/b.ts", 'export type { X } from "../../dashboard/index";\nconst y = require("../../dashboard/options");'],
      ["operations/c.ts", 'const z = import("../dashboard");\nimport { ok } from "./dashboard-free";'],
      ["dashboard/d.ts", 'import { QueueBoard } from "../queue-state/queue-board";'],
      ["cli/e.ts", 'import { createDashboard } from "../dashboard/index";'],
    ]);
    expect(importsInto(files, BELOW_THE_DASHBOARD, ABOVE)).to.deep.equal([
      "queue-state/a.ts -> ../dashboard/api-types",
      "telemetry/otel/b.ts -> ../../dashboard/index",
      "telemetry/otel/b.ts -> ../../dashboard/options",
      "operations/c.ts -> ../dashboard",
    ]);
  });
});
