/**
 * From what the script saw to the rows the API shows: rates between two readings (deltas of rsmq's
 * own counters, so nothing records them), the age of the next message, and which queue is whose
 * dead-letter queue.
 */
import type { QueueRow } from "./read-shapes";
import type { QueueState } from "../operations/queue-states";

/** The counters of a queue at one reading, for the rates of the next. */
export interface CounterMark {
  now: number;
  totalsent: number;
  totalrecv: number;
}

/** Which queue is whose dead-letter queue: as configured, else `<qname>-dlq` (the Worker's default). */
export class DeadLetterNames {
  constructor(private readonly configured: Readonly<Record<string, string>>) {}

  /** The dead-letter queue of `qname`. */
  of(qname: string): string {
    return Object.prototype.hasOwnProperty.call(this.configured, qname) ? this.configured[qname] : `${qname}-dlq`;
  }

  /** The queues whose dead-letter queue `qname` could be. */
  sourcesOf(qname: string): string[] {
    const sources = Object.keys(this.configured).filter((source) => this.configured[source] === qname);
    if (qname.endsWith("-dlq") && !Object.prototype.hasOwnProperty.call(this.configured, qname.slice(0, -4))) {
      sources.push(qname.slice(0, -4));
    }
    return sources;
  }
}

/** Per second between two readings; null without an earlier one. */
function rate(now: number, count: number, before: number | undefined, beforeAt: number | undefined): number | null {
  if (before === undefined || beforeAt === undefined || now <= beforeAt) return null;
  return Math.max(0, count - before) / ((now - beforeAt) / 1000);
}

/** The rows of `states` at the server's time `now`, sorted by name. */
export function queueRows(
  states: readonly QueueState[],
  now: number,
  previous: ReadonlyMap<string, CounterMark>,
  names: DeadLetterNames,
): QueueRow[] {
  const byName = new Map(states.map((state) => [state.qname, state]));
  return states
    .map((state): QueueRow => {
      const mark = previous.get(state.qname);
      const deadLetterQueue = byName.get(names.of(state.qname));
      return {
        qname: state.qname,
        visible: state.visible,
        inFlight: state.inFlight,
        delayed: state.delayed,
        total: state.total,
        partial: state.partial,
        oldestAgeMs: state.headSentAt === null ? null : Math.max(0, Math.round(now - state.headSentAt)),
        nextDueAt: state.nextDueAt,
        dueWithin: state.dueWithin,
        totalsent: state.totalsent,
        sentPerSecond: rate(now, state.totalsent, mark?.totalsent, mark?.now),
        totalrecv: state.totalrecv,
        receivedPerSecond: rate(now, state.totalrecv, mark?.totalrecv, mark?.now),
        totalexpired: state.totalexpired,
        vt: state.vt,
        delay: state.delay,
        maxsize: state.maxsize,
        retention: state.retention,
        expireTo: state.expireTo ?? null,
        paused: state.paused ?? null,
        rateLimit: state.rateLimit ?? null,
        rateLimitedUntil: state.rateLimitedUntil ?? null,
        concurrency: state.concurrency ?? null,
        leased: state.leased ?? null,
        consumers: state.consumers,
        schedules: state.schedules,
        created: state.created,
        modified: state.modified,
        deadLetterQueue: deadLetterQueue ? { qname: deadLetterQueue.qname, total: deadLetterQueue.total } : null,
        isDeadLetterQueue: names.sourcesOf(state.qname).some((source) => byName.has(source)),
      };
    })
    .sort((a, b) => (a.qname < b.qname ? -1 : a.qname > b.qname ? 1 : 0));
}
