/**
 * The Lua scripts in lua/, one per operation, named `<operation>-<number of keys>.lua`.
 * They are read once, when first needed, from the package's own lua/ folder.
 */
import { createHash } from "crypto";
import { existsSync, readdirSync, readFileSync } from "fs";
import { dirname, join } from "path";

/** One text of a script, and the SHA1 that EVALSHA names it by. */
export interface ScriptBody {
  readonly source: string;
  readonly sha1: string;
}

export interface Script extends ScriptBody {
  readonly name: string;
  readonly numberOfKeys: number;
  /** Whether it never writes (and so has nothing to replicate). */
  readonly readOnly: boolean;
  /**
   * The same script behind a Redis 7 shebang (`#!lua`, plus `flags=no-writes` for read-only
   * scripts). In Redis Cluster a shebang makes the server itself refuse any key, or shard channel,
   * outside the slot of the declared keys, instead of running on whatever node it was sent to.
   */
  readonly flagged: ScriptBody;
}

/** Scripts that never write: flagged no-writes, so Redis refuses them any write. */
const READ_ONLY = new Set(["getQueueAttributes", "peekDeadLetters", "queueStats"]);

function body(source: string): ScriptBody {
  return { source, sha1: createHash("sha1").update(source).digest("hex") };
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
    const shebang = READ_ONLY.has(match[1]) ? "#!lua flags=no-writes\n" : "#!lua\n";
    loaded.set(match[1], {
      name: match[1],
      ...body(source),
      numberOfKeys: Number(match[2]),
      readOnly: READ_ONLY.has(match[1]),
      flagged: body(shebang + source),
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
