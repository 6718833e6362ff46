import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import { toQueueMessage } from "./message-reply";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { PopMessageOptions, QueueMessage } from "../types";
import type { ReceivedDetail } from "./receive-message";

/** What popMessageDetailed read: the message (`{}`: none was due), what telemetry needs of it, and the server's ms. */
export interface PoppedMessage {
  message: QueueMessage | {};
  /** Undefined when nothing was due. */
  detail: ReceivedDetail | undefined;
  now: number | undefined;
}

export function popMessage(layout: KeyLayout, options: Partial<PopMessageOptions>): Operation<QueueMessage | {}> {
  const keys = layout.queue(validateQname(options.qname));
  return {
    script: "popMessage",
    keys: [keys.messages, keys.hash],
    args: [],
    parse(reply) {
      failIfCode(reply);
      const fields = reply as unknown[];
      return fields.length === 0 ? {} : toQueueMessage(fields[0], fields[1], fields[2], fields[3]);
    },
  };
}

/** popMessage with the details telemetry needs: when the message became visible, and its trace context. */
export function popMessageDetailed(layout: KeyLayout, options: Partial<PopMessageOptions>): Operation<PoppedMessage> {
  const keys = layout.queue(validateQname(options.qname));
  return {
    script: "popMessage",
    keys: [keys.messages, keys.hash],
    args: ["d"],
    parse(reply) {
      failIfCode(reply);
      const fields = reply as unknown[];
      if (fields.length === 0) return { message: {}, detail: undefined, now: undefined };
      const [id, body, rc, fr, now, score, carried] = fields;
      return {
        message: toQueueMessage(id, body, rc, fr),
        detail: { visibleAt: Number(score), carrier: typeof carried === "string" ? carried : undefined },
        now: Number(now),
      };
    },
  };
}
