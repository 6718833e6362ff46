/**
 * Differential testing against rsmq 0.12.4: run the same steps through rsmq and through rsmq-next,
 * each in a fresh namespace, and compare what every step returned or threw and the Redis state left
 * behind. Every call goes through a `WriteWatch` (written-data.ts), which checks each clock
 * reading and id it wrote at the byte level, against the server's TIME around the call; what
 * legitimately differs between two runs (random ids, clock readings, the namespace) is replaced by
 * stable tokens only then; everything else must be equal.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import OldRSMQ = require("rsmq");
import RedisSMQ = require("../../lib/index");
import { allKeys } from "./inspect";
import { connectionOptions, keysOf, plainClient, singleServerClient, singleServerOptions, uniqueNs } from "./server";
import { MESSAGE_ID, snapshot } from "./state";
import type { Snapshot } from "./state";
import { WriteWatch } from "./written-data";

export type Callback = (err: unknown, result?: unknown) => void;

/**
 * What both libraries offer, typed loosely on purpose: the tests feed both the same invalid input
 * (numbers for strings, missing fields), which rsmq's and our typings would reject at compile time.
 */
export interface Api {
  createQueueAsync(options: any): Promise<unknown>;
  listQueuesAsync(): Promise<string[]>;
  deleteQueueAsync(options: any): Promise<unknown>;
  getQueueAttributesAsync(options: any): Promise<unknown>;
  setQueueAttributesAsync(options: any): Promise<unknown>;
  sendMessageAsync(options: any): Promise<unknown>;
  receiveMessageAsync(options: any): Promise<unknown>;
  popMessageAsync(options: any): Promise<unknown>;
  deleteMessageAsync(options: any): Promise<unknown>;
  changeMessageVisibilityAsync(options: any): Promise<unknown>;
  quitAsync(): Promise<unknown>;
  createQueue(options: any, cb: Callback): void;
  listQueues(cb: Callback): void;
  deleteQueue(options: any, cb: Callback): void;
  getQueueAttributes(options: any, cb: Callback): void;
  setQueueAttributes(options: any, cb: Callback): void;
  sendMessage(options: any, cb: Callback): void;
  receiveMessage(options: any, cb: Callback): void;
  popMessage(options: any, cb: Callback): void;
  deleteMessage(options: any, cb: Callback): void;
  changeMessageVisibility(options: any, cb: Callback): void;
  quit(cb: Callback): void;
}

export type Library = "rsmq" | "next";

/*
 * Where each library runs: rsmq 0.12.4 always on the single server (it cannot use a cluster),
 * rsmq-next on the run's target (the single server, or the cluster on the cluster target). Their
 * states compare all the same, since snapshots name keys as rsmq does on either target.
 */

/**
 * Connection options for `library` in namespace `ns`. `nextClient`, when given, is the client
 * rsmq-next is passed instead of the run's (a test client of another kind, test-clients.ts).
 */
export function optionsFor(library: Library, ns: string, nextClient?: unknown): { host: string; port: number; ns: string } {
  if (library === "rsmq") return singleServerOptions(ns);
  if (nextClient === undefined) return connectionOptions(ns);
  return { client: nextClient, ns } as unknown as ReturnType<typeof optionsFor>;
}

/** A plain client where `library`'s data lives (a cluster client typed as one on the cluster target); quit it. */
export function dataClient(library: Library): Promise<RedisClientType> {
  return library === "rsmq" ? singleServerClient() : plainClient();
}

/**
 * The key rsmq 0.12.4 calls `<ns>:<name>` ("q", "q:Q", "QUEUES", "rt:q"), as `library` lays it out
 * where it runs: rsmq-next on a cluster puts the queue name in a hash tag (`<ns>:{q}:Q`).
 */
export function rawKey(library: Library, ns: string, name: string): string {
  if (library === "rsmq") return `${ns}:${name}`;
  if (name === "QUEUES") return keysOf(ns, "x").registry;
  const hash = /^(.+):Q$/.exec(name);
  if (hash) return keysOf(ns, hash[1]).hash;
  const channel = /^rt:(.+)$/.exec(name);
  if (channel) return keysOf(ns, channel[1]).realtimeChannel;
  return keysOf(ns, name).messages;
}

/** A client of either library where it runs (see optionsFor), connected and with its namespace. */
export interface Instance {
  readonly library: Library;
  readonly ns: string;
  readonly api: Api;
  /** A plain client where this instance's data lives, for looking at it (closed by close()). */
  readonly data: RedisClientType;
  /** `rawKey()` for this instance: `key("q:Q")` is the queue hash of "q" in this namespace. */
  key(name: string): string;
  /** Quits unless the scenario already did, and closes `data`. */
  close(): Promise<void>;
}

/**
 * Opens a client of `library` (in a fresh namespace unless `ns` is given) and waits until it
 * answers; rsmq-next through `nextClient` when given (see optionsFor).
 */
