/**
 * The one-script and two-step versions of each move are separate Lua files, so that each keeps a
 * KEYS header the static key check can read: createQueue-2 and (SADD, createQueueHash-1);
 * deadLetter-5 and (hideMessage-3, HMGET, SADD, deadLetterCopy-2, deleteMessage-3);
 * redrive-4 and (getQueueAttributes-3, redriveClaim-2, redriveCopy-2, deleteMessages-3). Separate
 * files can drift apart, so here both paths of each twin run on the same starting data and must
 * leave exactly the same Redis state: every key of the namespace with its type, value and TTL.
 * Only a clock reading taken during the call (a score, `created`, a note's `at`) is replaced by a
 * token; everything written before it is compared as it is.
 *
 * One server: there both queues of a move can share a script, so the two-step path is the one
 * Redis Cluster takes, forced by a key layout that names keys as one server does but places the
 * registry and every queue in slots of their own. Both paths then go through the library's own
 * choice of path (createQueueAsync, redriveAsync, the Worker's DeadLetterMover).
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { internalsOf } from "../../lib/internals";
import { KeyLayout } from "../../lib/keys";
import { DeadLetterMover } from "../../lib/dead-letters/dead-letter-mover";
import type { StopRecord } from "../../lib/operations/dead-letter";
import { script } from "../../lib/scripts/script-files";
import { serverNowMs } from "../support/inspect";
import { CommandWatch, loadScripts } from "../support/retry";
import { singleServerClient, singleServerOptions, singleServerOnly, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

type QueueMessage = RedisSMQ.QueueMessage;

/** The cluster's spread layout as far as slots go, one server's key names (so the states compare). */
class AcrossSlots extends KeyLayout {
  constructor(ns: string) {
    super(ns, false, false);
  }

  override get registryWithQueues(): boolean {
    return false;
  }

  override sameSlot(a: string, b: string): boolean {
    return a === b;
  }
}

/**
 * Makes an instance take the two-step paths. The layout lives in one place, the instance's
 * internals, which the facade (createQueue), redrive and the Worker's dead-letter mover all read.
 */
function routedAcrossSlots(rsmq: RedisSMQ, ns: string): RedisSMQ {
  (internalsOf(rsmq) as { layout: KeyLayout }).layout = new AcrossSlots(ns);
  return rsmq;
}

// Starting data is written directly, with fixed ids and fixed times long past (or far ahead), so
// that both runs start from identical bytes and no seeded value can pass for a clock reading.
const A = "lo5xk2y8qmAbCdEfGhIjKlMnOpQrStUv";
const B = "lo5xk2y8qnZyXwVuTsRqPoNmLkJiHgFe";
const C = "lo5xk2y8qpQwErTyUiOpAsDfGhJkLzXc";
const LONG_AGO_S = "1700000000";
const LONG_AGO_MS = 1_700_000_000_000;
/** A hidden message's score: held (received, retried) until 2100. */
const HELD_MS = 4_102_444_800_000;

interface SeedMessage {
  id: string;
  body: string;
  score: number;
  /** More fields of the queue hash for this message: `rc`, `fr`, `dl`. */
  fields?: Record<string, string>;
}

interface SeedQueue {
  /** The queue hash's own fields (settings, counters); absent: no hash fields beyond messages. */
  hash?: Record<string, string>;
  messages?: SeedMessage[];
}

type Start = Record<string, SeedQueue>;

/** A queue's settings and counters as rsmq writes them, created and modified long ago. */
function queueHash(vt: number, delay: number, maxsize: number, counters: Record<string, string> = {}): Record<string, string> {
  const created = { created: LONG_AGO_S, modified: LONG_AGO_S };
  return { vt: String(vt), delay: String(delay), maxsize: String(maxsize), ...created, ...counters };
}

const queue = (hash: Record<string, string>, ...messages: SeedMessage[]): SeedQueue => ({ hash, messages });

