/**
 * In-process wakes: any RedisSMQ instance that sends to a queue, or changes a message's
 * visibility in it, tells the workers of that queue in the same process, so they receive at once
 * instead of waiting out their sleep.
 */

type Listener = () => void;

const listeners = new Map<string, Set<Listener>>();

const channel = (ns: string, qname: string): string => `${ns}\u0000${qname}`;

/** Calls `listener` whenever something in this process makes a message of ns/qname visible sooner. */
export function onQueueActivity(ns: string, qname: string, listener: Listener): () => void {
  const key = channel(ns, qname);
  let set = listeners.get(key);
  if (!set) listeners.set(key, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0) listeners.delete(key);
  };
}

export function notifyQueueActivity(ns: string, qname: string): void {
  const set = listeners.get(channel(ns, qname));
  if (set) for (const listener of [...set]) listener();
}
