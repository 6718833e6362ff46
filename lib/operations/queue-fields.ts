/**
 * The fields of a queue's `:Q` hash that are not messages: rsmq 0.12.4's settings and counters,
 * and the ones rsmq-next adds. A message's fields are its id (32 characters of [A-Za-z0-9]) and
 * `<id>:<suffix>`; none of the names here can take either form, so an rsmq 0.12.4 client, which
 * reads fields only by name, never misreads them, and its deleteQueue takes them with the hash.
 * Purge keeps exactly these; the doctor knows every other field for a message's.
 */

/** rsmq 0.12.4's settings, read by every script with `HMGET vt delay maxsize`. */
export const RSMQ_SETTINGS = ["vt", "delay", "maxsize"] as const;
/** rsmq 0.12.4's counters and times. */
export const RSMQ_COUNTERS = ["totalrecv", "totalsent", "created", "modified"] as const;

/** Seconds a message is kept after it was sent (its id's time); absent or 0 keeps it for ever. */
export const RETENTION_FIELD = "retention";
/** The queue expired messages move to, with reason `expired`; absent: they are deleted. */
export const EXPIRE_TO_FIELD = "expireto";
/** How many messages expired so far (deleted or moved). */
export const TOTAL_EXPIRED_FIELD = "totalexpired";
/** Who sweeps the queue's expired messages, and until when (a lock with a TTL on the server's clock). */
export const SWEEP_LOCK_FIELD = "sweeplock";

/** When the last sweep of expired messages finished, epoch ms (server clock): an idle Worker sweeps again after a minute. */
export const SWEPT_AT_FIELD = "sweptat";

/** The queue's default deduplication window, in ms; absent: 300000. */
export const DEDUP_WINDOW_FIELD = "dedupwindow";

/**
 * The queue's pause (pauseQueue): `<sinceMs>:<untilMs or empty>:<kind>`, kind `s` (soft: a flag),
 * `h` (hard: every score shifted by HARD_PAUSE_OFFSET_MS) or `r` (a hard pause's resume still
 * restoring: not paused). Paused while it exists, its kind is not `r`, and `until` is empty or
 * later than the server's now; absent: not paused. Purge keeps it.
 */
export const PAUSED_FIELD = "paused";
/**
 * The queue's rate limit (setRateLimit): `<mode>;<max>/<perMs>/<burst>[,...]`, mode `r` (checked
 * at receive) or `p` (pace: sends spaced), 1 to 8 limits. Purge keeps it.
 */
export const RATE_LIMIT_FIELD = "ratelimit";
/**
 * Each limit's GCRA theoretical arrival time, integer µs on the server's clock, in the limits'
 * order (`<tat>[,<tat>...]`). Purge keeps it: a purge removes messages, not the receives (or, in
 * pace mode, the sends) the limit already counted.
 */
export const RATE_LIMIT_TAT_FIELD = "rltat";
/**
 * Receives blocked until then, epoch ms on the server's clock (rateLimitQueue, a handler's
 * RateLimitError). Purge keeps it: the downstream that asked for the pause is not purged.
 */
export const RATE_LIMIT_BLOCK_FIELD = "rlblock";

/**
 * The queue's concurrency limit (setConcurrency): the most messages in flight at once with
 * rsmq-next consumers, a decimal integer. Purge keeps it.
 */
export const CONCURRENCY_FIELD = "concurrency";
/**
 * `1` while a receive was held back at the concurrency limit and no slot has freed since: the
 * delete (or release) that frees one then removes it and publishes `~free:<ms>`, so a queue no one
 * waits on pays no publish. Purge drops it (a purge frees every slot).
 */
export const MAXED_FIELD = "maxed";
/**
 * The ids of the Workers that keep a heartbeat entry in the hash, space-separated: how a beat
 * finds the stale entries to sweep, and purge the entries to keep. Purge keeps it.
 */
