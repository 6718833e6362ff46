/** The doctor: what it looks at, the kinds of thing out of place, and its report. */

/** What {@link RedisSMQ.doctorAsync} looks at, and whether it repairs. */
export interface DoctorOptions {
  /**
   * Repair what can be repaired (see {@link DoctorFindingKind}), in chunks, each chunk one
   * script that checks again what it changes; safe while producers and consumers work. Without
   * it the doctor runs read-only scripts only (EVALSHA_RO) and writes nothing.
   * @default false
   */
  fix?: boolean;
  /**
   * Only these queues, and their entries in the registry. Without it: every queue of the
   * namespace, the registry's and those SCAN finds (on every master in Redis Cluster).
   * @default every queue of the namespace
   */
  qnames?: string[];
  /**
   * Fields or members one script looks at (the COUNT of its HSCAN or ZSCAN, and of SCAN), from 1
   * to 1000: each call blocks Redis for about that many small reads.
   * @default 200
   */
  chunk?: number;
}

/**
 * A kind of thing out of place, and what `fix` does to it:
 * - `fieldWithoutMessage`: a message's field `<id>:<suffix>` (`rc`, `fr`, `dl`, `tp`, `at`, or
 *   any other) whose message `<id>` is gone, as rsmq 0.12.4's delete and pop leave `:dl`, `:tp`
 *   and `:at`.
 *   Fix: removed.
 * - `memberWithoutBody`: a message id in the sorted set with no body, which an rsmq 0.12.4
 *   receive hands to user code as `message: null`. Fix: removed from the set, with its fields.
 * - `bodyWithoutMember`: a body with no member, which no receive can reach. Fix: put back in
 *   the sorted set, visible now (kept and delivered, never deleted).
 * - `staleFairTag`: a tenant's fair tag `~fq:<tenant>` (docs/fair-queues.md) below every
 *   priority level's head, which no send reads any more. Fix: removed.
 * - `registryWithoutQueue`: a name in `<ns>:QUEUES` with no queue. Fix: unlisted.
 * - `queueNotInRegistry`: a queue `listQueues` does not show. Fix: listed.
 * - `missingSetting`: a queue hash lacking `vt`, `delay` or `maxsize` (rsmq 0.12.4 answers
 *   queueNotFound). Fix: rsmq's default (30, 0, 65536) is set.
 * - `invalidRetention`: `retention` that is not a whole number from 0 to 9999999. Fix: removed,
 *   so messages are kept for ever (as without retention; nothing is deleted on a guess).
 * - `invalidSetting`: `vt`, `delay` or `maxsize` that is not an integer in rsmq's range, or an
 *   `expireto` that is not a queue name or names the queue itself. Reported only: set it with
 *   setQueueAttributes.
 * - `unknownField`: a field of the queue hash that is neither a setting, a counter nor a
 *   message's. Reported only.
 * - `leftoverHash`: a `:Q` hash with none of `vt`, `delay` and `maxsize` (what a send racing a
 *   deleteQueue can leave). Reported only: createQueue makes it a queue again, DEL removes it.
 * - `expired`: messages older than their queue's retention, removed by the retention sweep that
 *   runs on each queue with `fix`.
 */
export type DoctorFindingKind =
  | "fieldWithoutMessage"
  | "memberWithoutBody"
  | "bodyWithoutMember"
  | "staleFairTag"
  | "registryWithoutQueue"
  | "queueNotInRegistry"
  | "missingSetting"
  | "invalidRetention"
  | "invalidSetting"
  | "unknownField"
  | "leftoverHash"
  | "expired";

/** One thing out of place, as an example of its kind. */
export interface DoctorExample {
  /** The queue it was found in (for the registry's kinds: the name listed or missing). */
  qname: string;
  /** The field, member or setting (for the registry: the name). */
  item: string;
  /** What is wrong with it, where the kind does not say it all (a setting's value). */
  detail?: string;
}

/** Everything of one kind the doctor found, and what it repaired. */
export interface DoctorFinding {
  /** What is out of place, and what `fix` does to it: see {@link DoctorFindingKind}. */
  kind: DoctorFindingKind;
  /** How many were found. */
  found: number;
  /** How many the fix repaired (0 without `fix`). */
  fixed: number;
  /** How many are still out of place: found, less repaired, less those set right meanwhile by someone else. */
  left: number;
  /** Whether `fix` repairs this kind; the others need a person. */
  repairable: boolean;
  /** The first few found (at most 5). */
  examples: DoctorExample[];
}

/** What {@link RedisSMQ.doctorAsync} found in a namespace, and did. */
export interface DoctorReport {
  /** The namespace, without the trailing colon. */
  ns: string;
  /** Whether it repaired (the `fix` option). */
  fix: boolean;
  /** How many queues it looked at. */
  queues: number;
  /** One entry per kind found, in the order of {@link DoctorFindingKind}; empty when all is in place. */
  findings: DoctorFinding[];
  /** How many things are still out of place (the sum of `left`): 0 when all is in place now. */
  left: number;
}
