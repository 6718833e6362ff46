/**
 * Moves a message that stopped being retried into a dead-letter queue. When both queues' keys can
 * share a script it is one atomic script. Otherwise (queues in different Redis Cluster slots) it
 * copies into the dead-letter queue first and deletes from the source second, so a crash in
 * between leaves the message in both queues, never in neither.
 */
import type { StopRecord } from "../commands/dead-letters";
import type { QueueMessage } from "../types";
import type { RedisSMQInternals } from "../redis-smq";

/** How long the two-step move holds a message it is moving. */
const HOLD_MS = 60_000;

export interface DeadLetterMoverOptions {
  /** One script for the whole move. @default whether the two queues' keys share a slot */
  atomic?: boolean;
  /** Runs between the copy and the delete of the two-step move; for crash tests. */
  afterCopy?: () => void | Promise<void>;
}

export class DeadLetterMover {
  constructor(
    private readonly queue: RedisSMQInternals,
    private readonly options: DeadLetterMoverOptions = {},
  ) {}

  /** Resolves true when the message was moved, false when it was no longer in the source queue. */
  async move(source: string, dlq: string, message: QueueMessage, why: StopRecord): Promise<boolean> {
    if (this.options.atomic ?? this.queue.layout.sameSlot(source, dlq)) return (await this.queue.deadLetter(source, dlq, message.id, why)) === 1;
    // Hold the message first: that both checks it is still there (nothing is copied otherwise) and
    // keeps other consumers off it during the move. A crash after this only delays it by HOLD_MS.
    if ((await this.queue.hideMessage(source, message.id, HOLD_MS)) === 0) return false;
    const settings = await this.queue.queueSettings(source);
    await this.queue.deadLetterCopy(dlq, message, why, settings);
    await this.options.afterCopy?.();
    return (await this.queue.deleteMessage({ qname: source, id: message.id })) === 1;
  }
}
