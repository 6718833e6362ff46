/**
 * The queue-state metrics through OpenTelemetry (`telemetry: { queueState }`), with the real SDK:
 * observable instruments read at collection, whose values equal the Redis state (the seeded
 * queues of test/support/queue-state-seed.ts), one reading of every queue per collection and
 * none between; a list reads those queues only; a wrong value is refused at construction.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { sentAt } from "../../lib/operations/message-reply";
import { QUEUE_STATE_METRICS } from "../../lib/telemetry/metric-names";
import { STATE_ATTRIBUTE } from "../../lib/telemetry/otel/otel-queue-state";
import { serverNowMs } from "../support/inspect";
import { seedQueues } from "../support/queue-state-seed";
import type { SeededQueues } from "../support/queue-state-seed";
import { otelSdk, pointsOf } from "../support/otel";
import type { OtelSdk } from "../support/otel";
import { connectionOptions, onCluster, plainClient, uniqueNs } from "../support/server";
import { CommandWatch } from "../support/retry";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("telemetry: the queue-state metrics through OpenTelemetry", () => {
  const cleanup = new Cleanup();
  let sdk: OtelSdk;
  let ns: string;
  let seeded: SeededQueues;

  beforeEach(async () => {
    sdk = otelSdk();
    ns = uniqueNs("oq");
    seeded = await seedQueues(cleanup.rsmq(new RedisSMQ(connectionOptions(ns))));
  });
  afterEach(async () => {
    await cleanup.run();
    await sdk.shutdown();
  });

  const observing = (queueState: boolean | string[]) =>
    cleanup.rsmq(new RedisSMQ({ ...connectionOptions(ns), telemetry: { meterProvider: sdk.meterProvider, tracing: false, queueState } }));

  /** `metric`'s points as `queue[/state] -> value`. */
  async function collected(): Promise<Map<string, Record<string, number>>> {
    const metrics = await sdk.metrics();
    const byMetric = new Map<string, Record<string, number>>();
    for (const definition of Object.values(QUEUE_STATE_METRICS)) {
      const points: Record<string, number> = {};
      for (const point of pointsOf(metrics.get(definition.otel))) {
        const state = point.attributes[STATE_ATTRIBUTE];
        points[`${String(point.attributes["messaging.destination.name"])}${state ? `/${String(state)}` : ""}`] = point.value as number;
      }
      byMetric.set(definition.otel, points);
    }
    return byMetric;
  }

  it("true: every queue's state at collection, equal to the Redis state, by the server's clock", async () => {
    observing(true);
    const client = await plainClient();
    cleanup.add(() => client.quit());
    const before = await serverNowMs(client);
    const points = await collected();
    const after = await serverNowMs(client);
    expect(points.get("rsmq.queue.messages")).to.deep.equal({
      "idle/visible": 0,
      "idle/in_flight": 0,
      "idle/delayed": 0,
      "jobs/visible": 2,
      "jobs/in_flight": 1,
      "jobs/delayed": 1,
      "jobs-dlq/visible": 1,
      "jobs-dlq/in_flight": 0,
      "jobs-dlq/delayed": 0,
    });
    expect(points.get("rsmq.queue.sent.messages")).to.deep.equal({ idle: 0, jobs: 4, "jobs-dlq": 1 });
    expect(points.get("rsmq.queue.received.messages")).to.deep.equal({ idle: 0, jobs: 1, "jobs-dlq": 0 });
    expect(points.get("rsmq.queue.paused")).to.deep.equal({ idle: 1, jobs: 0, "jobs-dlq": 0 });
    expect(points.get("rsmq.queue.rate_limit")).to.deep.equal({ jobs: 5 });
    expect(points.get("rsmq.queue.rate_limited_until")).to.deep.equal({});
    const age = points.get("rsmq.queue.oldest_visible.age")!;
    expect(age.idle).to.equal(0);
    expect(age.jobs).to.be.within((before - sentAt(seeded.jobsHead)) / 1000 - 0.001, (after - sentAt(seeded.jobsHead)) / 1000 + 0.001);
    expect(points.get("rsmq.queue.next_due")!.jobs).to.be.within(before / 1000 + 59, after / 1000 + 60);
    const metrics = await sdk.metrics();
    expect(metrics.get("rsmq.queue.oldest_visible.age")!.descriptor.unit).to.equal("s");
    expect(metrics.get("rsmq.queue.messages")!.descriptor.unit).to.equal("{message}");
  });

  it("a list: those queues only", async () => {
    observing(["jobs-dlq"]);
    const points = await collected();
    expect(points.get("rsmq.queue.messages")).to.deep.equal({ "jobs-dlq/visible": 1, "jobs-dlq/in_flight": 0, "jobs-dlq/delayed": 0 });
  });

  it("one collection is one reading of every queue (one script call on one server), and nothing is read between", async () => {
    observing(true);
    await collected(); // the first learns the queues
    const watch = await CommandWatch.open();
    cleanup.add(() => watch.close());
    await collected();
    const sent = (await watch.commands()).filter((command) => !command.fromScript);
    const scripts = sent.filter((command) => /^EVALSHA/i.test(String(command.args[0])));
    // One server: the whole namespace in one script. A cluster: one per queue and the registry's SMEMBERS.
    expect(scripts.length).to.equal(onCluster() ? 3 : 1);
    const idle = await CommandWatch.open();
    cleanup.add(() => idle.close());
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await idle.commands()).filter((command) => !command.fromScript)).to.deep.equal([]);
  });

  it("without queueState nothing of it is observed, and a wrong value is refused at construction", async () => {
    cleanup.rsmq(new RedisSMQ({ ...connectionOptions(ns), telemetry: { meterProvider: sdk.meterProvider, tracing: false } }));
    expect((await sdk.metrics()).has("rsmq.queue.messages")).to.equal(false);
    expect(() => new RedisSMQ({ ...connectionOptions(ns), telemetry: { queueState: "yes" as never } })).to.throw(
      TypeError,
      /telemetry\.queueState/,
    );
    expect(() => new RedisSMQ({ ...connectionOptions(ns), telemetry: { queueState: [] } })).to.throw(TypeError, /non-empty array/);
    expect(() => new RedisSMQ({ ...connectionOptions(ns), telemetry: { queueState: ["no spaces"] } })).to.throw(
      RangeError,
      /telemetry\.queueState\[0\]/,
    );
  });
});
