/**
 * explainRefusal, the one translator of Redis' refusals, on errors made here (no Redis): each
 * refusal becomes its named error, anything else comes back as the same object, and a named
 * error is never translated twice. The wording on a real server is asserted in test/acl/,
 * test/operations/ and test/faults/.
 */
import { expect } from "chai";
import { explainRefusal } from "../../lib/errors/refusals";
import { runsOn } from "../support/targets";

runsOn("single");

const call = { operation: "sendMessage", keys: ["ns:{q}:Q"] };

describe("explainRefusal", () => {
  it("names OOM, READONLY and NOPERM refusals, with what was written already", () => {
    const cases: Array<[string, string, string]> = [
      ["OOM command not allowed when used memory > 'maxmemory'.", "outOfMemory", "nothing more was written (SADD had run)"],
      ["READONLY You can't write against a read only replica.", "readOnlyReplica", "nothing more was written (SADD had run)"],
      ["NOPERM this user has no permissions to run the 'evalsha' command", "noPermission", "add +evalsha to the user"],
    ];
    for (const [said, name, part] of cases) {
      const named = explainRefusal(new Error(said), { ...call, alreadyWritten: "SADD had run" });
      expect(named.name, said).to.equal(name);
      expect(named.message, said).to.include(part).and.include(said.trim());
    }
  });

  it("returns any other error, or a non-error, as the same value", () => {
    const other = new Error("ERR unknown command 'FOO'");
    expect(explainRefusal(other, call)).to.equal(other);
    expect(explainRefusal("OOM as a string", call)).to.equal("OOM as a string");
    expect(explainRefusal(undefined, call)).to.equal(undefined);
  });

  it("leaves a named error as it is (a runner above a transport explains nothing twice)", () => {
    const once = explainRefusal(new Error("NOPERM this user has no permissions to run the 'hset' command"), call);
    expect(explainRefusal(once, { operation: "another" })).to.equal(once);
    const full = explainRefusal(new Error("OOM command not allowed"), call);
    expect(explainRefusal(full, { operation: "another" })).to.equal(full);
  });
});
