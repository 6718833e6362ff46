/**
 * Every public method of RedisSMQ hands its outcome out through its connection's handover
 * (lib/hand-out.ts): the promise it returns goes through `handOut`, and a callback it is given is
 * called right after `startNewStretch`. The facade's methods are found by enumerating an instance
 * and the prototype, so a method added later that is not covered fails here, with no list to keep.
 */
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";
import RedisSMQ = require("../lib");
import { handOutEveryMethod } from "../lib/hand-out";
import type { Handover } from "../lib/transports/handover";
import { singleServerOnly, singleServerOptions, uniqueNs } from "./support/server";
import { runsOn } from "./support/targets";

runsOn("single");

const ROOT = join(__dirname, "../..");

type Method = (...args: unknown[]) => unknown;

/** A handover that records what went through it. */
function recording(): Handover & { handedOut: Array<Promise<unknown>>; events: string[] } {
  const handedOut: Array<Promise<unknown>> = [];
  const events: string[] = [];
  return {
    handedOut,
    events,
    handOut: <R>(promise: Promise<R>): Promise<R> => {
      handedOut.push(promise);
      return promise;
    },
    startNewStretch: () => events.push("new stretch"),
  };
}

describe("hand-out: every method's outcome goes out through the handover", () => {
  it("hands out a promise a method returns, and starts a stretch right before a callback it is given", async () => {
    const handover = recording();
    const reply = Promise.resolve(7);
    const api = {
      value: 3,
      promised: (): Promise<number> => reply,
      plain: (n: number): number => n + 1,
      withCallback: (n: number, callback: (error: null, result: number) => void): void => {
        handover.events.push("method ran");
        process.nextTick(callback, null, n * 2);
      },
    };
    handOutEveryMethod(api, handover);
    expect(api.value).to.equal(3);
    expect(api.plain(1)).to.equal(2);
    expect(handover.handedOut).to.deep.equal([]);
    expect(api.promised()).to.equal(reply);
    expect(handover.handedOut).to.deep.equal([reply]);
    const result = await new Promise<number>((resolve) =>
      api.withCallback(21, (_error, value) => {
        handover.events.push("callback");
        resolve(value);
      }),
    );
    expect(result).to.equal(42);
    expect(handover.events).to.deep.equal(["method ran", "new stretch", "callback"]);
  });
});

describe("hand-out: RedisSMQ, every public method covered", () => {
  it("declares no public method on the prototype, where the constructor's hand-out would not reach it", () => {
    const source = readFileSync(join(ROOT, "lib", "redis-smq.ts"), "utf8");
    const onPrototype = Object.getOwnPropertyNames(RedisSMQ.prototype).filter((name) => {
      const descriptor = Object.getOwnPropertyDescriptor(RedisSMQ.prototype, name)!;
      return name !== "constructor" && typeof descriptor.value === "function";
    });
    expect(onPrototype, "the prototype's methods").to.not.be.empty;
    for (const name of onPrototype) {
      expect(
        new RegExp(`^\\s+private (?:async )?${name}\\b`, "m").test(source),
        `${name}: public on the prototype (make it an arrow property)`,
      ).to.be.true;
    }
  });

  it("hands out every promise a public method returns, and starts a stretch before every callback", async function () {
    singleServerOnly(this, "a pool of two connections to one server");
    const rsmq = new RedisSMQ({ ...singleServerOptions(uniqueNs("handout")), connections: 2 });
    try {
      await everyMethodHandsOut(rsmq);
    } finally {
      await rsmq.quitAsync();
    }
  });
});

/** Calls each own function property of `rsmq` three ways (options; options, callback; callback): each outcome handed out. */
async function everyMethodHandsOut(rsmq: RedisSMQ): Promise<void> {
  const handover = (rsmq as unknown as { transport: { handover: Handover } }).transport.handover;
  const handOut = handover.handOut.bind(handover);
  const startNewStretch = handover.startNewStretch;
  const handedOut = new Set<Promise<unknown>>();
  // Set by a start, cleared at the next microtask: a callback sees it only if its own hand-out started a stretch.
  let started = false;
  handover.handOut = <R>(promise: Promise<R>): Promise<R> => {
    handedOut.add(promise);
    return handOut(promise);
  };
  handover.startNewStretch = () => {
    startNewStretch();
    started = true;
    queueMicrotask(() => {
      started = false;
    });
  };
  const methods = Object.keys(rsmq).filter((name) => typeof (rsmq as unknown as Record<string, unknown>)[name] === "function");
  expect(methods, "the promise methods and their callback twins").to.include.members(["sendMessageAsync", "sendMessage", "redriveAsync"]);
  // quit and quitAsync last: they close the instance.
  methods.sort((a, b) => Number(a.startsWith("quit")) - Number(b.startsWith("quit")));
  for (const name of methods) {
    const method = (rsmq as unknown as Record<string, Method>)[name];
    let covered = 0;
    for (const shape of ["options", "options, callback", "callback"]) {
      let calledBack!: () => void;
      const callback = new Promise<void>((resolve) => (calledBack = resolve));
      let sawNewStretch = false;
      const cb = (): void => {
        sawNewStretch = started;
        started = false;
        calledBack();
      };
      const args = shape === "options" ? [{}] : shape === "options, callback" ? [{}, cb] : [cb];
      const outcome = method(...args);
      if (outcome instanceof Promise) {
        expect(handedOut.has(outcome), `${name}(${shape}): its promise handed out`).to.equal(true);
        await outcome.catch(() => undefined);
        covered += 1;
      } else if (outcome === undefined && shape !== "options") {
        await callback;
        expect(sawNewStretch, `${name}(${shape}): a new stretch right before the callback`).to.equal(true);
        covered += 1;
      } else {
        expect.fail(`${name}(${shape}) returned neither a promise nor, given a callback, nothing`);
      }
    }
    expect(covered, name).to.equal(3);
  }
}
