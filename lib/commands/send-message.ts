import { randomInt } from "crypto";
import { failIfCode, integerArg, type Command } from "./command";
import type { KeyLayout } from "../keys";
import { isGiven, validateMessage, validateQname, validateSeconds } from "../validation";
import type { SendMessageOptions } from "../types";

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const RANDOM_ID_LENGTH = 22;

/** The 22 random characters of an id, from a cryptographic source (rsmq used Math.random). */
export function randomIdPart(): string {
  let part = "";
  for (let i = 0; i < RANDOM_ID_LENGTH; i++) part += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return part;
}

export function sendMessage(layout: KeyLayout, realtime: boolean, options: Partial<SendMessageOptions>): Command<string> {
  const qname = validateQname(options.qname);
  const delay = isGiven(options.delay) ? integerArg(validateSeconds("delay", options.delay)) : "";
  const message = validateMessage(options.message);
  const keys = layout.queue(qname);
  return {
    script: "sendMessage",
    keys: [keys.messages, keys.hash],
    args: [
      randomIdPart(),
      delay,
      message,
      String(message.length),
      realtime ? keys.realtimeChannel : "",
      layout.cluster ? "sharded" : "",
    ],
    parse(reply) {
      failIfCode(reply);
      return String(reply);
    },
  };
}
