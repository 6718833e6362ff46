/**
 * What each call writes, checked at the byte level against the form rsmq 0.12.4 writes, before
 * any of it is replaced by a token for comparison. A call made through `around()` is bracketed by
 * a read of the namespace and the server's TIME, before and after; every key, hash field and score
 * the call created or changed is then checked:
 *
 * - `created`, `modified`: whole epoch seconds, digits only (rsmq writes TIME's seconds as they
 *   come), within the call's TIME window;
 * - `<id>:fr`: epoch ms, digits only, within the window;
 * - a sorted-set score: an integer, epoch ms within the window plus whole seconds (a delay or vt:
 *   rsmq parses both with parseInt);
 * - a new message id: 10 lower-case base36 digits of the server's microsecond TIME within the
 *   window, then 22 characters of [A-Za-z0-9];
 * - every key: no TTL (rsmq sets none).
 *
 * Every other field (bodies, counters, vt, delay, maxsize, rc) is compared verbatim with rsmq's.
 * A value that passed gets a token for `snapshot()` (state.ts): `<s>` for seconds, `<ms of #3>`
 * for a first receive (the third call wrote it), `+30s` for a score (30 s after the call); one
 * that failed is a problem, named with its key, field, value and the form expected, and
 * `assertClean()` throws with all of them.
 *
 * Calls started while others are in flight (a `Promise.all` of sends) share one window, from the
 * first one's start to the last one's end.
 */
import type { RedisClientType } from "redis";
import { allKeys, serverNowUs } from "./inspect";

/** 10 base36 digits of microseconds (until 2085) and 22 random characters: rsmq's 32-character id. */
const ID_FORM = /^([0-9a-z]{10})[A-Za-z0-9]{22}$/;
/** A whole number as rsmq writes one: digits, no sign, no leading zero, no ".0". */
const DIGITS = /^[1-9][0-9]*$/;
/** The queue hash's own fields; any other field belongs to a message (`<id>`, `<id>:rc`, ...). */
const QUEUE_FIELDS = new Set(["vt", "delay", "maxsize", "created", "modified", "totalsent", "totalrecv"]);

interface KeyState {
  type: string;
  /** PTTL: -1 for no TTL. */
  pttl: number;
  hash?: Record<string, string>;
  zset?: Map<string, number>;
}

type State = Map<string, KeyState>;

/** A call's TIME window, in microseconds, and the label its tokens carry. */
interface Window {
  label: string;
  fromUs: number;
  toUs: number;
}

interface Opened {
  label: string;
  before: State;
  fromUs: number;
}

/** Which kind of value a token stands for. */
type Kind = "field" | "score";

