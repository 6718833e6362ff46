/**
 * Every script in lua/ declares what it does to the data (SCRIPT_KINDS in script-files.ts), which
 * decides its Redis 7 flags and makes the ScriptName type that operations name their script by: a
 * new script cannot be forgotten, a misspelt name fails tsc, and the decisions of issue 11 hold
 * (consumers drain a full server, producers are refused, reads answer during a write pause).
 */
import { expect } from "chai";
import { readdirSync } from "fs";
import * as path from "path";
import { SCRIPT_KINDS, script } from "../../lib/scripts/script-files";
import type { ScriptName } from "../../lib/scripts/script-files";
import type { Operation } from "../../lib/operations/operation";
import { runsOn } from "../support/targets";

runsOn("single");

const LUA_DIR = path.resolve(__dirname, "../../../lua");
const names = readdirSync(LUA_DIR)
  .filter((file) => file.endsWith(".lua"))
  .map((file) => /^([A-Za-z]+)-(?:\d+|n)\.lua$/.exec(file)?.[1] ?? file);

describe("script kinds and their Redis 7 flags", () => {
  it("classifies every script in lua/, and nothing that is not there", () => {
    expect(
      names.filter((name) => !(name in SCRIPT_KINDS)),
      "scripts with no entry in SCRIPT_KINDS",
    ).to.deep.equal([]);
    expect(
      Object.keys(SCRIPT_KINDS).filter((name) => !names.includes(name)),
      "entries with no script",
    ).to.deep.equal([]);
  });

  it("types an operation's script by these names, so a misspelt one fails tsc", () => {
    const known: ScriptName = "sendMessage";
    const misspelt: Operation<1> = {
      // @ts-expect-error: no lua/sendMesage-<keys>.lua (test/tsconfig.json fails if this compiles)
      script: "sendMesage",
      keys: [],
      args: [],
      parse: () => 1,
    };
    expect(known in SCRIPT_KINDS).to.equal(true);
    expect(misspelt.script in SCRIPT_KINDS).to.equal(false);
  });

  it("lets consumers and shrinkers run over maxmemory, refuses producers, and marks reads no-writes", () => {
    const shebang = (name: string): string => script(name).flagged.source.split("\n")[0];
    const drains = ["receiveMessage", "popMessage", "deleteMessage", "deleteMessages", "changeMessageVisibility", "hideMessage"];
    for (const name of [...drains, "deadLetter", "deadLetterCopy", "deleteQueue", "deleteQueueKeys"]) {
      expect(shebang(name), name).to.equal("#!lua flags=allow-oom");
    }
    for (const name of ["sendMessage", "createQueue", "createQueueHash", "setQueueAttributes", "redrive", "redriveClaim", "redriveCopy"]) {
      expect(shebang(name), name).to.equal("#!lua");
    }
    for (const name of ["getQueueAttributes", "peekDeadLetters", "queueStates", "messagePage", "browseMessages", "nextDue"]) {
      expect(shebang(name), name).to.equal("#!lua flags=no-writes");
      expect(script(name).readOnly, name).to.equal(true);
    }
  });

  it("keeps the plain text for servers before Redis 7: the flagged one is the same script behind one line", () => {
    for (const name of names) {
      const { source, flagged } = script(name);
      expect(flagged.source.slice(flagged.source.indexOf("\n") + 1), name).to.equal(source);
      expect(source.startsWith("#!"), name).to.equal(false);
    }
  });
});
