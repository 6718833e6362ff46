/**
 * Worker options: defaults, and construction-time validation. Every bad setting throws a clear
 * error naming the option, before the worker (or anything else) sends a command to Redis.
 */
import { expect } from "chai";
import OldRSMQ = require("rsmq");
import RedisSMQ = require("../../lib/index");
import { resolveWorkerOptions } from "../../lib/worker/worker-option-table";
import type { WorkerOptions } from "../../lib/worker/worker-options";
import { connectionOptions, singleServerOptions, uniqueNs } from "../support/server";
import { clientCommands, monitor } from "../support/wire";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;
const handler = async (): Promise<void> => undefined;

/** Constructs a worker, expecting a throw; returns the error. */
function constructionError(rsmq: unknown, options: unknown): Error {
  try {
    new Worker(rsmq as RedisSMQ, options as WorkerOptions);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`expected new Worker(...) to throw for ${JSON.stringify(options)}`);
}

describe("Worker options", () => {
  let rsmq: RedisSMQ;

  beforeEach(async () => {
    rsmq = new RedisSMQ(connectionOptions(uniqueNs()));
    await rsmq.listQueuesAsync(); // connected, so a stray command would show up in the monitor
  });
  afterEach(async () => {
    await rsmq.quitAsync();
  });

  describe("defaults", () => {
    it("fills in concurrency 1, batchSize = concurrency, 30 s idle cap, no floor, 30 s stop timeout, realtime wakes on", () => {
      const resolved = resolveWorkerOptions({ qname: "q", handler });
      expect(resolved).to.deep.include({
        qname: "q",
        concurrency: 1,
        batchSize: 1,
        vt: undefined,
        maxIdleSleepMs: 30_000,
        minIdleSleepMs: 0,
        stopTimeoutMs: 30_000,
        realtimeWakes: true,
        signal: undefined,
      });
      expect(resolveWorkerOptions({ qname: "q", handler, concurrency: 7 }).batchSize).to.equal(7);
    });

    it("treats maxIdleSleepMs 0 as the 30 s default and honours any explicit value as-is", () => {
      expect(resolveWorkerOptions({ qname: "q", handler, maxIdleSleepMs: 0 }).maxIdleSleepMs).to.equal(30_000);
      expect(resolveWorkerOptions({ qname: "q", handler, maxIdleSleepMs: 1 }).maxIdleSleepMs).to.equal(1);
      expect(resolveWorkerOptions({ qname: "q", handler, maxIdleSleepMs: 3_600_000 }).maxIdleSleepMs).to.equal(3_600_000);
    });

    it("caps the default batchSize at 1000 for a larger concurrency, and accepts the edges", () => {
      expect(resolveWorkerOptions({ qname: "q", handler, concurrency: 5000 }).batchSize).to.equal(1000);
      const edges = resolveWorkerOptions({ qname: "q", handler, batchSize: 1000, vt: 0, stopTimeoutMs: 0, minIdleSleepMs: 30_000 });
      expect(edges).to.deep.include({ batchSize: 1000, vt: 0, stopTimeoutMs: 0, minIdleSleepMs: 30_000 });
      expect(resolveWorkerOptions({ qname: "q", handler, vt: 9_999_999 }).vt).to.equal(9_999_999);
    });

    it("does not touch the caller's options object", () => {
      const options = Object.freeze({ qname: "q", handler, concurrency: 3 });
      const worker = new Worker(rsmq, options);
      expect(options).to.deep.equal({ qname: "q", handler, concurrency: 3 });
      expect(worker.counters).to.deep.equal({
        receives: 0,
        emptyReceives: 0,
        looks: 0,
        handled: 0,
        failed: 0,
        retried: 0,
        rateLimited: 0,
        heldBack: 0,
        cancelled: 0,
        deadLettered: 0,
        dropped: 0,
        abandoned: 0,
        sleeps: 0,
        sleptMs: 0,
        extensions: 0,
        errors: 0,
      });
    });

    it("is exported as RedisSMQ.Worker and makes no Redis call until start()", async () => {
      expect(Worker).to.equal((require("../../lib/worker/worker") as { Worker: unknown }).Worker);
      const commands = await monitor(async () => {
        new Worker(rsmq, { qname: "q", handler, concurrency: 4, maxIdleSleepMs: 100 });
      });
      expect(clientCommands(commands)).to.deep.equal([]);
    });
  });

  describe("validation", () => {
    /** [option overrides, expected error type, message pattern] */
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["concurrency 0", { concurrency: 0 }, /`concurrency`.*integer from 1 and up.*`0` \(number\)/],
      ["concurrency -1", { concurrency: -1 }, /`concurrency`.*`-1`/],
      ["concurrency 1.5", { concurrency: 1.5 }, /`concurrency`.*`1.5`/],
      ["concurrency NaN", { concurrency: NaN }, /`concurrency`.*`NaN`/],
      ["concurrency Infinity", { concurrency: Infinity }, /`concurrency`/],
      ["concurrency '2'", { concurrency: "2" }, /`concurrency`.*`2` \(string\)/],
      ["batchSize 0", { batchSize: 0 }, /`batchSize`.*from 1 to 1000/],
      ["batchSize 1001", { batchSize: 1001 }, /`batchSize`.*from 1 to 1000.*`1001`/],
      ["batchSize 2.5", { batchSize: 2.5 }, /`batchSize`/],
      ["batchSize NaN", { batchSize: NaN }, /`batchSize`/],
      ["vt -1", { vt: -1 }, /`vt`.*from 0 to 9999999/],
      ["vt 1.5", { vt: 1.5 }, /`vt`/],
      ["vt NaN", { vt: NaN }, /`vt`/],
      ["vt 10000000", { vt: 10_000_000 }, /`vt`/],
      ["vt '5'", { vt: "5" }, /`vt`.*\(string\)/],
      ["maxIdleSleepMs -1", { maxIdleSleepMs: -1 }, /`maxIdleSleepMs`.*from 0 and up/],
      ["maxIdleSleepMs NaN", { maxIdleSleepMs: NaN }, /`maxIdleSleepMs`/],
      ["maxIdleSleepMs 0.5", { maxIdleSleepMs: 0.5 }, /`maxIdleSleepMs`/],
      ["minIdleSleepMs -1", { minIdleSleepMs: -1 }, /`minIdleSleepMs`/],
      ["minIdleSleepMs NaN", { minIdleSleepMs: NaN }, /`minIdleSleepMs`/],
      ["minIdleSleepMs 2.5", { minIdleSleepMs: 2.5 }, /`minIdleSleepMs`/],
      ["stopTimeoutMs -1", { stopTimeoutMs: -1 }, /`stopTimeoutMs`/],
      ["stopTimeoutMs NaN", { stopTimeoutMs: NaN }, /`stopTimeoutMs`/],
      [
        "minIdleSleepMs > maxIdleSleepMs",
        { minIdleSleepMs: 500, maxIdleSleepMs: 200 },
        /`minIdleSleepMs` \(500\).*`maxIdleSleepMs` \(200\)/,
      ],
      ["minIdleSleepMs > the default cap", { minIdleSleepMs: 30_001 }, /`minIdleSleepMs` \(30001\).*`maxIdleSleepMs` \(30000\)/],
      ["realtimeWakes 'yes'", { realtimeWakes: "yes" }, /`realtimeWakes`.*boolean/],
      ["signal {}", { signal: {} }, /`signal`.*AbortSignal/],
      ["handler missing", { handler: undefined }, /`handler`.*function/],
      ["handler a string", { handler: "handle" }, /`handler`.*function/],
    ];

    for (const [label, overrides, pattern] of cases) {
      it(`rejects ${label}, naming the option`, () => {
        const error = constructionError(rsmq, { qname: "q", handler, ...overrides });
        expect(error).to.be.instanceOf(Error);
        expect(error.message).to.match(pattern);
      });
    }

    // docs/api.md: bad options throw a TypeError or RangeError naming the option, what was expected and what was given.
    const QUEUE_NAME = "a queue name (1 to 160 letters, digits, `-` or `_`)";
    const nameCases: Array<[string, unknown, typeof TypeError | typeof RangeError, string]> = [
      ["missing", undefined, TypeError, "`undefined` (undefined)"],
      ["empty", "", RangeError, "`` (string)"],
      ["a number", 5, TypeError, "`5` (number)"],
      ["an object", { name: "q" }, TypeError, "`{ name }` (object)"],
      ["with a space", "bad name", RangeError, "`bad name` (string)"],
      ["with a colon", "a:b", RangeError, "`a:b` (string)"],
      ["of 161 characters", "x".repeat(161), RangeError, `\`${"x".repeat(161)}\` (string)`],
    ];
    for (const option of ["qname", "deadLetterQueue"] as const) {
      for (const [label, value, type, given] of nameCases) {
        if (option === "deadLetterQueue" && value === undefined) continue; // its default is <qname>-dlq
        it(`rejects a ${option} ${label} with a ${type.name} naming it, the form expected and the value`, () => {
          const options = option === "qname" ? { qname: value, handler } : { qname: "q", handler, deadLetterQueue: value };
          const error = constructionError(rsmq, options);
          expect(error).to.be.instanceOf(type);
          expect(error.message).to.equal(`Expected \`${option}\` to be ${QUEUE_NAME}, got ${given}`);
        });
      }
      it(`rejects a ${option} "QUEUES" with a RangeError saying it is reserved`, () => {
        const options = option === "qname" ? { qname: "QUEUES", handler } : { qname: "q", handler, deadLetterQueue: "QUEUES" };
        const error = constructionError(rsmq, options);
        expect(error).to.be.instanceOf(RangeError);
        expect(error.message).to.equal(
          `Expected \`${option}\` to be a queue name other than \`QUEUES\` (reserved for the queue list), got \`QUEUES\` (string)`,
        );
      });
    }

    it("rejects missing options", () => {
      expect(constructionError(rsmq, undefined).message).to.match(/options/);
      expect(constructionError(rsmq, "q").message).to.match(/options/);
    });

    it("rejects a first argument that is not an rsmq-next RedisSMQ (rsmq 0.12.4 included)", async () => {
      const old = new OldRSMQ(singleServerOptions(uniqueNs())); // rsmq 0.12.4 knows only one server
      try {
        await old.listQueuesAsync(); // connected and its scripts loaded, so it quits cleanly
        for (const value of [undefined, null, {}, RedisSMQ, old]) {
          const error = constructionError(value, { qname: "q", handler });
          expect(error).to.be.instanceOf(TypeError);
          expect(error.message).to.match(/RedisSMQ instance/);
        }
      } finally {
        await new Promise((resolve) => old.quit(resolve));
      }
    });

    describe("an option the worker does not know", () => {
      const unknown: Array<[string, Record<string, unknown>, string]> = [
        // A retry policy option one level too high: the right place is named.
        [
          "maxDeliveries (a retry option)",
          { maxDeliveries: 3 },
          "Unknown worker option `maxDeliveries`: did you mean `retry.maxDeliveries`?",
        ],
        [
          "initialDelayMs (a retry option)",
          { initialDelayMs: 10 },
          "Unknown worker option `initialDelayMs`: did you mean `retry.initialDelayMs`?",
        ],
        ["jitter (a retry option)", { jitter: "full" }, "Unknown worker option `jitter`: did you mean `retry.jitter`?"],
        // A typo: the closest name is named.
        ["concurency (a typo)", { concurency: 2 }, "Unknown worker option `concurency`: did you mean `concurrency`?"],
        ["batchsize (wrong case)", { batchsize: 2 }, "Unknown worker option `batchsize`: did you mean `batchSize`?"],
        ["deadLeterQueue (a typo)", { deadLeterQueue: "x" }, "Unknown worker option `deadLeterQueue`: did you mean `deadLetterQueue`?"],
        ["stopTimeout (close to a name)", { stopTimeout: 5 }, "Unknown worker option `stopTimeout`: did you mean `stopTimeoutMs`?"],
      ];
      for (const [label, overrides, message] of unknown) {
        it(`rejects ${label} with a TypeError that names it and the right one`, () => {
          const error = constructionError(rsmq, { qname: "q", handler, ...overrides });
          expect(error).to.be.instanceOf(TypeError);
          expect(error.message).to.equal(message);
        });
      }

      it("names an option close to none, and lists the known ones", () => {
        const error = constructionError(rsmq, { qname: "q", handler, colour: "blue" });
        expect(error).to.be.instanceOf(TypeError);
        expect(error.message).to.match(/^Unknown worker option `colour`; known options: qname, handler, concurrency, .*onStop, schedules$/);
        expect(error.message).not.to.include("did you mean");
      });

      it("rejects it even when its value is undefined (the name is wrong either way)", () => {
        expect(constructionError(rsmq, { qname: "q", handler, maxDeliveries: undefined }).message).to.include("`retry.maxDeliveries`");
      });

      it("rejects a misplaced option inside `retry` too, naming the retry policy's own", () => {
        const error = constructionError(rsmq, { qname: "q", handler, retry: { maxDelivery: 3 } });
        expect(error).to.be.instanceOf(TypeError);
        expect(error.message).to.equal("Unknown retry policy option `maxDelivery`: did you mean `maxDeliveries`?");
      });
    });

    it("sends nothing to Redis for any rejected construction", async () => {
      const commands = await monitor(async () => {
        for (const [, overrides] of cases) {
          try {
            new Worker(rsmq, { qname: "q", handler, ...overrides } as unknown as WorkerOptions);
          } catch {
            // expected
          }
        }
      });
      expect(clientCommands(commands)).to.deep.equal([]);
    });
  });
});