export class WriteWatch {
  /** What was written that rsmq 0.12.4 would not write, one line each. */
  readonly problems: string[] = [];
  private readonly tokens = new Map<string, { value: string; token: string }>();
  private readonly checkedIds = new Set<string>();
  private readonly keysWithTtl = new Set<string>();
  private calls = 0;
  private inFlight = 0;
  private opening: Promise<Opened> | undefined;
  private closed: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: RedisClientType,
    private readonly ns: string,
  ) {}

  /**
   * Runs `action` (one call of a library) inside a TIME window and checks what it wrote.
   * `label` names the call in tokens (default `#<n>`, the n-th window of this watch): give the
   * same label to calls that two runs make in different numbers (one batch against three
   * single receives) but that must leave the same data.
   */
  async around<T>(action: () => Promise<T>, label?: string): Promise<T> {
    if (this.inFlight++ === 0) {
      const name = label ?? `#${++this.calls}`;
      this.opening = this.closed.then(() => this.open(name));
    }
    const opening = this.opening!;
    try {
      await opening;
      return await action();
    } finally {
      if (--this.inFlight === 0) {
        this.closed = opening.then((opened) => this.close(opened));
        await this.closed;
      }
    }
  }

  /** The token for a value this watch checked, or undefined when no call wrote it (the test did). */
  tokenOf(key: string, kind: Kind, name: string, value: string | number): string | undefined {
    const entry = this.tokens.get(slot(key, kind, name));
    return entry && entry.value === String(value) ? entry.token : undefined;
  }

  /** Throws with every problem found so far, naming `who` wrote them. */
  assertClean(who: string): void {
    if (this.problems.length === 0) return;
    throw new Error(`${who} wrote data that rsmq 0.12.4 would not write:\n  - ${this.problems.join("\n  - ")}`);
  }

  private async open(label: string): Promise<Opened> {
    const before = await readState(this.client, this.ns);
    return { label, before, fromUs: await serverNowUs(this.client) };
  }

  private async close({ label, before, fromUs }: Opened): Promise<void> {
    const window = { label, fromUs, toUs: await serverNowUs(this.client) };
    const after = await readState(this.client, this.ns);
    for (const [key, state] of after) {
      if (state.pttl !== -1 && !this.keysWithTtl.has(key)) {
        this.keysWithTtl.add(key);
        this.problems.push(`${key}: a TTL (PTTL ${state.pttl} ms) after call ${label}; rsmq 0.12.4 sets no TTL on any key`);
      }
      const old = before.get(key);
      for (const [field, value] of Object.entries(state.hash ?? {})) {
        if (old?.hash?.[field] !== value) this.checkField(key, field, value, window);
      }
      for (const [member, score] of state.zset ?? []) {
        if (!old?.zset?.has(member)) this.checkId(key, member, window);
        if (old?.zset?.get(member) !== score) this.checkScore(key, member, score, window);
      }
    }
  }

  private checkField(key: string, field: string, value: string, window: Window): void {
    if (field === "created" || field === "modified") {
      const [from, to] = [Math.floor(window.fromUs / 1e6), Math.floor(window.toUs / 1e6)];
      if (this.within(`${key} field "${field}"`, value, from, to, "whole epoch seconds", window)) {
        this.tokens.set(slot(key, "field", field), { value, token: "<s>" });
      }
    } else if (field.endsWith(":fr")) {
      const [from, to] = [Math.floor(window.fromUs / 1000), Math.floor(window.toUs / 1000)];
      if (this.within(`${key} field "${field}"`, value, from, to, "epoch ms", window)) {
        this.tokens.set(slot(key, "field", field), { value, token: `<ms of ${window.label}>` });
      }
    } else if (!QUEUE_FIELDS.has(field) && !field.includes(":")) {
      this.checkId(key, field, window);
    }
  }

  /** Digits only, and a value from the server's clock during the call. */
  private within(what: string, value: string, from: number, to: number, unit: string, window: Window): boolean {
    const expected = `${unit} as digits only, from the server's TIME during call ${window.label} (${from}..${to})`;
    if (!DIGITS.test(value)) {
      this.problems.push(`${what} is ${JSON.stringify(value)}; rsmq 0.12.4 writes ${expected}`);
      return false;
    }
    if (Number(value) < from || Number(value) > to) {
      this.problems.push(`${what} is ${value}, outside the call's window; rsmq 0.12.4 writes ${expected}`);
      return false;
    }
    return true;
  }

  private checkScore(key: string, member: string, score: number, window: Window): void {
    const [fromMs, toMs] = [Math.floor(window.fromUs / 1000), Math.floor(window.toUs / 1000)];
    const seconds = Math.floor((score - fromMs) / 1000);
    const clock = score - seconds * 1000;
    if (!Number.isInteger(score) || seconds < 0 || clock > toMs) {
      this.problems.push(
        `${key} score of ${member} is ${score}; rsmq 0.12.4 writes an integer: epoch ms from the server's TIME during call ` +
          `${window.label} (${fromMs}..${toMs}) plus whole seconds of delay or vt`,
      );
      return;
    }
    this.tokens.set(slot(key, "score", member), { value: String(score), token: `+${seconds}s` });
  }

  private checkId(key: string, id: string, window: Window): void {
    if (this.checkedIds.has(id)) return;
    this.checkedIds.add(id);
    const expected =
      `10 lower-case base36 digits of the server's TIME in microseconds during call ${window.label} ` +
      `(${window.fromUs}..${window.toUs}), then 22 of [A-Za-z0-9]`;
    const form = ID_FORM.exec(id);
    if (!form) {
      this.problems.push(`${key}: message id ${JSON.stringify(id)} (${id.length} characters); rsmq 0.12.4 writes ${expected}`);
      return;
    }
    const stamp = parseInt(form[1], 36);
    if (stamp < window.fromUs || stamp > window.toUs) {
      this.problems.push(`${key}: message id ${id} stands for ${stamp} us, outside the call's window; rsmq 0.12.4 writes ${expected}`);
    }
  }
}

function slot(key: string, kind: Kind, name: string): string {
  return `${key}\n${kind}\n${name}`;
}

/** Every key of the namespace with its type, TTL and content (hashes and sorted sets in full). */
async function readState(client: RedisClientType, ns: string): Promise<State> {
  const keys = await allKeys(client, `${ns}:*`);
  const entries = await Promise.all(
    keys.map(async (key): Promise<[string, KeyState]> => {
      const [type, pttl] = await Promise.all([client.type(key), client.pTTL(key)]);
      const state: KeyState = { type, pttl };
      if (type === "hash") state.hash = await client.hGetAll(key);
      if (type === "zset") state.zset = new Map((await client.zRangeWithScores(key, 0, -1)).map(({ value, score }) => [value, score]));
      return [key, state];
    }),
  );
  return new Map(entries);
}

/**
 * `target` with each of its `...Async` methods (quitAsync aside) run inside `watch.around()`,
 * under `label` when given: for tests that call a library's promise API directly.
 */
export function watchedAsync<T extends object>(target: T, watch: WriteWatch, label?: string): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== "function" || typeof property !== "string" || !property.endsWith("Async") || property === "quitAsync") {
        return value;
      }
      return (...args: unknown[]) => watch.around(() => (value as (...a: unknown[]) => Promise<unknown>).apply(object, args), label);
    },
  });
}
