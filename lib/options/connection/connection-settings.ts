/**
 * What opening a connection takes, every option in it already checked (options/constructor-options.ts
 * resolves it), so that nothing in connection/ refuses input once a socket may be open.
 */
import type { LinkBounds } from "../../transports/watchdog/link-watchdog";
import type { PoolGrowth } from "../../transports/node-redis/pool-growth";
import type { ResolvedOption } from "../constructor-option-table";

export interface ConnectionSettings {
  /** The constructor options as given: the client, the cluster options and the connection keys are read from them. */
  readonly given: Readonly<Record<string, unknown>>;
  /** Redis Cluster: a cluster client as `client`, or `cluster` options with `rootNodes`. */
  readonly cluster: boolean;
  /** Follow the v3-style keys in the nested `options` (see nested-options.ts). */
  readonly honorNestedOptions: ResolvedOption<"honorNestedOptions">;
  /** Single server: how long a call waits for a connection, and for its reply. */
  readonly bounds: LinkBounds;
  /**
   * Single server: how often the wake subscription's connection is PINGed: undefined with the
   * Workers' polls, when it has been quiet for a cap (see subscriber-health.ts); 0 never.
   */
  readonly subscriberPingMs: ResolvedOption<"subscriberPingMs">;
  /** Single server: how many command connections the instance opens at once (a pool when more than one). */
  readonly connections: ResolvedOption<"connections">;
  /** Single server, `connections` left out: more connections opened while calls pile up (a pool). */
  readonly growth: PoolGrowth | undefined;
  /** Redis Cluster: how long one command keeps retrying through a failover or resharding. */
  readonly clusterRetryMs: ResolvedOption<"clusterRetryMs">;
}
