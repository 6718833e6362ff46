/**
 * The first step of the cross-slot redrive (lua/redriveClaim-2.lua): claims (hides for `holdMs`)
 * the messages that are still in the dead-letter queue, with a body, and visible; resolves them
 * with their bodies.
 */
import { integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";

export function redriveClaim(
  layout: KeyLayout,
  dlq: string,
  ids: string[],
  holdMs: number,
): Operation<Array<{ id: string; message: string }>> {
  const from = layout.queue(dlq);
  return {
    script: "redriveClaim",
    keys: [from.messages, from.hash],
    args: [integerArg(holdMs), ...ids],
    parse(reply) {
      const fields = reply as string[];
      const claimed: Array<{ id: string; message: string }> = [];
      for (let i = 0; i < fields.length; i += 2) claimed.push({ id: String(fields[i]), message: String(fields[i + 1]) });
      return claimed;
    },
  };
}
