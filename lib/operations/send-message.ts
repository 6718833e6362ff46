import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import { randomIdPart } from "./random-id-part";
import type { KeyLayout } from "../keys";
import { isGiven, MIN_MAXSIZE, validateMessage, validateQname, validateSeconds } from "./rsmq-input-rules";
import type { SendMessageOptions } from "../types";
import { validatePriority } from "./priority";
import { encodeAttributes } from "./message-attributes";
import { dedupKey, validateDedupId, validateDedupWindow, unusedDedupWindow } from "./dedup-id";
import { defineOperation } from "./descriptor";
import { reportRefusedNotification } from "./refused-notification";
import { notificationArgs } from "./send-notification";
import type { SendNotification } from "./send-notification";

/** A stored message, and the refusal of its realtime notification if Redis refused it. */
export interface SentMessage {
  readonly id: string;
  /** The channel the notification was for (realtime or wake). */
  readonly channel: string;
  /** Redis' error for the notification (an ACL user without the channel, ...); the message is stored all the same. */
  readonly notificationRefused?: Error;
  /** Set with `notificationRefused` when the refused notification was a wake (not rsmq's realtime count). */
  readonly wake?: boolean;
  /** The command of the notification that Redis refused: ZCARD, PUBLISH or SPUBLISH. */
  readonly refusedCommand?: string;
  /** Set when the send's dedupId was taken: nothing was stored, and `id` is the first message's. */
  readonly duplicate?: true;
}

/** A trace context longer than this is not stored (it would sit in Redis memory with every message). */
export const MAX_CARRIER_LENGTH = 512;

/**
 * Sends a message; with `carrier` (telemetry's trace context, at most MAX_CARRIER_LENGTH
 * characters) the script stores it beside the message as `<id>:tp`.
 */
export function sendMessage(
  layout: KeyLayout,
  notify: SendNotification,
  options: Partial<SendMessageOptions>,
  carrier?: string,
): Operation<SentMessage> {
  const qname = validateQname(options.qname);
  const delay = isGiven(options.delay) ? integerArg(validateSeconds("delay", options.delay)) : "";
  const message = validateMessage(options.message);
  const priority = isGiven(options.priority) ? validatePriority(options.priority) : 0;
  const window = isGiven(options.dedupWindowMs) ? validateDedupWindow(options.dedupWindowMs) : undefined;
  const dedupId = isGiven(options.dedupId) ? validateDedupId(options.dedupId) : undefined;
  const attributes = encodeAttributes(options.attributes, options.tenant);
  const keys = layout.queue(qname);
  const [channel, kind] = notificationArgs(keys, notify, layout.cluster);
  const parse = (reply: unknown): SentMessage => {
    failIfCode(reply);
    if (Array.isArray(reply)) {
      // { firstId, "duplicate" }: the dedupId was taken (lua/sendMessageOnce-3.lua).
      if (reply.length === 2) return { id: String(reply[0]), channel, duplicate: true };
      // { id, error, command }: stored, but the notification was refused (see lua/sendMessage-2.lua).
      return {
        id: String(reply[0]),
        channel,
        notificationRefused: new Error(String(reply[1])),
        wake: notify === "wake",
        refusedCommand: String(reply[2]),
      };
    }
    return { id: String(reply), channel };
  };
  if (dedupId !== undefined) {
    return {
      script: "sendMessageOnce",
      keys: [keys.messages, keys.hash, dedupKey(keys, dedupId, message)],
      args: onceArgs(randomIdPart(), delay, message, channel, kind, carrier, priority, window, attributes),
      parse,
    };
  }
  return {
    script: "sendMessage",
    commandKind: "send",
    keys: [keys.messages, keys.hash],
    args: sendArgs(randomIdPart(), delay, message, channel, kind, carrier, priority, attributes),
    parse,
  };
}

