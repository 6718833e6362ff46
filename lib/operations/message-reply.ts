import type { QueueMessage } from "../types";

/** Builds rsmq's message shape from a script's id, body, rc, fr. */
export function toQueueMessage(id: unknown, body: unknown, rc: unknown, fr: unknown): QueueMessage {
  const messageId = String(id);
  return {
    id: messageId,
    message: String(body),
    rc: Number(rc),
    fr: Number(fr),
    // The id starts with the send time in microseconds, base36.
    sent: parseInt(messageId.slice(0, 10), 36) / 1000,
  };
}
