/**
 * Invalid input, method by method, against an EXISTING queue: rsmq-next must report exactly
 * rsmq 0.12.4's error (name and message, an Error), send nothing to Redis, and write nothing.
 * (Against a missing queue the two differ on purpose; see differences.test.ts.)
 */
import { expect } from "chai";
import { inspect } from "util";
import { monitor } from "../support/wire";
import { exactState, fails, open, outcome } from "../support/differential";
import type { Api, Instance, Outcome } from "../support/differential";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

type Method =
  | "createQueueAsync"
  | "deleteQueueAsync"
  | "getQueueAttributesAsync"
  | "setQueueAttributesAsync"
  | "sendMessageAsync"
  | "receiveMessageAsync"
  | "popMessageAsync"
  | "deleteMessageAsync"
  | "changeMessageVisibilityAsync";

interface InvalidCase {
  method: Method;
  /** How the title shows the input (long values are abbreviated). */
  label: string;
  /** A fresh options object per call: rsmq writes into the one it gets. */
  options: () => Record<string, unknown>;
  expected: Outcome;
}

/** The queue every case runs against; it exists and holds one visible message. */
const QNAME = "q";
/** Well-formed, but no such message. */
const UNKNOWN_ID = "0123456789abcdefghijABCDEFGHIJ01";
/** Marks a field that is left out of the options object altogether. */
const ABSENT = Symbol("absent");

const missingQname = fails("missingParameter", "No qname supplied");
const badQname = fails("invalidFormat", "Invalid qname format");
const missingId = fails("missingParameter", "No id supplied");
const badId = fails("invalidFormat", "Invalid id format");
const badSeconds = (item: "vt" | "delay"): Outcome => fails("invalidValue", `${item} must be between 0 and 9999999`);
const badMaxsize = fails("invalidValue", "maxsize must be between 1024 and 65536");
const notString = fails("messageNotString", "Message must be a string");
const noAttribute = fails("noAttributeSupplied", "No attribute was supplied");

/** The other fields each method needs to be valid, so only the field under test is wrong. */
const VALID_REST: Record<Method, Record<string, unknown>> = {
  createQueueAsync: {},
  deleteQueueAsync: {},
  getQueueAttributesAsync: {},
  setQueueAttributesAsync: { vt: 5 },
  sendMessageAsync: { message: "m" },
  receiveMessageAsync: {},
  popMessageAsync: {},
  deleteMessageAsync: { id: UNKNOWN_ID },
  changeMessageVisibilityAsync: { id: UNKNOWN_ID, vt: 5 },
};
const METHODS = Object.keys(VALID_REST) as Method[];

function describeValue(value: unknown): string {
  if (value === ABSENT) return "absent";
  if (typeof value === "string" && value.length > 20) {
    return `"${value.slice(0, 4)}…${value.slice(-4)}" (${value.length} chars)`;
  }
  return inspect(value);
}

/** A case where `field` of `method` is `value` and everything else is valid. */
function withField(method: Method, field: string, value: unknown, expected: Outcome): InvalidCase {
  return {
    method,
    label: `${field} ${describeValue(value)}`,
    options: () => {
      const options: Record<string, unknown> = { qname: QNAME, ...VALID_REST[method] };
      if (value === ABSENT) delete options[field];
      else options[field] = value;
      return options;
    },
    expected,
  };
}

/** A case with a whole options object given as is. */
function withOptions(method: Method, options: Record<string, unknown>, expected: Outcome): InvalidCase {
  return { method, label: inspect(options, { breakLength: Infinity }), options: () => ({ ...options }), expected };
}

const BAD_QNAMES: Array<[unknown, Outcome]> = [
  [ABSENT, missingQname],
  [undefined, missingQname],
  [null, missingQname],
  ["", missingQname],
  [0, missingQname],
  [false, missingQname],
  [NaN, missingQname],
  ["my queue", badQname],
  ["a.b", badQname],
  ["a:b", badQname],
  ["ä", badQname],
  ["q*", badQname],
  ["a".repeat(161), badQname],
  [1.5, badQname],
];

/** parseInt(v, 10) gives NaN, or a number outside 0..9999999. */
const BAD_SECONDS: unknown[] = [NaN, -1, -5.5, 10000000, 10000000.5, "abc", "", "-5", Infinity, true, {}];
const BAD_MAXSIZES: unknown[] = [1023, 65537, "x", NaN, -2, 0, "", Infinity, "1023.9", 1e6];
const NOT_STRINGS: unknown[] = [ABSENT, undefined, null, 42, 0, {}, { toString: () => "m" }, ["m"], true];
const BAD_IDS: Array<[unknown, Outcome]> = [
  [ABSENT, missingId],
  [undefined, missingId],
  [null, missingId],
  ["", missingId],
  [0, missingId],
  ["short", badId],
  [UNKNOWN_ID.slice(1), badId],
  [`${UNKNOWN_ID}x`, badId],
  [`${UNKNOWN_ID.slice(1)}-`, badId],
  [`${UNKNOWN_ID.slice(1)}é`, badId],
  [`${UNKNOWN_ID.slice(1)}_`, badId],
];