export async function open(library: Library, ns = uniqueNs(library === "rsmq" ? "old" : "new"), nextClient?: unknown): Promise<Instance> {
  // rsmq writes into its options object, so each instance gets its own.
  const raw = library === "rsmq" ? new OldRSMQ(optionsFor(library, ns)) : new RedisSMQ(optionsFor(library, ns, nextClient));
  const inner = raw as unknown as Api;
  // rsmq loads its scripts on connect and queues calls meanwhile; one answered call means the
  // connection is up for both libraries, so later wire captures see no handshake.
  await inner.listQueuesAsync();
  const data = await dataClient(library);
  let quit = false;
  let closed = false;
  // The scenario sees the instance itself, except that quitting is recorded.
  const api = Object.create(inner) as Api;
  api.quitAsync = () => {
    quit = true;
    return inner.quitAsync();
  };
  api.quit = (cb) => {
    quit = true;
    inner.quit(cb);
  };
  return {
    library,
    ns,
    api,
    data,
    key: (name) => rawKey(library, ns, name),
    async close() {
      try {
        if (!quit) await inner.quitAsync();
        quit = true;
      } finally {
        if (!closed) await data.quit();
        closed = true;
      }
    },
  };
}

/**
 * What a step produced: its value, or the error's type, name, message and JSON form (rsmq 0.12.4
 * sets `name` and `message` after `new Error()`, so both are own properties that a logger's
 * `JSON.stringify(err)` or `{ ...err }` shows).
 */
export type Outcome = { value: unknown } | { error: { isError: boolean; name: unknown; message: unknown; json: string | undefined } };

/** Settles a step into an Outcome, so a scenario goes on after an expected error. */
export async function outcome(step: Promise<unknown>): Promise<Outcome> {
  try {
    return { value: await step };
  } catch (error) {
    const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
    return { error: { isError: error instanceof Error, name, message, json: JSON.stringify(error) } };
  }
}

/** Calls a callback-style method and settles its outcome the same way. */
export function viaCallback(method: (options: any, cb: Callback) => void, options: any): Promise<Outcome> {
  return outcome(new Promise((resolve, reject) => method(options, (err, result) => (err ? reject(err) : resolve(result)))));
}

/** Clock readings must be within this of the test's clock (same machine as the server). */
const CLOCK_SLACK_MS = 60_000;

function nearNowMs(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value) && Math.abs(value - Date.now()) < CLOCK_SLACK_MS;
}

function nearNowSeconds(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && Math.abs(value * 1000 - Date.now()) < CLOCK_SLACK_MS;
}

/**
 * Replaces run-specific values in results with tokens: each message id becomes `<id1>`, `<id2>`,
 * ... in the order the run first returned it (so "received the message sent second" compares);
 * `fr` and `sent` become `<ms>` when they are numbers near now (and `sent` agrees with the id);
 * `created` and `modified` become `<s>` when they are whole epoch seconds near now. A value that
 * fails these checks is left as it is, so the comparison shows it.
 */
export function idTokens(): (value: unknown) => unknown {
  const tokens = new Map<string, string>();
  const normalise = (value: unknown): unknown => {
    if (typeof value === "string" && MESSAGE_ID.test(value)) {
      if (!tokens.has(value)) tokens.set(value, `<id${tokens.size + 1}>`);
      return tokens.get(value);
    }
    if (Array.isArray(value)) return value.map(normalise);
    if (value === null || typeof value !== "object") return value;
    const record = value as Record<string, unknown>;
    const result: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(record)) {
      if (key === "fr" && nearNowMs(field)) result[key] = "<ms>";
      else if (key === "sent" && nearNowMs(field) && sentMatchesId(field as number, record.id)) result[key] = "<ms>";
      else if ((key === "created" || key === "modified") && nearNowSeconds(field)) result[key] = "<s>";
      else result[key] = normalise(field);
    }
    return result;
  };
  return normalise;
}

function sentMatchesId(sent: number, id: unknown): boolean {
  return typeof id === "string" && sent === parseInt(id.slice(0, 10), 36) / 1000;
}

/**
 * `snapshot()` of a namespace with the namespace in key names replaced by `<ns>`, so two runs in
 * different namespaces compare, and -0 scores made 0 (chai's deep equal tells them apart, and
 * rounding a just-due score gives -0).
 */
export async function namespacedSnapshot(client: RedisClientType, ns: string, watch?: WriteWatch): Promise<Snapshot> {
  const state = await snapshot(client, ns, watch);
  const renamed: Snapshot = {};
  for (const [key, value] of Object.entries(state)) {
    const entry = value as { zset?: Array<[string, number]> };
    renamed[`<ns>${key.slice(ns.length)}`] = entry.zset
      ? { zset: entry.zset.map(([member, score]) => [member, score === 0 ? 0 : score]) }
      : value;
  }
  return renamed;
}

/**
 * Everything a namespace holds, exactly (no normalising): for "nothing was written" checks,
 * where the same namespace is read twice.
 */
