/**
 * Which queue settings the doctor calls out of place (lib/doctor/settings-check.ts, pure): what
 * rsmq 0.12.4 would refuse (a missing setting) or misread (parseInt of a non-integer), values out
 * of its ranges, and rsmq-next's own retention and expireto.
 */
import { expect } from "chai";
import { settingProblems } from "../../lib/doctor/settings-check";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

/** The problems of queue `q` with these values, as `kind field` strings. */
function problems(values: { vt?: string; delay?: string; maxsize?: string; retention?: string; expireto?: string }): string[] {
  const { vt = "30", delay = "0", maxsize = "65536", retention = null, expireto = null } = values;
  return settingProblems("q", [vt, delay, maxsize, retention, expireto]).map((problem) => `${problem.kind} ${problem.field}`);
}

describe("doctor: the settings check", () => {
  it("finds nothing in rsmq's defaults, its bounds, maxsize -1, and rsmq-next's fields in range", () => {
    expect(problems({})).to.deep.equal([]);
    expect(problems({ vt: "0", delay: "9999999", maxsize: "1024" })).to.deep.equal([]);
    expect(problems({ maxsize: "-1", retention: "0", expireto: "q-expired" })).to.deep.equal([]);
    expect(problems({ retention: "9999999" })).to.deep.equal([]);
  });

  it("a missing vt, delay or maxsize is missingSetting, with rsmq's default", () => {
    expect(
      settingProblems("q", [null, null, null, null, null]).map((p) => [p.kind, p.field, "defaultValue" in p && p.defaultValue]),
    ).to.deep.equal([
      ["missingSetting", "vt", 30],
      ["missingSetting", "delay", 0],
      ["missingSetting", "maxsize", 65536],
    ]);
  });

  it("what parseInt misreads, or rsmq's ranges refuse, is invalidSetting", () => {
    for (const vt of ["30.5", "abc", "", "1e3", "-1", "10000000", " 30"]) expect(problems({ vt }), vt).to.deep.equal(["invalidSetting vt"]);
    for (const delay of ["0.1", "-5"]) expect(problems({ delay }), delay).to.deep.equal(["invalidSetting delay"]);
    for (const maxsize of ["1023", "65537", "0", "-2", "2048.0"])
      expect(problems({ maxsize }), maxsize).to.deep.equal(["invalidSetting maxsize"]);
  });

  it("a retention that is not whole seconds up to 9999999 is invalidRetention; a bad expireto is invalidSetting", () => {
    for (const retention of ["1.5", "-1", "10000000", "x", ""])
      expect(problems({ retention }), retention).to.deep.equal(["invalidRetention retention"]);
    for (const expireto of ["q", "QUEUES", "bad name", ""])
      expect(problems({ expireto }), expireto).to.deep.equal(["invalidSetting expireto"]);
  });
});
