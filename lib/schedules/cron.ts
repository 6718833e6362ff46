/**
 * Cron expressions, read by croner (an optional peer: loaded the first time a cron schedule is
 * checked or planned, so an app with `every` schedules only never needs it). Slots are epoch ms.
 *
 * DST: croner treats a pattern whose seconds, minutes and hours have no wildcard or step as a
 * fixed-time job (`fixedTimeRule: "no-wildcard"`): a time in a skipped hour runs at the first
 * valid time after the gap, and a time in a repeated hour runs once (its first occurrence).
 * Interval patterns (`*\/15 * * * *`) simply follow the wall clock. docs/schedules.md says so.
 */
import { rsmqError } from "../errors/rsmq-errors";

/** The part of croner this module uses (its own types stay out of the package's declarations). */
interface CronJob {
  nextRun(previous?: Date): Date | null;
}
interface CronerModule {
  Cron: new (pattern: string, options: Record<string, unknown>) => CronJob;
}

export const CRONER_MISSING = "cron schedules need the package croner: npm install croner";

let croner: CronerModule | undefined;

/** croner, required when first needed; missing → invalidValue naming the package, before any round trip. */
function loadCroner(): CronerModule {
  if (croner === undefined) {
    try {
      // croner is an optional peer: required when a cron schedule is first checked or planned, never at load time.
      // eslint-disable-next-line @typescript-eslint/no-var-requires
      croner = require("croner") as CronerModule;
    } catch {
      throw rsmqError("invalidValue", CRONER_MISSING);
    }
  }
  return croner;
}

/** Parsed jobs by zone and expression: a firer plans the same few schedules every pass. */
const jobs = new Map<string, CronJob>();
const MAX_CACHED_JOBS = 500;

function cronJob(expr: string, tz: string): CronJob {
  const key = `${tz}\n${expr}`;
  let job = jobs.get(key);
  if (job === undefined) {
    const { Cron } = loadCroner();
    job = new Cron(expr, { paused: true, timezone: tz, mode: "5-or-6-parts", fixedTimeRule: "no-wildcard" });
    if (jobs.size >= MAX_CACHED_JOBS) jobs.clear();
    jobs.set(key, job);
  }
  return job;
}

/** An IANA zone's form: "UTC", "Europe/Berlin", "America/Port-au-Prince", "Etc/GMT+2" (not an offset such as "+02:00"). */
const ZONE_FORM = /^[A-Za-z][A-Za-z0-9_+/-]*$/;

/** Whether `tz` is an IANA zone this runtime knows (Intl refuses the others with a RangeError). */
export function isKnownZone(tz: string): boolean {
  if (!ZONE_FORM.test(tz)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** An expression as stored: trimmed, fields separated by one space (so spacing never changes the timing). */
export function normaliseCron(expr: string): string {
  return expr.trim().split(/\s+/).join(" ");
}

/**
 * Checks `expr` in `tz`: 5 fields (minute first) or 6 (seconds first), parseable by croner, with
 * a slot after `nowMs` (a pattern such as "0 0 30 2 *" never runs). Throws invalidValue.
 */
export function validateCron(expr: string, tz: string, nowMs = Date.now()): void {
  if (!isKnownZone(tz)) {
    throw rsmqError("invalidValue", `Expected \`tz\` to be an IANA time zone such as "Europe/Berlin", got "${tz}" (string)`);
  }
  const fields = normaliseCron(expr).split(" ");
  if (expr.trim() === "" || fields.length < 5 || fields.length > 6) {
    throw rsmqError(
      "invalidValue",
      `Expected \`cron\` to be a cron expression of 5 or 6 fields, got "${expr}" (${expr.trim() === "" ? 0 : fields.length} fields)`,
    );
  }
  let next: Date | null;
  try {
    next = cronJob(normaliseCron(expr), tz).nextRun(new Date(nowMs));
  } catch (error) {
    if ((error as { name?: string }).name === "invalidValue") throw error;
    throw rsmqError("invalidValue", `Expected \`cron\` to be a valid cron expression, got "${expr}": ${(error as Error).message}`);
  }
  if (next === null) throw rsmqError("invalidValue", `Expected \`cron\` to match a time that comes again, got "${expr}" (it never runs)`);
}

/**
 * The first slot of `expr` in `tz` strictly after `afterMs`, epoch ms. Cron patterns repeat, so a
 * null from croner here is a fault, never "no more slots": it throws rather than let a caller
 * stop or loop silently.
 */
export function cronSlotAfter(expr: string, tz: string, afterMs: number): number {
  const next = cronJob(expr, tz).nextRun(new Date(afterMs));
  if (next === null || !Number.isFinite(next.getTime()) || next.getTime() <= afterMs) {
    throw new Error(`croner found no slot of "${expr}" (${tz}) after ${new Date(afterMs).toISOString()}, where one must exist`);
  }
  return next.getTime();
}