/** Writes the queues, each listed in `<ns>:QUEUES`. */
async function seed(client: RedisClientType, ns: string, start: Start): Promise<void> {
  for (const [qname, { hash: own, messages = [] }] of Object.entries(start)) {
    const hash: Record<string, string> = { ...own };
    for (const { id, body, score, fields = {} } of messages) {
      hash[id] = body;
      for (const [field, value] of Object.entries(fields)) hash[`${id}:${field}`] = value;
      await client.zAdd(`${ns}:${qname}`, { score, value: id });
    }
    if (Object.keys(hash).length > 0) await client.hSet(`${ns}:${qname}:Q`, hash);
    await client.sAdd(`${ns}:QUEUES`, qname);
  }
}

type State = Record<string, { type: string; ttlMs: number; value: unknown }>;

/** A hash's fields in a state (a hash without a TTL). */
function hashIn(state: State, key: string): Record<string, string> {
  expect(state[key], key).to.include({ type: "hash", ttlMs: -1 });
  return state[key].value as Record<string, string>;
}

/** Every key of the namespace (named without it), with a value read during `[fromMs, toMs]` made a token. */
async function stateOf(client: RedisClientType, ns: string, fromMs: number, toMs: number): Promise<State> {
  const clock = (text: string): string => {
    const n = Number(text);
    if (n >= fromMs && n <= toMs) return "<now ms>";
    if (n >= Math.floor(fromMs / 1000) && n <= Math.floor(toMs / 1000)) return "<now s>";
    return text;
  };
  // A whole value (score, created, modified), or the `at` of a dead-letter note.
  const readings = (text: string): string =>
    /^\d+$/.test(text) ? clock(text) : text.replace(/"at":(\d+)/g, (_, at: string) => `"at":"${clock(at)}"`);
  const state: State = {};
  for (const key of (await client.keys(`${ns}:*`)).sort()) {
    const type = await client.type(key);
    let value: unknown;
    if (type === "hash") {
      const fields = Object.entries(await client.hGetAll(key)).sort(([x], [y]) => (x < y ? -1 : 1));
      value = Object.fromEntries(fields.map(([field, text]) => [field, readings(text)]));
    } else if (type === "zset") {
      value = (await client.zRangeWithScores(key, 0, -1)).map(({ value: member, score }) => [member, clock(String(score))]);
    } else if (type === "set") {
      value = (await client.sMembers(key)).sort();
    } else {
      value = `<${type}>`;
    }
    state[key.slice(ns.length + 1)] = { type, ttlMs: await client.pTTL(key), value };
  }
  return state;
}

/** How a call ended, comparable across runs. */
async function outcomeOf(call: Promise<unknown>): Promise<unknown> {
  try {
    return { resolved: await call };
  } catch (error) {
    return { rejected: { name: (error as Error).name, message: (error as Error).message } };
  }
}

/** The scripts either path of a twin may run, by name. */
const SCRIPTS = [
  "createQueue",
  "createQueueHash",
  "deadLetter",
  "deadLetterCopy",
  "hideMessage",
  "getQueueAttributes",
  "deleteMessage",
  "deleteMessages",
  "peekDeadLetters",
  "redrive",
  "redriveClaim",
  "redriveCopy",
];

type Call = (rsmq: RedisSMQ) => Promise<unknown>;

interface Case {
  title: string;
  start: Start;
  /** The call, on an instance that takes one path or the other; the twin's when not given. */
  run?: Call;
  /** A script only the two-step path runs in this case; the twin's when not given. */
  twoStep?: string;
  /** What the call must resolve (or reject) on both paths. */
  outcome: unknown;
  /** What the state left behind must show, beyond being the same on both paths. */
  shows?: (state: State) => void;
}

interface Twin {
  /** The one-script path's script. */
  oneScript: string;
  /** A script only the two-step path runs. */
  twoStep: string;
  run: Call;
  cases: Case[];
}

