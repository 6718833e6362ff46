/**
 * What telemetry records of the messages a call hands out (a receive, a pop, a Worker's batch), and
 * the bounded queue label every span and figure is named by.
 */
import { QNAME_FORMAT } from "../operations/rsmq-input-rules";
import type { Recorder } from "./recorder";
import { tenantOf } from "./tenant-labels";
import type { Carrier, CallSpan } from "./tracing";

/**
 * The queue a call names, as a span name and a label: a queue name as given, `_invalid` for
 * anything else (refused before any round trip), so that bad input cannot make a label unbounded.
 */
export function queueLabel(qname: unknown): string {
  return typeof qname === "string" && QNAME_FORMAT.test(qname) ? qname : "_invalid";
}

/** What telemetry needs of a received message, beyond rsmq's shape. */
export interface ReceivedDetail {
  /**
   * When it became visible, epoch ms (server clock): the score it had when it was taken, or its
   * send time when that score is before it (a priority's offset, see lib/operations/visible-since.ts).
   */
  visibleAt: number;
  /** Its trace context as the sender stored it in `<id>:tp`; undefined when none was. */
  carrier: Carrier;
}

/** Messages handed out by one call, with their details when the script was asked for them. */
export interface DeliveredBatch {
  readonly messages: ReadonlyArray<{ readonly id: string; readonly rc: number; readonly attributes?: Readonly<Record<string, unknown>> }>;
  readonly details?: ReadonlyArray<ReceivedDetail | undefined>;
  /** The server's time of the call, epoch ms, when details were asked for. */
  readonly now?: number;
}

/** The attributes of a span about one message. */
export function oneMessage(message: { id: string; rc: number }): Record<string, string | number> {
  return { "messaging.message.id": message.id, "messaging.rsmq.message.receive_count": message.rc };
}

/** Messages handed to the caller: counted, linked to their creation contexts, their wait recorded. */
export function delivered(
  qname: string,
  operation: "receive" | "pop",
  batch: DeliveredBatch,
  span: CallSpan | undefined,
  recording: Recorder | undefined,
): void {
  const { messages, details, now } = batch;
  if (messages.length === 0) return;
  recording?.consumed(qname, operation, messages.length);
  messages.forEach((message, index) => {
    const detail = details?.[index];
    span?.link({ id: message.id, carrier: detail?.carrier });
    if (recording && detail && now !== undefined) recording.waited(qname, Math.max(0, now - detail.visibleAt) / 1000, tenantOf(message));
  });
}
