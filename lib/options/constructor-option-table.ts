/**
 * Every option of the RedisSMQ constructor, declared once: its default and its check. The rest
 * follows from this table.
 * - Derived: `CONSTRUCTOR_DEFAULTS`, `QUEUE_KEYS` (every other key goes to the Redis connection)
 *   and with it the known options of the unknown-option warning, and the types of the resolved
 *   settings (`ResolvedOption`).
 * - What each option does, and its `@default`, is documented on ConstructorOptions (lib/types/options.ts);
 *   test/docs/option-defaults.test.ts holds each `@default` to this table.
 * - `tsc` fails when the table misses an option ConstructorOptions names, holds one it does not
 *   name, or gives one a default or check of another type.
 */
import type { RedisClusterOptions } from "redis";
import { hasStringNumbers, isIoredis, keyPrefixOf } from "../transports/ioredis/client-shape";
import type { ConstructorOptions } from "../types";
import { booleanOption, integerOption, numberOption, optionError } from "./checks";
import { telemetryOption } from "../telemetry/telemetry-options";
import { KNOWN_CLIENTS, describeUnknownClient, isKnownClient } from "./connection/given-client";

/** Checks a given value (never undefined or null: rsmq reads both as left out) and returns it typed; throws a TypeError naming the option. */
export type OptionCheck<T> = (name: string, value: unknown) => T;

/** One option of the table. */
interface ConstructorOption<T> {
  /** The value when the option is left out. Absent when the default is no value (ConstructorOptions says what happens then). */
  readonly default?: T;
  /** Absent for `options` and for the connection keys, which keep rsmq 0.12.4's tolerance. */
  readonly check?: OptionCheck<T>;
  /** A connection key: handed to the Redis client (connection/client-options.ts), never read by the queue. */
  readonly connection?: true;
}

/** The names ConstructorOptions declares, without its index signature (the keys handed to the connection). */
type DeclaredName<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/** The most command connections one instance may keep. */
export const MAX_CONNECTIONS = 16;

/**
 * The table. Its order is the order of the known options in the unknown-option warning (the
 * queue's own keys first; the connection keys are listed there by client-options.ts).
 */
export const CONSTRUCTOR_OPTIONS = {
  // rsmq 0.12.4 took any ns and any realtime value: as a string, and as true or false.
  ns: { default: "rsmq", check: (_name, value) => String(value) },
  realtime: { default: false, check: (_name, value) => Boolean(value) },
  wakeConsumers: { default: true, check: booleanOption },
  client: { check: clientOption },
  // The nested connection options, read where the client is made (connection/client-options.ts, nested-options.ts).
  options: {},
  cluster: { check: clusterOption },
  clusterRetryMs: { default: 30_000, check: (name, value) => numberOption(name, value, 0) },
  honorNestedOptions: { default: false, check: booleanOption },
  waitForReplicas: { default: 0, check: (name, value) => integerOption(name, value, 0) },
  waitForReplicasMs: { default: 1_000, check: (name, value) => integerOption(name, value, 1) },
  offlineTimeoutMs: { default: 20_000, check: boundMs },
  commandTimeoutMs: { default: 10_000, check: boundMs },
  // Left out: the wake subscription is checked with the Workers' polls (transports/subscriber-health.ts).
  subscriberPingMs: { default: undefined, check: boundMs },
  // Left out: a second one opens under load; what a client or a cluster allows is checked in constructor-options.ts.
  connections: { default: 1, check: (name, value) => integerOption(name, value, 1, MAX_CONNECTIONS) },
  // Off when left out: no span, no metric, and @opentelemetry/api is never loaded.
  telemetry: { default: false, check: telemetryOption },
  host: { default: "127.0.0.1", connection: true },
  port: { default: 6379, connection: true },
  password: { default: null, connection: true },
} as const satisfies { readonly [K in DeclaredName<ConstructorOptions>]-?: ConstructorOption<ConstructorOptions[K]> };

