/**
 * When the wake subscription is checked (lib/transports/subscriber-health.ts), with a fake clock
 * and a PING the test answers: by default one check per cap of quiet, riding the Workers' polls,
 * shared by every Worker of the instance; none after something was heard; an explicit
 * subscriberPingMs ignores the polls. The PINGs on a real connection: test/worker/idle-default.test.ts
 * and the silent-proxy tests of test/transports/connection-timeouts.test.ts.
 */
import { expect } from "chai";
import { checkDue, checkSlackMs, SubscriberHealth } from "../../lib/transports/subscriber-health";
import { runsOn } from "../support/targets";

runsOn("single");

const CAP = 30_000;

/** A SubscriberHealth on a fake clock, whose PINGs wait for the test to answer them. */
function subject(pingMs?: number) {
  let now = 1_000_000;
  const pings: Array<{ at: number; answer: (answered: boolean) => void }> = [];
  const health = new SubscriberHealth(
    pingMs,
    () => new Promise<boolean>((resolve) => pings.push({ at: now, answer: resolve })),
    () => now,
  );
  return {
    health,
    pings,
    advance: (ms: number) => void (now += ms),
    /** Answers the last PING and lets its continuation run. */
    answer: async (answered = true) => {
      pings[pings.length - 1].answer(answered);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe("the wake subscription's health check", () => {
  it("is due after a cap of quiet, less a small slack (1 s at most, a tenth of a short cap)", () => {
    expect(checkSlackMs(CAP)).to.equal(1_000);
    expect(checkSlackMs(200)).to.equal(20);
    expect(checkDue(CAP - 1_001, 0, CAP)).to.equal(false);
    expect(checkDue(CAP - 1_000, 0, CAP)).to.equal(true);
  });

  it("by default rides the polls: one PING per cap while nothing is heard, none at a poll within the cap", async () => {
    const { health, pings, advance, answer } = subject();
    health.tick(CAP);
    expect(pings).to.have.length(0); // just opened: it works
    for (let poll = 1; poll <= 3; poll++) {
      advance(CAP + 5);
      health.tick(CAP);
      expect(pings).to.have.length(poll);
      await answer();
      advance(10);
      health.tick(CAP);
      expect(pings).to.have.length(poll);
    }
  });

  it("sends one PING for several Workers' polls: none while one is in flight, none right after its answer", async () => {
    const { health, pings, advance, answer } = subject();
    advance(CAP);
    health.tick(CAP);
    health.tick(CAP);
    expect(pings).to.have.length(1);
    await answer();
    // A second Worker out of phase by 20 s: its poll comes 20 s after the check, then the first's again.
    advance(20_000);
    health.tick(CAP);
    expect(pings).to.have.length(1);
    advance(10_005);
    health.tick(CAP);
    expect(pings).to.have.length(2);
  });

  it("dates a check from when the PING was sent, so a slow answer does not skip the next cap", async () => {
    const { health, pings, advance, answer } = subject();
    advance(CAP);
    health.tick(CAP);
    advance(8_000);
    await answer();
    advance(CAP - 8_000 + 5);
    health.tick(CAP);
    expect(pings).to.have.length(2);
  });

  it("checks at the next poll after a PING that was not answered", async () => {
    const { health, pings, advance, answer } = subject();
    advance(CAP);
    health.tick(CAP);
    await answer(false);
    advance(1);
    health.tick(CAP);
    expect(pings).to.have.length(2);
  });

  it("sends none where the subscription heard something within the cap", () => {
    const { health, pings, advance } = subject();
    advance(CAP - 5_000);
    health.heard();
    advance(5_000 + 5);
    health.tick(CAP);
    expect(pings).to.have.length(0);
    advance(CAP);
    health.tick(CAP);
    expect(pings).to.have.length(1);
  });

  it("with subscriberPingMs given (a fixed interval, or 0 for none) ignores the polls", () => {
    for (const pingMs of [0, 60_000]) {
      const { health, pings, advance } = subject(pingMs);
      advance(10 * CAP);
      health.tick(CAP);
      expect(pings, `subscriberPingMs ${pingMs}`).to.have.length(0);
      health.close();
    }
  });

  it("sends nothing once closed", () => {
    const { health, pings, advance } = subject();
    health.close();
    advance(CAP);
    health.tick(CAP);
    expect(pings).to.have.length(0);
  });
});
