/**
 * Advice about a Sentinel-managed ioredis client given as `client`. Without `failoverDetector:
 * true`, ioredis learns of a new primary only when its connection breaks. After a manual failover
 * (SENTINEL FAILOVER, or a failover while the old primary is reachable) the old primary stays up
 * and keeps accepting writes until the sentinels demote it (they wait 8 s or more), and those
 * writes are then dropped when it resynchronises from the new primary: acknowledged sends lost
 * (measured in docs/high-availability.md). rsmq-next cannot change the caller's client, so it says so once.
 */
import type { AnyIoredis } from "./client-shape";

let warned = false;

/** Whether the client asks Redis Sentinel for its primary, without `failoverDetector: true`. */
export function followsSentinelWithoutDetector(client: AnyIoredis): boolean {
  if (client.isCluster) return false;
  const options = client.options as { sentinels?: ReadonlyArray<unknown> | null; failoverDetector?: boolean };
  return Array.isArray(options.sentinels) && options.sentinels.length > 0 && options.failoverDetector !== true;
}

/** Once per process: a Sentinel-managed client without failoverDetector can lose writes in a manual failover. */
export function adviseOnSentinelClient(client: AnyIoredis): void {
  if (warned || !followsSentinelWithoutDetector(client)) return;
  warned = true;
  process.emitWarning(
    "rsmq-next: the Sentinel-managed ioredis client passed as `client` has no `failoverDetector: true`. After a manual " +
      "failover it keeps writing to the old primary until the sentinels demote it (8 s or more), and what it wrote there " +
      "is lost; create it with `failoverDetector: true` (and use `waitForReplicas` to have such writes rejected, not lost).",
    { code: "RSMQ_NEXT_SENTINEL_FAILOVER_DETECTOR" },
  );
}
