/** rsmq 0.12.4's key layout: the data is the contract, so these strings never change. */
export interface QueueKeys {
  /** Sorted set of message ids, scored by the epoch ms at which each becomes visible. */
  readonly messages: string;
  /** Hash of the queue's settings, counters and message bodies. */
  readonly hash: string;
  /** Set of all queue names in the namespace. */
  readonly registry: string;
  /** Pub/sub channel that realtime senders publish to. */
  readonly realtimeChannel: string;
}

export function queueKeys(ns: string, qname: string): QueueKeys {
  return {
    messages: `${ns}:${qname}`,
    hash: `${ns}:${qname}:Q`,
    registry: registryKey(ns),
    realtimeChannel: `${ns}:rt:${qname}`,
  };
}

export function registryKey(ns: string): string {
  return `${ns}:QUEUES`;
}
