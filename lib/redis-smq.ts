/**
 * RedisSMQ: rsmq 0.12.4's API and data layout on node-redis v4, every queue operation one script
 * call (one command, one round trip) that reads the queue's settings and the server's clock itself.
 */
import type { RedisClientType } from "redis";
import { openTransport } from "./transports/open-transport";
import type { Transport } from "./transports/transport";
import { connectionClosedError } from "./errors/connection-closed";
import { settle, withCallback } from "./callbacks";
import { handOutEveryMethod } from "./hand-out";
import { changeMessageVisibility } from "./operations/change-message-visibility";
import { changeMessagesVisibility, nothingToChange } from "./operations/change-messages-visibility";
import type { Operation } from "./operations/operation";
import { createQueue } from "./operations/create-queue";
import { deleteMessage } from "./operations/delete-message";
import { peekDeadLetters } from "./operations/peek-dead-letters";
import { deleteMessages, nothingToDelete } from "./operations/delete-messages";
import { deleteQueue } from "./operations/delete-queue";
import { purgeQueue } from "./operations/purge-queue";
import { getQueueAttributes } from "./operations/get-queue-attributes";
import { peekMessages } from "./operations/peek-messages";
import { planRedrive, redrive } from "./dead-letters/redrive";
import { popMessage } from "./operations/pop-message";
import { receiveMessages } from "./operations/receive-message";
import type { ReceivedBatch } from "./operations/receive-message";
import { settlingExpired } from "./retention/expired-moves";
import { sweepExpired } from "./retention/sweep";
import { sweepExpiredChunk } from "./operations/sweep-expired";
import { sendMessage } from "./operations/send-message";
import type { SentMessage } from "./operations/send-message";
import { sendMessages } from "./operations/send-messages";
import { setQueueAttributes } from "./operations/set-queue-attributes";
import { attachInternals } from "./internals";
import type { RedisSMQInternals, StoppableWorker } from "./internals";
import type { KeyLayout } from "./keys";
import { resolveConstructorOptions } from "./options/constructor-options";
import { connectionWarning, ReportOnce } from "./errors/report-once";
import { OperationRunner } from "./operations/operation-runner";
import { explainRefusal } from "./errors/refusals";
import { RealtimeWakes } from "./wakes/realtime-wakes";
import { notifyQueueActivity } from "./wakes/wake-hub";
import { waitingReceive } from "./wakes/waiting-receive";
import { TypedEventEmitter } from "./typed-emitter";
import { TelemetryHub } from "./telemetry/telemetry-hub";
import { resolveTelemetry } from "./telemetry/telemetry-options";
import { spanServerAddress } from "./telemetry/server-address";
import { startOpenTelemetry } from "./telemetry/otel/start-telemetry";
import { runDoctor } from "./doctor/doctor";
import type { DoctorPort } from "./doctor/doctor-port";
import type { DoctorOptions, DoctorReport } from "./types";
import {
  observedChangeVisibility,
  observedChangeVisibilityMany,
  observedDelete,
  observedDeleteMany,
  observedPop,
  observedReceive,
  observedRedrive,
  observedSend,
  observedSendMany,
} from "./telemetry/observed-operations";
import type {
  Callback,
  ChangeMessageVisibilityOptions,
  ChangeMessagesVisibilityOptions,
  ConstructorOptions,
  CreateQueueOptions,
  DeleteMessageOptions,
  DeleteMessagesOptions,
  DeleteQueueOptions,
  GetQueueAttributesOptions,
  MessageWithState,
  PeekDeadLettersOptions,
  PeekMessagesOptions,
  PeekedMessage,
  PopMessageOptions,
  PurgeQueueOptions,
  QueueAttributes,
  QueueMessage,
  RedriveOptions,
  SweepExpiredOptions,
  SweepResult,
  ReceiveMessageOptions,
  ReceiveMessagesOptions,
  ReceivedMessages,
  ReceiveOrNextDue,
  SendMessageOptions,
  SendMessagesOptions,
  SentEntry,
  SetQueueAttributesOptions,
} from "./types";