export const CONSUMERS_FIELD = "consumers";
/**
 * The family of heartbeat entries, one per Worker: `~w:<workerId>` =
 * `<expiresAtMs>:<lastSeenMs>:<json>` (server clock; json: host, pid, concurrency, startedAt).
 * `~` keeps the family clear of the orphan sweep's `^%w+:(%a%a)$` and of every message's fields.
 * Purge keeps the entries its CONSUMERS_FIELD lists; the doctor knows the family.
 */
export const CONSUMER_FIELD_PREFIX = "~w:";

/**
 * The names of the queue's schedules (upsertSchedule), space-separated: how the schedule scripts
 * find the definitions, and purge the ones to keep. Purge keeps it.
 */
export const SCHEDULES_FIELD = "schedules";
/**
 * The earliest next slot of the queue's schedules that are neither paused nor ended, epoch ms on
 * the server's clock, 0 when one of them is not known yet (a firer settles it); absent when no
 * schedule is active. Written by every script that writes a schedule; what an idle consumer's
 * look reads to know when to fire. Purge keeps it.
 */
export const SCHEDULE_NEXT_FIELD = "schednext";
/**
 * The family of schedules, one per name: `~sched:<name>` = the definition and its state as JSON
 * (lua/upsertSchedule-2.lua lists the keys). Purge keeps the entries SCHEDULES_FIELD lists; the
 * doctor knows the family.
 */
export const SCHEDULE_FIELD_PREFIX = "~sched:";

/**
 * The family of fair-queue tags, one per tenant (docs/fair-queues.md): `~fq:<tenant>` = the score
 * of the tenant's last message sent without delay, without its priority's step and a hard pause's
 * shift (epoch ms, lua/shared/fair-score.lua). `~` keeps the family clear of the orphan sweep's
 * `^%w+:(%a%a)$` and of every message's fields (a tenant may hold `:`). The empty-queue sweep
 * (lua/shared/receive-due.lua sweepOrphans) removes them all, a purge drops them (they are not
 * in QUEUE_FIELDS), the doctor reports, and its fix removes, a tag no send would read any more.
 */
export const FAIR_TAG_FIELD_PREFIX = "~fq:";
/** How far back a tenant's first message goes when nothing waits at its level (lua/shared/fair-score.lua). */
export const FAIR_BAND_MS = 60000;

/** A hard pause adds this to every score of the queue (lua/shared/pause.lua). */
export const HARD_PAUSE_OFFSET_MS = 1e14;
/** A score at or above this is one a hard pause shifted (no real score reaches it). */
export const SHIFTED_FROM = 5e13;

/** Every field of `:Q` that is not a message's, in rsmq's order first. */
export const QUEUE_FIELDS = [
  ...RSMQ_SETTINGS,
  ...RSMQ_COUNTERS,
  RETENTION_FIELD,
  EXPIRE_TO_FIELD,
  TOTAL_EXPIRED_FIELD,
  SWEEP_LOCK_FIELD,
  SWEPT_AT_FIELD,
  DEDUP_WINDOW_FIELD,
  PAUSED_FIELD,
  RATE_LIMIT_FIELD,
  RATE_LIMIT_TAT_FIELD,
  RATE_LIMIT_BLOCK_FIELD,
  CONCURRENCY_FIELD,
  CONSUMERS_FIELD,
  SCHEDULES_FIELD,
  SCHEDULE_NEXT_FIELD,
] as const;

/**
 * The suffixes of a message's own fields `<id>:<suffix>`: rsmq's receive count and first receive,
 * and rsmq-next's dead-letter note, trace context and attributes (`:at`, JSON: the schedule and
 * slot a schedule sent it for). rsmq 0.12.4's delete and pop remove only `<id>`, `<id>:rc` and
 * `<id>:fr`, so `:dl`, `:tp` and `:at` can outlive a message it deletes.
 */
export const MESSAGE_FIELD_SUFFIXES = ["rc", "fr", "dl", "tp", "at"] as const;
