/**
 * Differential fuzzing: fast-check generates sequences of calls (queues, messages, attributes)
 * with valid, edge and malformed input, runs each step on rsmq 0.12.4 and on rsmq-next, each in
 * its own namespace of the test server, and after every step requires the same reply (or error
 * name and message) and the same Redis state, except where a documented difference applies (see
 * test/support/fuzz-rules.ts, the one place those are encoded).
 *
 * Fixed seed and run count, so CI is repeatable; `FUZZ_RUNS=500 FUZZ_SEED=123 npx mocha --no-config
 * --require build/test/support/server.js build/test/differential/fuzz.test.js` for a longer local
 * run (the timeout grows with FUZZ_RUNS). On failure fast-check prints the seed and the shrunk list
 * of calls, and the failing step with both replies or both states.
 *
 * No step waits: delays and visibility timeouts are 0 or at least an hour (or invalid), so what
 * is visible never depends on how fast a run goes; the step `anHourPasses()` models time passing by
 * moving every score in both namespaces an hour earlier.
 *
 * Every step of either library runs inside a `WriteWatch` (test/support/written-data.ts), which
 * checks each key, field, score and id the step wrote against the form rsmq 0.12.4 writes and the
 * server's TIME around the step; only then are clock readings compared as tokens.
 */
import * as fc from "fast-check";
import { MESSAGE_ID } from "../support/state";
import type { Snapshot } from "../support/state";
import { RSMQ_ERROR_NAMES, idTokens, namespacedSnapshot, open, outcome, viaCallback } from "../support/differential";
import type { Api, Instance, Outcome } from "../support/differential";
import { RULES, visibleScores } from "../support/fuzz-rules";
import { WriteWatch } from "../support/written-data";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

/** A whole number from the environment, or `fallback`; anything else stops the run with the reason. */
function setting(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new TypeError(`${name} must be a whole number, got ${JSON.stringify(text)}`);
  return value;
}

const RUNS = setting("FUZZ_RUNS", 60);
const SEED = setting("FUZZ_SEED", 20261130);
const MAX_STEPS = 20;

/**
 * Time passing, without waiting: every score in both namespaces moves an hour earlier, so what was
 * due in an hour (a delay or vt of 3600) is due now, as it would be an hour later. Applied to both
 * sides alike, it is no call of either library and has no reply.
 */
const TIME_PASSES = "anHourPasses";
const HOUR_MS = 3_600_000;

/** Valid in format, never sent. */
const UNKNOWN_ID = "0123456789abcdefghijABCDEFGHIJ01";

/** A long string, kept as a recipe so a counterexample prints `"x".repeat(65537)`, not 64 kB. */
class Repeat {
  constructor(
    readonly unit: string,
    readonly times: number,
  ) {}
  get value(): string {
    return this.unit.repeat(this.times);
  }
  [fc.toStringMethod](): string {
    return `${JSON.stringify(this.unit)}.repeat(${this.times})`;
  }
}

/** A reference to the n-th message id the run has seen (modulo how many), or an unknown id if none. */
class IdRef {
  constructor(readonly n: number) {}
  [fc.toStringMethod](): string {
    return `<id #${this.n}>`;
  }
}

/** One call: the method and its options (with recipes still in them). */
interface Step {
  op: string;
  options: Record<string, unknown>;
  /** Through the callback API instead of the promise one (both libraries have both). */
  callback: boolean;
}

// --- inputs ---

const VALID_QNAMES = ["q", "r", "Q-1_x"];
const validQname = fc.constantFrom(...VALID_QNAMES, "q", "q", "q");
const qname = fc.oneof(
  { weight: 14, arbitrary: validQname },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      "",
      "bad name",
      "a:b",
      "ü",
      "x".repeat(161),
      "y".repeat(160),
      42,
      0,
      null,
      undefined,
      true,
      false,
      {},
      ["q"],
      "QUEUES",
      "queues",
    ),
  },
);

/** Values that parse (rsmq uses parseInt) to 0 or to at least an hour, and values that are invalid. */
const validTime = fc.constantFrom<unknown>(0, 0, 0, 3600, 86400, 9999999);
const time = fc.oneof(
  { weight: 12, arbitrary: validTime },
  { weight: 2, arbitrary: fc.constantFrom<unknown>("0", "7200", " 7200", "+7200", "-0", "0x1F", 0.4, 3600.5, -0.5, "7200abc", [7200]) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      -1,
      10000000,
      2 ** 31,
      2 ** 53,
      Infinity,
      -Infinity,
      NaN,
      "abc",
      "",
      null,
      undefined,
      true,
      false,
      {},
      "-1",
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: -100, max: -1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 10_000_000, max: 2 ** 40 }) },
);

