/**
 * The message list's live reloads, shared. A page reloads its list of a queue after a reading in
 * which that queue changed (docs/dashboard.md): every open page of the queue asks at once, so the
 * requests that name the same list (queue, offset, limit) after the same reading share one read of
 * Redis. Redis then pays per list shown and reading that changed it, not per open tab, and a queue
 * that does not change costs nothing more than the cards.
 */
import type { MessagesResponse } from "../../queue-state/read-shapes";
import type { SamplerState } from "./sampler";

/** Lists remembered at most: the oldest is forgotten first (a forgotten one is simply read again). */
const MOST_LISTS = 100;

interface SharedRead {
  /** The sampler's state when the read started: a request after the same state shares it. */
  after: SamplerState;
  read: Promise<MessagesResponse>;
}

export class SharedLists {
  private readonly reads = new Map<string, SharedRead>();

  /**
   * @param current the sampler's latest state (the reading the pages were just told of)
   * @param readList reads one list of messages from Redis
   */
  constructor(
    private readonly current: () => SamplerState,
    private readonly readList: (qname: string, page: { offset: string; limit: string }) => Promise<MessagesResponse>,
  ) {}

  /** The list, read once for every request after the same reading; a failed read is not shared with later ones. */
  read(qname: string, page: { offset: string; limit: string }): Promise<MessagesResponse> {
    const key = JSON.stringify([qname, page.offset, page.limit]);
    const after = this.current();
    const shared = this.reads.get(key);
    if (shared && shared.after === after) return shared.read;
    const read = this.readList(qname, page);
    this.reads.delete(key);
    this.reads.set(key, { after, read });
    if (this.reads.size > MOST_LISTS) this.reads.delete(this.reads.keys().next().value as string);
    read.catch(() => {
      if (this.reads.get(key)?.read === read) this.reads.delete(key);
    });
    return read;
  }
}
