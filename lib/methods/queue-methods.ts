/**
 * The queue operations of RedisSMQ, as its users call them: each `<name>Async` method and its
 * callback twin `<name>`, with what they take, resolve and document. The facade (redis-smq.ts)
 * merges this interface into its class and builds every method from the operation's descriptor
 * (registry.ts); `tsc` checks that the two agree (attach-methods.ts), so a method declared here without a
 * descriptor, or one whose descriptor takes or resolves other types, fails to compile.
 */
import type { CallbackMethod } from "../callbacks";
import type { ControlMethods } from "./control-methods";
import type {
  Callback,
  ChangeMessageVisibilityOptions,
  ChangeMessagesVisibilityOptions,
  CreateQueueOptions,
  DeleteMessageOptions,
  DeleteMessagesOptions,
  DeleteAndReceiveOptions,
  DeleteAndReceiveMessagesOptions,
  DeletedAndReceivedMessage,
  DeletedAndReceivedMessages,
  DeleteQueueOptions,
  DoctorOptions,
  DoctorReport,
  GetQueueAttributesOptions,
  BrowseMessagesOptions,
  BrowseMessagesPage,
  MessageWithState,
  PeekDeadLettersOptions,
  PeekMessagesOptions,
  PeekMessageOptions,
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
} from "../types";