const validMaxsize = fc.constantFrom<unknown>(-1, 1024, 1500, 65536);
const maxsize = fc.oneof(
  { weight: 3, arbitrary: validMaxsize },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>("2048", "-1", 1500.7, "65536.9", 1023, 65537, 0, -2, 1e21, "1e4", NaN, "x", null, undefined, false),
  },
);

const message = fc.oneof(
  { weight: 8, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 6, unit: "binary" }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      new Repeat("x", 1024),
      new Repeat("x", 1025),
      new Repeat("x", 1500),
      new Repeat("x", 65536),
      new Repeat("x", 65537),
      new Repeat("é", 1024),
      new Repeat("é", 1500),
      new Repeat("😀", 600),
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(42, null, undefined, true, {}, ["a"]) },
);

const id = fc.oneof(
  { weight: 8, arbitrary: fc.nat(20).map((n) => new IdRef(n)) },
  { weight: 3, arbitrary: fc.constantFrom<unknown>(UNKNOWN_ID, "0123456789abcdefghijABCDEFGHIJ:1", "abc", "", 42, null, "z".repeat(33)) },
);

const record = (fields: Record<string, fc.Arbitrary<unknown>>, required: string[]): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(fields, { requiredKeys: required });

const step = (op: string, options: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Step> =>
  fc.tuple(options, fc.boolean()).map(([opts, callback]) => ({ op, options: opts, callback }));

/** Every run starts with a valid queue "q", so most of its steps get past the queue lookup. */
const firstStep = step(
  "createQueue",
  record({ qname: fc.constant("q"), vt: validTime, delay: validTime, maxsize: validMaxsize }, ["qname"]),
);

const anyStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: step("createQueue", record({ qname, vt: time, delay: time, maxsize }, ["qname"])) },
  { weight: 6, arbitrary: step("sendMessage", record({ qname, message, delay: time }, ["qname", "message"])) },
  { weight: 5, arbitrary: step("receiveMessage", record({ qname, vt: time }, ["qname"])) },
  { weight: 3, arbitrary: step("changeMessageVisibility", record({ qname, id, vt: time }, ["qname", "id", "vt"])) },
  { weight: 3, arbitrary: step("deleteMessage", record({ qname, id }, ["qname", "id"])) },
  { weight: 2, arbitrary: step("popMessage", record({ qname }, ["qname"])) },
  { weight: 2, arbitrary: step("setQueueAttributes", record({ qname, vt: time, delay: time, maxsize }, ["qname"])) },
  { weight: 2, arbitrary: step("getQueueAttributes", record({ qname }, ["qname"])) },
  { weight: 1, arbitrary: step("deleteQueue", record({ qname }, ["qname"])) },
  { weight: 1, arbitrary: step("listQueues", fc.constant({})) },
  { weight: 2, arbitrary: fc.constant({ op: TIME_PASSES, options: {}, callback: false }) },
);

const describeStep = (s: Step): string =>
  s.op === TIME_PASSES ? `${TIME_PASSES}()` : `${s.op}${s.callback ? "[callback]" : ""}(${fc.stringify(s.options)})`;
const printable = (s: Step): Step => Object.assign(s, { [fc.toStringMethod]: () => describeStep(s) });

/** A run: the first step, then up to MAX_STEPS - 1 others. */
const stepsArb: fc.Arbitrary<Step[]> = fc
  .tuple(firstStep, fc.array(anyStep, { maxLength: MAX_STEPS - 1, size: "max" }))
  .map(([first, rest]) => [first, ...rest].map(printable));

// --- running ---

async function anHourPasses(side: Side): Promise<void> {
  const { data, key } = side.instance;
  for (const qname of VALID_QNAMES) {
    const entries = await data.zRangeWithScores(key(qname), 0, -1);
    if (entries.length)
      await data.zAdd(
        key(qname),
        entries.map(({ value, score }) => ({ value, score: score - HOUR_MS })),
        { XX: true },
      );
  }
}

/** One library's side of a run: its instance, its id tokens, the ids in the order it saw them, and the watch its steps run in. */
interface Side {
  instance: Instance;
  tokens: (value: unknown) => unknown;
  ids: string[];
  watch: WriteWatch;
}

function openSide(instance: Instance): Side {
  return { instance, tokens: idTokens(), ids: [], watch: new WriteWatch(instance.data, instance.ns) };
}

function rememberIds(side: Side, value: unknown): void {
  if (typeof value === "string" && MESSAGE_ID.test(value) && !side.ids.includes(value)) side.ids.push(value);
  else if (value && typeof value === "object") for (const field of Object.values(value)) rememberIds(side, field);
}

