/**
 * In-process wakes: any RedisSMQ instance that sends to a queue, or changes a message's
 * visibility in it, tells the workers of that queue in the same process, so they receive at once
 * instead of waiting out their sleep. A send tells the id its wake publish carried, so a consumer
 * that hears the same send on the wake channel too looks once, not twice (fresh-wakes.ts).
 */

/** Called with the id of the message a send stored, when the wake is a send's. */
type Listener = (id?: string) => void;

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

export function notifyQueueActivity(ns: string, qname: string, id?: string): void {
  const set = listeners.get(channel(ns, qname));
  if (set) for (const listener of [...set]) listener(id);
}
