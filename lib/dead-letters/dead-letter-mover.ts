/**
 * Moves a message that stopped being retried into a dead-letter queue. When both queues' keys can
 * share a script it is one atomic script. Otherwise (queues in different Redis Cluster slots) it
 * is the two-step move (two-step-move.ts): hold, copy into the dead-letter queue, delete from the
 * source, so a crash in between leaves the message in both queues, never in neither. Either way
 * the message keeps its attributes (`<id>:at`, moved as stored).
 */
import { deadLetter } from "../operations/dead-letter";
import type { StopRecord } from "../operations/dead-letter";
import { deadLetterCopy } from "../operations/dead-letter-copy";
import type { QueueSettings } from "../operations/dead-letter-copy";
import { deleteMessage } from "../operations/delete-message";
import { hideMessage } from "../operations/hide-message";
import { QUEUE_DEFAULTS } from "../operations/create-queue";
import { queueNotFound } from "../errors/rsmq-errors";
import type { RedisSMQInternals } from "../internals";
import type { QueueMessage } from "../types";
import { moveInTwoSteps } from "./two-step-move";
import type { TwoStepOptions } from "./two-step-move";

export interface DeadLetterMoverOptions extends TwoStepOptions {
  /** One script for the whole move. @default whether the two queues' keys share a slot */
  atomic?: boolean;
}

export class DeadLetterMover {
  constructor(
    private readonly queue: RedisSMQInternals,
    private readonly options: DeadLetterMoverOptions = {},
  ) {}

  /**
   * Resolves true when the message was moved, false when it was no longer in the source queue.
   * `byHolder` (a Worker's move of a message it received): the two-step move holds and deletes
   * only while the message's receive count is still `message.rc`, the holder's receipt (false when
   * another receive took it since); the atomic script takes no receipt.
   */
  async move(source: string, dlq: string, message: QueueMessage, why: StopRecord, byHolder = false): Promise<boolean> {
    const rc = byHolder ? message.rc : undefined;
    const { queue } = this;
    if (this.options.atomic ?? queue.layout.sameSlot(source, dlq)) {
      return (await queue.run(() => deadLetter(queue.layout, source, dlq, message.id, why))) === 1;
    }
    const moved = await moveInTwoSteps(
      {
        hold: async (holdMs) => {
          // Held, or gone (deleted, or already moved): then nothing is copied.
          if ((await queue.run(() => hideMessage(queue.layout, source, message.id, holdMs, rc))) === 0) return undefined;
          return readSource(queue, source, message.id);
        },
        copy: ({ settings, storedAttributes }) =>
          queue.run(() => deadLetterCopy(queue.layout, dlq, message.id, message.message, why, settings, storedAttributes)),
        remove: () => queue.run(() => deleteMessage(queue.layout, { qname: source, id: message.id, rc }, why.reason === "expired")),
      },
      this.options,
    );
    return moved?.removed === 1;
  }
}

/**
 * What the copy needs of the source, in one HMGET: the settings a dead-letter queue created by the
 * copy takes (rsmq's defaults for one the source lacks, as the atomic script does), and the
 * message's attributes as stored ("" when none). Rejects with queueNotFound when the source has
 * no settings (deleted since the hold).
 */
async function readSource(
  queue: RedisSMQInternals,
  source: string,
  id: string,
): Promise<{ settings: QueueSettings; storedAttributes: string }> {
  const hash = queue.layout.queue(source).hash;
  const [vt, delay, maxsize, storedAttributes] = (await queue.command(
    "deadLetter",
    ["HMGET", hash, "vt", "delay", "maxsize", `${id}:at`],
    hash,
  )) as Array<string | null>;
  if (vt === null) throw queueNotFound();
  const setting = (field: string | null, fallback: number): number => (field === null ? fallback : parseInt(field, 10));
  return {
    settings: {
      vt: setting(vt, QUEUE_DEFAULTS.vt),
      delay: setting(delay, QUEUE_DEFAULTS.delay),
      maxsize: setting(maxsize, QUEUE_DEFAULTS.maxsize),
    },
    storedAttributes: storedAttributes ?? "",
  };
}
