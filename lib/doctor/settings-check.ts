/**
 * Which of a queue's settings an rsmq 0.12.4 client would refuse or misread, and which of
 * rsmq-next's own queue fields hold a value it cannot use: pure, from the values the doctor read.
 * rsmq 0.12.4 answers queueNotFound when vt, delay or maxsize is missing, and reads each with
 * `parseInt`, so "30.5" is 30 to it and "abc" a NaN score: only decimal integers in its ranges
 * (lib/operations/rsmq-input-rules.ts) are in place.
 */
import { MAX_MAXSIZE, MAX_SECONDS, MIN_MAXSIZE, QNAME_FORMAT, RESERVED_QNAME } from "../operations/rsmq-input-rules";
import { QUEUE_DEFAULTS } from "../operations/create-queue";

/** The fields the check reads, in the order it takes their values. */
export const CHECKED_FIELDS = ["vt", "delay", "maxsize", "retention", "expireto"] as const;

/** The largest retention, in seconds (as vt and delay). */
export const MAX_RETENTION = MAX_SECONDS;

export type SettingProblem =
  /** vt, delay or maxsize is absent: fix gives it rsmq's default. */
  | { readonly kind: "missingSetting"; readonly field: "vt" | "delay" | "maxsize"; readonly defaultValue: number }
  /** retention is not a whole number of seconds in range: fix removes it (messages kept for ever). */
  | { readonly kind: "invalidRetention"; readonly field: "retention"; readonly value: string }
  /** Anything else: reported only. */
  | { readonly kind: "invalidSetting"; readonly field: string; readonly value: string; readonly expected: string };

const INTEGER = /^-?\d+$/;
const WHOLE_SECONDS = /^\d+$/;

function inRange(value: string, min: number, max: number): boolean {
  return INTEGER.test(value) && Number(value) >= min && Number(value) <= max;
}

/** The problems of a queue named `qname` whose CHECKED_FIELDS hold `values` (null: absent). */
export function settingProblems(qname: string, values: ReadonlyArray<string | null>): SettingProblem[] {
  const [vt, delay, maxsize, retention, expireto] = values;
  const problems: SettingProblem[] = [];
  const seconds = (field: "vt" | "delay", value: string | null): void => {
    if (value === null) problems.push({ kind: "missingSetting", field, defaultValue: QUEUE_DEFAULTS[field] });
    else if (!inRange(value, 0, MAX_SECONDS))
      problems.push({ kind: "invalidSetting", field, value, expected: `an integer from 0 to ${MAX_SECONDS}` });
  };
  seconds("vt", vt);
  seconds("delay", delay);
  if (maxsize === null) problems.push({ kind: "missingSetting", field: "maxsize", defaultValue: QUEUE_DEFAULTS.maxsize });
  else if (maxsize !== "-1" && !inRange(maxsize, MIN_MAXSIZE, MAX_MAXSIZE))
    problems.push({
      kind: "invalidSetting",
      field: "maxsize",
      value: maxsize,
      expected: `-1 or an integer from ${MIN_MAXSIZE} to ${MAX_MAXSIZE}`,
    });
  if (retention !== null && !(WHOLE_SECONDS.test(retention) && Number(retention) <= MAX_RETENTION))
    problems.push({ kind: "invalidRetention", field: "retention", value: retention });
  if (expireto !== null && (!QNAME_FORMAT.test(expireto) || expireto === RESERVED_QNAME || expireto === qname)) {
    const expected = expireto === qname ? "another queue's name" : "a queue name";
    problems.push({ kind: "invalidSetting", field: "expireto", value: expireto, expected });
  }
  return problems;
}
