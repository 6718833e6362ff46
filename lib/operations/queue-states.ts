/**
 * The reading of many queues at once (lua/queueStates-n.lua), for the dashboard (and of one, for
 * the command line's `stats`): each queue's settings,
 * counters, messages by state and what becomes visible next, and what the schedule metrics show
 * of its schedules, by one server clock. Nothing is written.
 */
import { integerArg } from "./operation";
import type { Operation } from "./operation";
import { sentAt } from "./message-reply";
import { visibleSince } from "./visible-since";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import { readControls } from "./queue-controls-read";
import type { QueueControls } from "./queue-controls-read";
import { parseScheduleFigures } from "./schedule-figures";
import type { QueueScheduleFigures } from "./schedule-figures";

/** How many hidden messages become visible within the next minute, ten minutes and hour. */
export interface DueWithin {
  "1m": number;
  "10m": number;
  "1h": number;
}

/**
 * A queue's settings and counters, and where its messages are: what `stats` shows too. Its
 * controls (a pause, a rate limit, a block) are there only when set, as getQueueAttributesAsync
 * reports them.
 */
export interface QueueCounts extends QueueControls {
  qname: string;
  vt: number;
  delay: number;
  maxsize: number;
  totalsent: number;
  totalrecv: number;
  /** Messages that outlived the queue's retention, deleted or moved (docs/retention.md); 0 when none. */
  totalexpired: number;
  /** Seconds a message is kept after it was sent (docs/retention.md); 0: kept for ever. */
  retention: number;
  /** The queue expired messages move to; absent when they are deleted (or the queue has no retention). */
  expireTo?: string;
  /** Epoch seconds. */
  created: number;
  modified: number;
  /** Due now. */
  visible: number;
  /** Received and hidden: being handled, or waiting for a retry. */
  inFlight: number;
  /** Sent with a delay and not due yet. */
  delayed: number;
  /** Whether more hidden messages were there than looked at one by one: inFlight and delayed cover the earliest only. */
  partial: boolean;
  /** The queue's concurrency limit (setConcurrencyAsync); absent when it has none. */
  concurrency?: number;
  /** With a concurrency limit: the leases that end after now (messages rsmq-next consumers hold); absent without one. */
  leased?: number;
  /** The Workers whose heartbeat entry is live (listConsumersAsync lists them). */
  consumers: number;
  /** The queue's schedules (listSchedulesAsync lists them); 0 when it has none. */
  schedules: number;
}

/** One queue as the script saw it. */
export interface QueueState extends QueueCounts {
  /** Messages in the queue. */
  total: number;
  /** The earliest hidden score (epoch ms); null when none is hidden. */
  nextDueAt: number | null;
  /**
   * When the oldest visible message was sent (epoch ms), the oldest of the first messages of each
   * priority level (lua/queueStates-n.lua); null when none is visible.
   */
  headSentAt: number | null;
  /** When that message became visible (epoch ms, lib/operations/visible-since.ts); null when none is visible. */
  headDueAt: number | null;
  dueWithin: DueWithin;
}

/**
 * What one call saw: the server's time, the registry (when asked for), the queues that exist and
 * the schedules of those that have any.
 */
export interface QueueStates {
  now: number;
  /** The registry's members, when the call read it. */
  registry: string[] | undefined;
  queues: QueueState[];
  /** What the schedule metrics show of each schedule, for the queues of `queues` that have any, in their order. */
  schedules: QueueScheduleFigures[];
  /** Queues asked for that do not exist (any more). */
  missing: string[];
}

/**
 * Reads `qnames` (and the registry too with `withRegistry`: then the queues and the registry must
 * share a slot, see KeyLayout.registryWithQueues), looking at up to `lookAtMost` hidden messages
 * per queue one by one.
 */
export function queueStates(
  layout: KeyLayout,
  qnames: readonly string[],
  withRegistry: boolean,
  lookAtMost: number,
): Operation<QueueStates> {
  const keys = withRegistry ? [layout.registry] : [];
  for (const qname of qnames) {
    const queue = layout.queue(validateQname(qname));
    keys.push(queue.messages, queue.hash, queue.leases);
  }
  return {
    script: "queueStates",
    keys,
    args: [integerArg(lookAtMost), withRegistry ? "1" : "0"],
    parse(reply) {
      const [nowText, members, ...entries] = reply as [string, string[] | null, ...unknown[]];
      const states: QueueStates = { now: Number(nowText), registry: members ?? undefined, queues: [], schedules: [], missing: [] };
      entries.forEach((entry, index) => {
        const qname = qnames[index];
        if (!Array.isArray(entry)) {
          states.missing.push(qname);
          return;
        }
        // The row counts the schedules a list shows (not the names the index holds): the page
        // reads the list again whenever the two differ.
        const schedules = parseScheduleFigures(entry[14], states.now);
        states.queues.push(queueState(qname, entry, states.now, schedules.length));
        if (schedules.length > 0) states.schedules.push({ qname, schedules });
      });
      return states;
    },
  };
}

function queueState(qname: string, entry: unknown[], now: number, schedules: number): QueueState {
  const [fields, total, visible, inFlight, delayed, looked, nextDueAt, headId, headScore, due1m, due10m, due1h, leased, consumers] =
    entry as [Array<string | null>, ...number[]];
  const int = (index: number): number => parseInt(fields[index] ?? "0", 10) || 0;
  const expireTo = fields[9];
  const concurrency = int(13);
  return {
    qname,
    vt: int(0),
    delay: int(1),
    maxsize: int(2),
    totalrecv: int(3),
    totalsent: int(4),
    created: int(5),
    modified: int(6),
    totalexpired: int(7),
    retention: int(8),
    ...(expireTo ? { expireTo } : {}),
    ...readControls(fields[10], fields[11], fields[12], now),
    total,
    visible,
    inFlight,
    delayed,
    partial: looked < total - visible,
    ...(concurrency > 0 ? { concurrency, leased: Math.max(0, leased) } : {}),
    consumers,
    schedules,
    nextDueAt: nextDueAt < 0 ? null : nextDueAt,
    headSentAt: typeof headId === "string" ? sentAt(headId) : null,
    headDueAt: typeof headId === "string" ? visibleSince(headId, headScore) : null,
    dueWithin: { "1m": due1m, "10m": due10m, "1h": due1h },
  };
}
