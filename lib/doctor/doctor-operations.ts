/**
 * The doctor's scripts as Operations (lua/doctor*.lua): three looks that only read, and the
 * repairs, each of which checks again in the same script what it changes.
 */
import { failIfCode, integerArg } from "../operations/operation";
import type { Operation } from "../operations/operation";
import type { QueueKeys } from "../keys";
import { MAXED_FIELD, MESSAGE_FIELD_SUFFIXES, QUEUE_FIELDS } from "../operations/queue-fields";

/** What doctorFields-2.lua can report of a field. */
export type FieldProblem = "fieldWithoutMessage" | "bodyWithoutMember" | "staleFairTag" | "unknownField";

/** One step of a chunked pass: where to go on (`"0"`: done) and what this chunk found. */
export interface Chunk<T> {
  readonly cursor: string;
  readonly found: T[];
}

export interface FieldFinding {
  readonly kind: FieldProblem;
  readonly field: string;
}

/** A queue hash's size, its set's, and the values of `fields` (null when absent). */
export interface QueueLook {
  readonly hashFields: number;
  readonly members: number;
  readonly values: Array<string | null>;
}

export function lookAtQueue(keys: QueueKeys, fields: readonly string[]): Operation<QueueLook> {
  return {
    script: "doctorQueue",
    keys: [keys.messages, keys.hash],
    args: [...fields],
    parse(reply) {
      const [hashFields, members, ...values] = reply as [number, number, ...Array<string | null | false>];
      return { hashFields, members, values: values.map((value) => (typeof value === "string" ? value : null)) };
    },
  };
}

export function lookAtFields(keys: QueueKeys, cursor: string, count: number): Operation<Chunk<FieldFinding>> {
  return {
    script: "doctorFields",
    keys: [keys.messages, keys.hash],
    // `maxed` is the queue's own too (a receive held at its concurrency limit), though a purge drops it.
    args: [cursor, integerArg(count), ...QUEUE_FIELDS, MAXED_FIELD],
    parse(reply) {
      const [next, ...pairs] = reply as string[];
      const found: FieldFinding[] = [];
      for (let i = 0; i < pairs.length; i += 2) found.push({ kind: pairs[i] as FieldProblem, field: pairs[i + 1] });
      return { cursor: String(next), found };
    },
  };
}

export function lookAtMembers(keys: QueueKeys, cursor: string, count: number): Operation<Chunk<string>> {
  return {
    script: "doctorMembers",
    keys: [keys.messages, keys.hash],
    args: [cursor, integerArg(count)],
    parse(reply) {
      const [next, ...members] = reply as string[];
      return { cursor: String(next), found: members };
    },
  };
}

/** Resolves, per item, whether it was repaired (false: it was no longer out of place). */
export function repairFields(keys: QueueKeys, findings: readonly FieldFinding[]): Operation<boolean[]> {
  return {
    script: "doctorRepairFields",
    keys: [keys.messages, keys.hash],
    args: findings.flatMap(({ kind, field }) => [kind, field]),
    parse: repairedFlags,
  };
}

/** Resolves, per member, whether it was removed (false: its body is back, or it is gone). */
export function repairMembers(keys: QueueKeys, members: readonly string[]): Operation<boolean[]> {
  return {
    script: "doctorRepairMembers",
    keys: [keys.messages, keys.hash],
    args: [String(MESSAGE_FIELD_SUFFIXES.length), ...MESSAGE_FIELD_SUFFIXES, ...members],
    parse: repairedFlags,
  };
}

export interface SettingsRepaired {
  /** The settings given their default. */
  readonly defaulted: Array<"vt" | "delay" | "maxsize">;
  readonly retentionRemoved: boolean;
}

/**
 * Gives missing settings their defaults (only while the queue still has one of the three) and
 * removes `badRetention` (only while it still holds that value; undefined: left alone).
 */
export function repairSettings(
  keys: QueueKeys,
  defaults: { vt: number; delay: number; maxsize: number },
  badRetention: string | undefined,
): Operation<SettingsRepaired> {
  return {
    script: "doctorRepairSettings",
    keys: [keys.hash],
    args: [integerArg(defaults.vt), integerArg(defaults.delay), integerArg(defaults.maxsize), badRetention ?? ""],
    parse(reply) {
      failIfCode(reply);
      const [vt, delay, maxsize, retention] = reply as number[];
      const defaulted = (["vt", "delay", "maxsize"] as const).filter((_, i) => [vt, delay, maxsize][i] === 1);
      return { defaulted, retentionRemoved: retention === 1 };
    },
  };
}

/** Lists or unlists a queue where the registry shares its slot; resolves whether the registry changed. */
export function repairRegistry(keys: QueueKeys, action: "list" | "unlist", qname: string): Operation<boolean> {
  return {
    script: "doctorRepairRegistry",
    keys: [keys.registry, keys.hash],
    args: [action, qname],
    parse: (reply) => reply === 1,
  };
}

function repairedFlags(reply: unknown): boolean[] {
  return (reply as number[]).map((flag) => flag === 1);
}
