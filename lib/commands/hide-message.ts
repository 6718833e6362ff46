import { failIfCode, integerArg, type Command } from "./command";
import { queueKeys } from "../keys";

/** Hides a message the caller holds for `ms` milliseconds from now (retry backoff, extension). */
export function hideMessage(ns: string, qname: string, id: string, ms: number): Command<0 | 1> {
  const keys = queueKeys(ns, qname);
  return {
    script: "hideMessage",
    keys: [keys.messages],
    args: [id, integerArg(ms)],
    parse(reply) {
      failIfCode(reply);
      return reply === 1 ? 1 : 0;
    },
  };
}
