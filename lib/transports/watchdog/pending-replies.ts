/**
 * The calls a connection has sent and not yet had a reply to, in the order they were sent: a
 * doubly linked list through the entries themselves. Every call is added and removed once, on the
 * hottest path of all, and linking costs a few property writes where a Set hashes each entry
 * (measured: about 0.4 us against 1 to 1.6 us per call, with the promise around it).
 */
export class PendingReply {
  /** Set by PendingReplies: the neighbours in send order, and whether it is still listed. */
  previous: PendingReply | undefined = undefined;
  next: PendingReply | undefined = undefined;
  listed = false;

  constructor(
    readonly expiresAt: number,
    readonly extraMs: number,
    readonly reject: (error: Error) => void,
  ) {}
}

export class PendingReplies {
  private first: PendingReply | undefined;
  private last: PendingReply | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(entry: PendingReply): void {
    entry.previous = this.last;
    entry.next = undefined;
    entry.listed = true;
    if (this.last) this.last.next = entry;
    else this.first = entry;
    this.last = entry;
    this.count += 1;
  }

  /** Removes `entry`; false when it was not listed (already removed: its reply or bound came first). */
  delete(entry: PendingReply): boolean {
    if (!entry.listed) return false;
    entry.listed = false;
    if (entry.previous) entry.previous.next = entry.next;
    else this.first = entry.next;
    if (entry.next) entry.next.previous = entry.previous;
    else this.last = entry.previous;
    entry.previous = entry.next = undefined;
    this.count -= 1;
    return true;
  }

  /** Removes and returns, in send order, every entry whose bound has passed at `now`. */
  takeExpired(now: number): PendingReply[] {
    const expired: PendingReply[] = [];
    for (let entry = this.first; entry;) {
      const next = entry.next;
      if (entry.expiresAt <= now) {
        this.delete(entry);
        expired.push(entry);
      }
      entry = next;
    }
    return expired;
  }
}
