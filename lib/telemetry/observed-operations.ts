/**
 * The facade's calls, observed: each runs the same operation as the facade's own path, inside its
 * span (see observe-call.ts), with the figures the Recorder takes. A send stores its span's
 * context with the message (`<id>:tp`); a receive asks the script for each message's details (the
 * score it took, its carried context) to link the creation contexts and count the wait.
 */
import type { RedisSMQInternals } from "../internals";
import { changeMessageVisibility } from "../operations/change-message-visibility";
import { changeMessagesVisibility } from "../operations/change-messages-visibility";
import { deleteMessage } from "../operations/delete-message";
import { deleteMessages } from "../operations/delete-messages";
import { popMessageDetailed } from "../operations/pop-message";
import type { Popped } from "../operations/pop-message";
import { receiveMessages } from "../operations/receive-message";
import type { ReceivedBatch } from "../operations/receive-message";
import { sendMessage } from "../operations/send-message";
import type { SentMessage } from "../operations/send-message";
import { sendMessages } from "../operations/send-messages";
import type { SentBatch } from "../operations/send-messages";
import type {
  ChangeMessageVisibilityOptions,
  ChangeMessagesVisibilityOptions,
  DeleteMessageOptions,
  DeleteMessagesOptions,
  PopMessageOptions,
  QueueMessage,
  ReceiveMessageOptions,
  SendMessageOptions,
  SendMessagesOptions,
} from "../types";
import { QNAME_FORMAT } from "../operations/rsmq-input-rules";
import { observeCall } from "./observe-call";
import type { Recorder } from "./recorder";
import type { TelemetryHub } from "./telemetry-hub";
import type { CallSpan } from "./tracing";

/**
 * The queue a call names, as a span name and a label: a queue name as given, `_invalid` for
 * anything else (refused before any round trip), so that bad input cannot make a label unbounded.
 */
export function queueLabel(qname: unknown): string {
  return typeof qname === "string" && QNAME_FORMAT.test(qname) ? qname : "_invalid";
}

/** What observing needs of an instance. */
export type Observed = Pick<RedisSMQInternals, "layout" | "run" | "telemetry">;

export function observedSend(queue: Observed, realtime: boolean, options: Partial<SendMessageOptions>): Promise<SentMessage> {
  const qname = queueLabel(options.qname);
  return observeCall(
    queue.telemetry,
    "send",
    qname,
    (span) => queue.run(() => sendMessage(queue.layout, realtime, options, span?.carry())),
    {
      attributes: { "messaging.rsmq.delay": typeof options.delay === "number" ? options.delay : undefined },
      done: (sent, span, recording) => {
        span?.set({ "messaging.message.id": sent.id });
        // A duplicate stored nothing: counted apart, not as a message sent.
        if (sent.duplicate) recording?.deduplicated(qname);
        else recording?.sent(qname, 1);
      },
      failed: (errorType, recording) => recording?.sent(qname, 1, errorType),
    },
  );
}

/** sendMessages: one `send` span for the batch, its context carried by every stored message. */
export function observedSendMany(queue: Observed, realtime: boolean, options: Partial<SendMessagesOptions>): Promise<SentBatch> {
  const qname = queueLabel(options.qname);
  const count = Array.isArray(options.messages) ? options.messages.length : undefined;
  return observeCall(
    queue.telemetry,
    "send",
    qname,
    (span) => queue.run(() => sendMessages(queue.layout, realtime, options, span?.carry())),
    {
      attributes: { "messaging.batch.message_count": count },
      done: (sent, _span, recording) => {
        // Duplicates stored nothing: counted apart, one each, not as messages sent.
        for (const entry of sent.entries) if (entry.duplicate) recording?.deduplicated(qname);
        recording?.sent(qname, sent.entries.filter((entry) => entry.id && !entry.duplicate).length);
      },
      failed: (errorType, recording) => recording?.sent(qname, count ?? 0, errorType),
    },
  );
}

