/**
 * The fault suite's checker: it must see a loss, an unexplained duplicate, a double send and a
 * stranger when they are planted, and accept the duplicates an expired vt explains.
 */
import { expect } from "chai";
import { Ledger, assertHeld } from "./support/ledger";
import { runsOn } from "../support/targets";

runsOn("single");

const VT = { vtMs: 1000 };

/** A ledger with `bodies` sent and acknowledged (id `id-<body>`). */
function sentAndAcked(...bodies: string[]): Ledger {
  const ledger = new Ledger("planted");
  for (const body of bodies) {
    ledger.sent(body, 0);
    ledger.acknowledged(body, `id-${body}`);
  }
  return ledger;
}

/**
 * Delivers `body` to `consumer` at `at` with receive count `rc`, handled `handledAfter` ms later
 * (never if null) and deleted 1 ms after that unless `deleteFails`.
 */
function deliver(
  ledger: Ledger,
  consumer: string,
  body: string,
  rc: number,
  at: number,
  handledAfter: number | null = 1,
  deleteFails = false,
): void {
  ledger.delivered(consumer, { message: body, id: `id-${body}`, rc }, at);
  if (handledAfter === null) return;
  ledger.handled(consumer, body, at + handledAfter);
  if (!deleteFails) ledger.deleted(consumer, body, at + handledAfter + 1);
}