/** The events a RedisSMQ instance emits. */
export interface RedisSMQEvents {
  /** The connection is up (again); with several `connections`, the first one up. */
  connect: [];
  /** The connection was lost or closed; with several `connections`, the last one. */
  disconnect: [];
  /**
   * A connection error. Emitted only when someone listens: an unheard error never crashes the
   * process, and is shown once per error as a process warning (code RSMQ_NEXT_CONNECTION_ERROR).
   */
  error: [error: Error];
  /**
   * rsmq 0.12.4's: its popMessage script is loaded. rsmq-next loads nothing (each script runs by
   * EVALSHA, and by EVAL once where the server lacks it), so this means "popMessage runs now": it
   * is emitted right after every `connect`, with no round trip, for code that waits for it
   * (`rsmq.once("scriptload:popMessage", start)`).
   */
  "scriptload:popMessage": [];
  /** rsmq 0.12.4's: receiveMessage runs now. Emitted right after every `connect` (see `scriptload:popMessage`). */
  "scriptload:receiveMessage": [];
  /** rsmq 0.12.4's: changeMessageVisibility runs now. Emitted right after every `connect` (see `scriptload:popMessage`). */
  "scriptload:changeMessageVisibility": [];
  /**
   * A send with a `dedupId` found it taken within its window (docs/idempotent-sends.md): nothing
   * was stored, and the call resolved `id`, the first message's. `dedupId` as the call gave it
   * (`true` for one derived from the body).
   */
  duplicate: [
    duplicate: {
      /** The queue sent to. */
      qname: string;
      /** The first message's id, which the call resolved. */
      id: string;
      /** The call's dedupId: its string, or `true` for one derived from the body. */
      dedupId: string | true;
    },
  ];
}

/**
 * What rsmq 0.12.4 emits once its three scripts are loaded, after each connect, in the order it
 * loads them (one SCRIPT LOAD each, answered in turn).
 */
const SCRIPT_LOAD_EVENTS = ["scriptload:popMessage", "scriptload:receiveMessage", "scriptload:changeMessageVisibility"] as const;

/** Options objects may come from untyped callers; read them without trusting their shape. */
function optionsOf<T>(options: T | undefined | null): Partial<T> {
  return (options ?? {}) as Partial<T>;
}

/**
 * A client of rsmq queues: rsmq 0.12.4's API, errors and Redis data layout, so rsmq and rsmq-next
 * clients share the same queues, with every queue operation one script call (one command, one
 * round trip) that reads the queue's settings and the server's clock itself.
 *
 * Every operation comes twice: `sendMessage(options, callback)` in rsmq's callback style (which
 * returns a promise when no callback is given) and `sendMessageAsync(options)`. Methods are bound,
 * so `const { sendMessage } = rsmq` works. Errors carry rsmq's `name` (see {@link RsmqErrorName}).
 * Bad input is refused before anything is sent.
 *
 * @example
 * const RedisSMQ = require("rsmq-next");
 * const rsmq = new RedisSMQ({ host: "127.0.0.1", port: 6379, ns: "rsmq" });
 * await rsmq.createQueueAsync({ qname: "jobs" });
 * const id = await rsmq.sendMessageAsync({ qname: "jobs", message: "hello" });
 * const message = await rsmq.receiveMessageAsync({ qname: "jobs", vt: 30 });
 * if ("id" in message) await rsmq.deleteMessageAsync({ qname: "jobs", id: message.id });
 * await rsmq.quitAsync();
 */
export class RedisSMQ extends TypedEventEmitter<RedisSMQEvents> {
  /** The key prefix including the trailing colon, as rsmq exposes it. */
  readonly redisns: string;
  /** Whether sendMessage publishes on `<ns>:rt:<qname>`. */
  readonly realtime: boolean;
  private readonly connection: Transport;
  /** What the Worker, dead letters, redrive and the CLI use: namespace, key layout, run(build), wakes. */
  private readonly internals: RedisSMQInternals;
  /** Opens its connection on the first wake subscription; after quitAsync() it opens none. */
  private readonly subscriber: RealtimeWakes;
  /**
   * Lasting problems that no call fails for (a refused realtime notification), each told once;
   * connection errors with no `error` listener: one process warning per error name and code.
   */
  private readonly problems = new ReportOnce(this, { code: "RSMQ_NEXT_CONNECTION_ERROR", describe: connectionWarning });
  private readonly workers = new Set<StoppableWorker>();
  /** Set once the user closed rsmq.redis (or the client passed in): what was closed, for the error every call gets. */
  private closedByUser: string | undefined;
  /** The close of everything else that follows the user's close. */
  private closing: Promise<"OK"> | undefined;