const why: StopRecord = { source: "src", deliveries: 3, reason: "exhausted", error: "boom" };
const note = JSON.stringify({ ...why, at: LONG_AGO_MS + 500 });
/** The message the Worker holds and moves, as it has it in hand... */
const inHand: QueueMessage = { id: A, message: "order 17", rc: 3, fr: LONG_AGO_MS + 123, sent: parseInt(A.slice(0, 10), 36) / 1000 };
/** ...and as the source queue holds it. */
const heldInSource: SeedMessage = { id: A, body: "order 17", score: HELD_MS, fields: { rc: "3", fr: String(LONG_AGO_MS + 123) } };

const withOtherSettings = (...messages: SeedMessage[]): SeedQueue =>
  queue(queueHash(90, 5, 2048, { totalsent: "7", totalrecv: "4" }), { id: C, body: "waiting", score: LONG_AGO_MS }, ...messages);

const deadLettered = (id: string, body: string, score: number, fields: Record<string, string> = {}): SeedMessage => ({
  id,
  body,
  score,
  fields: { dl: note, ...fields },
});
const deadLetters = (...messages: SeedMessage[]): SeedQueue =>
  queue(queueHash(60, 3, 4096, { totalsent: "2", totalrecv: "3" }), ...messages);

const TWINS: Record<string, Twin> = {
  createQueue: {
    oneScript: "createQueue",
    twoStep: "createQueueHash",
    run: (rsmq) => rsmq.createQueueAsync({ qname: "q" }),
    cases: [
      {
        title: "a new queue gets rsmq's defaults",
        start: {},
        outcome: { resolved: 1 },
        shows: (state) => {
          expect(hashIn(state, "q:Q")).to.deep.equal({ vt: "30", delay: "0", maxsize: "65536", created: "<now s>", modified: "<now s>" });
          expect(state.QUEUES).to.deep.equal({ type: "set", ttlMs: -1, value: ["q"] });
        },
      },
      {
        title: "a new queue gets the settings given",
        start: {},
        run: (rsmq) => rsmq.createQueueAsync({ qname: "q", vt: 45, delay: 2, maxsize: 2048 }),
        outcome: { resolved: 1 },
        shows: (state) => expect(hashIn(state, "q:Q")).to.include({ vt: "45", delay: "2", maxsize: "2048" }),
      },
      {
        title: "a queue that exists, with other settings, is left as it is (queueExists)",
        start: { q: withOtherSettings() },
        outcome: { rejected: { name: "queueExists", message: "Queue exists" } },
        shows: (state) => expect(hashIn(state, "q:Q")).to.include({ vt: "90", delay: "5", totalsent: "7", created: LONG_AGO_S }),
      },
      { title: "a name listed with no queue (a create cut short) is completed", start: { q: {} }, outcome: { resolved: 1 } },
    ],
  },

  "dead-letter move": {
    oneScript: "deadLetter",
    twoStep: "hideMessage",
    run: (rsmq) => new DeadLetterMover(internalsOf(rsmq)).move("src", "dlq", inHand, why),
    cases: [
      {
        title: "a new message, into a dead-letter queue created with the defaults of a source that has them",
        start: { src: queue(queueHash(30, 0, 65536), heldInSource) },
        outcome: { resolved: true },
        shows: (state) => {
          expect(hashIn(state, "dlq:Q")).to.include({ vt: "30", delay: "0", maxsize: "65536", totalsent: "1", created: "<now s>" });
          expect(state.QUEUES.value).to.deep.equal(["dlq", "src"]);
        },
      },
      {
        title: "a new message, into a dead-letter queue created with the source's own settings",
        start: { src: queue(queueHash(60, 3, 4096, { totalsent: "9", totalrecv: "12" }), heldInSource) },
        outcome: { resolved: true },
        shows: (state) => expect(hashIn(state, "dlq:Q")).to.include({ vt: "60", delay: "3", maxsize: "4096", totalsent: "1" }),
      },
      {
        title: "a new message, into a dead-letter queue that exists with other settings (kept)",
        start: { src: queue(queueHash(60, 3, 4096), heldInSource), dlq: withOtherSettings() },
        outcome: { resolved: true },
        shows: (state) => expect(hashIn(state, "dlq:Q")).to.include({ vt: "90", delay: "5", totalsent: "8", created: LONG_AGO_S }),
      },
      {
        title: "a message already in the dead-letter queue (a move repeated after a crash) is not counted again",
        start: {
          src: queue(queueHash(60, 3, 4096), heldInSource),
          dlq: withOtherSettings(deadLettered(A, "order 17", LONG_AGO_MS + 1000, { rc: "1", fr: String(LONG_AGO_MS + 2000) })),
        },
        outcome: { resolved: true },
        shows: (state) => {
          expect(hashIn(state, "dlq:Q")).to.include({ totalsent: "7", [`${A}:dl`]: JSON.stringify({ ...why, at: "<now ms>" }) });
          expect(state.dlq.value).to.deep.include([A, "<now ms>"]);
          expect(hashIn(state, "src:Q")).to.not.have.any.keys(A, `${A}:rc`, `${A}:fr`);
        },
      },
      {
        title: "a message no longer in the source: nothing moves",
        start: { src: queue(queueHash(60, 3, 4096), { id: B, body: "other", score: LONG_AGO_MS }), dlq: withOtherSettings() },
        outcome: { resolved: false },
      },
    ],
  },

  redrive: {
    oneScript: "redrive",
    twoStep: "redriveCopy",
    run: (rsmq) => rsmq.redriveAsync({ from: "dlq" }),
    cases: [
      {
        title: "new messages (one received from the dead-letter queue: rc, fr) into a queue with its own settings",
        start: {
          dlq: deadLetters(
            deadLettered(A, "order 17", LONG_AGO_MS, { rc: "2", fr: String(LONG_AGO_MS + 50) }),
            deadLettered(B, "order 18", LONG_AGO_MS + 1),
          ),
          src: withOtherSettings(),
        },
        outcome: { resolved: 2 },
        shows: (state) => {
          expect(hashIn(state, "src:Q")).to.include({ vt: "90", totalsent: "9", [A]: "order 17", [B]: "order 18" });
          expect(hashIn(state, "src:Q")).to.not.have.any.keys(`${A}:rc`, `${A}:fr`, `${A}:dl`);
          expect(hashIn(state, "dlq:Q")).to.not.have.any.keys(A, `${A}:rc`, `${A}:fr`, `${A}:dl`, B, `${B}:dl`);
        },
      },
      {
        title: "a message already in the target (a redrive repeated after a crash) is not counted again",
        start: {
          dlq: deadLetters(deadLettered(A, "order 17", LONG_AGO_MS), deadLettered(B, "order 18", LONG_AGO_MS + 1)),
          src: withOtherSettings({
            id: A,
            body: "order 17",
            score: LONG_AGO_MS + 5000,
            fields: { rc: "1", fr: String(LONG_AGO_MS + 6000) },
          }),
        },
        outcome: { resolved: 2 },
        shows: (state) => {
          expect(hashIn(state, "src:Q")).to.include({ totalsent: "8" }).and.not.have.any.keys(`${A}:rc`, `${A}:fr`);
          expect(state.src.value).to.deep.equal([
            [C, String(LONG_AGO_MS)],
            [A, "<now ms>"],
            [B, "<now ms>"],
          ]);
        },
      },
      {
        title: "a message someone received from the dead-letter queue and holds stays there",
        start: {
          dlq: deadLetters(
            deadLettered(A, "order 17", HELD_MS, { rc: "1", fr: String(LONG_AGO_MS + 50) }),
            deadLettered(B, "order 18", LONG_AGO_MS),
          ),
          src: withOtherSettings(),
        },
        // The two-step path claims first, and claims only visible messages.
        twoStep: "redriveClaim",
        outcome: { resolved: 1 },
        shows: (state) => {
          expect(state.dlq.value).to.deep.equal([[A, String(HELD_MS)]]);
          expect(hashIn(state, "dlq:Q")).to.include({ [A]: "order 17", [`${A}:rc`]: "1" });
          expect(hashIn(state, "src:Q"))
            .to.include({ [B]: "order 18", totalsent: "8" })
            .and.not.have.any.keys(A);
        },
      },
      {
        title: "the target queue does not exist: nothing moves (queueNotFound)",
        start: { dlq: deadLetters(deadLettered(A, "order 17", LONG_AGO_MS)) },
        // The two-step path checks the target before it claims anything.
        twoStep: "getQueueAttributes",
        outcome: { rejected: { name: "queueNotFound", message: "Queue not found" } },
      },
    ],
  },
};

