/**
 * Which suites each pass runs: every suite (a `.test.ts` file under test/) declares its targets
 * with a `runsOn(...)` line (targets.ts), read here from the source, and each pass gets the built
 * files (`build/test/<same path>.test.js`) of the suites that name its target, in path order. A
 * suite without a valid declaration is a problem, named by its file, that fails the run.
 */
import { readdirSync, readFileSync } from "fs";
import * as path from "path";
import { TARGETS } from "./targets";
import type { Target } from "./targets";

/** Each target's built suite files, relative to the repository root, and what is wrong with any suite. */
export interface SuiteSelection {
  files: Record<Target, string[]>;
  problems: string[];
}

const DECLARATION = /^runsOn\((.*)\);$/gm;

/** The `.test.ts` files under `dir`, relative to `root`, in path order. */
function suiteSources(root: string, dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...suiteSources(root, relative));
    else if (entry.name.endsWith(".test.ts")) found.push(relative);
  }
  return found.sort();
}

/** The targets a suite's source declares, or why it declares none. */
export function declaredTargets(source: string): Target[] | string {
  const lines = [...source.matchAll(DECLARATION)];
  if (lines.length === 0) return 'no runsOn(...) line (for example `runsOn("single", "cluster", "client");` after the imports)';
  if (lines.length > 1) return `${lines.length} runsOn(...) lines; one is expected`;
  const names = lines[0][1].split(",").map((name) => name.trim());
  const targets: Target[] = [];
  for (const name of names) {
    const target = /^"([a-z]+)"$/.exec(name)?.[1];
    if (!target || !(TARGETS as readonly string[]).includes(target)) {
      return `runsOn(${lines[0][1]}): ${name || "(nothing)"} is not one of ${TARGETS.map((known) => `"${known}"`).join(", ")}`;
    }
    if (targets.includes(target as Target)) return `runsOn(${lines[0][1]}) names "${target}" twice`;
    targets.push(target as Target);
  }
  return targets;
}

/** Reads every suite's declaration under `root`/test. */
export function selectSuites(root: string): SuiteSelection {
  const selection: SuiteSelection = { files: { single: [], cluster: [], client: [] }, problems: [] };
  for (const source of suiteSources(root, "test")) {
    const targets = declaredTargets(readFileSync(path.join(root, source), "utf8"));
    if (typeof targets === "string") {
      selection.problems.push(`${source}: ${targets}`);
      continue;
    }
    const built = path.posix.join("build", source.replace(/\.ts$/, ".js"));
    for (const target of targets) selection.files[target].push(built);
  }
  return selection;
}
