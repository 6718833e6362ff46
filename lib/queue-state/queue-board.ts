/**
 * The reads of Redis the dashboard and the queue-state metrics share: every queue, with what the
 * schedule metrics show of its schedules, in one script call (one per queue in Redis Cluster,
 * where each queue has a slot of its own), a page of
 * messages, one message, a dead-letter queue's reasons, the Workers consuming a queue, its
 * schedules. None receives or writes anything. Each
 * command sent is counted in the cost meter.
 */
import type { RedisSMQInternals } from "../internals";
import type { Operation } from "../operations/operation";
import { queueStates } from "../operations/queue-states";
import type { QueueState, QueueStates } from "../operations/queue-states";
import { messagePage, readMessage } from "../operations/message-page";
import { deadLetterNotes } from "../operations/dead-letter-notes";
import { readConsumers } from "../operations/list-consumers";
import { readSchedules } from "../operations/list-schedules";
import { toScheduleInfo } from "../schedules/stored-schedule";
import { QNAME_FORMAT, RESERVED_QNAME, validateQname } from "../operations/rsmq-input-rules";
import { queueNotFound } from "../errors/rsmq-errors";
import type { CostMeter } from "./cost-meter";
import type {
  ConsumersResponse,
  DeadLettersResponse,
  MessageResponse,
  MessagesResponse,
  QueueRow,
  QueueSchedules,
  Reading,
  SchedulesResponse,
} from "./read-shapes";
import { DeadLetterNames, queueRows } from "./queue-rows";
import type { CounterMark } from "./queue-rows";
import { groupDeadLetters } from "./dead-letter-groups";
import { findMessages } from "./find-messages";
import type { FindQuery, FindResponse } from "./find-messages";
import { browseFiltered, readTenants } from "./browse-where";
import type { FilteredResponse, FilterQuery, TenantsResponse } from "./browse-where";

/** Hidden messages per queue a reading looks at one by one (each is one HEXISTS inside the script). */
export const LOOK_AT_HIDDEN = 1000;
/** Dead letters whose notes the reasons histogram reads. */
export const LOOK_AT_DEAD_LETTERS = 10_000;

/**
 * What the board uses of the instance's public side (a RedisSMQ has both): whether the connection
 * is up, and the queue list (one SMEMBERS, in Redis Cluster).
 */
export interface ConnectedQueues {
  readonly connected: boolean;
  listQueuesAsync(): Promise<string[]>;
}

/** What the board uses of the instance's internals: where the keys are, and a way to run a read. */
export type BoardInternals = Pick<RedisSMQInternals, "layout" | "run">;

export interface QueueBoardOptions {
  /** A queue's dead-letter queue where it is not `<qname>-dlq`. */
  deadLetterQueues?: Readonly<Record<string, string>>;
  /** Characters of a body the message list shows. @default 1000 */
  previewChars?: number;
  /** Where every command sent is counted. */
  cost: CostMeter;
}

export class QueueBoard {
  private readonly names: DeadLetterNames;
  private readonly previewChars: number;
  private readonly cost: CostMeter;
  /** The queues the last reading found, sorted: what the next one asks for. */
  private known: string[] = [];
  /** Whether a read has reached Redis yet: before the first, reads wait for the first connection. */
  private reachedRedis = false;
  /** Each queue's counters at the last reading, for the rates of the next. */
  private marks = new Map<string, CounterMark>();

  constructor(
    private readonly rsmq: ConnectedQueues,
    private readonly queue: BoardInternals,
    options: QueueBoardOptions,
  ) {
    this.names = new DeadLetterNames(options.deadLetterQueues ?? {});
    this.previewChars = options.previewChars ?? 1000;
    this.cost = options.cost;
  }

