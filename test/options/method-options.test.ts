/**
 * The methods' options (docs/api.md, "Methods"): a key a method does not take is ignored, as rsmq
 * 0.12.4 ignored it, and told once per process for each method and key (code
 * RSMQ_NEXT_UNKNOWN_OPTION), with the closest key the method takes; so is a batch entry's key, and
 * a `dedupWindowMs` that has no `dedupId` to apply to (RSMQ_NEXT_UNUSED_OPTION). Each case runs in
 * a fresh process, so no earlier test has used up a warning, through the built package.
 */
import { expect } from "chai";
import { OPERATIONS } from "../../lib/methods/registry";
import { builtEntry, runChild } from "../support/child-process";
import { singleServerOptions, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

/** One call of the child: the method, its options (`"<signal>"` stands for an AbortSignal), and through which twin. */
type Call = [method: string, options: Record<string, unknown> | undefined, twin?: "callback"];

interface Warning {
  code: string;
  message: string;
}

interface ChildRun {
  warnings: Warning[];
  /** Per call, in order: "ok" or the error's name. */
  outcomes: string[];
}

/**
 * Runs `calls` one after another on one instance of the built package in a new process (queues
 * `q`, `k` and `spare` created first, a message in `q` whose id stands for `"<id>"`, a schedule `s`
 * of `k`), and reports
 * the process warnings it saw.
 */
async function runCalls(calls: Call[]): Promise<ChildRun> {
  const program = `
    const RedisSMQ = require(${JSON.stringify(builtEntry)});
    const warnings = [];
    process.on("warning", (w) => warnings.push({ code: w.code, message: w.message }));
    const revive = (options, id) => JSON.parse(JSON.stringify(options), (key, value) =>
      value === "<signal>" ? new AbortController().signal : value === "<id>" ? id : value);
    (async () => {
      const rsmq = new RedisSMQ(JSON.parse(process.env.CONNECTION));
      for (const qname of ["q", "k", "spare"]) await rsmq.createQueueAsync({ qname });
      const id = await rsmq.sendMessageAsync({ qname: "q", message: "kept" });
      await rsmq.upsertScheduleAsync({ qname: "k", name: "s", every: 3600000, message: "m" });
      const outcomes = [];
      for (const [method, options, twin] of JSON.parse(process.env.CALLS)) {
        const given = options === null ? undefined : revive(options, id);
        try {
          if (twin === "callback") {
            await new Promise((resolve, reject) => rsmq[method](given, (error) => (error ? reject(error) : resolve())));
          } else {
            await rsmq[method + "Async"](given);
          }
          outcomes.push("ok");
        } catch (error) {
          outcomes.push(error.name);
        }
      }
      await rsmq.quitAsync();
      await new Promise((resolve) => setImmediate(resolve));
      console.log(JSON.stringify({ warnings, outcomes }));
    })().catch((error) => { console.error(error); process.exit(1); });
  `;
  const connection = singleServerOptions(uniqueNs("opts"));
  const outcome = await runChild(program, { CONNECTION: JSON.stringify(connection), CALLS: JSON.stringify(calls) }, 30_000);
  expect(outcome.code, outcome.stderr).to.equal(0);
  return JSON.parse(outcome.stdout) as ChildRun;
}

const ours = (warnings: Warning[]): Warning[] => warnings.filter(({ code }) => code.startsWith("RSMQ_NEXT_"));

/**
 * Per method: options holding a misspelt key (besides what makes the call sensible), the key and
 * the suggestion its warning must name (none where the method takes no key close to it), and the
 * call's outcome when it is not "ok": the key changes nothing, the call is what it is without it.
 */
const MISSPELT: Record<string, { options: Record<string, unknown>; key: string; suggestion?: string; outcome?: string }> = {
  createQueue: { options: { qname: "r", retension: 5 }, key: "retension", suggestion: "retention" },
  listQueues: { options: { qnme: "q" }, key: "qnme" },
  deleteQueue: { options: { qname: "nothing-here", qnmae: "q" }, key: "qnmae", suggestion: "qname", outcome: "queueNotFound" },
  purgeQueue: { options: { qname: "q", qnmae: "q" }, key: "qnmae", suggestion: "qname" },
  getQueueAttributes: { options: { qname: "q", qnmae: "q" }, key: "qnmae", suggestion: "qname" },
  setQueueAttributes: { options: { qname: "q", vt: 30, maxSize: 2048 }, key: "maxSize", suggestion: "maxsize" },
  sendMessage: { options: { qname: "q", message: "m", prioritty: 9 }, key: "prioritty", suggestion: "priority" },
  sendMessages: {
    options: { qname: "q", messages: [{ message: "m" }], dedupWindow: 1000 },
    key: "dedupWindow",
    suggestion: "dedupWindowMs",
  },
  receiveMessage: { options: { qname: "q", waitms: 2000 }, key: "waitms", suggestion: "waitMs" },
  receiveMessageOrNextDue: { options: { qname: "q", waitms: 2000 }, key: "waitms", suggestion: "waitMs" },
  receiveMessages: { options: { qname: "q", cuont: 2 }, key: "cuont", suggestion: "count", outcome: "invalidValue" },
  popMessage: { options: { qname: "empty-q", qnam: "q" }, key: "qnam", suggestion: "qname", outcome: "queueNotFound" },
  deleteMessage: { options: { qname: "q", Id: "x".repeat(32) }, key: "Id", suggestion: "id", outcome: "missingParameter" },
  deleteMessages: { options: { qname: "q", id: "x".repeat(32) }, key: "id", suggestion: "ids", outcome: "missingParameter" },
  deleteAndReceive: { options: { qname: "q", id: "x".repeat(32), vT: 5 }, key: "vT", suggestion: "vt" },
  deleteAndReceiveMessages: { options: { qname: "q", ids: [], count: 1, cuont: 2 }, key: "cuont", suggestion: "count" },
  peekMessages: { options: { qname: "q", cout: 5 }, key: "cout", suggestion: "count" },
  peekMessage: { options: { qname: "q", id: "<id>", ids: ["<id>"] }, key: "ids", suggestion: "id" },
  peekDeadLetters: { options: { qname: "q", conut: 5 }, key: "conut", suggestion: "count" },
  browseMessages: { options: { qname: "q", wher: { tenant: "a" } }, key: "wher", suggestion: "where" },
  redrive: { options: { from: "q-dlq", reasons: "exhausted" }, key: "reasons", suggestion: "reason", outcome: "queueNotFound" },
  sweepExpired: { options: { qname: "q", qName: "q" }, key: "qName", suggestion: "qname" },
  changeMessageVisibility: { options: { qname: "q", id: "<id>", vt: 30, vT: 5 }, key: "vT", suggestion: "vt" },
  changeMessagesVisibility: { options: { qname: "q", ids: ["<id>"], vt: 30, id: "x" }, key: "id", suggestion: "ids" },
  doctor: { options: { qnames: ["q"], qname: "q" }, key: "qname", suggestion: "qnames" },
  pauseQueue: { options: { qname: "k", untill: 5 }, key: "untill", suggestion: "until" },
  resumeQueue: { options: { qname: "k", qnmae: "q" }, key: "qnmae", suggestion: "qname" },
  setRateLimit: { options: { qname: "k", limits: [{ max: 1000, perMs: 1000 }], mod: "pace" }, key: "mod", suggestion: "mode" },
  removeRateLimit: { options: { qname: "k", qnmae: "q" }, key: "qnmae", suggestion: "qname" },
  rateLimitQueue: { options: { qname: "k", ms: 1, mss: 5 }, key: "mss", suggestion: "ms" },
  setConcurrency: { options: { qname: "k", max: 10_000, maxx: 3 }, key: "maxx", suggestion: "max" },
  removeConcurrency: { options: { qname: "k", qnmae: "q" }, key: "qnmae", suggestion: "qname" },
  listConsumers: { options: { qname: "k", qnmae: "q" }, key: "qnmae", suggestion: "qname" },
  upsertSchedule: { options: { qname: "k", name: "t", every: 60_000, message: "m", limt: 3 }, key: "limt", suggestion: "limit" },
  removeSchedule: { options: { qname: "k", name: "none", nam: "s" }, key: "nam", suggestion: "name" },
  pauseSchedule: { options: { qname: "k", name: "s", nam: "s" }, key: "nam", suggestion: "name" },
  resumeSchedule: { options: { qname: "k", name: "s", nam: "s" }, key: "nam", suggestion: "name" },
  listSchedules: { options: { qname: "k", qnmae: "q" }, key: "qnmae", suggestion: "qname" },
};

/** Per method: every key it takes (rsmq 0.12.4's among them), each with a value it accepts. */
const KNOWN: Record<string, Record<string, unknown> | undefined> = {
  createQueue: { qname: "new", vt: 30, delay: 0, maxsize: 65536, retention: 60, expireTo: "new-expired", dedupWindowMs: 1000 },
  listQueues: undefined,
  deleteQueue: { qname: "spare" },
  purgeQueue: { qname: "k" },
  getQueueAttributes: { qname: "k" },
  setQueueAttributes: { qname: "k", vt: 20, delay: 0, maxsize: -1, retention: 120, expireTo: "", dedupWindowMs: 2000 },
  sendMessage: { qname: "q", message: "m", delay: 0, priority: 3, dedupId: "d1", dedupWindowMs: 1000 },
  sendMessages: { qname: "q", messages: [{ message: "m", delay: 0, priority: 1, dedupId: "d2" }], dedupWindowMs: 1000 },
  receiveMessage: { qname: "k", vt: 30, waitMs: 0, signal: "<signal>" },
  receiveMessageOrNextDue: { qname: "k", vt: 30, waitMs: 0, signal: "<signal>" },
  receiveMessages: { qname: "k", vt: 30, count: 2, waitMs: 0, signal: "<signal>" },
  popMessage: { qname: "k" },
  deleteMessage: { qname: "k", id: "x".repeat(32), rc: 1 },
  deleteMessages: { qname: "k", ids: ["x".repeat(32)], rcs: [1] },
  deleteAndReceive: { qname: "k", id: "x".repeat(32), rc: 1, vt: 30 },
  deleteAndReceiveMessages: { qname: "k", ids: ["x".repeat(32)], rcs: [1], count: 2, vt: 30 },
  peekMessages: { qname: "q", count: 5 },
  peekMessage: { qname: "q", id: "<id>" },
  peekDeadLetters: { qname: "q", count: 5 },
  browseMessages: { qname: "q", where: { tenant: "a" }, state: "visible", cursor: null, limit: 5 },
  redrive: { from: "k", to: "q", limit: 1, reason: "exhausted", error: "boom" },
  sweepExpired: { qname: "k" },
  changeMessageVisibility: { qname: "q", id: "<id>", vt: 0, rc: 1 },
  changeMessagesVisibility: { qname: "q", ids: ["<id>"], vt: 0, rcs: [1] },
  doctor: { fix: false, qnames: ["q"], chunk: 100 },
  pauseQueue: { qname: "k", until: Date.now() + 3_600_000, hard: false },
  resumeQueue: { qname: "k" },
  setRateLimit: { qname: "k", limits: [{ max: 1000, perMs: 1000, burst: 0 }], mode: "receive" },
  removeRateLimit: { qname: "k" },
  rateLimitQueue: { qname: "k", ms: 1 },
  setConcurrency: { qname: "k", max: 10_000 },
  removeConcurrency: { qname: "k" },
  listConsumers: { qname: "k" },
  // `every` is the one key left out: it and `cron` exclude each other (the misspelt case takes it).
  upsertSchedule: {
    qname: "k",
    name: "u",
    cron: "0 2 * * *",
    tz: "Europe/Berlin",
    message: "m",
    delay: 0,
    priority: 1,
    catchup: "all",
    catchupWindowMs: 60_000,
    overlap: "skip",
    startAt: 0,
    endAt: 4_102_444_800_000,
    limit: 5,
  },
  removeSchedule: { qname: "k", name: "none" },
  pauseSchedule: { qname: "k", name: "s" },
  resumeSchedule: { qname: "k", name: "s" },
  listSchedules: { qname: "k" },
};

describe("method options: a key a method does not take is told once, and ignored", () => {
  const methods = Object.keys(OPERATIONS).sort();

  it("covers every public method", () => {
    expect(Object.keys(MISSPELT).sort()).to.deep.equal(methods);
    expect(Object.keys(KNOWN).sort()).to.deep.equal(methods);
  });

  describe("a misspelt key, through both twins, three calls per method", () => {
    let run: ChildRun;
    before(async function () {
      this.timeout(40_000);
      const calls: Call[] = methods.flatMap((method): Call[] => {
        const { options } = MISSPELT[method];
        return [
          [method, options],
          [method, options],
          [method, options, "callback"],
        ];
      });
      run = await runCalls(calls);
    });

    for (const method of Object.keys(MISSPELT)) {
      it(`${method}: one warning, naming the key and the closest one it takes; the key ignored`, () => {
        const { key, suggestion, outcome = "ok" } = MISSPELT[method];
        // receiveMessage's `waitms` does not wait; createQueue's `retension` sets no retention.
        expect(run.outcomes[3 * methods.indexOf(method)]).to.equal(outcome);
        const about = ours(run.warnings).filter(({ message }) => message.includes(` of ${method} `));
        expect(about.map(({ code }) => code)).to.deep.equal(["RSMQ_NEXT_UNKNOWN_OPTION"]);
        const [{ message }] = about;
        const hint = suggestion === undefined ? "." : `: did you mean \`${suggestion}\`?`;
        expect(message).to.match(new RegExp(`^rsmq-next: the option \`${key}\` of ${method} is not known and is ignored`));
        expect(message).to.include(`is ignored${hint} Known options of ${method}: `);
      });
    }
  });

  it("a batch entry's key is checked too, once for all entries", async () => {
    const messages = [
      { message: "a", prio: 3 },
      { message: "b", prio: 4 },
      { message: "c", priorty: 1 },
    ];
    const run = await runCalls([
      ["sendMessages", { qname: "q", messages }],
      ["sendMessages", { qname: "q", messages }, "callback"],
    ]);
    expect(run.outcomes).to.deep.equal(["ok", "ok"]);
    const warnings = ours(run.warnings);
    expect(warnings.map(({ code }) => code)).to.deep.equal(["RSMQ_NEXT_UNKNOWN_OPTION", "RSMQ_NEXT_UNKNOWN_OPTION"]);
    expect(warnings[0].message).to.match(
      /^rsmq-next: the option `messages\[\]\.prio` of sendMessages is not known and is ignored: did you mean `messages\[\]\.priority`\? Known options of sendMessages: message, delay, priority, dedupId, attributes, tenant\.$/,
    );
    expect(warnings[1].message).to.include(
      "`messages[].priorty` of sendMessages is not known and is ignored: did you mean `messages[].priority`?",
    );
  });

  it("a key a method takes never warns: every key of every method, rsmq 0.12.4's among them", async () => {
    const calls: Call[] = [
      ...methods.map((method): Call => [method, KNOWN[method]]),
      // rsmq 0.12.4's methods, with the keys its callers pass, through the callback twins too.
      ["createQueue", { qname: "old", vt: "30", delay: 0, maxsize: 65536 }, "callback"],
      ["setQueueAttributes", { qname: "old", vt: "30", delay: 0, maxsize: 2048 }, "callback"],
      ["sendMessage", { qname: "old", message: "m", delay: 0 }, "callback"],
      ["receiveMessage", { qname: "old", vt: 30 }, "callback"],
      ["changeMessageVisibility", { qname: "old", id: "x".repeat(32), vt: "60" }, "callback"],
      ["listQueues", {}],
      // The one misspelt key of the run, so that a warning would be seen at all.
      ["getQueueAttributes", { qname: "q", qnmae: "q" }],
    ];
    const run = await runCalls(calls);
    expect(run.outcomes.slice(0, methods.length)).to.deep.equal(methods.map(() => "ok"));
    expect(ours(run.warnings).map(({ message }) => message.split(" is not known")[0])).to.deep.equal([
      "rsmq-next: the option `qnmae` of getQueueAttributes",
    ]);
  });

  describe("dedupWindowMs without a dedupId", () => {
    it("is told once per method as having no effect, and not where a dedupId is given", async () => {
      const run = await runCalls([
        ["sendMessage", { qname: "q", message: "a", dedupId: "a", dedupWindowMs: 1000 }],
        ["sendMessages", { qname: "q", messages: [{ message: "b" }, { message: "c", dedupId: "c" }], dedupWindowMs: 1000 }],
        ["sendMessage", { qname: "q", message: "d", dedupWindowMs: 1000 }],
        ["sendMessage", { qname: "q", message: "e", dedupWindowMs: 1000 }, "callback"],
        ["sendMessages", { qname: "q", messages: [{ message: "f" }], dedupWindowMs: 1000 }],
        ["sendMessages", { qname: "q", messages: [{ message: "g" }], dedupWindowMs: 1000 }],
      ]);
      expect(run.outcomes).to.deep.equal(["ok", "ok", "ok", "ok", "ok", "ok"]);
      expect(ours(run.warnings)).to.deep.equal([
        {
          code: "RSMQ_NEXT_UNUSED_OPTION",
          message:
            "rsmq-next: the option `dedupWindowMs` of sendMessage has no effect here: it is how long a `dedupId` is remembered, and none is given.",
        },
        {
          code: "RSMQ_NEXT_UNUSED_OPTION",
          message:
            "rsmq-next: the option `dedupWindowMs` of sendMessages has no effect here: it is how long the entries' `dedupId`s are remembered, and no entry has one.",
        },
      ]);
    });
  });
});