describe("Lua twins: the one-script and the two-step path of a move leave the same Redis state", () => {
  let client: RedisClientType;
  const instances: RedisSMQ[] = [];

  before(async function () {
    singleServerOnly(this, "the two paths are compared key for key on one server");
    client = await singleServerClient();
    await loadScripts(client, SCRIPTS);
  });
  after(async () => {
    await client?.quit();
  });
  afterEach(async () => {
    for (const rsmq of instances.splice(0)) await rsmq.quitAsync();
  });

  /** How a script's call shows in `scripts` below: by EVALSHA_RO when it only reads, else by EVALSHA. */
  const scriptCall = (name: string): string => `${script(name).readOnly ? "evalsha_ro" : "evalsha"} ${name}`;

  /** Runs `call` on fresh starting data along one path: what it returned, left behind and ran. */
  async function along(path: "oneScript" | "twoStep", start: Start, call: Call) {
    const ns = uniqueNs("twin");
    await seed(client, ns, start);
    const rsmq = new RedisSMQ(singleServerOptions(ns));
    instances.push(rsmq);
    if (path === "twoStep") routedAcrossSlots(rsmq, ns);
    const watch = await CommandWatch.open();
    try {
      const fromMs = await serverNowMs(client);
      const outcome = await outcomeOf(call(rsmq));
      const toMs = await serverNowMs(client);
      // Calls are `<port> evalsha <script>` or `<port> <command>`.
      const scripts = (await watch.clientCalls(SCRIPTS)).map((line) => line.split(" ").slice(1).join(" "));
      return { outcome, state: await stateOf(client, ns, fromMs, toMs), scripts };
    } finally {
      await watch.close();
    }
  }

  for (const [name, twin] of Object.entries(TWINS)) {
    describe(`${name}: ${twin.oneScript} and its two-step twin`, () => {
      for (const { title, start, run = twin.run, twoStep = twin.twoStep, outcome, shows } of twin.cases) {
        it(title, async () => {
          const one = await along("oneScript", start, run);
          const two = await along("twoStep", start, run);
          // Each path ran what it is meant to: a seam that stopped working would compare a path with itself.
          expect(one.scripts, "the one-script path").to.include(scriptCall(twin.oneScript)).and.not.include(scriptCall(twoStep));
          expect(two.scripts, "the two-step path").to.include(scriptCall(twoStep)).and.not.include(scriptCall(twin.oneScript));
          expect(one.outcome, "the one-script path's reply").to.deep.equal(outcome);
          expect(two.outcome, "the two-step path's reply").to.deep.equal(outcome);
          expect(two.state, "the state the two-step path left (actual), the one-script path's (expected)").to.deep.equal(one.state);
          shows?.(one.state);
        });
      }
    });
  }

  // Only the one-script move reads the source's settings inside the script; the two-step move reads
  // them with getQueueAttributes, which answers queueNotFound for a hash without them.
  it("the one-script dead-letter move fills a setting its source lacks with createQueue's defaults, passed in ARGV", async () => {
    const ns = uniqueNs("twin");
    await seed(client, ns, { src: queue({ delay: "3" }, heldInSource) });
    const rsmq = new RedisSMQ(singleServerOptions(ns));
    instances.push(rsmq);
    expect(await new DeadLetterMover(internalsOf(rsmq), { atomic: true }).move("src", "dlq", inHand, why)).to.equal(true);
    expect(await client.hGetAll(`${ns}:dlq:Q`)).to.include({ vt: "30", delay: "3", maxsize: "65536", totalsent: "1" });
  });
});