  /**
   * Checks the options (a malformed one throws before any connection opens) and starts
   * connecting. Calls made before the connection is up wait for it, up to `offlineTimeoutMs`.
   *
   * @example
   * const RedisSMQ = require("rsmq-next");
   * const rsmq = new RedisSMQ({ host: "127.0.0.1", port: 6379, ns: "rsmq" });
   */
  constructor(options: ConstructorOptions = {}) {
    super();
    // Before connecting: options this rejects must not leave a connection open.
    const settings = resolveConstructorOptions(options);
    this.redisns = `${settings.ns}:`;
    this.realtime = settings.realtime;
    this.connection = openTransport(settings.connection, {
      connect: () => this.announceConnect(),
      disconnect: () => this.emit("disconnect"),
      error: (error) => this.connectionError(error),
      closed: (how) => this.userClosedConnection(how),
    });
    const telemetry = new TelemetryHub();
    const operations = new OperationRunner(this.connection, settings.replicaAcks, telemetry);
    this.subscriber = new RealtimeWakes(
      () => this.connection.openSubscriber((error) => this.subscriberError(error)),
      (count) => telemetry.recording?.commands("housekeeping", count),
    );
    const telemetrySettings = resolveTelemetry(settings.telemetry);
    if (telemetrySettings) startOpenTelemetry(telemetry, telemetrySettings, spanServerAddress(settings.connection), () => this);
    this.internals = {
      ns: settings.ns,
      layout: settings.layout,
      run: (build) => (this.closedByUser ? this.refuseClosed(build) : operations.run(build)),
      realtimeWakes: () => this.subscriber,
      workers: this.workers,
      telemetry,
      reportProblem: (key, error) => this.problems.report(key, error),
    };
    attachInternals(this, this.internals);
    // Last: every method below is a bound arrow property by now (see hand-out.ts).
    handOutEveryMethod(this, this.connection.handover);
  }

  private get ns(): string {
    return this.internals.ns;
  }

  /** Read on every call, from the internals: one place says where keys are. */
  private get layout(): KeyLayout {
    return this.internals.layout;
  }

  private run<T>(build: () => Operation<T>): Promise<T> {
    return this.internals.run(build);
  }

  /** Whether calls are observed (spans or figures); when not, each runs exactly as without telemetry. */
  private get observed(): boolean {
    return this.internals.telemetry.observing;
  }

  /**
   * The client this instance talks through: the node-redis v4 client (with several `connections`,
   * the first one: the `client` passed in, or the first opened; the others are not exposed); in
   * Redis Cluster the cluster client (a new one after a failover made this instance re-read the
   * topology). Given an ioredis client as `client`, it is that ioredis client (typed here as
   * node-redis' for compatibility: cast it, `rsmq.redis as unknown as Redis`).
   *
   * Closing it yourself (`rsmq.redis.quit()`, as rsmq 0.12.4 code often ends), or closing the
   * `client` you passed in, closes the instance: its Workers stop, its other connections and wake
   * subscription close, so the process can exit, and every call afterwards rejects
   * `connectionClosed`.
   */
  get redis(): RedisClientType {
    return this.connection.client as RedisClientType;
  }

  /** `connect`, then rsmq 0.12.4's `scriptload:*`: the calls they stand for run from now on. */
  private announceConnect(): void {
    this.emit("connect");
    for (const event of SCRIPT_LOAD_EVENTS) this.emit(event);
  }

  /**
   * The user closed rsmq.redis (rsmq 0.12.4 code ends with `rsmq.redis.quit()`): the rest is closed
   * too, at once and all together, so the process can exit. Workers stop as stop() has them (a
   * handler still running can no longer delete its message: it comes back after its vt).
   */
  private userClosedConnection(how: string): void {
    if (this.closedByUser) return;
    this.closedByUser = how;
    this.closing = Promise.all([
      ...[...this.workers].map((worker) => worker.stop()),
      this.subscriber.close(),
      this.connection.close(),
    ]).then(() => "OK" as const);
    this.closing.catch((error: Error) => this.connectionError(error));
  }