/** receiveMessage (`single`: one message's attributes on the span) and receiveMessages (a batch's count). */
export function observedReceive(
  queue: Observed,
  options: Partial<ReceiveMessageOptions>,
  count: unknown,
  single: boolean,
): Promise<ReceivedBatch> {
  const qname = queueLabel(options.qname);
  return observeCall(queue.telemetry, "receive", qname, () => queue.run(() => receiveMessages(queue.layout, options, count, true)), {
    done: (batch, span, recording) => {
      span?.set({ "messaging.rsmq.visibility_timeout": batch.vt });
      if (!single) span?.set({ "messaging.batch.message_count": batch.messages.length });
      else if (batch.messages.length === 1) span?.set(oneMessage(batch.messages[0]));
      delivered(qname, "receive", batch, span, recording);
    },
  });
}

export function observedPop(queue: Observed, options: Partial<PopMessageOptions>): Promise<Popped> {
  const qname = queueLabel(options.qname);
  const popping = observeCall(queue.telemetry, "pop", qname, () => queue.run(() => popMessageDetailed(queue.layout, options)), {
    done: ({ message, detail, now }, span, recording) => {
      if (!("id" in message)) return;
      span?.set(oneMessage(message));
      delivered(qname, "pop", { messages: [message], details: detail && [detail], now }, span, recording);
    },
  });
  return popping.then(({ message, expired }) => (expired === undefined ? { message } : { message, expired }));
}

export function observedDelete(queue: Observed, options: Partial<DeleteMessageOptions>): Promise<0 | 1> {
  return observeCall(queue.telemetry, "delete", queueLabel(options.qname), () => queue.run(() => deleteMessage(queue.layout, options)), {
    attributes: { "messaging.message.id": typeof options.id === "string" ? options.id : undefined },
  });
}

export function observedDeleteMany(queue: Observed, options: Partial<DeleteMessagesOptions>): Promise<Array<0 | 1>> {
  const ids = options.ids;
  return observeCall(queue.telemetry, "delete", queueLabel(options.qname), () => queue.run(() => deleteMessages(queue.layout, options)), {
    attributes: { "messaging.batch.message_count": Array.isArray(ids) ? ids.length : undefined },
  });
}

export function observedChangeVisibility(queue: Observed, options: Partial<ChangeMessageVisibilityOptions>): Promise<0 | 1> {
  return observeCall(
    queue.telemetry,
    "change_visibility",
    queueLabel(options.qname),
    () => queue.run(() => changeMessageVisibility(queue.layout, options)),
    {
      attributes: {
        "messaging.message.id": typeof options.id === "string" ? options.id : undefined,
        "messaging.rsmq.visibility_timeout": typeof options.vt === "number" ? options.vt : undefined,
      },
    },
  );
}

export function observedChangeVisibilityMany(queue: Observed, options: Partial<ChangeMessagesVisibilityOptions>): Promise<Array<0 | 1>> {
  const ids = options.ids;
  return observeCall(
    queue.telemetry,
    "change_visibility",
    queueLabel(options.qname),
    () => queue.run(() => changeMessagesVisibility(queue.layout, options)),
    {
      attributes: {
        "messaging.batch.message_count": Array.isArray(ids) ? ids.length : undefined,
        "messaging.rsmq.visibility_timeout": typeof options.vt === "number" ? options.vt : undefined,
      },
    },
  );
}

/** A redrive from `from`: how many moved. */
export function observedRedrive(hub: TelemetryHub, from: string, redrive: () => Promise<number>): Promise<number> {
  return observeCall(hub, "redrive", from, redrive, {
    done: (moved, span) => span?.set({ "messaging.batch.message_count": moved }),
  });
}

function oneMessage(message: QueueMessage): Record<string, string | number> {
  return { "messaging.message.id": message.id, "messaging.rsmq.message.receive_count": message.rc };
}

/** Messages handed to the caller: counted, linked to their creation contexts, their wait recorded. */
export function delivered(
  qname: string,
  operation: "receive" | "pop",
  batch: Pick<ReceivedBatch, "messages" | "details" | "now">,
  span: CallSpan | undefined,
  recording: Recorder | undefined,
): void {
  const { messages, details, now } = batch;
  if (messages.length === 0) return;
  recording?.consumed(qname, operation, messages.length);
  messages.forEach((message, index) => {
    const detail = details?.[index];
    span?.link({ id: message.id, carrier: detail?.carrier });
    if (recording && detail && now !== undefined) recording.waited(qname, Math.max(0, now - detail.visibleAt) / 1000);
  });
}