/** RedisSMQ's queue operations: every method is bound, so `const { sendMessage } = rsmq` works. */
export interface QueueMethods extends ControlMethods {
  /** Creates a queue. Resolves `1`; rejects `queueExists` when it already exists. */
  readonly createQueueAsync: (options: CreateQueueOptions) => Promise<1>;
  /** Lists the queue names in this namespace (one SMEMBERS). */
  readonly listQueuesAsync: () => Promise<string[]>;
  /** Deletes a queue and its messages. Resolves `1`; rejects `queueNotFound`. */
  readonly deleteQueueAsync: (options: DeleteQueueOptions) => Promise<1>;
  /**
   * Removes every message of a queue, visible, in flight and delayed, in one atomic call, and
   * keeps the queue with its settings (vt, delay, maxsize and the rest), its counters
   * (totalsent, totalrecv, created, modified) and its controls (a pause, a rate limit with what it
   * has spent, a block): a purge removes messages, not what was decided about the queue. Resolves how many messages were removed; rejects
   * `queueNotFound`. The old data is freed in Redis' background thread, so a queue of millions
   * does not block the server. Workers are not woken: a purge makes no message due.
   *
   * @example
   * const removed = await rsmq.purgeQueueAsync({ qname: "jobs" });
   */
  readonly purgeQueueAsync: (options: PurgeQueueOptions) => Promise<number>;
  /** A queue's settings, counters and message counts. */
  readonly getQueueAttributesAsync: (options: GetQueueAttributesOptions) => Promise<QueueAttributes>;
  /** Changes any of vt, delay and maxsize; resolves the new attributes. */
  readonly setQueueAttributesAsync: (options: SetQueueAttributesOptions) => Promise<QueueAttributes>;
  /**
   * Sends a message; resolves its 32-character id. With `realtime`, a notification Redis refuses
   * (a user without the channel) does not fail the send: it is reported once per channel, through
   * `error` (or one process warning when nobody listens).
   */
  readonly sendMessageAsync: (options: SendMessageOptions) => Promise<string>;
  /**
   * Sends up to 1000 messages to one queue in one call (one script, one round trip); resolves
   * one result per entry, in order: `{ id, duplicate }`, or `{ error }` for an entry longer than
   * the queue's maxsize (`messageTooLong`; the other entries are stored). Every entry is checked
   * before anything is sent: one bad entry refuses the whole call, naming its index, and bodies
   * of more than 256 KiB in all (UTF-8 bytes) refuse it with `batchTooLarge`: split such a batch.
   * Entries of equal delay and priority are received in entry order. Rejects `queueNotFound`.
   *
   * @example
   * const results = await rsmq.sendMessagesAsync({
   *   qname: "jobs",
   *   messages: [{ message: "a" }, { message: "b", delay: 10 }, { message: "c", priority: 9, dedupId: "order-7" }],
   * });
   */
  readonly sendMessagesAsync: (options: SendMessagesOptions) => Promise<SentEntry[]>;
  /**
   * Receives the next due message and hides it for vt seconds; resolves `{}` when none is due.
   * With `waitMs` (up to 60000), waits for one when none is due yet (long polling, docs/api.md).
   *
   * @example
   * const message = await rsmq.receiveMessageAsync({ qname: "jobs", waitMs: 20_000 });
   */
  readonly receiveMessageAsync: (options: ReceiveMessageOptions) => Promise<QueueMessage | {}>;
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
  readonly receiveMessageOrNextDueAsync: (options: ReceiveMessageOptions) => Promise<ReceiveOrNextDue>;
  /**
   * Receives up to `count` due messages in one call, each hidden for vt seconds. When fewer than
   * `count` were due, `nextDueMs` says when the next one will be (null: the queue is empty). It
   * stops before the message that would take the bodies past 256 KiB (the first always comes), so
   * it may return fewer while more are due (`nextDueMs` 0); a message not returned is not received.
   *
   * @example
   * const { messages, nextDueMs } = await rsmq.receiveMessagesAsync({ qname: "jobs", count: 50 });
   */
  readonly receiveMessagesAsync: (options: ReceiveMessagesOptions) => Promise<ReceivedMessages>;
  /** Receives the next due message and deletes it; resolves `{}` when none is due. */
  readonly popMessageAsync: (options: PopMessageOptions) => Promise<QueueMessage | {}>;
  /** Deletes a message; resolves `1` if it existed, else `0`. */
  readonly deleteMessageAsync: (options: DeleteMessageOptions) => Promise<0 | 1>;
  /** Deletes up to 1000 messages in one call; resolves `1` or `0` per id, in order (`[]` for no ids, with no round trip). */
  readonly deleteMessagesAsync: (options: DeleteMessagesOptions) => Promise<Array<0 | 1>>;
  /**
   * Deletes a message and receives the next due one, in one call (one script, one round trip):
   * deleteMessage then receiveMessage, for a consumer that is done with a message. Resolves
   * `{ deleted, message }`: `deleted` as deleteMessage answers, `message` as receiveMessage
   * (`{}` when none is due). Rsmq 0.12.4 clients on the queue see exactly what that delete and
   * that receive would leave.
   *
   * The delete is done first and never undone. When Redis refuses the receive part (an ACL user
   * that may delete but not receive), the call still resolves, with `message: {}` and
   * `receiveError` (the `noPermission` error receiveMessage would have rejected with), and the
   * error is reported once through the instance's `error` event. It rejects only when nothing
   * was written: bad input (before any round trip), a refused delete, or a missing queue
   * (`queueNotFound`). It takes no `waitMs`: when it answers `{}`, wait with
   * {@link receiveMessageAsync}'s `waitMs`.
   *
   * @example
   * let message = await rsmq.receiveMessageAsync({ qname: "jobs", waitMs: 20_000 });
   * while ("id" in message) {
   *   await handle(message);
   *   ({ message } = await rsmq.deleteAndReceiveAsync({ qname: "jobs", id: message.id }));
   * }
   */
  readonly deleteAndReceiveAsync: (options: DeleteAndReceiveOptions) => Promise<DeletedAndReceivedMessage>;
  /**
   * Deletes up to 1000 messages and receives up to `count` due ones, in one call: deleteMessages
   * then receiveMessages. Resolves `{ deleted, messages, nextDueMs? }`: `deleted` one `1` or `0`
   * per id, in order, the rest as {@link receiveMessagesAsync} answers. An empty `ids` only
   * receives. A receive part Redis refuses comes back as `receiveError`, as in
   * {@link deleteAndReceiveAsync}, whose other rules it follows (no `waitMs`).
   *
   * @example
   * let { messages } = await rsmq.receiveMessagesAsync({ qname: "jobs", count: 10 });
   * while (messages.length > 0) {
   *   await Promise.all(messages.map(handle));
   *   ({ messages } = await rsmq.deleteAndReceiveMessagesAsync({ qname: "jobs", ids: messages.map(({ id }) => id), count: 10 }));
   * }
   */
  readonly deleteAndReceiveMessagesAsync: (options: DeleteAndReceiveMessagesOptions) => Promise<DeletedAndReceivedMessages>;
  /**
   * The first `count` messages of any queue (10 by default, at most 1000; fewer once their bodies
   * reach 256 KiB), in the order they will be received, without receiving them (one read-only
   * script call). Each carries its `state`
   * (`visible`, `inFlight` or `delayed`, by the server's clock), `dueAt` and `receiveCount`; a
   * dead-lettered message also carries `deadLetter`: where it came from, how often it was
   * delivered, why it stopped, the last error and when. Rejects `queueNotFound`.
   *
   * @example
   * for (const { id, state, deadLetter } of await rsmq.peekMessagesAsync({ qname: "jobs-dlq" })) {
   *   console.log(id, state, deadLetter?.reason, deadLetter?.error);
   * }
   */
  readonly peekMessagesAsync: (options: PeekMessagesOptions) => Promise<MessageWithState[]>;
  /**
   * One message of any queue by its id, as {@link peekMessagesAsync} gives it (its `state`,
   * `dueAt`, `receiveCount`, and `deadLetter` for a dead letter), without receiving it (one
   * read-only script call). Resolves `{}` when the queue holds no message with that id; rejects
   * `queueNotFound`.
   *
   * @example
   * const message = await rsmq.peekMessageAsync({ qname: "jobs", id });
   * if ("id" in message) console.log(message.state, new Date(message.dueAt));
   */
  readonly peekMessageAsync: (options: PeekMessageOptions) => Promise<MessageWithState | {}>;
  /**
   * The first messages of a queue, as {@link peekMessagesAsync} gives them but without `state`,
   * `dueAt` and `receiveCount`.
   *
   * @deprecated Use {@link peekMessagesAsync}: the same messages, in the same order, each with
   * its state and due time.
   */
  readonly peekDeadLettersAsync: (options: PeekDeadLettersOptions) => Promise<PeekedMessage[]>;
  /**
   * A page of a queue's messages in receive order (score, then id), without receiving them (one
   * read-only script call; no score, receive count or counter changes), each with its `state`,
   * `dueAt`, `receiveCount`, `firstReceived` and `attributes`. `where` keeps the messages whose
   * attributes equal every value given (type and value), `state` those in that state, `limit`
   * (1 to 1000, 100 by default) caps the page. Resolves `{ messages, cursor }`: pass `cursor` to
   * the next call to go on; it is null once the whole queue was looked at.
   *
   * A call looks at no more than 1000 messages whatever matches, so a page may hold fewer than
   * `limit`, even none, while `cursor` is not null: keep going until it is. A message that stays
   * where it is is listed exactly once across the pages while others are sent and received; one
   * that moves (received, retried) between two pages may be missed or listed twice. Rejects
   * `queueNotFound`; bad input (`where`, `state`, `cursor`, `limit`) before any round trip.
   *
   * @example
   * let cursor: string | null = null;
   * do {
   *   const page = await rsmq.browseMessagesAsync({ qname: "jobs", where: { tenant: "acme" }, cursor });
   *   for (const message of page.messages) console.log(message.id, message.attributes);
   *   cursor = page.cursor;
   * } while (cursor !== null);
   */
  readonly browseMessagesAsync: (options: BrowseMessagesOptions) => Promise<BrowseMessagesPage>;
  /**
   * Moves dead-lettered messages back: to each message's source queue, or to `to`; at most
   * `limit`. Each keeps its id (so its send time) and body, and is otherwise new: visible now, at
   * priority 0, receive count 0, without its dead-letter record. With `reason` or `error`, only the dead letters that
   * stopped for that reason or with that last error move; the others stay. Resolves how many moved.
   *
   * @example
   * const moved = await rsmq.redriveAsync({ from: "orders-dlq" });
   * const retryable = await rsmq.redriveAsync({ from: "orders-dlq", reason: "exhausted", error: "upstream 503" });
   */
  readonly redriveAsync: (options: RedriveOptions) => Promise<number>;
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
  readonly sweepExpiredAsync: (options: SweepExpiredOptions) => Promise<SweepResult>;
  /** Makes a message visible vt seconds from now; resolves `1` if it exists, else `0`. */
  readonly changeMessageVisibilityAsync: (options: ChangeMessageVisibilityOptions) => Promise<0 | 1>;
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
  readonly changeMessagesVisibilityAsync: (options: ChangeMessagesVisibilityOptions) => Promise<Array<0 | 1>>;
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
  readonly doctorAsync: (options?: DoctorOptions) => Promise<DoctorReport>;

