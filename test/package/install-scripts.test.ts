/**
 * A contributor's `npm ci` stays quiet: every dependency with an install script has a reviewed
 * decision in package.json's `allowScripts` (npm 11 skips an unreviewed one and warns about it on
 * every install). A dependency upgrade that brings a new install script fails here until someone
 * decides whether it may run.
 */
import { expect } from "chai";
import { readFileSync } from "fs";
import * as path from "path";
import { runsOn } from "../support/targets";

runsOn("single");

const packageRoot = path.resolve(__dirname, "../../..");

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(path.join(packageRoot, file), "utf8")) as T;
}

/** `cpu-features` from `node_modules/ssh2/node_modules/cpu-features`, `@scope/x` from `node_modules/@scope/x`. */
const packageName = (where: string): string => where.slice(where.lastIndexOf("node_modules/") + "node_modules/".length);
/** `ssh2` from an allowScripts key `ssh2` or `ssh2@1.17.0` (a pinned approval); scopes keep their `@`. */
const keyName = (key: string): string => key.replace(/(?!^)@.*$/, "");

describe("install scripts of dependencies", () => {
  const manifest = readJson<{ allowScripts?: Record<string, boolean> }>("package.json");
  const lock = readJson<{ packages: Record<string, { hasInstallScript?: boolean }> }>("package-lock.json");
  const decided = new Set(Object.keys(manifest.allowScripts ?? {}).map(keyName));
  const withScripts = Object.entries(lock.packages)
    .filter(([where, entry]) => where !== "" && entry.hasInstallScript)
    .map(([where]) => packageName(where));

  it("every dependency with an install script has a decision in package.json allowScripts", () => {
    expect(
      withScripts.filter((name) => !decided.has(name)),
      "run `npm install-scripts ls`, then approve or deny",
    ).to.deep.equal([]);
  });

  it("allowScripts names no package that is gone or has no install script any more", () => {
    expect(
      [...decided].filter((name) => !withScripts.includes(name)),
      "run `npm install-scripts prune`",
    ).to.deep.equal([]);
  });
});
