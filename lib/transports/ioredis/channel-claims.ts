/**
 * Which wake channels the subscribers sharing one ioredis connection listen to, counted: Redis
 * keeps one subscription per channel and connection, so two RedisSMQ instances on the same client
 * (two Workers of one queue) share it, and it is unsubscribed only when the last one lets go.
 */
const claims = new WeakMap<object, Map<string, number>>();

function countsOf(client: object): Map<string, number> {
  let counts = claims.get(client);
  if (!counts) {
    counts = new Map<string, number>();
    claims.set(client, counts);
  }
  return counts;
}

/** One more listener of `channel` on `client`. */
export function claimChannel(client: object, channel: string): void {
  const counts = countsOf(client);
  counts.set(channel, (counts.get(channel) ?? 0) + 1);
}

/** One listener fewer; returns the channels no one on `client` listens to any more (to unsubscribe). */
export function releaseChannels(client: object, channels: readonly string[]): string[] {
  const counts = countsOf(client);
  const unclaimed: string[] = [];
  for (const channel of channels) {
    const left = (counts.get(channel) ?? 0) - 1;
    if (left > 0) counts.set(channel, left);
    else {
      counts.delete(channel);
      unclaimed.push(channel);
    }
  }
  return unclaimed;
}

/** Whether anyone on `client` listens to `channel`. */
export function isClaimed(client: object, channel: string): boolean {
  return (claims.get(client)?.get(channel) ?? 0) > 0;
}
