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