  /** Every queue of the namespace, with rates since the previous call. */
  async readQueues(): Promise<Reading> {
    const states = this.queue.layout.registryWithQueues ? await this.readTogether() : await this.readOneByOne();
    const rows = queueRows(states.queues, states.now, this.marks, this.names);
    this.marks = new Map(
      states.queues.map((state) => [state.qname, { now: states.now, totalsent: state.totalsent, totalrecv: state.totalrecv }]),
    );
    return { now: states.now, queues: rows, schedules: sortedSchedules(states) };
  }

  /**
   * The queues `qnames` only (those that exist; no rates), for metrics limited to a list: one call
   * on one server, one per queue in Redis Cluster.
   */
  async readQueuesNamed(qnames: readonly string[]): Promise<Reading> {
    const states = await this.readStates(
      qnames.map((qname) => validateQname(qname)),
      false,
    );
    return { now: states.now, queues: queueRows(states.queues, states.now, new Map(), this.names), schedules: sortedSchedules(states) };
  }

  /** One queue, with its dead-letter queue (or the queue it is the dead-letter queue of); rejects `queueNotFound`. */
  async readQueue(qname: string): Promise<{ now: number; queue: QueueRow }> {
    const name = validateQname(qname);
    const related = [...new Set([name, this.names.of(name), ...this.names.sourcesOf(name)])].filter(isQueueName);
    const states = await this.readStates(related, false);
    const rows = queueRows(states.queues, states.now, this.marks, this.names);
    const row = rows.find((candidate) => candidate.qname === name);
    if (!row) throw queueNotFound();
    return { now: states.now, queue: row };
  }

  /** `limit` messages from `offset` on, in receive order, bodies cut to the preview. */
  async readMessages(qname: string, page: { offset: unknown; limit: unknown }): Promise<MessagesResponse> {
    const read = await this.counted(() => messagePage(this.queue.layout, qname, page, this.previewChars));
    return { now: read.now, qname, total: read.total, offset: Number(page.offset), limit: Number(page.limit), messages: read.messages };
  }

  /** One message with its whole body; rejects `queueNotFound` or `messageNotFound`. */
  async readMessage(qname: string, id: string): Promise<MessageResponse> {
    const read = await this.counted(() => readMessage(this.queue.layout, qname, id));
    return { now: read.now, qname, message: read.message };
  }

  /** Messages found by id, or by a text in their bodies (a bounded scan in chunks: find-messages.ts). */
  findMessages(qname: string, query: FindQuery): Promise<FindResponse> {
    return findMessages((build) => this.counted(build), this.queue.layout, qname, query, this.previewChars);
  }

  /** A page of messages matching attribute filters and a state, from a cursor (a bounded walk: browse-where.ts). */
  browseFiltered(qname: string, query: FilterQuery): Promise<FilteredResponse> {
    return browseFiltered((build) => this.counted(build), this.queue.layout, qname, query, this.previewChars);
  }

  /** The tenants with messages in a queue and their counts, from the first 10,000 messages (browse-where.ts). */
  readTenants(qname: string): Promise<TenantsResponse> {
    return readTenants((build) => this.counted(build), this.queue.layout, qname);
  }

  /** The Workers consuming a queue: their live heartbeat entries (listConsumersAsync); rejects `queueNotFound`. */
  async readConsumers(qname: string): Promise<ConsumersResponse> {
    const read = await this.counted(() => readConsumers(this.queue.layout, qname));
    return { now: read.now, qname, consumers: read.consumers };
  }

  /** A queue's schedules with their state, sorted by name (listSchedulesAsync); rejects `queueNotFound`. */
  async readSchedules(qname: string): Promise<SchedulesResponse> {
    const read = await this.counted(() => readSchedules(this.queue.layout, qname));
    return { now: read.nowMs, qname, schedules: read.stored.map((stored) => toScheduleInfo(stored, read.nowMs)) };
  }

  /** Why the first messages of a dead-letter queue stopped, grouped. */
  async readDeadLetters(qname: string): Promise<DeadLettersResponse> {
    const read = await this.counted(() => deadLetterNotes(this.queue.layout, qname, LOOK_AT_DEAD_LETTERS));
    return {
      qname,
      total: read.total,
      looked: read.notes.length,
      partial: read.notes.length < read.total,
      groups: groupDeadLetters(read.notes),
    };
  }

