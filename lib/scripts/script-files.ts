/**
 * The Lua scripts in lua/, one per operation, named `<operation>-<number of keys>.lua`.
 * They are read once, when first needed, from the package's own lua/ folder.
 */
import { createHash } from "crypto";
import { existsSync, readdirSync, readFileSync } from "fs";
import { dirname, join } from "path";

export interface Script {
  readonly name: string;
  readonly source: string;
  readonly sha1: string;
  readonly numberOfKeys: number;
}

const SCRIPT_FILE = /^([A-Za-z]+)-(\d+)\.lua$/;

/** lua/ sits at the package root; walking up keeps this true for dist/ and for test builds alike. */
function findLuaDirectory(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, "lua");
    if (existsSync(join(dir, "package.json")) && existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`rsmq-next: lua/ not found above ${__dirname}`);
  }
}

let scripts: Map<string, Script> | undefined;

function loadAll(): Map<string, Script> {
  const directory = findLuaDirectory();
  const loaded = new Map<string, Script>();
  for (const file of readdirSync(directory)) {
    const match = SCRIPT_FILE.exec(file);
    if (!match) continue;
    const source = readFileSync(join(directory, file), "utf8");
    loaded.set(match[1], {
      name: match[1],
      source,
      sha1: createHash("sha1").update(source).digest("hex"),
      numberOfKeys: Number(match[2]),
    });
  }
  return loaded;
}

/** The script for an operation, by name (the file name without `-<keys>.lua`). */
export function script(name: string): Script {
  scripts ??= loadAll();
  const found = scripts.get(name);
  if (!found) throw new Error(`rsmq-next: no script lua/${name}-<keys>.lua`);
  return found;
}
