/**
 * The pool's dispatch without Redis: `fewestInFlight` over fake targets, and `StretchChoice`'s hold
 * (one choice per synchronous stretch) and hand-out (each continuation of a promise handed out
 * starts a stretch of its own), driven by promises resolved together as replies that arrive in one
 * read are.
 */
import { expect } from "chai";
import { fewestInFlight, StretchChoice } from "../../../lib/transports/node-redis/pool-dispatch";
import type { DispatchTarget } from "../../../lib/transports/node-redis/pool-dispatch";
import { runsOn } from "../../support/targets";

runsOn("single");

interface Fake extends DispatchTarget {
  name: string;
  connected: boolean;
}

function fake(name: string, inFlight = 0, state: { connected?: boolean; suspect?: boolean } = {}): Fake {
  return { name, inFlight, connected: state.connected ?? true, suspect: state.suspect ?? false };
}

/** A call made now: the choice, counted in flight as the pool counts it. */
function call(choice: StretchChoice<Fake>): string {
  const target = choice.next();
  target.inFlight += 1;
  return target.name;
}

/** Promises resolved in one synchronous run, as node-redis resolves the replies of one socket read. */
function resolvedTogether(count: number): Array<Promise<number>> {
  const resolvers: Array<(value: number) => void> = [];
  const promises = Array.from({ length: count }, () => new Promise<number>((resolve) => resolvers.push(resolve)));
  resolvers.forEach((resolve, index) => resolve(index));
  return promises;
}

describe("pool dispatch: fewestInFlight", () => {
  it("takes the connection with the fewest calls in flight", () => {
    expect(fewestInFlight([fake("a", 3), fake("b", 1), fake("c", 2)])).to.equal(1);
  });

  it("breaks ties to the lowest index, so calls made one at a time all go on the first", () => {
    expect(fewestInFlight([fake("a"), fake("b"), fake("c")])).to.equal(0);
    expect(fewestInFlight([fake("a", 2), fake("b", 1), fake("c", 1)])).to.equal(1);
  });

  it("skips connections that are down or suspect, however few calls they carry", () => {
    expect(fewestInFlight([fake("a", 5), fake("b", 0, { connected: false }), fake("c", 4)])).to.equal(2);
    expect(fewestInFlight([fake("a", 0, { suspect: true }), fake("b", 9)])).to.equal(1);
  });

  it("with none up, takes the first trusted one (the call waits there), else the first", () => {
    expect(
      fewestInFlight([fake("a", 0, { suspect: true }), fake("b", 3, { connected: false }), fake("c", 0, { connected: false })]),
    ).to.equal(1);
    expect(fewestInFlight([fake("a", 0, { suspect: true }), fake("b", 0, { connected: false, suspect: true })])).to.equal(0);
  });
});

describe("pool dispatch: StretchChoice", () => {
  it("holds its choice for the rest of the synchronous stretch, then chooses afresh", async () => {
    const choice = new StretchChoice([fake("a"), fake("b")]);
    // Fewest in flight per call would alternate a, b, a, b and let calls overtake each other.
    expect([call(choice), call(choice), call(choice), call(choice)]).to.deep.equal(["a", "a", "a", "a"]);
    await Promise.resolve();
    expect([call(choice), call(choice)]).to.deep.equal(["b", "b"]);
  });

  it("starts a new stretch when told: the next call chooses afresh", () => {
    const choice = new StretchChoice([fake("a"), fake("b")]);
    expect(call(choice)).to.equal("a");
    choice.startNewStretch();
    expect(call(choice)).to.equal("b");
  });

  it("drops a held choice of a connection taken out of the pool", () => {
    const targets = [fake("a"), fake("b")];
    const choice = new StretchChoice(targets);
    expect(call(choice)).to.equal("a");
    const [gone] = targets.splice(0, 1);
    choice.forget(gone);
    expect(call(choice)).to.equal("b");
  });

  it("without a hand-out, the continuations of promises resolved together share the first one's choice", async () => {
    const choice = new StretchChoice([fake("a"), fake("b")]);
    const chosen: string[] = [];
    await Promise.all(resolvedTogether(4).map((reply) => reply.then(() => chosen.push(call(choice)))));
    // The microtask queued at the first choice runs only after every continuation queued before it.
    expect(chosen).to.deep.equal(["a", "a", "a", "a"]);
  });

  it("hands out promises whose continuations each start a stretch: they spread", async () => {
    const choice = new StretchChoice([fake("a"), fake("b")]);
    const chosen: string[] = [];
    await Promise.all(resolvedTogether(4).map((reply) => choice.handOut(reply).then(() => chosen.push(call(choice)))));
    expect(chosen).to.deep.equal(["a", "b", "a", "b"]);
  });

  it("with one connection hands out the promise as it is, with no reaction of its own", async () => {
    // The continuation is queued before this stretch's end (the microtask its call queues): it sees
    // the stretch's choice still held unless a reaction of the hand-out ran before it.
    async function continuationSees(connectionsAtHandOut: number): Promise<string> {
      const targets = [fake("a"), fake("b")].slice(0, connectionsAtHandOut);
      const choice = new StretchChoice(targets);
      const [reply] = resolvedTogether(1);
      const handedOut = choice.handOut(reply);
      if (connectionsAtHandOut === 1) expect(handedOut).to.equal(reply);
      if (targets.length === 1) targets.push(fake("b"));
      const seen = handedOut.then(() => choice.next().name);
      call(choice);
      return seen;
    }
    expect(await continuationSees(1), "one connection: no new stretch").to.equal("a");
    expect(await continuationSees(2), "two: a new stretch").to.equal("b");
  });

  it("a rejected promise handed out starts a stretch before its continuation too", async () => {
    const choice = new StretchChoice([fake("a"), fake("b")]);
    const chosen: string[] = [];
    const failures = resolvedTogether(2).map((reply) => reply.then((index) => Promise.reject(new Error(`reply ${index}`))));
    await Promise.all(failures.map((failure) => choice.handOut(failure).catch(() => chosen.push(call(choice)))));
    expect(chosen).to.deep.equal(["a", "b"]);
  });
});