type Table = typeof CONSTRUCTOR_OPTIONS;
type NameWhere<Entry> = { [K in keyof Table]: Table[K] extends Entry ? K : never }[keyof Table];

/** The options with a check: read with {@link readOption}. */
export type CheckedName = NameWhere<{ readonly check: OptionCheck<unknown> }>;
/** The connection keys ConstructorOptions names (`host`, `port`, `password`). */
export type ConnectionKeyName = NameWhere<{ readonly connection: true }>;
type DefaultedName = NameWhere<{ readonly default: unknown }>;
type DefaultOf<Entry> = Entry extends { readonly default: infer D } ? D : undefined;

/** What option `K` resolves to: what its check returns, or its default. */
export type ResolvedOption<K extends CheckedName> = Table[K] extends { readonly check: OptionCheck<infer T> }
  ? T | DefaultOf<Table[K]>
  : never;

/** The defaults that are values (each documented on ConstructorOptions). */
export const CONSTRUCTOR_DEFAULTS = Object.fromEntries(
  Object.entries(CONSTRUCTOR_OPTIONS).flatMap(([name, option]) => ("default" in option ? [[name, option.default]] : [])),
) as { readonly [K in DefaultedName]: DefaultOf<Table[K]> };

/** The keys the queue reads itself; every other key goes to the Redis connection. */
export const QUEUE_KEYS: ReadonlySet<string> = new Set(
  Object.entries(CONSTRUCTOR_OPTIONS).flatMap(([name, option]) => ("connection" in option ? [] : [name])),
);

/** Option `name` of the given options: checked, or its default when left out (rsmq reads null as left out). */
export function readOption<K extends CheckedName>(given: Readonly<Record<string, unknown>>, name: K): ResolvedOption<K> {
  const option: { readonly default?: unknown; readonly check: OptionCheck<unknown> } = CONSTRUCTOR_OPTIONS[name];
  const value = given[name];
  return (value === undefined || value === null ? option.default : option.check(name, value)) as ResolvedOption<K>;
}

/** A bound in ms, where 0 turns it off. */
function boundMs(name: string, value: unknown): number {
  return numberOption(name, value, 0, " (0 turns it off)");
}

/** Cluster options this instance opens a cluster client with: they must name the root nodes. */
function clusterOption(name: string, value: unknown): RedisClusterOptions {
  if (typeof value !== "object" || !Array.isArray((value as Partial<RedisClusterOptions>).rootNodes)) {
    throw optionError(name, "node-redis cluster options with a `rootNodes` array", value);
  }
  return value as RedisClusterOptions;
}

/**
 * A client the package knows passes (what it is decides the transport; see given-client.ts), except an ioredis client with one of two
 * settings, refused before anything is sent: `keyPrefix` would be put in front of every key
 * rsmq-next sends, moving the queues away from where rsmq 0.12.4 (and every other client) looks
 * for them; `stringNumbers` would turn counts and codes in replies into strings (`msgs: "1"`, a
 * delete read as not done).
 */
function clientOption(name: string, client: unknown): unknown {
  if (!isKnownClient(client)) throw new TypeError(`Expected \`${name}\` to be ${KNOWN_CLIENTS}, got ${describeUnknownClient(client)}`);
  if (!isIoredis(client)) return client;
  const prefix = keyPrefixOf(client);
  if (prefix !== undefined) {
    throw new TypeError(
      `Expected \`client\` to be an ioredis client without \`keyPrefix\`, got one with keyPrefix \`${prefix}\`: ` +
        "it would move every queue's keys away from where other rsmq clients look. Give the prefix as `ns` instead.",
    );
  }
  if (hasStringNumbers(client)) {
    throw new TypeError(
      "Expected `client` to be an ioredis client without `stringNumbers`, got one with stringNumbers `true`: " +
        "rsmq-next reads integer replies as numbers. Pass a client made without it (`duplicate({ stringNumbers: false })`).",
    );
  }
  return client;
}
