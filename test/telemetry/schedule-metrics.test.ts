/**
 * The schedule metrics against a real Redis (docs/telemetry.md, queue-state metrics): after real
 * fires (the fire script, with plans that send, count missed slots and skip an overlap),
 * `collectMetrics` with prom-client, the exporter (`rsmq-next metrics`) and the dashboard's
 * `metrics` route give one series per schedule, equal to what listSchedulesAsync reads (sent,
 * missed, skipped, the next run; none for a paused schedule), and agree to the sample; OpenTelemetry
 * observes the same figures. A scrape is the queues' one reading, schedules included: one command on
 * one server (the registry and one per queue in Redis Cluster), whatever the number of queues with
 * schedules.
 */
import { expect } from "chai";
import * as promClient from "prom-client";
import RedisSMQ = require("../../lib/index");
import { collectMetrics } from "../../lib/telemetry/prometheus";
import { createDashboard } from "../../lib/dashboard";
import { internalsOf } from "../../lib/internals";
import { fireSchedule } from "../../lib/operations/fire-schedule";
import type { FireOutcome } from "../../lib/operations/fire-schedule";
import { readSchedules } from "../../lib/operations/list-schedules";
import type { FirePlan } from "../../lib/schedules/fire-plan";
import { QUEUE_STATE_METRICS } from "../../lib/telemetry/metric-names";
import { SCHEDULE_ATTRIBUTE } from "../../lib/telemetry/otel/otel-queue-state";
import { connectionOptions, plainClient, uniqueNs } from "../support/server";
import { serverNowMs } from "../support/inspect";
import { at, startCli } from "../support/cli";
import { nodeHttpAtRoot, send } from "../support/dashboard";
import { parseExposition } from "../support/prometheus";
import { otelSdk, pointsOf } from "../support/otel";
import { CommandWatch } from "../support/retry";
import { Cleanup, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const ADDRESS = /^metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)$/m;

/** The schedule series of an exposition text: `name{labels}` -> value. */
function scheduleSamples(text: string): Record<string, number> {
  return Object.fromEntries([...parseExposition(text)].filter(([name]) => name.startsWith("rsmq_schedule_")));
}

