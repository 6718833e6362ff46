/** Looking at messages without receiving them. */
import type { MessageAttributes } from "../operations/message-attributes";
import type { DeadLetterInfo } from "./dead-letters";

/** A message looked at without receiving it. */
export interface PeekedMessage {
  /** The message id (32 characters). */
  id: string;
  /** The message body. */
  message: string;
  /** When it was first sent, epoch ms (from its id). */
  sent: number;
  /** Present for a dead-lettered message. */
  deadLetter?: DeadLetterInfo;
  /** The attributes it was sent with (docs/attributes.md), bytes as a Buffer; absent when it has none. */
  attributes?: MessageAttributes;
}

/**
 * Where a message is: `visible` (due: the next receive may get it), `inFlight` (received and
 * hidden for its vt: being handled, or waiting for a retry), `delayed` (sent with a delay, or
 * hidden without ever being received, and not due yet). The same split as `rsmq-next stats`.
 */
export type MessageState = "visible" | "inFlight" | "delayed";

/** A message looked at without receiving it, with where it is and when it is due. */
export interface MessageWithState extends PeekedMessage {
  /** Its state at the moment of the look, by the server's clock. */
  state: MessageState;
  /**
   * When it becomes visible (or became, for a visible one), epoch ms, server clock: its score, or
   * its send time for a message sent with a `priority`, whose score is decades back
   * (docs/priorities.md).
   */
  dueAt: number;
  /** How often it was received (rsmq's `rc`); 0 for never. */
  receiveCount: number;
}

/** For {@link RedisSMQ.peekMessages}: which queue, and how many of its first messages. */
export interface PeekMessagesOptions {
  /** The queue: any queue, a dead-letter queue included. */
  qname: string;
  /** How many of the first messages, 1 to 1000. @default 10 */
  count?: number;
}

/** For {@link RedisSMQ.peekMessage}: which message of which queue. */
export interface PeekMessageOptions {
  /** The queue: any queue, a dead-letter queue included. */
  qname: string;
  /** The message's id, as sendMessage resolved it. */
  id: string;
}

/**
 * For {@link RedisSMQ.peekDeadLetters}: the same as {@link PeekMessagesOptions}.
 *
 * @deprecated Use {@link PeekMessagesOptions}, with {@link RedisSMQ.peekMessages}.
 */
export type PeekDeadLettersOptions = PeekMessagesOptions;

/**
 * For {@link RedisSMQ.browseMessages}: which queue, which of its messages, and from where. A
 * call looks at no more than 1000 messages, so a page may hold fewer than `limit` (even none)
 * and still not be the last: go on with its `cursor` until that is null (docs/api.md).
 */
export interface BrowseMessagesOptions {
  /** The queue: any queue, a dead-letter queue included. */
  qname: string;
  /**
   * Keeps only the messages whose attributes (docs/attributes.md) equal every value given here:
   * same name, same type and value (bytes by their bytes). 1 to 10 names. Every message when
   * left out.
   *
   * @example
   * { tenant: "acme", attempt: 2 }
   */
  where?: MessageAttributes;
  /** Keeps only the messages in this state at the moment of the look. Every state when left out. */
  state?: MessageState;
  /** Where to go on from: the `cursor` of the previous page; null or left out to start. */
  cursor?: string | null;
  /** The most messages a page holds, 1 to 1000 (fewer once their bodies reach 256 KiB). @default 100 */
  limit?: number;
}

/** A message as {@link RedisSMQ.browseMessages} lists it: never received to be looked at. */
export interface BrowsedQueueMessage extends MessageWithState {
  /** When it was first received (rsmq's `fr`), epoch ms; null when never. */
  firstReceived: number | null;
  /** The attributes it was sent with, bytes as a Buffer; absent when it has none. */
  attributes?: MessageAttributes;
}

/** A page of {@link RedisSMQ.browseMessages}. */
export interface BrowseMessagesPage {
  /** The messages of this page in receive order (score, then id). */
  messages: BrowsedQueueMessage[];
  /** Pass it as the next call's `cursor` to go on; null once the whole queue was looked at. */
  cursor: string | null;
}
