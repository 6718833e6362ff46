/**
 * The tenant label of the dwell-time histogram (`rsmq.message.wait.duration`), bounded: every label
 * value is a time series in Prometheus (one per bucket), and tenants are as many as an app sends
 * for, so each recorder gives its own label only to the first `limit` distinct tenants it sees and
 * counts every later one under `other`; a message without a tenant is `none`. A tenant named
 * `other` or `none` is counted under `other`, so neither bucket ever holds a stranger.
 */

/** The label of a message without a tenant. */
export const NO_TENANT = "none";
/** The label of every tenant past the first `limit`. */
export const OTHER_TENANTS = "other";
/** The most tenants a recorder labels by name (`telemetry.tenantLabels`, collectMetrics' `tenantLabels`). */
export const MAX_TENANT_LABELS = 1000;

export class TenantLabels {
  private readonly named = new Set<string>();

  /** `limit`: how many distinct tenants get a label of their own, 1 to MAX_TENANT_LABELS. */
  constructor(private readonly limit: number) {}

  /** The label value for a message of `tenant` (undefined: it has none). */
  label(tenant: string | undefined): string {
    if (tenant === undefined) return NO_TENANT;
    if (this.named.has(tenant)) return tenant;
    if (tenant === NO_TENANT || tenant === OTHER_TENANTS || this.named.size >= this.limit) return OTHER_TENANTS;
    this.named.add(tenant);
    return tenant;
  }
}

/** The tenant of a delivered message: its `tenant` attribute when that is a string. */
export function tenantOf(message: { readonly attributes?: Readonly<Record<string, unknown>> }): string | undefined {
  const tenant = message.attributes?.tenant;
  return typeof tenant === "string" ? tenant : undefined;
}

/** `tenantLabels` checked: a whole number from 0 to MAX_TENANT_LABELS, or a message saying what it must be. */
export function tenantLabelsProblem(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_TENANT_LABELS) return undefined;
  return `a whole number from 0 to ${MAX_TENANT_LABELS}`;
}
