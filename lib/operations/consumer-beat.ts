/**
 * A Worker's heartbeat: its entry in the queue's `:Q` hash, written in the look it makes anyway
 * (lua/lookAndBeat-2.lua) and removed when it stops (lua/removeConsumer-2.lua), so
 * listConsumers (list-consumers.ts) can say who consumes a queue where `CLIENT LIST` is refused.
 */
import { randomBytes } from "crypto";
import { rsmqError } from "../errors/rsmq-errors";
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import { idleLook } from "./next-due";
import type { IdleLook } from "./next-due";

/** A Worker's id: 16 characters of [A-Za-z0-9]. */
export const WORKER_ID_FORMAT = /^[A-Za-z0-9]{16}$/;
/** The longest an entry may live without a beat: a day (a longer one is more likely a unit mistake). */
export const MAX_BEAT_TTL_MS = 86_400_000;

const WORKER_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** What a beat writes: whose entry, what it says, and how long it lives without the next beat. */
export interface ConsumerBeat {
  /** The Worker's id ({@link newWorkerId}). */
  workerId: string;
  /** Its description ({@link beatJson}). */
  json: string;
  /** ms until the entry lapses unless the Worker beats again: a whole number from 1 to MAX_BEAT_TTL_MS. */
  ttlMs: number;
}

/** A new Worker's id: 16 characters of [A-Za-z0-9] from a cryptographic source (62^16: no two Workers meet). */
export function newWorkerId(): string {
  let id = "";
  while (id.length < 16) {
    for (const byte of randomBytes(32)) {
      // 248 = 62 * 4: the bytes above would favour some characters.
      if (byte < 248 && id.length < 16) id += WORKER_ID_ALPHABET[byte % 62];
    }
  }
  return id;
}

/** A Worker's description as its entry stores it: `startedAt` is epoch ms on its own clock. */
export function beatJson(host: string, pid: number, concurrency: number, startedAt: number): string {
  return JSON.stringify({ host, pid, concurrency, startedAt });
}

function validateWorkerId(value: unknown): string {
  if (typeof value !== "string" || !WORKER_ID_FORMAT.test(value)) {
    throw rsmqError("invalidValue", `Expected \`workerId\` to be 16 characters of [A-Za-z0-9], got ${JSON.stringify(value)}`);
  }
  return value;
}

function validateBeat(beat: ConsumerBeat): ConsumerBeat {
  const workerId = validateWorkerId(beat.workerId);
  if (typeof beat.json !== "string") throw rsmqError("invalidValue", "Expected `json` to be a string");
  const { ttlMs } = beat;
  if (typeof ttlMs !== "number" || !Number.isInteger(ttlMs) || ttlMs < 1 || ttlMs > MAX_BEAT_TTL_MS) {
    throw rsmqError("invalidValue", `Expected \`ttlMs\` to be a whole number from 1 to ${MAX_BEAT_TTL_MS}, got ${String(ttlMs)}`);
  }
  return { workerId, json: beat.json, ttlMs };
}

/**
 * The Worker's look (idleLook in next-due.ts, answered and parsed exactly the same) that also
 * writes its heartbeat entry and sweeps the expired entries of other Workers. A missing queue
 * fails with queueNotFound, writing nothing.
 */
export function lookAndBeat(layout: KeyLayout, qname: unknown, beat: ConsumerBeat): Operation<IdleLook> {
  const look = idleLook(layout, qname);
  const { workerId, json, ttlMs } = validateBeat(beat);
  return { ...look, script: "lookAndBeat", args: [workerId, json, integerArg(ttlMs)] };
}

/** A stopping Worker's entry removed: 1 when it was there, else 0 (a deleted queue included). */
export function removeConsumer(layout: KeyLayout, qname: unknown, workerId: string): Operation<0 | 1> {
  const keys = layout.queue(validateQname(qname));
  return {
    script: "removeConsumer",
    keys: [keys.messages, keys.hash],
    args: [validateWorkerId(workerId)],
    parse(reply) {
      failIfCode(reply);
      return Number(reply) === 1 ? 1 : 0;
    },
  };
}
