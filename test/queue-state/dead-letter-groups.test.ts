/**
 * Dead letters grouped by why they stopped: errors that differ only by numbers, hex or uuid-like
 * ids and message ids fold into one group, which keeps one real error as its example and the
 * distinct texts it folded (for "redrive these", which matches exact texts). Pure: no Redis.
 */
import { expect } from "chai";
import { errorPattern, groupDeadLetters, MAX_VARIANTS } from "../../lib/queue-state/dead-letter-groups";
import type { DeadLetterInfo } from "../../lib/types";
import { runsOn } from "../support/targets";

runsOn("single");

const note = (error: string, reason: DeadLetterInfo["reason"] = "exhausted", at = 1): DeadLetterInfo => ({
  source: "orders",
  deliveries: 1,
  reason,
  error,
  at,
});

describe("dead-letter groups", () => {
  it("normalises numbers, uuids, hex ids and message ids in an error's text", () => {
    expect(errorPattern("order 1234 timed out after 30.5 s")).to.equal("order <n> timed out after <n>.<n> s");
    expect(errorPattern("request 3f2b8c1e-9d4a-4c1b-8e2f-0a1b2c3d4e5f failed")).to.equal("request <id> failed");
    expect(errorPattern("trace 0x7fa3c2d1e4b5, object 507f1f77bcf86cd799439011")).to.equal("trace <id>, object <id>");
    expect(errorPattern("message honozoafyh1YcaiuQOAUcpK50Kn8lZAX not found")).to.equal("message <id> not found");
    expect(errorPattern("connect ETIMEDOUT 10.0.0.7:443")).to.equal("connect ETIMEDOUT <n>.<n>.<n>.<n>:<n>");
    // Words stay words: no digits, no id.
    expect(errorPattern("card declined")).to.equal("card declined");
    expect(errorPattern("deadbeef cafe")).to.equal("deadbeef cafe");
  });

  it("folds errors that differ only by ids or numbers into one group with one example and the texts it folded", () => {
    const a = "order 1234 timed out (request 3f2b8c1e-9d4a-4c1b-8e2f-0a1b2c3d4e5f)";
    const b = "order 98 timed out (request 7c9e6679-7425-40de-944b-e07fc1f90ae7)";
    const groups = groupDeadLetters([
      note(a, "exhausted", 1),
      note(b, "exhausted", 2),
      note(a, "exhausted", 3),
      note("card declined", "poison"),
    ]);
    expect(
      groups.map(({ reason, error, pattern, count, variants, errors }) => ({ reason, error, pattern, count, variants, errors })),
    ).to.deep.equal([
      { reason: "exhausted", error: a, pattern: "order <n> timed out (request <id>)", count: 3, variants: 2, errors: [a, b] },
      { reason: "poison", error: "card declined", pattern: "card declined", count: 1, variants: 1, errors: ["card declined"] },
    ]);
  });

  it("keeps apart the same text under another reason", () => {
    const groups = groupDeadLetters([note("boom 1", "poison"), note("boom 2", "exhausted")]);
    expect(groups.map((group) => group.reason).sort()).to.deep.equal(["exhausted", "poison"]);
  });

  it(`keeps at most ${MAX_VARIANTS} distinct texts per group, and counts them all`, () => {
    const notes = Array.from({ length: MAX_VARIANTS + 5 }, (_, i) => note(`job ${i} failed`));
    const [group] = groupDeadLetters(notes);
    expect(group.count).to.equal(MAX_VARIANTS + 5);
    expect(group.variants).to.equal(MAX_VARIANTS + 5);
    expect(group.errors).to.have.length(MAX_VARIANTS);
  });
});
