/**
 * The first step of the cross-slot redrive (lua/redriveClaim-2.lua): claims (hides for `holdMs`)
 * the messages that are still in the dead-letter queue, with a body, and visible; resolves them
 * with their bodies and stored attributes, for the copy (redrive-copy.ts).
 */
import { integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";

/** A claimed dead letter: its id, body and attributes as stored (`<id>:at` JSON; "" or absent when none). */
export interface ClaimedMessage {
  id: string;
  message: string;
  storedAttributes?: string;
}

export function redriveClaim(layout: KeyLayout, dlq: string, ids: string[], holdMs: number): Operation<ClaimedMessage[]> {
  const from = layout.queue(dlq);
  return {
    script: "redriveClaim",
    keys: [from.messages, from.hash],
    args: [integerArg(holdMs), ...ids],
    parse(reply) {
      const fields = reply as string[];
      const claimed: ClaimedMessage[] = [];
      for (let i = 0; i + 2 < fields.length; i += 3) {
        claimed.push({ id: String(fields[i]), message: String(fields[i + 1]), storedAttributes: String(fields[i + 2]) });
      }
      return claimed;
    },
  };
}