  /** After the user's close: bad input is still named first (it needs no connection to be wrong), then connectionClosed. */
  private refuseClosed<T>(build: () => Operation<T>): Promise<T> {
    try {
      build();
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.reject(connectionClosedError(this.closedByUser!));
  }

  /** A refused (UN)SUBSCRIBE is a lasting problem, told once; anything else is a connection error. */
  private subscriberError(error: Error): void {
    if (error.name === "noPermission") this.problems.report(error.message, error);
    else this.connectionError(error);
  }

  private connectionError(error: Error): void {
    if (this.listenerCount("error") > 0) this.emit("error", error);
    else this.problems.warnUnheard(error);
  }

  /**
   * Tells this process's workers of the queue that a message may be due sooner, once `result` has
   * succeeded (a `then`, not an async layer: this is on every send's path).
   */
  private notifying<T>(qname: unknown, result: Promise<T>): Promise<T> {
    return result.then((value) => {
      notifyQueueActivity(this.ns, String(qname));
      return value;
    });
  }

  /** Whether the connection is up right now (with several `connections`, any of them); false once you closed `redis`. */
  get connected(): boolean {
    return this.closedByUser === undefined && this.connection.connected;
  }

  // Promise API. Arrow properties keep every method bound, as rsmq's are, and let the constructor
  // hand out every outcome through the connection's handover (hand-out.ts): no method on the prototype.

  /** Creates a queue. Resolves `1`; rejects `queueExists` when it already exists. */
  readonly createQueueAsync = (options: CreateQueueOptions): Promise<1> => this.run(() => createQueue(this.layout, optionsOf(options)));

  /** Lists the queue names in this namespace (one SMEMBERS). */
  readonly listQueuesAsync = async (): Promise<string[]> => {
    const registry = this.layout.registry;
    if (this.closedByUser) throw connectionClosedError(this.closedByUser);
    this.internals.telemetry.recording?.commands("housekeeping", 1);
    try {
      return (await this.connection.sendCommand(["SMEMBERS", registry], registry)) as string[];
    } catch (error) {
      throw explainRefusal(error, { operation: "listQueues", keys: [registry] });
    }
  };

  /** Deletes a queue and its messages. Resolves `1`; rejects `queueNotFound`. */
  readonly deleteQueueAsync = (options: DeleteQueueOptions): Promise<1> => this.run(() => deleteQueue(this.layout, optionsOf(options)));

  /**
   * Removes every message of a queue, visible, in flight and delayed, in one atomic call, and
   * keeps the queue with its settings (vt, delay, maxsize and the rest) and its counters
   * (totalsent, totalrecv, created, modified). Resolves how many messages were removed; rejects
   * `queueNotFound`. The old data is freed in Redis' background thread, so a queue of millions
   * does not block the server. Workers are not woken: a purge makes no message due.
   *
   * @example
   * const removed = await rsmq.purgeQueueAsync({ qname: "jobs" });
   */
  readonly purgeQueueAsync = (options: PurgeQueueOptions): Promise<number> => this.run(() => purgeQueue(this.layout, optionsOf(options)));

  /** A queue's settings, counters and message counts. */
  readonly getQueueAttributesAsync = (options: GetQueueAttributesOptions): Promise<QueueAttributes> =>
    this.run(() => getQueueAttributes(this.layout, optionsOf(options)));

  /** Changes any of vt, delay and maxsize; resolves the new attributes. */
  readonly setQueueAttributesAsync = (options: SetQueueAttributesOptions): Promise<QueueAttributes> =>
    this.run(() => setQueueAttributes(this.layout, optionsOf(options)));

  /**
   * Sends a message; resolves its 32-character id. With `realtime`, a notification Redis refuses
   * (a user without the channel) does not fail the send: it is reported once per channel, through
   * `error` (or one process warning when nobody listens).
   */
  readonly sendMessageAsync = (options: SendMessageOptions): Promise<string> => {
    const qname = options?.qname;
    // One `then` for the report and the wake: this is the hottest path of all.
    const sending = this.observed
      ? observedSend(this.internals, this.realtime, optionsOf(options))
      : this.run(() => sendMessage(this.layout, this.realtime, optionsOf(options)));
    return sending.then((sent) => {
      // A duplicate stored nothing: no notification was sent, and nothing is new to wake for.
      if (sent.duplicate) {
        this.emit("duplicate", { qname: String(qname), id: sent.id, dedupId: options.dedupId as string | true });
        return sent.id;
      }
      if (sent.notificationRefused) this.notificationRefused(sent);
      notifyQueueActivity(this.ns, String(qname));
      return sent.id;
    });
  };

  /** `stored`: what the call stored, as the report says it ("sendMessage stored the message"). */
  private notificationRefused(
    { channel, notificationRefused, refusedCommand }: Omit<SentMessage, "id">,
    stored = "sendMessage stored the message",
  ): void {
    const error = explainRefusal(notificationRefused, {
      operation: `${stored}, but its realtime notification`,
      channel,
      command: refusedCommand,
    });
    const reported = error instanceof Error ? error : new Error(String(error));
    if (reported === notificationRefused) {
      reported.message = `${stored}, but its realtime notification on ${channel} failed: ${reported.message}`;
    }
    this.problems.report(`notification ${channel}`, reported);
  }

  /**
   * Sends up to 1000 messages to one queue in one call (one script, one round trip); resolves
   * one result per entry, in order: `{ id, duplicate }`, or `{ error }` for an entry longer than
   * the queue's maxsize (`messageTooLong`; the other entries are stored). Every entry is checked
   * before anything is sent: one bad entry refuses the whole call, naming its index. Entries of
   * equal delay and priority are received in entry order. Rejects `queueNotFound`.
   *
   * @example
   * const results = await rsmq.sendMessagesAsync({
   *   qname: "jobs",
   *   messages: [{ message: "a" }, { message: "b", delay: 10 }, { message: "c", priority: 9, dedupId: "order-7" }],
   * });
   */
  readonly sendMessagesAsync = (options: SendMessagesOptions): Promise<SentEntry[]> => {
    const qname = options?.qname;
    const sending = this.observed
      ? observedSendMany(this.internals, this.realtime, optionsOf(options))
      : this.run(() => sendMessages(this.layout, this.realtime, optionsOf(options)));
    return sending.then((sent) => {
      if (sent.notificationRefused) this.notificationRefused(sent, "sendMessages stored the messages");
      sent.entries.forEach((entry, i) => {
        if (entry.duplicate) this.emit("duplicate", { qname: String(qname), id: entry.id, dedupId: options.messages[i].dedupId! });
      });
      // Only what was stored can be received sooner.
      if (sent.entries.some((entry) => entry.id !== undefined && !entry.duplicate)) notifyQueueActivity(this.ns, String(qname));
      return sent.entries;
    });
  };

  /**
   * Receives the next due message and hides it for vt seconds; resolves `{}` when none is due.
   * With `waitMs` (up to 60000), waits for one when none is due yet (long polling, docs/api.md).
   *
   * @example
   * const message = await rsmq.receiveMessageAsync({ qname: "jobs", waitMs: 20_000 });
   */
  readonly receiveMessageAsync = (options: ReceiveMessageOptions): Promise<QueueMessage | {}> =>
    this.receiveOne(options).then(({ messages }) => messages[0] ?? {});

  /** receiveMessage's and receiveMessageOrNextDue's call. */
  private receiveOne(options: ReceiveMessageOptions): Promise<ReceivedBatch> {
    const given = optionsOf(options);
    // With `waitMs`, looked again as wakes/waiting-receive.ts says; without, this one look.
    return waitingReceive(this.internals, given, () => {
      const receiving = this.observed
        ? observedReceive(this.internals, given, 1, true)
        : this.run(() => receiveMessages(this.layout, given, 1));
      // Expired messages the script parked are moved to the queue's expireTo before the call resolves.
      return receiving.then(settlingExpired(this.internals, given.qname));
    });
  }

  /**
   * Like receiveMessage, but when nothing is due it says when the next message will be, in the
   * same single call: the earliest visibility time in the queue (delayed, retried or in-flight
   * messages alike) in milliseconds from now, or that the queue is empty.
   *
   * @example
   * const next = await rsmq.receiveMessageOrNextDueAsync({ qname: "jobs" });
   * if (next.status === "received") handle(next.message);
   * else if (next.status === "waiting") setTimeout(poll, next.nextDueMs);
   */
  readonly receiveMessageOrNextDueAsync = async (options: ReceiveMessageOptions): Promise<ReceiveOrNextDue> => {
    const { messages, nextDueMs } = await this.receiveOne(options);
    if (messages.length > 0) return { status: "received", message: messages[0] };
    if (nextDueMs === null || nextDueMs === undefined) return { status: "empty" };
    return { status: "waiting", nextDueMs };
  };

  /**
   * Receives up to `count` due messages in one call, each hidden for vt seconds. When fewer than
   * `count` were due, `nextDueMs` says when the next one will be (null: the queue is empty).
   *
   * @example
   * const { messages, nextDueMs } = await rsmq.receiveMessagesAsync({ qname: "jobs", count: 50 });
   */
  readonly receiveMessagesAsync = (options: ReceiveMessagesOptions): Promise<ReceivedMessages> => {
    const given = optionsOf(options);
    return waitingReceive(this.internals, given, () => {
      const receiving = this.observed
        ? observedReceive(this.internals, given, given.count, false)
        : this.run(() => receiveMessages(this.layout, given, given.count));
      return receiving.then(settlingExpired(this.internals, given.qname));
    }).then(({ messages, nextDueMs }) => (nextDueMs === undefined ? { messages } : { messages, nextDueMs }));
  };

  /** Receives the next due message and deletes it; resolves `{}` when none is due. */
  readonly popMessageAsync = (options: PopMessageOptions): Promise<QueueMessage | {}> => {
    const given = optionsOf(options);
    const popping = this.observed ? observedPop(this.internals, given) : this.run(() => popMessage(this.layout, given));
    return popping.then(settlingExpired(this.internals, given.qname)).then(({ message }) => message);
  };

  /** Deletes a message; resolves `1` if it existed, else `0`. */
  readonly deleteMessageAsync = (options: DeleteMessageOptions): Promise<0 | 1> =>
    this.observed ? observedDelete(this.internals, optionsOf(options)) : this.run(() => deleteMessage(this.layout, optionsOf(options)));

  /** Deletes up to 1000 messages in one call; resolves `1` or `0` per id, in order (`[]` for no ids, with no round trip). */
  readonly deleteMessagesAsync = async (options: DeleteMessagesOptions): Promise<Array<0 | 1>> =>
    nothingToDelete(optionsOf(options))
      ? []
      : this.observed
        ? observedDeleteMany(this.internals, optionsOf(options))
        : this.run(() => deleteMessages(this.layout, optionsOf(options)));

  /**
   * The first `count` messages of any queue (10 by default, at most 1000), in the order they will
   * be received, without receiving them (one read-only script call). Each carries its `state`
   * (`visible`, `inFlight` or `delayed`, by the server's clock), `dueAt` and `receiveCount`; a
   * dead-lettered message also carries `deadLetter`: where it came from, how often it was
   * delivered, why it stopped, the last error and when. Rejects `queueNotFound`.
   *
   * @example
   * for (const { id, state, deadLetter } of await rsmq.peekMessagesAsync({ qname: "jobs-dlq" })) {
   *   console.log(id, state, deadLetter?.reason, deadLetter?.error);
   * }
   */
  readonly peekMessagesAsync = async (options: PeekMessagesOptions): Promise<MessageWithState[]> =>
    (await this.run(() => peekMessages(this.layout, optionsOf(options)))).messages;

  /**
   * The first messages of a queue, as {@link peekMessagesAsync} gives them but without `state`,
   * `dueAt` and `receiveCount`.
   *
   * @deprecated Use {@link peekMessagesAsync}: the same messages, in the same order, each with
   * its state and due time.
   */
  readonly peekDeadLettersAsync = (options: PeekDeadLettersOptions): Promise<PeekedMessage[]> =>
    this.run(() => peekDeadLetters(this.layout, optionsOf(options)));

  /**
   * Moves dead-lettered messages back as new messages (receive count reset): to each message's
   * source queue, or to `to`; at most `limit`. With `reason` or `error`, only the dead letters that
   * stopped for that reason or with that last error move; the others stay. Resolves how many moved.
   *
   * @example
   * const moved = await rsmq.redriveAsync({ from: "orders-dlq" });
   * const retryable = await rsmq.redriveAsync({ from: "orders-dlq", reason: "exhausted", error: "upstream 503" });
   */
  readonly redriveAsync = async (options: RedriveOptions): Promise<number> => {
    const plan = planRedrive(optionsOf(options));
    const moving = () => redrive(this.internals, plan, (target) => notifyQueueActivity(this.ns, target));
    return this.observed ? observedRedrive(this.internals.telemetry, plan.from, moving) : moving();
  };

  /**
   * Sweeps a queue's expired messages (older than its `retention`, docs/retention.md), the hidden
   * ones (in flight, delayed) included, which no receive meets: in chunks of 100 under the queue's
   * sweep lock, at most one sweeper per queue at a time. They are deleted, or with an `expireTo`
   * moved there with reason `"expired"`; either way counted in `totalexpired`. Resolves what it did;
   * `busy: true` when another sweeper holds the lock (it covers the queue; nothing was done). A
   * queue with no retention is done at once. Rejects `queueNotFound` for a missing queue.
   *
   * @example
   * const { expired, moved } = await rsmq.sweepExpiredAsync({ qname: "jobs" });
   */
  readonly sweepExpiredAsync = async (options: SweepExpiredOptions): Promise<SweepResult> => {
    const { qname } = optionsOf(options);
    // Built once here so that bad input fails before any round trip.
    sweepExpiredChunk(this.layout, qname, "", 0, 0);
    return sweepExpired(this.internals, qname);
  };

  /** Makes a message visible vt seconds from now; resolves `1` if it exists, else `0`. */
  readonly changeMessageVisibilityAsync = (options: ChangeMessageVisibilityOptions): Promise<0 | 1> =>
    this.notifying(
      options?.qname,
      this.observed
        ? observedChangeVisibility(this.internals, optionsOf(options))
        : this.run(() => changeMessageVisibility(this.layout, optionsOf(options))),
    );

  /**
   * Makes up to 1000 messages of one queue visible `vt` seconds from now, in one call (one
   * script): resolves `1` or `0` per id, in order, as changeMessageVisibility would for each. A
   * message counts only when both its sorted-set member and its body are there, so a deleted one
   * (or what an old client's delete left of it) never comes back; an empty `ids` resolves `[]`
   * with no round trip. Rejects `queueNotFound` for a missing queue.
   *
   * @example
   * const { messages } = await rsmq.receiveMessagesAsync({ qname: "jobs", count: 10 });
   * // Give back the ones this process cannot handle now:
   * await rsmq.changeMessagesVisibilityAsync({ qname: "jobs", ids: messages.map(({ id }) => id), vt: 0 });
   */
  readonly changeMessagesVisibilityAsync = async (options: ChangeMessagesVisibilityOptions): Promise<Array<0 | 1>> => {
    const given = optionsOf(options);
    if (nothingToChange(given)) return [];
    const results = await (this.observed
      ? observedChangeVisibilityMany(this.internals, given)
      : this.run(() => changeMessagesVisibility(this.layout, given)));
    // Any changed message may now be due sooner than a sleeping worker's wake (vt 0: at once).
    if (results.includes(1)) notifyQueueActivity(this.ns, String(given.qname));
    return results;
  };

  /**
   * Looks for what is out of place in this instance's namespace, and with `fix` repairs it:
   * message fields without their message (as rsmq 0.12.4's delete and pop leave `<id>:dl` and
   * `<id>:tp`), sorted-set members without a body and bodies without a member, registry entries
   * without a queue and queues missing from the registry, and queue settings an rsmq 0.12.4
   * client would refuse or misread. Each kind, and what `fix` does to it: {@link DoctorFindingKind}.
   *
   * It works in chunks of `chunk` fields or members, one script each (HSCAN, ZSCAN), so Redis is
   * never blocked for long; with `fix`, each chunk's repair is one more script that checks again
   * what it changes, so producers and consumers can keep working. Without `fix` it only reads
   * (read-only scripts by EVALSHA_RO, SMEMBERS, SCAN, and CLUSTER SLOTS in Redis Cluster, where
   * it scans every master). Resolves a {@link DoctorReport}: counts per kind, a few examples, and
   * how many things are still out of place (`left`).
   *
   * @example
   * const report = await rsmq.doctorAsync();
   * if (report.left > 0) await rsmq.doctorAsync({ fix: true });
   */
  readonly doctorAsync = (options?: DoctorOptions): Promise<DoctorReport> => runDoctor(this.doctorPort(), optionsOf(options));

  /** What the doctor gets of this instance: its keys, its operations, plain commands, and the repairs other features add. */
  private doctorPort(): DoctorPort {
    return {
      ns: this.ns,
      layout: this.layout,
      run: (build) => this.run(build),
      command: (args, key) => this.plainCommand("doctor", args, key),
      // Expired messages no receive meets (in flight, delayed, in queues nobody reads): the
      // retention sweep, under the queue's sweep lock, counted as the doctor's `expired` kind.
      queueRepairs: [{ kind: "expired", repair: async (qname) => (await this.sweepExpiredAsync({ qname })).expired }],
    };
  }

  /** One plain command for `operation`, counted as housekeeping, with Redis' refusals explained. */
  private async plainCommand(operation: string, args: string[], key?: string): Promise<unknown> {
    if (this.closedByUser) throw connectionClosedError(this.closedByUser);
    this.internals.telemetry.recording?.commands("housekeeping", 1);
    try {
      return await this.connection.sendCommand(args, key);
    } catch (error) {
      throw explainRefusal(error, { operation, keys: key === undefined ? [] : [key] });
    }
  }

  /**
   * Stops the workers started on this instance (each as its `stop()` does: running handlers get up
   * to its stopTimeoutMs), then closes the connection if this instance opened it; a client passed
   * in stays open. Resolves `"OK"`. After you closed {@link redis} yourself, the instance is closing
   * already: this resolves once it has closed the rest.
   */
  readonly quitAsync = async (): Promise<"OK"> => {
    // After the user closed rsmq.redis, the instance is closing already: nothing more to close.
    if (this.closing) return this.closing;
    await Promise.all([...this.workers].map((worker) => worker.stop()));
    await this.subscriber.close();
    return this.connection.close();
  };

  // Callback API, as rsmq 0.12.4 has it (declared after the promise methods they wrap).

  /**
   * Creates a queue; the callback gets `1`, or a `queueExists` error. See {@link createQueueAsync}.
   *
   * @example
   * rsmq.createQueue({ qname: "jobs" }, (err, created) => {
   *   if (err && err.name !== "queueExists") throw err;
   * });
   */
  readonly createQueue = withCallback(this.createQueueAsync);
  /** Deletes a queue and its messages; the callback gets `1`, or a `queueNotFound` error. See {@link deleteQueueAsync}. */
  readonly deleteQueue = withCallback(this.deleteQueueAsync);
  /** Removes every message of a queue and keeps the queue; the callback gets how many were removed. See {@link purgeQueueAsync}. */
  readonly purgeQueue = withCallback(this.purgeQueueAsync);
  /** A queue's settings, counters and message counts. See {@link getQueueAttributesAsync}. */
  readonly getQueueAttributes = withCallback(this.getQueueAttributesAsync);
  /** Changes any of vt, delay and maxsize; the callback gets the new attributes. See {@link setQueueAttributesAsync}. */
  readonly setQueueAttributes = withCallback(this.setQueueAttributesAsync);
  /**
   * Sends a message; the callback gets its 32-character id. See {@link sendMessageAsync}.
   *
   * @example
   * rsmq.sendMessage({ qname: "jobs", message: "hello" }, (err, id) => {
   *   if (err) return console.error(err);
   *   console.log("sent", id);
   * });
   */
  readonly sendMessage = withCallback(this.sendMessageAsync);
  /**
   * Sends up to 1000 messages to one queue in one call; the callback gets one result per entry,
   * in order. See {@link sendMessagesAsync}.
   */
  readonly sendMessages = withCallback(this.sendMessagesAsync);
  /**
   * Receives the next due message and hides it for vt seconds; the callback gets `{}` when none is
   * due. See {@link receiveMessageAsync}.
   */
  readonly receiveMessage = withCallback(this.receiveMessageAsync);
  /** Receives the next due message, or says when the next one will be due. See {@link receiveMessageOrNextDueAsync}. */
  readonly receiveMessageOrNextDue = withCallback(this.receiveMessageOrNextDueAsync);
  /** Receives up to `count` due messages in one call. See {@link receiveMessagesAsync}. */
  readonly receiveMessages = withCallback(this.receiveMessagesAsync);
  /** Deletes up to 1000 messages in one call; the callback gets `1` or `0` per id. See {@link deleteMessagesAsync}. */
  readonly deleteMessages = withCallback(this.deleteMessagesAsync);
  /**
   * The first messages of any queue, each with its state and due time, and why it was
   * dead-lettered if it was, without receiving them. See {@link peekMessagesAsync}.
   */
  readonly peekMessages = withCallback(this.peekMessagesAsync);
  /**
   * The first messages of a queue, with why each was dead-lettered, without receiving them. See
   * {@link peekDeadLettersAsync}.
   *
   * @deprecated Use {@link peekMessages}: the same messages, each with its state and due time.
   */
  readonly peekDeadLetters = withCallback(this.peekDeadLettersAsync);
  /** Moves dead-lettered messages back; the callback gets how many moved. See {@link redriveAsync}. */
  readonly redrive = withCallback(this.redriveAsync);
  /** Sweeps a queue's expired messages; the callback gets what it did. See {@link sweepExpiredAsync}. */
  readonly sweepExpired = withCallback(this.sweepExpiredAsync);
  /** Receives the next due message and deletes it; the callback gets `{}` when none is due. See {@link popMessageAsync}. */
  readonly popMessage = withCallback(this.popMessageAsync);
  /** Deletes a message; the callback gets `1` if it existed, else `0`. See {@link deleteMessageAsync}. */
  readonly deleteMessage = withCallback(this.deleteMessageAsync);
  /** Makes a message visible vt seconds from now; the callback gets `1` if it exists, else `0`. See {@link changeMessageVisibilityAsync}. */
  readonly changeMessageVisibility = withCallback(this.changeMessageVisibilityAsync);
  /** Makes up to 1000 messages visible vt seconds from now; the callback gets `1` or `0` per id. See {@link changeMessagesVisibilityAsync}. */
  readonly changeMessagesVisibility = withCallback(this.changeMessagesVisibilityAsync);

  /** `listQueues(cb)`; `listQueues(options, cb)` is accepted too. */
  readonly listQueues = ((first?: unknown, second?: unknown) => {
    const cb = (typeof first === "function" ? first : second) as Callback<string[]> | undefined;
    return settle(this.listQueuesAsync(), cb);
  }) as { (callback: Callback<string[]>): void; (): Promise<string[]> };

  /** Stops this instance's workers and closes its connection; the callback gets `"OK"`. See {@link quitAsync}. */
  readonly quit = ((cb?: Callback<"OK">) => settle(this.quitAsync(), cb)) as {
    (callback: Callback<"OK">): void;
    (): Promise<"OK">;
  };
  /** Finds (and with `fix` repairs) what is out of place in the namespace; `doctor(cb)` or `doctor(options, cb)`, the callback gets the report. See {@link doctorAsync}. */
  readonly doctor = ((first?: unknown, second?: unknown) => {
    const cb = (typeof first === "function" ? first : second) as Callback<DoctorReport> | undefined;
    return settle(this.doctorAsync(typeof first === "function" ? undefined : (first as DoctorOptions | undefined)), cb);
  }) as {
    (callback: Callback<DoctorReport>): void;
    (options: DoctorOptions | undefined, callback: Callback<DoctorReport>): void;
    (options?: DoctorOptions): Promise<DoctorReport>;
  };
}
