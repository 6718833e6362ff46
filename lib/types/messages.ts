/** The options of the calls on messages (send, receive, delete, change visibility), and what they answer. */
import type { ScheduledMessageInfo } from "./schedules";
import type { BaseOptions } from "./queues";
import type { ReceiveBlock } from "../operations/receive-block";
import type { MessageAttributes } from "../operations/message-attributes";

export type { ReceiveBlock } from "../operations/receive-block";
export type { AttributeValue, MessageAttributes } from "../operations/message-attributes";

/**
 * For {@link RedisSMQ.sendMessage}.
 *
 * @example
 * const id = await rsmq.sendMessageAsync({ qname: "emails", message: JSON.stringify({ to: "a@example.com" }), delay: 10 });
 */
export interface SendMessageOptions extends BaseOptions {
  /** The message body. */
  message: string;
  /** Seconds before the message becomes visible, 0 to 9999999. @default the queue's delay */
  delay?: number;
  /**
   * 0 to 9: a larger number is received first (RabbitMQ's convention), by every client, rsmq
   * 0.12.4 included. Only a message visible at once is reordered: a delayed one keeps its due
   * time. See docs/priorities.md. @default 0
   */
  priority?: number;
  /**
   * Sends at most once per window: a second send with the same id within `dedupWindowMs` stores
   * nothing and resolves the first message's id (even after it was received or deleted), and the
   * instance emits `duplicate`. A string of 1 to 128 characters, or `true` for the SHA-256 of the
   * body. See docs/idempotent-sends.md.
   */
  dedupId?: string | true;
  /** How long `dedupId` is remembered, in ms, 1 to 86400000. @default the queue's dedupWindowMs, else 300000 */
  dedupWindowMs?: number;
  /**
   * Up to 10 typed values stored with the message and returned with it by every read (receive,
   * pop, peek, browse, the Worker): names of 1 to 64 of `[A-Za-z0-9_.-]`, values strings (at
   * most 1024 characters), finite numbers, booleans or bytes (at most 1024). Their JSON counts
   * against the queue's maxsize with the body. rsmq 0.12.4 clients see the body only. See
   * docs/attributes.md.
   */
  attributes?: MessageAttributes;
  /**
   * The tenant the message is sent for (the `tenant` attribute; 1 to 128 characters): among
   * messages of the same priority visible at once, a tenant that has sent many is interleaved
   * with the others instead of ahead of them, for every client, rsmq 0.12.4 included. See
   * docs/fair-queues.md.
   */
  tenant?: string;
}

/** One message of {@link RedisSMQ.sendMessages}: the body and the per-message options of a send. */
export interface SendMessagesEntry {
  /** The message body. */
  message: string;
  /** Seconds before the message becomes visible, 0 to 9999999. @default the queue's delay */
  delay?: number;
  /** 0 to 9, larger first. @default 0 */
  priority?: number;
  /** As {@link SendMessageOptions.dedupId}. */
  dedupId?: string | true;
  /** As {@link SendMessageOptions.attributes}. */
  attributes?: MessageAttributes;
  /** As {@link SendMessageOptions.tenant}. */
  tenant?: string;
}

/** For {@link RedisSMQ.sendMessages}: up to 1000 messages to one queue in one call. */
export interface SendMessagesOptions extends BaseOptions {
  /** 1 to 1000 entries, bodies of at most 256 KiB in all; every entry is checked before anything is written. */
  messages: SendMessagesEntry[];
  /** How long each entry's `dedupId` is remembered, in ms. @default the queue's dedupWindowMs, else 300000 */
  dedupWindowMs?: number;
}

/** What {@link RedisSMQ.sendMessages} did with one entry, in the order of the entries. */
export type SentEntry =
  | {
      /** The stored message's id; for a duplicate, the id of the message first sent with its dedupId. */
      id: string;
      /** Whether the entry was a duplicate within the window, so nothing was stored. */
      duplicate: boolean;
      /** Absent: the entry was not refused. */
      error?: undefined;
    }
  | {
      /** Absent: nothing was stored. */
      id?: undefined;
      /** Absent: the entry was refused before any dedupId was looked at. */
      duplicate?: undefined;
      /** Why this entry was refused (`messageTooLong`: longer than the queue's maxsize); nothing of it was stored. */
      error: Error;
    };

