/**
 * The wait histogram by tenant, bounded (lib/telemetry/tenant-labels.ts): with `tenantLabels: N`
 * the first N distinct tenants a recorder sees get their own value, every later one `other`, a
 * message without a tenant `none`, and tenants named `other` or `none` count as `other`; without
 * it, no tenant label at all. Through the OpenTelemetry meter (the `telemetry` option, SDK reader)
 * and prom-client (collectMetrics), by real sends and receives; bad values refused by name.
 */
import { expect } from "chai";
import * as promClient from "prom-client";
import RedisSMQ = require("../../lib/index");
import { collectMetrics } from "../../lib/telemetry/prometheus";
import { IN_PROCESS_METRICS } from "../../lib/telemetry/metric-names";
import { TenantLabels } from "../../lib/telemetry/tenant-labels";
import { asMessage } from "../support/old-rsmq";
import { connectionOptions, uniqueNs } from "../support/server";
import { otelSdk, pointsOf } from "../support/otel";
import type { OtelSdk } from "../support/otel";
import { parseExposition } from "../support/prometheus";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

/** The tenants the test's messages are sent for, in order; undefined: a message without one. */
const TENANTS = ["a", "b", "c", undefined, "a", "other", "none", "d"];
/** Their labels with tenantLabels 2: a and b named, the rest of the tenants `other`. */
const WITH_TWO = { a: 2, b: 1, other: 4, none: 1 };

describe("telemetry: the wait histogram by tenant, bounded", () => {
  describe("TenantLabels", () => {
    it("names the first `limit` tenants, counts later ones and the reserved names as other, no tenant as none", () => {
      const labels = new TenantLabels(2);
      expect(TENANTS.map((tenant) => labels.label(tenant))).to.deep.equal(["a", "b", "other", "none", "a", "other", "other", "other"]);
      // A named tenant keeps its name however many came after it.
      expect(labels.label("b")).to.equal("b");
    });
  });

  const cleanup = new Cleanup();
  let ns: string;
  afterEach(() => cleanup.run());

  /** Sends each of TENANTS' messages and receives it before the next, so the order seen is TENANTS'. */
  async function sendAndReceive(rsmq: RedisSMQ): Promise<void> {
    await rsmq.createQueueAsync({ qname: "q" });
    for (const tenant of TENANTS) {
      await rsmq.sendMessageAsync({ qname: "q", message: "m", ...(tenant === undefined ? {} : { tenant }) });
      const message = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
      expect(message.attributes?.tenant).to.equal(tenant);
    }
  }

  describe("OpenTelemetry: telemetry.tenantLabels", () => {
    let sdk: OtelSdk;
    beforeEach(() => {
      ns = uniqueNs("tenants");
      sdk = otelSdk();
      cleanup.add(() => sdk.shutdown());
    });

    /** The wait histogram's counts by its tenant attribute (`(absent)` for points without one). */
    async function waitsByTenant(): Promise<Record<string, number>> {
      const counts: Record<string, number> = {};
      for (const point of pointsOf((await sdk.metrics()).get(IN_PROCESS_METRICS.waited.otel))) {
        const tenant = String(point.attributes["messaging.rsmq.tenant"] ?? "(absent)");
        counts[tenant] = (counts[tenant] ?? 0) + (typeof point.value === "number" ? point.value : point.value.count);
      }
      return counts;
    }

    it("tenantLabels 2: a and b by name, every other tenant `other`, none `none`", async () => {
      const rsmq = cleanup.rsmq(
        new RedisSMQ({ ...connectionOptions(ns), telemetry: { meterProvider: sdk.meterProvider, tenantLabels: 2 } }),
      );
      await sendAndReceive(rsmq);
      expect(await waitsByTenant()).to.deep.equal(WITH_TWO);
    });

    it("by default: no tenant attribute", async () => {
      const rsmq = cleanup.rsmq(new RedisSMQ({ ...connectionOptions(ns), telemetry: { meterProvider: sdk.meterProvider } }));
      await sendAndReceive(rsmq);
      expect(await waitsByTenant()).to.deep.equal({ "(absent)": TENANTS.length });
    });

    for (const value of [-1, 1001, 1.5, "3", true]) {
      it(`refuses tenantLabels ${JSON.stringify(value)} at construction, naming it`, () => {
        expect(() => new RedisSMQ({ ...connectionOptions(ns), telemetry: { tenantLabels: value as never } })).to.throw(
          TypeError,
          /telemetry\.tenantLabels/,
        );
      });
    }
  });

  describe("prom-client: collectMetrics' tenantLabels", () => {
    let registry: promClient.Registry;
    beforeEach(() => {
      ns = uniqueNs("tenants");
      registry = new promClient.Registry();
    });

    /** The wait histogram's `_count` samples, by their labels as the text format writes them. */
    async function waitCounts(): Promise<Record<string, number>> {
      const counts: Record<string, number> = {};
      for (const [series, value] of parseExposition(await registry.metrics())) {
        const match = /^rsmq_message_wait_duration_seconds_count\{(.*)\}$/.exec(series);
        if (match) counts[match[1]] = value;
      }
      return counts;
    }

    it("tenantLabels 2: a `tenant` label, a and b by name, every other tenant `other`, none `none`", async () => {
      const rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
      const handle = collectMetrics(rsmq, { registry, tenantLabels: 2 });
      await sendAndReceive(rsmq);
      expect(await waitCounts()).to.deep.equal(
        Object.fromEntries(Object.entries(WITH_TWO).map(([tenant, count]) => [`queue="q",tenant="${tenant}"`, count])),
      );
      handle.stop();
    });

    it("by default: no tenant label", async () => {
      const rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
      const handle = collectMetrics(rsmq, { registry });
      await sendAndReceive(rsmq);
      expect(await waitCounts()).to.deep.equal({ 'queue="q"': TENANTS.length });
      handle.stop();
    });

    it("a second instance into the same registry gives the same tenantLabels, or is refused", () => {
      const first = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
      const second = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
      const handle = collectMetrics(first, { registry, tenantLabels: 5 });
      expect(() => collectMetrics(second, { registry })).to.throw(TypeError, /registered with tenantLabels 5, not 0/);
      collectMetrics(second, { registry, tenantLabels: 5 }).stop();
      handle.stop();
    });

    for (const value of [-1, 1001, 2.5, "3"]) {
      it(`refuses tenantLabels ${JSON.stringify(value)}, with nothing registered`, async () => {
        const rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
        expect(() => collectMetrics(rsmq, { registry, tenantLabels: value as never })).to.throw(TypeError, /`tenantLabels`/);
        expect(await registry.getMetricsAsJSON()).to.deep.equal([]);
      });
    }
  });
});