  /**
   * One server (or a namespace that is a hash tag): the registry and every known queue in one
   * call; a second only when the registry names queues the first did not ask for.
   */
  private async readTogether(): Promise<QueueStates> {
    let states = await this.counted(() => queueStates(this.queue.layout, this.known, true, LOOK_AT_HIDDEN));
    const registry = (states.registry ?? []).filter(isQueueName).sort();
    const added = registry.filter((qname) => !this.known.includes(qname));
    this.known = registry;
    if (added.length > 0) states = await this.counted(() => queueStates(this.queue.layout, this.known, true, LOOK_AT_HIDDEN));
    return states;
  }

  /** Redis Cluster: the registry, and each known queue in its own slot, all sent at once. */
  private async readOneByOne(): Promise<QueueStates> {
    const [registry, states] = await Promise.all([this.listQueues(), this.readStates(this.known, false)]);
    const added = registry.filter((qname) => !this.known.includes(qname));
    this.known = registry;
    if (added.length === 0) return states;
    const more = await this.readStates(added, false);
    return {
      now: Math.max(states.now, more.now),
      registry,
      queues: [...states.queues, ...more.queues],
      schedules: [...states.schedules, ...more.schedules],
      missing: [...states.missing, ...more.missing],
    };
  }

  /** `qnames` in one call where their keys share a slot, else one call each, sent together. */
  private async readStates(qnames: readonly string[], withRegistry: boolean): Promise<QueueStates> {
    if (this.queue.layout.registryWithQueues || qnames.length <= 1) {
      return this.counted(() => queueStates(this.queue.layout, qnames, withRegistry, LOOK_AT_HIDDEN));
    }
    const each = await Promise.all(
      qnames.map((qname) => this.counted(() => queueStates(this.queue.layout, [qname], false, LOOK_AT_HIDDEN))),
    );
    return {
      now: Math.max(...each.map((states) => states.now)),
      registry: undefined,
      queues: each.flatMap((states): QueueState[] => states.queues),
      schedules: each.flatMap((states) => states.schedules),
      missing: each.flatMap((states) => states.missing),
    };
  }

  private async listQueues(): Promise<string[]> {
    if (this.reachedRedis && !this.rsmq.connected) throw connectionLost();
    this.cost.add(1);
    return (await this.rsmq.listQueuesAsync()).filter(isQueueName).sort();
  }

  /**
   * Runs an operation (bad input rejects before any round trip, and costs nothing), counting its
   * command. Once a read has reached Redis, a lost connection fails the next ones at once instead
   * of letting them wait up to offlineTimeoutMs for the reconnect: the page says Redis is down
   * now, and heals with the first read after the connection is back.
   */
  private counted<T>(build: () => Operation<T>): Promise<T> {
    return this.queue
      .run(() => {
        const operation = build();
        if (this.reachedRedis && !this.rsmq.connected) throw connectionLost();
        this.cost.add(1);
        return operation;
      })
      .then((result) => {
        this.reachedRedis = true;
        return result;
      });
  }
}

/** Why a read was not sent: the connection is down, and rsmq-next is reconnecting. */
function connectionLost(): Error {
  const error = new Error("the connection to Redis is lost; rsmq-next reconnects by itself");
  error.name = "redisUnavailable";
  return error;
}

/** The schedules of a reading's queues, by queue name (as its rows are sorted). */
function sortedSchedules(states: QueueStates): QueueSchedules[] {
  return [...states.schedules].sort((a, b) => (a.qname < b.qname ? -1 : a.qname > b.qname ? 1 : 0));
}

/** A registry member the board can read: written by something else, a member may be anything. */
function isQueueName(qname: string): boolean {
  return QNAME_FORMAT.test(qname) && qname !== RESERVED_QNAME;
}