describe("metrics: the schedules' series", function () {
  this.timeout(60_000);
  const suite = new Cleanup();
  const each = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;

  /** Fires `plan` on schedule `name` of `qname` as a firer would, with the definition as stored now. */
  async function fire(qname: string, name: string, plan: Partial<FirePlan>): Promise<FireOutcome> {
    const { layout, run } = internalsOf(rsmq);
    const { stored } = await run(() => readSchedules(layout, qname));
    const schedule = stored.find((candidate) => candidate.name === name)!;
    return run(() =>
      fireSchedule(layout, "wake", qname, schedule, { slots: [], handledThrough: null, missed: 0, next: 0, dedupTtlMs: 60_000, ...plan }),
    );
  }

  /** What listSchedulesAsync reads, as the series it should give. */
  async function expectedSeries(qnames: string[]): Promise<Record<string, number>> {
    const expected: Record<string, number> = {};
    const per = await Promise.all(qnames.map(async (qname) => [qname, await rsmq.listSchedulesAsync({ qname })] as const));
    for (const family of ["sent_total", "missed_total", "overlapped_total", "next_run_timestamp_seconds"]) {
      for (const [qname, schedules] of per) {
        for (const info of schedules) {
          const labels = `{queue="${qname}",schedule="${info.name}"}`;
          const value = {
            sent_total: info.count,
            missed_total: info.missed,
            overlapped_total: info.overlapped,
            next_run_timestamp_seconds: info.nextRunAt === null ? undefined : info.nextRunAt / 1000,
          }[family];
          if (value !== undefined) expected[`rsmq_schedule_${family}${labels}`] = value;
        }
      }
    }
    return expected;
  }

  before(async () => {
    ns = uniqueNs("schedmetrics");
    rsmq = suite.rsmq(new RedisSMQ(connectionOptions(ns)));
    const client = await plainClient();
    suite.add(() => client.quit());
    for (const qname of ["jobs", "reports", "plain"]) await rsmq.createQueueAsync({ qname });
    // Anchored 10 s back: slots anchor + k * 1000, all due now.
    const anchor = (await serverNowMs(client)) - 10_000;
    await rsmq.upsertScheduleAsync({ qname: "jobs", name: "tick", every: 1000, startAt: anchor, message: "tick" });
    await rsmq.upsertScheduleAsync({ qname: "jobs", name: "once", every: 1000, startAt: anchor, message: "once", overlap: "skip" });
    await rsmq.upsertScheduleAsync({ qname: "jobs", name: "held", every: 60_000, message: "held" });
    await rsmq.pauseScheduleAsync({ qname: "jobs", name: "held" });
    await rsmq.upsertScheduleAsync({ qname: "reports", name: "nightly", cron: "0 2 * * *", tz: "Europe/Berlin", message: "{}" });
    // tick: 2 sent, 3 missed. once: 1 sent, then 1 skipped while its message is still in the queue.
    expect(
      (await fire("jobs", "tick", { slots: [anchor + 3000], handledThrough: anchor + 3000, missed: 3, next: anchor + 4000 })).status,
    ).to.equal("fired");
    expect((await fire("jobs", "tick", { slots: [anchor + 4000], handledThrough: anchor + 4000, next: anchor + 5000 })).status).to.equal(
      "fired",
    );
    expect((await fire("jobs", "once", { slots: [anchor], handledThrough: anchor, next: anchor + 1000 })).status).to.equal("fired");
    expect((await fire("jobs", "once", { slots: [anchor + 1000], handledThrough: anchor + 1000, next: anchor + 2000 })).status).to.equal(
      "skipped",
    );
  });
  afterEach(() => each.run());
  after(() => suite.run());

  /** collectMetrics with queueState into a registry of this test's own. */
  function collecting(): promClient.Registry {
    const registry = new promClient.Registry();
    const handle = collectMetrics(rsmq, { registry, queueState: true });
    each.add(async () => handle.stop());
    return registry;
  }

  it("collectMetrics: a series per schedule, equal to listSchedulesAsync's figures; none for a queue without schedules", async () => {
    const registry = collecting();
    const samples = scheduleSamples(await registry.metrics());
    expect(samples).to.deep.equal(await expectedSeries(["jobs", "reports"]));
    expect(samples).to.include({
      'rsmq_schedule_sent_total{queue="jobs",schedule="tick"}': 2,
      'rsmq_schedule_missed_total{queue="jobs",schedule="tick"}': 3,
      'rsmq_schedule_sent_total{queue="jobs",schedule="once"}': 1,
      'rsmq_schedule_overlapped_total{queue="jobs",schedule="once"}': 1,
      'rsmq_schedule_sent_total{queue="reports",schedule="nightly"}': 0,
    });
    expect(samples).not.to.have.property('rsmq_schedule_next_run_timestamp_seconds{queue="jobs",schedule="held"}');
    expect(samples['rsmq_schedule_next_run_timestamp_seconds{queue="jobs",schedule="tick"}']).to.be.a("number");
    expect(Object.keys(samples).filter((name) => name.includes('queue="plain"'))).to.deep.equal([]);
    const types = Object.fromEntries((await registry.getMetricsAsJSON()).map((metric) => [metric.name, String(metric.type)]));
    expect(types).to.include({
      rsmq_schedule_sent_total: "counter",
      rsmq_schedule_missed_total: "counter",
      rsmq_schedule_overlapped_total: "counter",
      rsmq_schedule_next_run_timestamp_seconds: "gauge",
    });
  });

  it("the exporter and the dashboard's metrics route give the same schedule series as collectMetrics", async () => {
    const registry = collecting();
    const exporter = startCli([...at(ns), "metrics", "--port", "0"], { timeoutMs: 30_000 });
    each.add(async () => exporter.child.kill("SIGKILL"));
    await waitFor(() => ADDRESS.test(exporter.output().stdout) || exporter.child.exitCode !== null, "the exporter's address");
    const dashboard = createDashboard({ rsmq });
    const mounted = await nodeHttpAtRoot(dashboard);
    each.add(async () => {
      dashboard.close();
      await mounted.close();
    });
    const [fromExporter, fromDashboard, fromRegistry] = await Promise.all([
      send(ADDRESS.exec(exporter.output().stdout)![1]),
      send(`${mounted.base}metrics`),
      registry.metrics(),
    ]);
    expect([fromExporter.status, fromDashboard.status]).to.deep.equal([200, 200]);
    const expected = scheduleSamples(fromRegistry);
    expect(Object.keys(expected)).to.have.length(15);
    expect(scheduleSamples(fromExporter.text)).to.deep.equal(expected);
    expect(scheduleSamples(fromDashboard.text)).to.deep.equal(expected);
  });

  it("one scrape with schedules on two queues: one command on one server (the registry and one per queue in Cluster), no more", async () => {
    const registry = collecting();
    await registry.metrics(); // learns the queues
    const watch = await CommandWatch.open();
    each.add(() => watch.close());
    const samples = scheduleSamples(await registry.metrics());
    expect(
      Object.keys(samples)
        .filter((name) => name.startsWith("rsmq_schedule_sent_total"))
        .sort(),
    ).to.deep.equal([
      'rsmq_schedule_sent_total{queue="jobs",schedule="held"}',
      'rsmq_schedule_sent_total{queue="jobs",schedule="once"}',
      'rsmq_schedule_sent_total{queue="jobs",schedule="tick"}',
      'rsmq_schedule_sent_total{queue="reports",schedule="nightly"}',
    ]);
    // Every command any client sent while the scrape ran (this test's run has the server to itself).
    const calls = (await watch.clientCalls(["queueStates", "listSchedules"])).map((call) => call.split(" ").slice(1).join(" ")).sort();
    expect(calls).to.deep.equal(
      internalsOf(rsmq).layout.registryWithQueues
        ? ["evalsha_ro queueStates"]
        : ["evalsha_ro queueStates", "evalsha_ro queueStates", "evalsha_ro queueStates", "smembers"],
    );
  });

  it("OpenTelemetry: the same figures, the schedule as messaging.rsmq.schedule", async () => {
    const sdk = otelSdk();
    each.add(() => sdk.shutdown());
    each.rsmq(
      new RedisSMQ({ ...connectionOptions(ns), telemetry: { meterProvider: sdk.meterProvider, tracing: false, queueState: ["jobs"] } }),
    );
    const metrics = await sdk.metrics();
    const points = (key: keyof typeof QUEUE_STATE_METRICS): Record<string, number> =>
      Object.fromEntries(
        pointsOf(metrics.get(QUEUE_STATE_METRICS[key].otel)).map((point) => [
          `${String(point.attributes["messaging.destination.name"])}/${String(point.attributes[SCHEDULE_ATTRIBUTE])}`,
          point.value as number,
        ]),
      );
    expect(points("scheduleSent")).to.deep.equal({ "jobs/held": 0, "jobs/once": 1, "jobs/tick": 2 });
    expect(points("scheduleMissed")).to.deep.equal({ "jobs/held": 0, "jobs/once": 0, "jobs/tick": 3 });
    expect(points("scheduleOverlapped")).to.deep.equal({ "jobs/held": 0, "jobs/once": 1, "jobs/tick": 0 });
    expect(Object.keys(points("scheduleNextRun")).sort()).to.deep.equal(["jobs/once", "jobs/tick"]);
  });
});
