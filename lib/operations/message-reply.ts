/**
 * Reading a message's fields in a script's reply: rsmq's message shape, the send time its id
 * starts with, its attributes, and why a dead letter stopped.
 */
import type { DeadLetterInfo, QueueMessage, ScheduledMessageInfo } from "../types";
import { attributesOf } from "./message-attributes";

/**
 * When the message with id `id` was sent, in epoch ms (with the microseconds as a fraction): the
 * id starts with the send time in microseconds, 10 digits of base36 (rsmq 0.12.4's id).
 */
export function sentAt(id: string): number {
  return parseInt(id.slice(0, 10), 36) / 1000;
}

/** Builds rsmq's message shape from a script's id, body, rc, fr. */
export function toQueueMessage(id: unknown, body: unknown, rc: unknown, fr: unknown): QueueMessage {
  const messageId = String(id);
  return {
    id: messageId,
    message: String(body),
    rc: Number(rc),
    fr: Number(fr),
    sent: sentAt(messageId),
  };
}

/**
 * Sets `attributes` on `message` from its stored `<id>:at` (the reply's `at`: JSON, or null when
 * none), and with `schedule` also the schedule and slot a schedule's fire wrote there (the
 * Worker's receives). A message without attributes is left exactly as rsmq 0.12.4 shapes it.
 */
export function withStoredAttributes<M extends { attributes?: QueueMessage["attributes"]; schedule?: ScheduledMessageInfo }>(
  message: M,
  stored: unknown,
  schedule = false,
): M {
  if (typeof stored !== "string") return message;
  const attributes = attributesOf(stored);
  if (attributes) message.attributes = attributes;
  if (schedule) {
    const info = scheduleOf(stored);
    if (info) message.schedule = info;
  }
  return message;
}

/** The `<id>:dl` JSON of a dead letter; undefined when absent or unreadable. */
export function parseWhy(text: unknown): DeadLetterInfo | undefined {
  if (typeof text !== "string") return undefined;
  try {
    return JSON.parse(text) as DeadLetterInfo;
  } catch {
    return undefined;
  }
}

/**
 * The schedule and slot in a message's attributes `<id>:at` (JSON `{"schedule":"<name>","slot":<ms>}`,
 * written by a schedule's fire); undefined when absent, unreadable or not a schedule's.
 */
export function scheduleOf(text: unknown): ScheduledMessageInfo | undefined {
  if (typeof text !== "string") return undefined;
  let attributes: unknown;
  try {
    attributes = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof attributes !== "object" || attributes === null) return undefined;
  const { schedule, slot } = attributes as { schedule?: unknown; slot?: unknown };
  if (typeof schedule !== "string" || typeof slot !== "number" || !Number.isFinite(slot)) return undefined;
  return { name: schedule, slot };
}
