/**
 * The worker's sleep decisions as pure functions: the fixed back-off ladder after failed receives
 * (100 ms doubling to 15 s, independent of the idle settings) and how much of it a wake leaves,
 * the idle sleep clamp, its shortening to a due time the worker knows of, and when a poll only
 * looks (read-only) before it receives.
 */
import { expect } from "chai";
import {
  FIRST_RETRY_MS,
  MAX_RETRY_MS,
  backOffLeftAfterWake,
  idleSleep,
  looksFirst,
  planIdleSleep,
  receiveRetryDelay,
} from "../../lib/worker/sleep-policy";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("Worker sleep policy", () => {
  describe("receiveRetryDelay", () => {
    it("starts at 100 ms and doubles per consecutive failure", () => {
      expect([1, 2, 3, 4, 5, 6, 7, 8].map(receiveRetryDelay)).to.deep.equal([100, 200, 400, 800, 1600, 3200, 6400, 12800]);
      expect(FIRST_RETRY_MS).to.equal(100);
    });

    it("is capped at 15 s", () => {
      expect(MAX_RETRY_MS).to.equal(15_000);
      expect(receiveRetryDelay(9)).to.equal(15_000);
      expect(receiveRetryDelay(10)).to.equal(15_000);
    });

    it("stays at 15 s for huge failure counts (no overflow, no wrap, no NaN)", () => {
      for (const failures of [21, 22, 31, 32, 64, 1000, 1e6, Number.MAX_SAFE_INTEGER]) {
        expect(receiveRetryDelay(failures), String(failures)).to.equal(15_000);
      }
    });

    it("treats a count below 1 as the first failure", () => {
      expect(receiveRetryDelay(0)).to.equal(100);
      expect(receiveRetryDelay(-5)).to.equal(100);
    });
  });

  describe("backOffLeftAfterWake", () => {
    it("a wake ends a back-off at once from 100 ms after the failure on, and at 100 ms before that", () => {
      expect([0, 1, 30, 99, 100, 101, 12_000].map(backOffLeftAfterWake)).to.deep.equal([100, 99, 70, 1, 0, 0, 0]);
    });
  });

  describe("idleSleep", () => {
    it("sleeps the full cap when the queue is empty (null)", () => {
      expect(idleSleep(null, 0, 30_000)).to.equal(30_000);
      expect(idleSleep(null, 50, 200)).to.equal(200);
    });

    it("sleeps until the next message is due when that is between floor and cap", () => {
      expect(idleSleep(1234, 0, 30_000)).to.equal(1234);
      expect(idleSleep(0, 0, 30_000)).to.equal(0);
    });

    it("holds a far-off due time to the cap", () => {
      expect(idleSleep(9_999_999_000, 0, 30_000)).to.equal(30_000);
    });

    it("raises a very near due time to the floor", () => {
      expect(idleSleep(3, 50, 30_000)).to.equal(50);
      expect(idleSleep(0, 50, 30_000)).to.equal(50);
    });
  });

  describe("planIdleSleep", () => {
    const now = 1_700_000_000_000;
    const idle = { nextDueMs: null, minMs: 0, maxMs: 30_000, knownDueAt: undefined, now };

    it("with no known due time, is the clamped sleep", () => {
      expect(planIdleSleep(idle)).to.deep.equal({ ms: 30_000, knownDueAt: undefined });
      expect(planIdleSleep({ ...idle, nextDueMs: 1234 })).to.deep.equal({ ms: 1234, knownDueAt: undefined });
      expect(planIdleSleep({ ...idle, nextDueMs: 0 })).to.deep.equal({ ms: 0, knownDueAt: undefined });
    });

    it("shortens the sleep to a known due time ahead, and keeps it", () => {
      expect(planIdleSleep({ ...idle, knownDueAt: now + 400 })).to.deep.equal({ ms: 400, knownDueAt: now + 400 });
      // The reply's due time is sooner: that one wins.
      expect(planIdleSleep({ ...idle, nextDueMs: 250, knownDueAt: now + 400 })).to.deep.equal({ ms: 250, knownDueAt: now + 400 });
    });

    it("never shortens below the floor", () => {
      expect(planIdleSleep({ ...idle, minMs: 100, knownDueAt: now + 3 })).to.deep.equal({ ms: 100, knownDueAt: now + 3 });
    });

    it("drops a known due time that has passed, and sleeps what the reply said (not 0)", () => {
      expect(planIdleSleep({ ...idle, knownDueAt: now })).to.deep.equal({ ms: 30_000, knownDueAt: undefined });
      expect(planIdleSleep({ ...idle, nextDueMs: 5000, knownDueAt: now - 10 })).to.deep.equal({ ms: 5000, knownDueAt: undefined });
    });
  });

  describe("looksFirst", () => {
    const blind = { nextDueMs: null, plannedMs: 30_000, maxMs: 30_000, reason: "timeout", knownDueReached: false } as const;

    it("looks after a full sleep at the cap with no due time inside it: an empty queue, or a message due later", () => {
      expect(looksFirst(blind)).to.equal(true);
      expect(looksFirst({ ...blind, nextDueMs: 3_600_000 })).to.equal(true);
    });

    it("receives at once when the sleep ended at a due time, was cut short, or a known due time came", () => {
      // The last reply's due time fell at or inside the cap: that message is due now.
      expect(looksFirst({ ...blind, nextDueMs: 30_000 })).to.equal(false);
      expect(looksFirst({ ...blind, nextDueMs: 1_200, plannedMs: 1_200 })).to.equal(false);
      // Shortened to a due time this worker knew of (a retry it scheduled).
      expect(looksFirst({ ...blind, plannedMs: 500 })).to.equal(false);
      expect(looksFirst({ ...blind, knownDueReached: true })).to.equal(false);
      // A wake (a send, a realtime publish) or a stop.
      expect(looksFirst({ ...blind, reason: "woken" })).to.equal(false);
      expect(looksFirst({ ...blind, reason: "aborted" })).to.equal(false);
    });
  });
});