const CASES: InvalidCase[] = [
  ...METHODS.flatMap((method) => BAD_QNAMES.map(([qname, expected]) => withField(method, "qname", qname, expected))),

  ...BAD_SECONDS.flatMap((value) => [
    withField("createQueueAsync", "vt", value, badSeconds("vt")),
    withField("createQueueAsync", "delay", value, badSeconds("delay")),
    withField("setQueueAttributesAsync", "vt", value, badSeconds("vt")),
    withOptions("setQueueAttributesAsync", { qname: QNAME, delay: value }, badSeconds("delay")),
    withField("sendMessageAsync", "delay", value, badSeconds("delay")),
    withField("receiveMessageAsync", "vt", value, badSeconds("vt")),
    withField("changeMessageVisibilityAsync", "vt", value, badSeconds("vt")),
  ]),
  // changeMessageVisibility has no default vt: leaving it out is an invalid value.
  withField("changeMessageVisibilityAsync", "vt", ABSENT, badSeconds("vt")),
  withField("changeMessageVisibilityAsync", "vt", null, badSeconds("vt")),

  ...BAD_MAXSIZES.flatMap((value) => [
    withField("createQueueAsync", "maxsize", value, badMaxsize),
    withOptions("setQueueAttributesAsync", { qname: QNAME, maxsize: value }, badMaxsize),
  ]),

  ...NOT_STRINGS.map((value) => withField("sendMessageAsync", "message", value, notString)),

  ...BAD_IDS.flatMap(([id, expected]) => [
    withField("deleteMessageAsync", "id", id, expected),
    withField("changeMessageVisibilityAsync", "id", id, expected),
  ]),

  // setQueueAttributes checks that something is to be set before anything else.
  withOptions("setQueueAttributesAsync", { qname: QNAME }, noAttribute),
  withOptions("setQueueAttributesAsync", {}, noAttribute),
  withOptions("setQueueAttributesAsync", { qname: "bad name" }, noAttribute),
  withOptions("setQueueAttributesAsync", { qname: QNAME, vt: null, delay: undefined, maxsize: null }, noAttribute),
  withOptions("setQueueAttributesAsync", { qname: QNAME, other: 5 }, noAttribute),

  // With several faults, the first in rsmq's order is the one reported.
  withOptions("createQueueAsync", { qname: "bad name", vt: -1, delay: -1, maxsize: 1 }, badQname),
  withOptions("createQueueAsync", { qname: QNAME, vt: -1, delay: -1, maxsize: 1 }, badSeconds("vt")),
  withOptions("createQueueAsync", { qname: QNAME, delay: -1, maxsize: 1 }, badSeconds("delay")),
  withOptions("setQueueAttributesAsync", { qname: "", vt: -1 }, missingQname),
  withOptions("setQueueAttributesAsync", { qname: QNAME, delay: -1, maxsize: 1, vt: -1 }, badSeconds("vt")),
  withOptions("setQueueAttributesAsync", { qname: QNAME, delay: -1, maxsize: 1 }, badMaxsize),
  withOptions("setQueueAttributesAsync", { qname: QNAME, delay: -1, vt: 5, maxsize: 2048 }, badSeconds("delay")),
  withOptions("sendMessageAsync", { qname: "a.b", delay: -1, message: 1 }, badQname),
  withOptions("sendMessageAsync", { qname: QNAME, delay: -1, message: 1 }, badSeconds("delay")),
  withOptions("deleteMessageAsync", { qname: "", id: "" }, missingQname),
  withOptions("changeMessageVisibilityAsync", { qname: "a.b", id: "x", vt: -1 }, badQname),
  withOptions("changeMessageVisibilityAsync", { qname: QNAME, id: "x", vt: -1 }, badId),
];

describe("differential: invalid input against an existing queue", () => {
  let old: Instance;
  let next: Instance;

  before(async () => {
    [old, next] = await Promise.all([open("rsmq"), open("next")]);
    for (const { api } of [old, next]) {
      await api.createQueueAsync({ qname: QNAME });
      await api.sendMessageAsync({ qname: QNAME, message: "visible" });
    }
  });

  after(async () => {
    await Promise.all([old?.close(), next?.close()]);
  });

  const call = (api: Api, invalid: InvalidCase): Promise<Outcome> =>
    outcome((api[invalid.method] as (options: unknown) => Promise<unknown>)(invalid.options()));

  for (const invalid of CASES) {
    const { name } = (invalid.expected as { error: { name: string } }).error;
    it(`${invalid.method.replace(/Async$/, "")} ${invalid.label}: ${name}, no command, nothing written`, async () => {
      const oldBefore = await exactState(old.data, old.ns);
      const oldOutcome = await call(old.api, invalid);
      expect(await exactState(old.data, old.ns), "rsmq state").to.deep.equal(oldBefore);

      const nextBefore = await exactState(next.data, next.ns);
      let nextOutcome: Outcome | undefined;
      const commands = await monitor(async () => {
        nextOutcome = await call(next.api, invalid);
      });
      expect(nextOutcome, "same outcome as rsmq").to.deep.equal(oldOutcome);
      expect(nextOutcome).to.deep.equal(invalid.expected);
      expect(commands, "commands sent").to.deep.equal([]);
      expect(await exactState(next.data, next.ns), "rsmq-next state").to.deep.equal(nextBefore);
    });
  }

  it("left both queues as they were set up, with the same state", async () => {
    // The cases above ran on one queue per library; a stray write anywhere would show here too.
    for (const { api } of [old, next]) {
      const message = (await api.receiveMessageAsync({ qname: QNAME, vt: 0 })) as { message?: string; rc?: number };
      expect([message.message, message.rc]).to.deep.equal(["visible", 1]);
    }
  });
});