describe("Fault suite ledger", () => {
  it("holds when every acknowledged message was handled once, and counts what it saw", () => {
    const ledger = sentAndAcked("a", "b");
    ledger.sent("c", 0);
    ledger.refused("c", Object.assign(new Error("OOM"), { name: "outOfMemory" }));
    ledger.faultEnded(10);
    deliver(ledger, "w", "a", 1, 5);
    deliver(ledger, "w", "b", 1, 20, 5);
    const verdict = ledger.verdict(VT);
    expect(verdict).to.deep.include({ sent: 3, acknowledged: 2, refused: 1, handled: 2, lost: [], duplicated: 0, violations: [] });
    expect(verdict.recoveryMs).to.equal(15); // b handled at 25, fault ended at 10
    expect(verdict.drainedMs).to.equal(15);
    expect([...ledger.refusals()]).to.deep.equal([["outOfMemory: OOM", 1]]);
    expect(() => assertHeld(verdict)).to.not.throw();
  });

  it("reports a planted loss: acknowledged, delivered, never handled", () => {
    const ledger = sentAndAcked("a", "lost");
    deliver(ledger, "w", "a", 1, 5);
    deliver(ledger, "w", "lost", 1, 6, null);
    const verdict = ledger.verdict(VT);
    expect(verdict.lost).to.deep.equal(["lost (id id-lost, delivered 1x)"]);
    expect(verdict.drainedMs).to.equal(null);
    expect(() => assertHeld(verdict)).to.throw(/planted: 1 lost: lost/);
    expect(ledger.unhandled()).to.deep.equal(["lost"]);
  });

  it("counts a handling whose delete failed as handled, not lost (the message is gone, or comes back)", () => {
    const ledger = sentAndAcked("a");
    deliver(ledger, "w", "a", 1, 5, 1, true);
    expect(ledger.verdict(VT)).to.deep.include({ handled: 1, lost: [] });
  });

  it("does not count an unacknowledged send that was never handled as lost", () => {
    const ledger = sentAndAcked("a");
    ledger.sent("maybe", 0);
    ledger.refused("maybe", new Error("Socket closed unexpectedly"));
    deliver(ledger, "w", "a", 1, 5);
    expect(ledger.verdict(VT).lost).to.deep.equal([]);
  });

  it("allows a redelivery after vt, or after a delivery that was never handled", () => {
    const ledger = sentAndAcked("slow", "dropped", "undeleted");
    deliver(ledger, "w1", "slow", 1, 0, 1500); // handled, but only after its vt ran out
    deliver(ledger, "w2", "slow", 2, 1000);
    deliver(ledger, "w1", "dropped", 1, 0, null); // its process died in the handler
    deliver(ledger, "w2", "dropped", 2, 300);
    deliver(ledger, "w1", "undeleted", 1, 0, 1, true); // its delete failed
    deliver(ledger, "w2", "undeleted", 2, 300);
    const verdict = ledger.verdict(VT);
    expect(verdict).to.deep.include({ duplicated: 3, duplicateCauses: { notDeleted: 2, vtExpired: 1 }, violations: [], lost: [] });
    expect(() => assertHeld(verdict)).to.not.throw();
  });

  it("reports a planted duplicate within vt of a handled delivery", () => {
    const ledger = sentAndAcked("twice");
    deliver(ledger, "w1", "twice", 1, 0, 10);
    deliver(ledger, "w2", "twice", 2, 400);
    const verdict = ledger.verdict(VT);
    expect(verdict.violations).to.deep.equal([
      "twice (id id-twice) delivery 2 to w2 came 400 ms after delivery 1, whose delete was acknowledged: within vt",
    ]);
    expect(() => assertHeld(verdict)).to.throw(/1 not allowed/);
    // The slack a stalled server needs widens only the time test.
    expect(ledger.verdict({ vtMs: 1000, clockSlackMs: 600 }).violations).to.deep.equal([]);
  });

  it("reports the same receive handed out twice (rc not higher), whatever the gap", () => {
    const ledger = sentAndAcked("same");
    deliver(ledger, "w1", "same", 1, 0, null);
    deliver(ledger, "w2", "same", 1, 5000);
    expect(ledger.verdict(VT).violations).to.deep.equal([
      "same (id id-same) delivery 2 to w2 has rc 1 after rc 1: the same receive handed out twice",
    ]);
  });

  it("reports one body stored under two ids (a send that ran twice)", () => {
    const ledger = new Ledger("planted");
    ledger.sent("body", 0);
    ledger.acknowledged("body", "id-1");
    ledger.delivered("w", { message: "body", id: "id-1", rc: 1 }, 10);
    ledger.handled("w", "body", 11);
    ledger.deleted("w", "body", 12);
    ledger.delivered("w", { message: "body", id: "id-2", rc: 1 }, 20);
    ledger.handled("w", "body", 21);
    expect(ledger.verdict(VT).violations[0]).to.equal("body stored under 2 ids (id-1, id-2): one send wrote it twice");
  });

  it("reports a delivery of a body it never sent", () => {
    const ledger = sentAndAcked("a");
    deliver(ledger, "w", "a", 1, 5);
    ledger.delivered("w", { message: "stranger", id: "id-x", rc: 1 }, 6);
    expect(() => assertHeld(ledger.verdict(VT))).to.throw(/w got id-x with a body never sent: "stranger"/);
  });

  it("accepts a delivery reported before its send (reports of two processes interleave)", () => {
    const ledger = new Ledger("interleaved");
    ledger.delivered("w", { message: "early", id: "id-early", rc: 1 }, 5);
    ledger.handled("w", "early", 6);
    ledger.sent("early", 1);
    ledger.acknowledged("early", "id-early");
    expect(ledger.verdict(VT)).to.deep.include({ sent: 1, acknowledged: 1, handled: 1, violations: [] });
  });

  it("refuses a verdict that tested nothing, and a handling nobody delivered", () => {
    expect(() => assertHeld(new Ledger("empty").verdict(VT))).to.throw(/nothing was acknowledged/);
    const ledger = sentAndAcked("a");
    expect(() => ledger.handled("w", "a")).to.throw(/w reported a handled without delivering it first/);
    expect(() => ledger.deleted("w", "a")).to.throw(/w reported a deleted without delivering it first/);
    expect(() => ledger.sent("a")).to.throw(/body a sent twice/);
  });
});