export async function exactState(client: RedisClientType, ns: string): Promise<Record<string, unknown>> {
  const keys = (await allKeys(client, `${ns}:*`)).sort();
  const state: Record<string, unknown> = {};
  for (const key of keys) {
    const type = await client.type(key);
    if (type === "hash") state[key] = await client.hGetAll(key);
    else if (type === "zset") state[key] = await client.zRangeWithScores(key, 0, -1);
    else if (type === "set") state[key] = (await client.sMembers(key)).sort();
    else if (type === "string") state[key] = await client.get(key);
    else state[key] = `<${type}>`;
  }
  return state;
}

/**
 * Direct access to the scenario's namespace, for states the API cannot produce (a message whose
 * body is gone, an old `created` time): `key("q:Q")` is `<ns>:q:Q` as the library lays it out
 * where it runs (see rawKey), and `client` reaches it (one-key commands only on a cluster).
 */
export interface RawAccess {
  client: RedisClientType;
  key(name: string): string;
}

/** A sequence of calls; it returns what it wants compared (usually Outcomes), in order. */
export type Scenario = (api: Api, raw: RawAccess) => Promise<unknown[]>;

export interface Run {
  results: unknown[];
  state: Snapshot;
}

/** The methods a scenario calls, each of which `watched()` runs inside a TIME window. */
const WATCHED_METHODS = [
  "createQueue",
  "listQueues",
  "deleteQueue",
  "getQueueAttributes",
  "setQueueAttributes",
  "sendMessage",
  "receiveMessage",
  "popMessage",
  "deleteMessage",
  "changeMessageVisibility",
] as const;

/**
 * `api` with every call (promise and callback forms, quit aside: it writes nothing) made inside
 * `watch.around()`, so what it writes is checked. A callback is called once the window closed.
 */
export function watched(api: Api, watch: WriteWatch): Api {
  const result = Object.create(api) as Record<string, unknown>;
  const methods = api as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of WATCHED_METHODS) {
    const promised = methods[`${name}Async`];
    const withCallback = methods[name];
    result[`${name}Async`] = (...args: unknown[]) => watch.around(() => promised(...args) as Promise<unknown>);
    result[name] = (...args: unknown[]) => {
      const cb = args.pop() as Callback;
      const settled = watch.around(
        () => new Promise<[unknown, unknown]>((resolve) => withCallback(...args, (err: unknown, value: unknown) => resolve([err, value]))),
      );
      settled.then(
        ([err, value]) => cb(err, value),
        (error: unknown) => cb(error),
      );
    };
  }
  return result as unknown as Api;
}

/**
 * Runs a scenario on a fresh client of `library` and returns its normalised results and state;
 * rsmq-next through `nextClient` when given (see optionsFor).
 */
export async function run(library: Library, scenario: Scenario, nextClient?: unknown): Promise<Run> {
  const instance = await open(library, undefined, nextClient);
  const client = await dataClient(library);
  try {
    const watch = new WriteWatch(client, instance.ns);
    let results: unknown[];
    try {
      const raw = { client, key: instance.key };
      results = idTokens()(await scenario(watched(instance.api, watch), raw)) as unknown[];
    } finally {
      await instance.close();
    }
    watch.assertClean(library === "rsmq" ? "rsmq 0.12.4" : "rsmq-next");
    return { results, state: await namespacedSnapshot(client, instance.ns, watch) };
  } finally {
    await client.quit();
  }
}

/** The error names rsmq reports; anything else in a scenario is a mistake in the scenario. */
export const RSMQ_ERROR_NAMES = [
  "noAttributeSupplied",
  "missingParameter",
  "invalidFormat",
  "invalidValue",
  "messageNotString",
  "messageTooLong",
  "queueNotFound",
  "queueExists",
];

function errorNames(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(errorNames);
  if (value && typeof value === "object" && "error" in value) {
    return [(value as { error: { name: unknown } }).error.name];
  }
  return [];
}

/**
 * Runs `scenario` on rsmq and on rsmq-next and expects the same results and the same state.
 * `expected`, when given, pins the (normalised) results too, so a behaviour both libraries got
 * wrong the same way would still fail. `nextClient`, when given, is the client rsmq-next is
 * passed instead of the run's (see optionsFor).
 */
export async function expectSameAsRsmq(scenario: Scenario, expected?: unknown[], nextClient?: unknown): Promise<Run> {
  const old = await run("rsmq", scenario);
  const next = await run("next", scenario, nextClient);
  expect(next.results, "results (rsmq-next vs rsmq)").to.deep.equal(old.results);
  expect(next.state, "Redis state (rsmq-next vs rsmq)").to.deep.equal(old.state);
  // Guards the scenario itself: errors must be rsmq's own, not a crash both share.
  for (const name of errorNames(old.results)) expect(RSMQ_ERROR_NAMES, "error name").to.include(name);
  if (expected) expect(next.results, "results").to.deep.equal(expected);
  return next;
}

/** Shorthands for expected outcomes. */
export const ok = (value: unknown): Outcome => ({ value });
export const fails = (name: string, message: string): Outcome => ({
  error: { isError: true, name, message, json: JSON.stringify({ name, message }) },
});
export const QUEUE_NOT_FOUND = fails("queueNotFound", "Queue not found");
