/**
 * Where a namespace's data lives. On one server (and in Redis Cluster under a namespace that is
 * itself a hash tag) this is rsmq 0.12.4's layout exactly: the data is the contract. In Redis
 * Cluster otherwise, each queue's name becomes a hash tag, so a queue's sorted set, hash and
 * realtime channel share one slot while different queues spread over the shards.
 */
export interface QueueKeys {
  /** Sorted set of message ids, scored by the epoch ms at which each becomes visible. */
  readonly messages: string;
  /** Hash of the queue's settings, counters and message bodies. */
  readonly hash: string;
  /** Set of all queue names in the namespace. */
  readonly registry: string;
  /** Pub/sub channel that realtime senders publish to (a shard channel in the queue's slot in Redis Cluster). */
  readonly realtimeChannel: string;
  /**
   * Pub/sub channel where rsmq-next sends publish a wake for sleeping consumers (see
   * operations/send-notification.ts); outside `<ns>:rt:*`, so rsmq's realtime subscribers never
   * see it. In the queue's slot in Redis Cluster.
   */
  readonly wakeChannel: string;
  /**
   * Sorted set of the messages in flight with rsmq-next consumers while the queue has a
   * concurrency limit (setConcurrency): member = message id, score = the epoch ms its lease ends
   * (its vt's end). Its TTL never outlasts the latest lease, so an rsmq 0.12.4 deleteQueue leaves
   * it for at most one vt. In the queue's slot in Redis Cluster.
   */
  readonly leases: string;
}

/** Whether `text` holds a Redis Cluster hash tag: a `{`, later a `}`, and something between. */
export function hasHashTag(text: string): boolean {
  const open = text.indexOf("{");
  if (open < 0) return false;
  const close = text.indexOf("}", open + 1);
  return close > open + 1;
}

/**
 * Whether `ns` cannot be a namespace in Redis Cluster: half a hash tag (`my{app`, `{}app`) would
 * give a queue's keys and its realtime channel different slots.
 */
export function halfHashTag(ns: string): boolean {
  return /[{}]/.test(ns) && !hasHashTag(ns);
}

export class KeyLayout {
  /**
   * @param ns the namespace, without the trailing colon
   * @param tagQueues wrap each queue name in a hash tag (`<ns>:{<qname>}`)
   * @param cluster whether the keys live in Redis Cluster (realtime then uses sharded pub/sub)
   */
  constructor(
    readonly ns: string,
    readonly tagQueues: boolean,
    readonly cluster: boolean,
  ) {}

  /**
   * The layout for a connection: queue names are tagged in Redis Cluster unless the namespace
   * already is. In Redis Cluster `ns` must hold a whole hash tag or no braces at all (see
   * {@link halfHashTag}); the constructor's options are checked for it first.
   */
  static for(ns: string, cluster: boolean): KeyLayout {
    return new KeyLayout(ns, cluster && !hasHashTag(ns), cluster);
  }

  get registry(): string {
    return `${this.ns}:QUEUES`;
  }

  queue(qname: string): QueueKeys {
    const name = this.tagQueues ? `{${qname}}` : qname;
    return {
      messages: `${this.ns}:${name}`,
      hash: `${this.ns}:${name}:Q`,
      registry: this.registry,
      realtimeChannel: `${this.ns}:rt:${name}`,
      wakeChannel: `${this.ns}:wake:${name}`,
      leases: `${this.ns}:${name}:leases`,
    };
  }

  /** Whether the registry shares a slot with every queue, so creating or deleting a queue can be one script. */
  get registryWithQueues(): boolean {
    return !this.tagQueues;
  }

  /** Whether two queues' keys may be used by one script (same slot, or no cluster). */
  sameSlot(a: string, b: string): boolean {
    return !this.tagQueues || a === b;
  }
}
