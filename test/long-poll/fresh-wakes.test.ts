/**
 * A consumer in the process of a send or a resume hears it twice, through the in-process hub and
 * on the queue's wake channel: the second copy makes no second look, for a message id and for a
 * control text (`~resume:<ms>`) alike. Any other wake (none, a realtime count) always passes.
 */
import { expect } from "chai";
import { FreshWakes } from "../../lib/wakes/fresh-wakes";
import { runsOn } from "../support/targets";

runsOn("single");

describe("FreshWakes: the second copy of one wake is dropped", () => {
  it("drops the second copy of a message id, and of a control text; another of either passes", () => {
    const wakes = new FreshWakes();
    const id = "a".repeat(32);
    expect([wakes.fresh(id), wakes.fresh(id), wakes.fresh("b".repeat(32))]).to.deep.equal([true, false, true]);
    expect([wakes.fresh("~resume:1000"), wakes.fresh("~resume:1000"), wakes.fresh("~resume:2000")]).to.deep.equal([true, false, true]);
    expect([wakes.fresh("~limit:1000"), wakes.fresh("~limit:1000")]).to.deep.equal([true, false]);
  });

  it("always passes a wake with no text and a realtime count", () => {
    const wakes = new FreshWakes();
    expect([wakes.fresh(undefined), wakes.fresh(undefined), wakes.fresh("3"), wakes.fresh("3")]).to.deep.equal([true, true, true, true]);
  });
});