/** lua/sendMessageOnce-3.lua's ARGV: all nine, since the window comes last (the first eight in lua/sendMessage-2.lua's order). */
function onceArgs(
  randomPart: string,
  delay: string,
  message: string,
  channel: string,
  kind: string,
  carrier: string | undefined,
  priority: number,
  window: number | undefined,
  attributes: EncodedAttributes,
): string[] {
  const carried = carrier !== undefined && carrier.length <= MAX_CARRIER_LENGTH ? carrier : "";
  const args = [
    randomPart,
    message,
    channel,
    kind,
    delay,
    String(message.length + attributes.length),
    carried,
    String(priority),
    window === undefined ? "" : String(window),
  ];
  if (attributes.json !== undefined) args.push(attributes.json, attributes.tenant ?? "");
  return args;
}

/** A send's attributes as encodeAttributes gives them. */
type EncodedAttributes = ReturnType<typeof encodeAttributes>;

/**
 * The script's ARGV (see lua/sendMessage-2.lua), without the trailing arguments it does not need:
 * each argument costs the server a string to build on every send. A send at the defaults (a wake,
 * no delay) passes three; the kind only when it is not a wake; the length only when it is above
 * MIN_MAXSIZE, since no queue's maxsize is below that.
 */
function sendArgs(
  randomPart: string,
  delay: string,
  message: string,
  channel: string,
  kind: string,
  carrier: string | undefined,
  priority: number,
  attributes: EncodedAttributes,
): string[] {
  const carried = carrier !== undefined && carrier !== "" && carrier.length <= MAX_CARRIER_LENGTH;
  const attributed = attributes.json !== undefined;
  const prioritized = priority !== 0 || attributed;
  const length = message.length + attributes.length;
  const lengthNeeded = length > MIN_MAXSIZE;
  // Each argument is needed when it says something, or when a later one must follow it.
  const fromCarried = carried || prioritized;
  const fromLength = lengthNeeded || fromCarried;
  const fromDelay = delay !== "" || fromLength;
  const fromKind = (channel !== "" && kind !== "wake") || fromDelay;
  const args = [randomPart, message];
  if (channel !== "" || fromKind) args.push(channel);
  if (fromKind) args.push(kind);
  if (fromDelay) args.push(delay);
  if (fromLength) args.push(lengthNeeded ? String(length) : "");
  if (fromCarried) args.push(carried ? carrier : "");
  if (prioritized) args.push(priority !== 0 ? String(priority) : "");
  if (attributed) args.push(attributes.json!, attributes.tenant ?? "");
  return args;
}

/**
 * sendMessageAsync: resolves the message's id. A duplicate (its dedupId taken) stored nothing: it
 * emits `duplicate`, and wakes nobody. A notification Redis refused is told once per channel.
 */
export const sendMessageOperation = defineOperation<SendMessageOptions, SentMessage, string>({
  optionKeys: {
    qname: true,
    message: true,
    delay: true,
    priority: true,
    dedupId: true,
    dedupWindowMs: true,
    attributes: true,
    tenant: true,
  },
  unusedOption: unusedDedupWindow,
  build: ({ layout, notify, carrier }, options) => sendMessage(layout, notify, options, carrier),
  observe: {
    operation: "send",
    attributes: ({ delay }) => ({ "messaging.rsmq.delay": typeof delay === "number" ? delay : undefined }),
    done: (sent, span, recording, queue) => {
      span?.set({ "messaging.message.id": sent.id });
      // A duplicate stored nothing: counted apart, not as a message sent.
      if (sent.duplicate) recording?.deduplicated(queue);
      else recording?.sent(queue, 1);
    },
    failed: (errorType, recording, queue) => recording?.sent(queue, 1, errorType),
  },
  events: (sent, options, outlets) => {
    if (sent.duplicate) outlets.emit("duplicate", { qname: String(options.qname), id: sent.id, dedupId: options.dedupId as string | true });
    else if (sent.notificationRefused) reportRefusedNotification(sent, "sendMessage stored the message", outlets);
  },
  // The id: the one its wake publish carried, if it made one (FreshWakes matches the two).
  wakes: (sent) => !sent.duplicate && sent.id,
  result: (sent) => sent.id,
});
