/**
 * Coalesces a Worker's deletes. The handlers of one received batch usually finish together, and
 * one deleteMessages call for all of their messages costs the client and Redis much less than one
 * deleteMessage each: one script call, one ACL check and one round trip instead of one per message.
 * A delete waits only until the current burst of microtasks ends (queueMicrotask), so it is never
 * held back behind a timer or another message's handler.
 */
import { MAX_BATCH } from "../operations/rsmq-input-rules";

interface PendingDelete {
  readonly id: string;
  readonly rc: number;
  readonly resolve: (found: 0 | 1) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Sends deleteMessages for `ids` of the worker's queue, each only while its receive count is the
 * receipt at the same index of `rcs`: one result per id, in order (1: it was there).
 */
export type DeleteMany = (ids: string[], rcs: number[]) => Promise<Array<0 | 1>>;

export class DeleteBatcher {
  private pending: PendingDelete[] = [];

  constructor(private readonly deleteMany: DeleteMany) {}

  /**
   * Deletes a message held as delivery `rc` with the others removed in the same burst; resolves 0
   * when it was no longer there, or received again since.
   */
  remove(id: string, rc: number): Promise<0 | 1> {
    return new Promise<0 | 1>((resolve, reject) => {
      if (this.pending.length === 0) queueMicrotask(() => this.flush());
      this.pending.push({ id, rc, resolve, reject });
    });
  }

  private flush(): void {
    const burst = this.pending;
    this.pending = [];
    for (let start = 0; start < burst.length; start += MAX_BATCH) {
      const part = burst.slice(start, start + MAX_BATCH);
      this.deleteMany(
        part.map((entry) => entry.id),
        part.map((entry) => entry.rc),
      ).then(
        (found) => part.forEach((entry, index) => entry.resolve(found[index] === 1 ? 1 : 0)),
        // A failed delete leaves its messages to reappear after vt: handled again, never lost.
        (error: unknown) => part.forEach((entry) => entry.reject(error)),
      );
    }
  }
}