  // The callback twins, as rsmq 0.12.4 has them: without a callback each returns its `*Async` twin's promise.

  /**
   * Creates a queue; the callback gets `1`, or a `queueExists` error. See {@link createQueueAsync}.
   *
   * @example
   * rsmq.createQueue({ qname: "jobs" }, (err, created) => {
   *   if (err && err.name !== "queueExists") throw err;
   * });
   */
  readonly createQueue: CallbackMethod<CreateQueueOptions, 1>;
  /** Deletes a queue and its messages; the callback gets `1`, or a `queueNotFound` error. See {@link deleteQueueAsync}. */
  readonly deleteQueue: CallbackMethod<DeleteQueueOptions, 1>;
  /** Removes every message of a queue and keeps the queue; the callback gets how many were removed. See {@link purgeQueueAsync}. */
  readonly purgeQueue: CallbackMethod<PurgeQueueOptions, number>;
  /** A queue's settings, counters and message counts. See {@link getQueueAttributesAsync}. */
  readonly getQueueAttributes: CallbackMethod<GetQueueAttributesOptions, QueueAttributes>;
  /** Changes any of vt, delay and maxsize; the callback gets the new attributes. See {@link setQueueAttributesAsync}. */
  readonly setQueueAttributes: CallbackMethod<SetQueueAttributesOptions, QueueAttributes>;
  /**
   * Sends a message; the callback gets its 32-character id. See {@link sendMessageAsync}.
   *
   * @example
   * rsmq.sendMessage({ qname: "jobs", message: "hello" }, (err, id) => {
   *   if (err) return console.error(err);
   *   console.log("sent", id);
   * });
   */
  readonly sendMessage: CallbackMethod<SendMessageOptions, string>;
  /**
   * Sends up to 1000 messages to one queue in one call; the callback gets one result per entry,
   * in order. See {@link sendMessagesAsync}.
   */
  readonly sendMessages: CallbackMethod<SendMessagesOptions, SentEntry[]>;
  /**
   * Receives the next due message and hides it for vt seconds; the callback gets `{}` when none is
   * due. See {@link receiveMessageAsync}.
   */
  readonly receiveMessage: CallbackMethod<ReceiveMessageOptions, QueueMessage | {}>;
  /** Receives the next due message, or says when the next one will be due. See {@link receiveMessageOrNextDueAsync}. */
  readonly receiveMessageOrNextDue: CallbackMethod<ReceiveMessageOptions, ReceiveOrNextDue>;
  /** Receives up to `count` due messages in one call. See {@link receiveMessagesAsync}. */
  readonly receiveMessages: CallbackMethod<ReceiveMessagesOptions, ReceivedMessages>;
  /** Receives the next due message and deletes it; the callback gets `{}` when none is due. See {@link popMessageAsync}. */
  readonly popMessage: CallbackMethod<PopMessageOptions, QueueMessage | {}>;
  /** Deletes a message; the callback gets `1` if it existed, else `0`. See {@link deleteMessageAsync}. */
  readonly deleteMessage: CallbackMethod<DeleteMessageOptions, 0 | 1>;
  /** Deletes up to 1000 messages in one call; the callback gets `1` or `0` per id. See {@link deleteMessagesAsync}. */
  readonly deleteMessages: CallbackMethod<DeleteMessagesOptions, Array<0 | 1>>;
  /** Deletes a message and receives the next due one in one call; the callback gets `{ deleted, message, receiveError? }`. See {@link deleteAndReceiveAsync}. */
  readonly deleteAndReceive: CallbackMethod<DeleteAndReceiveOptions, DeletedAndReceivedMessage>;
  /** Deletes messages and receives up to `count` in one call; the callback gets `{ deleted, messages, nextDueMs?, receiveError? }`. See {@link deleteAndReceiveMessagesAsync}. */
  readonly deleteAndReceiveMessages: CallbackMethod<DeleteAndReceiveMessagesOptions, DeletedAndReceivedMessages>;
  /**
   * The first messages of any queue, each with its state and due time, and why it was
   * dead-lettered if it was, without receiving them. See {@link peekMessagesAsync}.
   */
  readonly peekMessages: CallbackMethod<PeekMessagesOptions, MessageWithState[]>;
  /** One message by its id, with its state and due time, without receiving it; the callback gets `{}` when it is not there. See {@link peekMessageAsync}. */
  readonly peekMessage: CallbackMethod<PeekMessageOptions, MessageWithState | {}>;
  /**
   * The first messages of a queue, with why each was dead-lettered, without receiving them. See
   * {@link peekDeadLettersAsync}.
   *
   * @deprecated Use {@link peekMessages}: the same messages, each with its state and due time.
   */
  readonly peekDeadLetters: CallbackMethod<PeekDeadLettersOptions, PeekedMessage[]>;
  /** A page of a queue's messages, filtered by attributes and state, with the cursor to go on from. See {@link browseMessagesAsync}. */
  readonly browseMessages: CallbackMethod<BrowseMessagesOptions, BrowseMessagesPage>;
  /** Moves dead-lettered messages back; the callback gets how many moved. See {@link redriveAsync}. */
  readonly redrive: CallbackMethod<RedriveOptions, number>;
  /** Sweeps a queue's expired messages; the callback gets what it did. See {@link sweepExpiredAsync}. */
  readonly sweepExpired: CallbackMethod<SweepExpiredOptions, SweepResult>;
  /** Makes a message visible vt seconds from now; the callback gets `1` if it exists, else `0`. See {@link changeMessageVisibilityAsync}. */
  readonly changeMessageVisibility: CallbackMethod<ChangeMessageVisibilityOptions, 0 | 1>;
  /** Makes up to 1000 messages visible vt seconds from now; the callback gets `1` or `0` per id. See {@link changeMessagesVisibilityAsync}. */
  readonly changeMessagesVisibility: CallbackMethod<ChangeMessagesVisibilityOptions, Array<0 | 1>>;
  /** `listQueues(cb)`; `listQueues(options, cb)` is accepted too. */
  readonly listQueues: {
    (callback: Callback<string[]>): void;
    (): Promise<string[]>;
  };
  /** Finds (and with `fix` repairs) what is out of place in the namespace; `doctor(cb)` or `doctor(options, cb)`, the callback gets the report. See {@link doctorAsync}. */
  readonly doctor: {
    (callback: Callback<DoctorReport>): void;
    (options: DoctorOptions | undefined, callback: Callback<DoctorReport>): void;
    (options?: DoctorOptions): Promise<DoctorReport>;
  };
}
