/**
 * resumeQueueAsync: ends a pause (lua/resumeQueue-2.lua) and, after a hard pause, restores the
 * rest of the scores in chunks (lua/pauseScores-2.lua). The script publishes `~resume:<server ms>`
 * on the queue's wake channel, a control wake (operations/receive-block.ts), and so does the
 * restore's last chunk; the descriptor hands the same text to this process's sleeping consumers.
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import { moveAllScores } from "./pause-queue";
import { reportRefusedNotification } from "./refused-notification";
import type { ResumeQueueOptions } from "../types";
import { defineProcedure } from "./descriptor";

/** What the resume script did: 0 not paused, 1 resumed, 2 resumed with scores left to restore. */
export interface ResumeStart {
  readonly state: 0 | 1 | 2;
  /** The control wake it published ("" when it published none). */
  readonly wake: string;
  readonly channel: string;
  /** Redis' error for the publish (an ACL user without the channel); the queue is resumed all the same. */
  readonly notificationRefused?: Error;
  readonly refusedCommand?: string;
}

/** What resumeQueueAsync resolves (`resumed`) and tells this process (`wake`). */
export interface Resumed {
  readonly resumed: 0 | 1;
  readonly wake?: string;
  readonly refused?: ResumeStart;
}

export function resumeQueue(layout: KeyLayout, qname: string): Operation<ResumeStart> {
  const keys = layout.queue(qname);
  return {
    script: "resumeQueue",
    keys: [keys.messages, keys.hash],
    args: [keys.wakeChannel, layout.cluster ? "1" : ""],
    parse(reply) {
      failIfCode(reply);
      const [state, wake, error, command] = reply as [0 | 1 | 2, string, string?, string?];
      const start: ResumeStart = { state, wake, channel: keys.wakeChannel };
      return error === undefined ? start : { ...start, notificationRefused: new Error(error), refusedCommand: command };
    },
  };
}

/** resumeQueueAsync: resolves 1 when the queue was paused (a pending restore included), 0 when not. */
export const resumeQueueOperation = defineProcedure<ResumeQueueOptions, Resumed, 0 | 1>({
  optionKeys: { qname: true },
  prepare: (options) => {
    const qname = validateQname(options.qname);
    return async (internals) => {
      const start = await internals.run(() => resumeQueue(internals.layout, qname));
      if (start.state === 0) return { resumed: 0 };
      const refused = start.notificationRefused ? start : undefined;
      if (start.state === 1) return { resumed: 1, wake: start.wake, refused };
      // The restore's last chunk publishes a wake of its own: the consumers that looked at the
      // first one may have seen most scores still shifted.
      const last = await moveAllScores(internals, qname, "restore");
      return { resumed: 1, wake: last ?? start.wake, refused };
    };
  },
  events: ({ refused }, _options, outlets) => {
    if (refused) reportRefusedNotification({ ...refused, wake: true }, "resumeQueue resumed the queue", outlets);
  },
  wakes: ({ wake }) => wake ?? false,
  result: ({ resumed }) => resumed,
});