/** For {@link RedisSMQ.receiveMessage} and {@link RedisSMQ.receiveMessageOrNextDue}. */
export interface ReceiveMessageOptions extends BaseOptions {
  /** Seconds the received message stays invisible, 0 to 9999999. @default the queue's vt */
  vt?: number;
  /**
   * Long polling (SQS's WaitTimeSeconds): when nothing is due, wait up to this many ms, 0 to
   * 60000, and resolve as soon as a message is due; the usual empty answer when the wait ends.
   * See docs/api.md. @default 0 (answer at once, as rsmq 0.12.4)
   */
  waitMs?: number;
  /** Ends a wait early: the call then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** For {@link RedisSMQ.receiveMessages}: how many messages at most, besides the queue and vt. */
export interface ReceiveMessagesOptions extends ReceiveMessageOptions {
  /** Most messages to receive, 1 to 1000. */
  count: number;
}

/** For {@link RedisSMQ.popMessage}: the queue to receive and delete the next message from. */
export interface PopMessageOptions extends BaseOptions {}

/** For {@link RedisSMQ.deleteMessage}: the queue and the id {@link RedisSMQ.sendMessage} returned. */
export interface DeleteMessageOptions extends BaseOptions {
  /** The message id (32 characters). */
  id: string;
  /**
   * The receipt: the `rc` of the delivery this holder received. The delete then happens only
   * while the message's receive count still is `rc` (no later receive took it), and answers 0
   * otherwise. Left out: deletes whoever holds it, as rsmq 0.12.4 does.
   */
  rc?: number;
}

/** For {@link RedisSMQ.deleteMessages}: the queue and the ids to delete. */
export interface DeleteMessagesOptions extends BaseOptions {
  /** The message ids (32 characters each), at most 1000 of them; an empty list resolves `[]` with no round trip. */
  ids: string[];
  /** The receipts, one per id in the same order (see {@link DeleteMessageOptions.rc}); left out: none. */
  rcs?: number[];
}

/**
 * For {@link RedisSMQ.changeMessageVisibility}: hide a message for longer (a handler that needs
 * more time), or make it visible at once (`vt: 0`, to give it back).
 */
export interface ChangeMessageVisibilityOptions extends BaseOptions {
  /** The message id (32 characters). */
  id: string;
  /** Seconds from now until the message is visible again, 0 to 9999999. */
  vt: number;
  /** The receipt (see {@link DeleteMessageOptions.rc}): changes it only while its receive count still is `rc`, else answers 0. */
  rc?: number;
}

/** For {@link RedisSMQ.changeMessagesVisibility}: up to 1000 ids of one queue and their new vt. */
export interface ChangeMessagesVisibilityOptions extends BaseOptions {
  /** The message ids (32 characters each), 1 to 1000 of them. */
  ids: string[];
  /** Seconds from now until the messages are visible again, 0 to 9999999. */
  vt: number;
  /** The receipts, one per id in the same order (see {@link DeleteMessageOptions.rc}); left out: none. */
  rcs?: number[];
}

/** A received message, as rsmq returns it. */
export interface QueueMessage {
  /** The message body. */
  message: string;
  /** The message id: 10 base36 characters of the send time in microseconds, then 22 random ones. */
  id: string;
  /** When the message was sent, epoch milliseconds with a fractional microsecond part. */
  sent: number;
  /** When the message was first received, epoch milliseconds. */
  fr: number;
  /** How many times the message has been received, this time included. */
  rc: number;
  /**
   * The schedule and slot the message was sent for (docs/schedules.md), on the messages a Worker
   * hands its handler; absent for a message no schedule sent.
   */
  schedule?: ScheduledMessageInfo;
  /**
   * The attributes it was sent with (docs/attributes.md), bytes as a Buffer; absent when it has
   * none, so a message without attributes has rsmq 0.12.4's shape.
   */
  attributes?: MessageAttributes;
}

/**
 * What {@link RedisSMQ.receiveMessageOrNextDue} found: a message; or none due yet and when the
 * earliest one will be (delayed, retried or in flight); or an empty queue.
 */
export type ReceiveOrNextDue =
  | {
      /** A message was due: it is received (hidden for vt seconds), as receiveMessage would. */
      status: "received";
      /** The message received. */
      message: QueueMessage;
    }
  | {
      /** No message is due yet; one will be in `nextDueMs`. */
      status: "waiting";
      /** Milliseconds from now (server clock) until the earliest message becomes visible. */
      nextDueMs: number;
    }
  | {
      /** The queue holds no message at all. */
      status: "empty";
    }
  | {
      /** The queue is paused (pauseQueue): nothing is received until it resumes. */
      status: "paused";
      /** Milliseconds until the pause ends by itself (its `until`); absent: until a resume. */
      retryMs?: number;
    }
  | {
      /** A message is due, but the queue's rate limit (setRateLimit) or a block (rateLimitQueue) holds receives back. */
      status: "limited";
      /** Milliseconds from now (server clock) until a receive may take a message again. */
      retryMs: number;
    }
  | {
      /**
       * A message is due, but the queue's concurrency limit (setConcurrency) is reached: as many
       * of its messages as it allows are in flight with rsmq-next consumers.
       */
      status: "maxed";
      /** Milliseconds until the first of them reaches the end of its vt (a slot frees by itself then at the latest); a delete frees one sooner. */
      retryMs: number;
    };

/** What {@link RedisSMQ.receiveMessages} received. */
export interface ReceivedMessages {
  /** The messages received, in visibility order (FIFO among equally-due ones). */
  messages: QueueMessage[];
  /**
   * Present when fewer than `count` messages were due: milliseconds from now (server clock) until
   * the earliest remaining message becomes visible, or null when the queue is empty.
   */
  nextDueMs?: number | null;
  /**
   * Present when the queue held the receive back although messages were due: paused
   * (pauseQueue), or rate-limited (setRateLimit, rateLimitQueue), with when to retry. A batch the
   * limit cut short has its messages and `blocked` both.
   */
  blocked?: ReceiveBlock;
}

/**
 * For {@link RedisSMQ.deleteAndReceive}: the message a consumer is done with, and the queue's next
 * one, in one call.
 *
 * @example
 * let next = await rsmq.receiveMessageAsync({ qname: "jobs", waitMs: 20_000 });
 * while ("id" in next) {
 *   await handle(next);
 *   ({ message: next } = await rsmq.deleteAndReceiveAsync({ qname: "jobs", id: next.id }));
 * }
 */
export interface DeleteAndReceiveOptions extends BaseOptions {
  /** The id of the message to delete (32 characters). */
  id: string;
  /** The receipt of the message to delete (see {@link DeleteMessageOptions.rc}). */
  rc?: number;
  /** Seconds the received message stays invisible, 0 to 9999999. @default the queue's vt */
  vt?: number;
}

/** For {@link RedisSMQ.deleteAndReceiveMessages}: the messages a consumer is done with, and the next batch. */
export interface DeleteAndReceiveMessagesOptions extends BaseOptions {
  /** The ids to delete (32 characters each), at most 1000; an empty list deletes nothing and only receives. */
  ids: string[];
  /** The receipts, one per id in the same order (see {@link DeleteMessageOptions.rc}); left out: none. */
  rcs?: number[];
  /** Most messages to receive, 1 to 1000. */
  count: number;
  /** Seconds each received message stays invisible, 0 to 9999999. @default the queue's vt */
  vt?: number;
}

/**
 * What {@link RedisSMQ.deleteAndReceive} did: whether the message was deleted, and the next one.
 * The delete always ran first; a receive part Redis refused is in `receiveError`.
 */
export interface DeletedAndReceivedMessage {
  /** 1 when the message existed and was deleted, else 0 (as deleteMessage answers). */
  deleted: 0 | 1;
  /** The next due message, hidden for vt seconds; `{}` when none is due (or the receive part failed). */
  message: QueueMessage | {};
  /** Present when the receive part was held back by a pause or a rate limit (the delete was done all the same). */
  blocked?: ReceiveBlock;
  /**
   * Set when the receive part failed after the delete was done (a `noPermission` refusal): the
   * error receiveMessage alone would have rejected with. It is also reported once through the
   * instance's `error` event (or a process warning when nobody listens).
   */
  receiveError?: Error;
}

/**
 * What {@link RedisSMQ.deleteAndReceiveMessages} did: one deleted flag per id, and the next batch
 * as {@link ReceivedMessages}.
 */
export interface DeletedAndReceivedMessages extends ReceivedMessages {
  /** One per id, in order: 1 when that message existed and was deleted, else 0 (as deleteMessages answers). */
  deleted: Array<0 | 1>;
  /** As {@link DeletedAndReceivedMessage.receiveError}; `messages` is then empty. */
  receiveError?: Error;
}