/** The options for one side: a fresh object (rsmq writes into it), recipes resolved. */
function optionsFor(side: Side, options: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (value instanceof Repeat) result[key] = value.value;
    else if (value instanceof IdRef) result[key] = side.ids.length ? side.ids[value.n % side.ids.length] : UNKNOWN_ID;
    else if (Array.isArray(value)) result[key] = [...value];
    else if (value && typeof value === "object") result[key] = { ...value };
    else result[key] = value;
  }
  return result;
}

/** Queue names come from a set, whose order is Redis' own: compared sorted. */
const sortedNames = (result: Outcome): Outcome =>
  "value" in result && Array.isArray(result.value) ? { value: [...result.value].sort() } : result;

function call(api: Api, s: Step, options: Record<string, unknown>): Promise<Outcome> {
  const methods = api as unknown as Record<string, (...args: unknown[]) => unknown>;
  if (s.op === "listQueues") {
    const names = s.callback ? viaCallback((_options, cb) => api.listQueues(cb), {}) : outcome(api.listQueuesAsync());
    return names.then(sortedNames);
  }
  return s.callback
    ? viaCallback(methods[s.op] as Api["createQueue"], options)
    : outcome(methods[`${s.op}Async`](options) as Promise<unknown>);
}

async function perform(side: Side, s: Step): Promise<Outcome> {
  const result = await side.watch.around(() => call(side.instance.api, s, optionsFor(side, s.options)));
  rememberIds(side, result);
  return side.tokens(result) as Outcome;
}

async function stateOf(side: Side): Promise<Snapshot> {
  return visibleScores(await namespacedSnapshot(side.instance.data, side.instance.ns));
}

/** Long strings shortened, so a failure shows what differs and not 64 kB of "x". */
function readable(value: unknown): string {
  return JSON.stringify(value, (_key, field) =>
    typeof field === "string" && field.length > 40 ? `${field.slice(0, 20)}...(${field.length} chars)` : field,
  );
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function runSteps(steps: Step[]): Promise<void> {
  const [rsmqInstance, nextInstance] = await Promise.all([open("rsmq"), open("next")]);
  const rsmq = openSide(rsmqInstance);
  const next = openSide(nextInstance);
  try {
    let rsmqState = await stateOf(rsmq);
    for (const [index, s] of steps.entries()) {
      const where = `step ${index + 1}, ${describeStep(s)}`;
      if (s.op === TIME_PASSES) {
        await Promise.all([anHourPasses(rsmq), anHourPasses(next)]);
      } else if (RULES.queuesNameReserved.applies(s.options)) {
        const ours = await perform(next, s);
        if (!same(ours, RULES.queuesNameReserved.expected)) {
          throw new Error(`${where}: rsmq-next should reject the reserved qname, got ${readable(ours)}`);
        }
      } else {
        const theirs = await perform(rsmq, s);
        const ours = await perform(next, s);
        const nextAfter = await stateOf(next);
        const view = { op: s.op, options: s.options, rsmq: theirs, next: ours, rsmqBefore: rsmqState, nextAfter };
        const replies = RULES.hiddenmsgsInMilliseconds(view);
        if (!same(replies.rsmq, replies.next) && !RULES.inputBeforeQueue(view)) {
          throw new Error(`${where}: replies differ\n  rsmq:      ${readable(theirs)}\n  rsmq-next: ${readable(ours)}`);
        }
        // Agreeing on a crash is no agreement: every error must be one rsmq reports by name.
        if ("error" in theirs && !RSMQ_ERROR_NAMES.includes(theirs.error.name as string)) {
          throw new Error(`${where}: not an rsmq error: ${readable(theirs)}`);
        }
      }
      rsmq.watch.assertClean(`${where}: rsmq 0.12.4`);
      next.watch.assertClean(`${where}: rsmq-next`);
      rsmqState = await stateOf(rsmq);
      const nextState = await stateOf(next);
      if (!same(rsmqState, nextState)) {
        throw new Error(`${where}: Redis states differ\n  rsmq:      ${readable(rsmqState)}\n  rsmq-next: ${readable(nextState)}`);
      }
    }
  } finally {
    await Promise.all([rsmqInstance.close(), nextInstance.close()]);
  }
}

describe("differential: fuzzed call sequences (fast-check)", function () {
  // A longer local run (FUZZ_RUNS) is bounded by the runs asked for, not by mocha's timeout.
  this.timeout(Math.max(60_000, RUNS * 2_000));

  it(`agree with rsmq 0.12.4 step by step (${RUNS} runs, seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(stepsArb, (steps) => runSteps(steps)),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
