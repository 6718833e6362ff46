/**
 * A real Prometheus server (Debian's 2.42) scraping `rsmq-next metrics`: both run as child
 * processes, the exporter against a redis-server of this suite's own, Prometheus with a
 * temporary configuration (scrape every second) and storage. Queries through its HTTP API return
 * the queues' counts by state, which queue is paused and its tightest rate limit, and the age of
 * the oldest visible message: the age implied by the
 * message's id and the clock at the scrape, within the scrape's own delay.
 */
import { expect } from "chai";
import RedisSMQ = require("../../../lib/index");
import { startRedisServer } from "../../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../../lib/cli/redis/redis-server";
import { sentAt } from "../../../lib/operations/message-reply";
import { startCli } from "../../support/cli";
import { prometheusMissing, startPrometheus } from "../../support/prometheus";
import type { RunningPrometheus } from "../../support/prometheus";
import { seedQueues } from "../../support/queue-state-seed";
import type { SeededQueues } from "../../support/queue-state-seed";
import { waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("single");

const ADDRESS = /^metrics: http:\/\/(127\.0\.0\.1:\d+)\/metrics$/m;

describe("a real Prometheus scraping rsmq-next metrics", function () {
  this.timeout(90_000);
  let redis: RedisServerProcess;
  let rsmq: RedisSMQ;
  let seeded: SeededQueues;
  let exporter: ReturnType<typeof startCli>;
  let prometheus: RunningPrometheus | undefined;

  before(async function () {
    const missing = prometheusMissing();
    if (missing) throw new Error(missing);
    redis = await startRedisServer();
    rsmq = new RedisSMQ({ host: redis.host, port: redis.port, ns: "scraped" });
    seeded = await seedQueues(rsmq);
    exporter = startCli(["--url", redis.url, "--ns", "scraped", "metrics", "--port", "0"], { timeoutMs: 90_000 });
    await waitFor(() => ADDRESS.test(exporter.output().stdout) || exporter.child.exitCode !== null, "the exporter's address");
    const target = ADDRESS.exec(exporter.output().stdout)![1];
    prometheus = await startPrometheus(target);
  });

  after(async () => {
    await prometheus?.stop();
    exporter?.child.kill("SIGTERM");
    await exporter?.finished;
    await rsmq?.quitAsync();
    await redis?.stop();
  });

  /** The value of `query` once Prometheus has one, waiting for the scrapes (bounded). */
  async function valueOf(query: string): Promise<number> {
    let value: number | undefined;
    await waitFor(
      async () => (value = await prometheus!.queryValue(query)) !== undefined,
      `a value for ${query} (Prometheus' log: ${prometheus!.log().slice(-2000)})`,
      30_000,
    );
    return value!;
  }

  it("a query returns each queue's messages by state, dead-letter queue included", async () => {
    expect(await valueOf('rsmq_queue_messages{queue="jobs",state="visible"}')).to.equal(2);
    expect(await valueOf('rsmq_queue_messages{queue="jobs",state="in_flight"}')).to.equal(1);
    expect(await valueOf('rsmq_queue_messages{queue="jobs",state="delayed"}')).to.equal(1);
    expect(await valueOf('rsmq_queue_messages{queue="jobs-dlq",state="visible"}')).to.equal(1);
    expect(await valueOf('sum by (queue) (rsmq_queue_messages{queue="jobs"})')).to.equal(4);
    expect(await valueOf('rsmq_queue_sent_messages_total{queue="jobs"}')).to.equal(4);
    expect(await valueOf('up{job="rsmq"}')).to.equal(1);
  });

  it("a query returns the queues' controls: which is paused, the tightest rate limit per second", async () => {
    expect(await valueOf('rsmq_queue_paused{queue="idle"}')).to.equal(1);
    expect(await valueOf("sum(rsmq_queue_paused)")).to.equal(1);
    expect(await valueOf('rsmq_queue_rate_limit_per_second{queue="jobs"}')).to.equal(5);
    expect(await valueOf("count(rsmq_queue_rate_limit_per_second)")).to.equal(1);
  });

  it("the oldest visible message's age: the scrape's time minus the send time in its id, within the scrape's delay", async () => {
    // The sample and the time Prometheus stamped it with (its scrape's start); Redis runs on this machine's clock.
    const age = await valueOf('rsmq_queue_oldest_visible_age_seconds{queue="jobs"}');
    const scrapedAt = await valueOf('timestamp(rsmq_queue_oldest_visible_age_seconds{queue="jobs"})');
    const implied = scrapedAt - sentAt(seeded.jobsHead) / 1000;
    expect(age).to.be.above(0);
    expect(Math.abs(age - implied), `age ${age} s, implied ${implied} s`).to.be.below(0.5);
    // And it grows with the scrapes, as the message waits.
    await waitFor(
      async () => ((await prometheus!.queryValue('rsmq_queue_oldest_visible_age_seconds{queue="jobs"}')) ?? 0) >= age + 1,
      "a later scrape with an older age",
      15_000,
    );
  });
});
