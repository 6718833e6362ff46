/**
 * The copy step of the two-step dead-letter move (lua/deadLetterCopy-2.lua), for queues in
 * different Redis Cluster slots: writes the message, its attributes as the source stored them
 * (`<id>:at`) and why it stopped into the dead-letter queue, which it creates when it does not
 * exist; its name is listed first, by a plain SADD (the registry may sit in another slot).
 */
import { integerArg } from "./operation";
import type { Operation } from "./operation";
import type { StopRecord } from "./dead-letter";
import type { KeyLayout } from "../keys";

/** Settings for a dead-letter queue created on demand. */
export interface QueueSettings {
  vt: number;
  delay: number;
  maxsize: number;
}

export function deadLetterCopy(
  layout: KeyLayout,
  dlq: string,
  id: string,
  body: string,
  why: StopRecord,
  settings: QueueSettings,
  /** The message's `<id>:at` JSON as the source holds it; "" when none. */
  storedAttributes = "",
): Operation<1> {
  const to = layout.queue(dlq);
  return {
    // Listed first: a crash before the copy leaves a listed name with no queue, never the reverse.
    before: { args: ["SADD", to.registry, dlq], key: to.registry },
    script: "deadLetterCopy",
    commandKind: "settle",
    keys: [to.messages, to.hash],
    args: [
      id,
      body,
      JSON.stringify(why),
      integerArg(settings.vt),
      integerArg(settings.delay),
      integerArg(settings.maxsize),
      storedAttributes,
    ],
    parse: () => 1,
  };
}
