import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import { randomIdPart } from "./random-id-part";
import type { KeyLayout } from "../keys";
import { isGiven, MIN_MAXSIZE, validateMessage, validateQname, validateSeconds } from "./rsmq-input-rules";
import type { SendMessageOptions } from "../types";
import { validatePriority } from "./priority";

/** A stored message, and the refusal of its realtime notification if Redis refused it. */
export interface SentMessage {
  readonly id: string;
  /** The realtime channel the notification was for. */
  readonly channel: string;
  /** Redis' error for the notification (an ACL user without the channel, ...); the message is stored all the same. */
  readonly notificationRefused?: Error;
  /** The command of the notification that Redis refused: ZCARD, PUBLISH or SPUBLISH. */
  readonly refusedCommand?: string;
}

/** A trace context longer than this is not stored (it would sit in Redis memory with every message). */
export const MAX_CARRIER_LENGTH = 512;

/**
 * Sends a message; with `carrier` (telemetry's trace context, at most MAX_CARRIER_LENGTH
 * characters) the script stores it beside the message as `<id>:tp`.
 */
export function sendMessage(
  layout: KeyLayout,
  realtime: boolean,
  options: Partial<SendMessageOptions>,
  carrier?: string,
): Operation<SentMessage> {
  const qname = validateQname(options.qname);
  const delay = isGiven(options.delay) ? integerArg(validateSeconds("delay", options.delay)) : "";
  const message = validateMessage(options.message);
  const priority = isGiven(options.priority) ? validatePriority(options.priority) : 0;
  const keys = layout.queue(qname);
  return {
    script: "sendMessage",
    keys: [keys.messages, keys.hash],
    args: sendArgs(randomIdPart(), delay, message, realtime ? keys.realtimeChannel : "", layout.cluster, carrier, priority),
    parse(reply) {
      failIfCode(reply);
      const channel = keys.realtimeChannel;
      // { id, error, command }: stored, but the notification was refused (see lua/sendMessage-2.lua).
      if (Array.isArray(reply)) {
        return { id: String(reply[0]), channel, notificationRefused: new Error(String(reply[1])), refusedCommand: String(reply[2]) };
      }
      return { id: String(reply), channel };
    },
  };
}

/**
 * The script's ARGV (see lua/sendMessage-2.lua), without the trailing arguments it does not need:
 * each argument costs the server a string to build on every send. The length is left off when it
 * is at most MIN_MAXSIZE, since no queue's maxsize is below that; the channel and its kind when
 * realtime is off.
 */
function sendArgs(
  randomPart: string,
  delay: string,
  message: string,
  channel: string,
  cluster: boolean,
  carrier: string | undefined,
  priority: number,
): string[] {
  const args = [randomPart, delay, message];
  const carried = carrier !== undefined && carrier !== "" && carrier.length <= MAX_CARRIER_LENGTH;
  const prioritized = priority !== 0;
  const lengthNeeded = message.length > MIN_MAXSIZE;
  if (lengthNeeded || channel !== "" || carried || prioritized) args.push(String(message.length));
  if (channel !== "" || carried || prioritized) args.push(channel, cluster && channel !== "" ? "sharded" : "");
  if (carried || prioritized) args.push(carried ? carrier : "");
  if (prioritized) args.push(String(priority));
  return args;
}
