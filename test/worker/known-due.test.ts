/**
 * The due time a worker knows of without asking Redis (a message it let go), as a unit: the
 * earlier note wins, a poll's reply drops a note made before the poll but keeps one made while it
 * was in flight, and the idle plan keeps a note only while it lies ahead.
 */
import { expect } from "chai";
import { KnownDue } from "../../lib/worker/known-due";
import { runsOn } from "../support/targets";

runsOn("single");

const NOW = 1_700_000_000_000;
const IDLE = { nextDueMs: null, minMs: 100, maxMs: 30_000, now: NOW };

describe("Worker known due time", () => {
  it("knows of none at first, and keeps the earlier of two notes", () => {
    const due = new KnownDue();
    expect(due.at).to.equal(undefined);
    due.note(NOW + 500);
    due.note(NOW + 900);
    expect(due.at).to.equal(NOW + 500);
    due.note(NOW + 200);
    expect(due.at).to.equal(NOW + 200);
  });

  it("a poll's reply drops the note made before the poll started", () => {
    const due = new KnownDue();
    due.note(NOW + 500);
    const replied = due.pollStarted();
    replied();
    expect(due.at).to.equal(undefined);
  });

  it("a note made while the poll was in flight stays", () => {
    const due = new KnownDue();
    due.note(NOW + 500);
    const replied = due.pollStarted();
    due.note(NOW + 300);
    replied();
    expect(due.at).to.equal(NOW + 300);
  });

  it("a later note while the poll was in flight changes nothing, so the reply drops the note", () => {
    const due = new KnownDue();
    due.note(NOW + 500);
    const replied = due.pollStarted();
    due.note(NOW + 900);
    replied();
    expect(due.at).to.equal(undefined);
  });

  it("a poll that never replies leaves the note", () => {
    const due = new KnownDue();
    due.note(NOW + 500);
    due.pollStarted();
    expect(due.at).to.equal(NOW + 500);
  });

  it("the idle sleep is shortened to a note ahead, and the note kept", () => {
    const due = new KnownDue();
    due.note(NOW + 400);
    expect(due.planSleep(IDLE)).to.equal(400);
    expect(due.at).to.equal(NOW + 400);
    expect(due.reached(NOW + 399)).to.equal(false);
    expect(due.reached(NOW + 400)).to.equal(true);
  });

  it("a note that has passed is dropped by the idle plan and changes nothing", () => {
    const due = new KnownDue();
    due.note(NOW - 10);
    expect(due.planSleep({ ...IDLE, nextDueMs: 5000 })).to.equal(5000);
    expect(due.at).to.equal(undefined);
    expect(due.reached(NOW)).to.equal(false);
  });

  it("without a note the idle sleep is the reply's, held to the floor and the cap", () => {
    const due = new KnownDue();
    expect(due.planSleep(IDLE)).to.equal(30_000);
    expect(due.planSleep({ ...IDLE, nextDueMs: 3 })).to.equal(100);
    expect(due.at).to.equal(undefined);
  });
});
