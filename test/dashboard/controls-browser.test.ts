/**
 * A queue's controls on the dashboard in a real browser (Debian's chromium through playwright-core),
 * against a real Redis, mounted by Express under a sub-path: read-only, the overview marks a paused
 * and a rate-limited queue and the queue's page shows the pause, the limit and a block, with no
 * button to change them; read-write, an operator pauses and resumes a queue and sets and removes
 * its rate limit, and the page follows each change; it sets and removes a concurrency limit, shown
 * as a badge of what is leased, with the queue's consumers listed. Through all of it: no console
 * error, no CSP violation, no request off the origin.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { startRedisServer } from "../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../lib/cli/redis/redis-server";
import { closeBrowser, closeCheckedPage, openPage } from "../support/browser";
import type { OpenedPage } from "../support/browser";
import { waitFor } from "../support/worker";
import { internalsOf } from "../../lib/internals";
import { beatJson, lookAndBeat } from "../../lib/operations/consumer-beat";
import { runsOn } from "../support/targets";
import { ServedDashboards } from "../support/served-dashboards";

runsOn("single");

describe("dashboard: a queue's pause and rate limit in a real browser (chromium)", function () {
  this.timeout(90_000);
  let redis: RedisServerProcess;
  let rsmq: RedisSMQ;
  const served = new ServedDashboards();
  let opened: OpenedPage | undefined;

  before(async () => {
    redis = await startRedisServer();
    rsmq = new RedisSMQ({ host: redis.host, port: redis.port, ns: "controls" });
    for (const qname of ["emails", "api-calls", "plain"]) await rsmq.createQueueAsync({ qname });
  });

  afterEach(async () => {
    const page = opened;
    opened = undefined;
    await closeCheckedPage(page);
  });

  after(async () => {
    await served.close();
    await closeBrowser();
    await rsmq?.quitAsync();
    await redis?.stop();
  });

  it("read-only: badges on the overview, the pause, the limit and a block on the queue's page, no button to change them", async () => {
    await rsmq.pauseQueueAsync({ qname: "emails" });
    await rsmq.setRateLimitAsync({
      qname: "api-calls",
      limits: [
        { max: 10, perMs: 1000, burst: 5 },
        { max: 300, perMs: 60_000 },
      ],
    });
    await rsmq.rateLimitQueueAsync({ qname: "api-calls", ms: 600_000 });
    try {
      opened = await openPage(await served.serve(rsmq, true));
      const { page } = opened;
      await page.locator('#queues tr[data-qname="emails"] [data-badge="paused"]').waitFor();
      expect(await page.locator('#queues [data-badge="paused"]').count()).to.equal(1);
      expect(await page.locator('#queues tr[data-qname="api-calls"] [data-badge="rate-limit"]').textContent()).to.equal("≤ 5/s");
      expect(await page.locator('#queues tr[data-qname="plain"] .badge').count()).to.equal(0);

      await page.goto(`${page.url().split("#")[0]}#/queues/api-calls`);
      const limit = page.locator('#settings dd[data-setting="rateLimit"]');
      await limit.waitFor();
      expect(await limit.textContent()).to.match(/^10\/1s\+5, 300\/1m \(at receive\); receives blocked until .+$/);
      expect(await page.locator('#settings dd[data-setting="paused"]').textContent()).to.equal("no");
      await page.goto(`${page.url().split("#")[0]}#/queues/emails`);
      await waitFor(
        async () => /^since .+, until resumed$/.test((await page.locator('#settings dd[data-setting="paused"]').textContent()) ?? ""),
        "the pause shown",
      );
      expect(await page.locator("#pause-form, #rate-limit-form").count()).to.equal(0);
    } finally {
      await rsmq.resumeQueueAsync({ qname: "emails" });
      await rsmq.removeRateLimitAsync({ qname: "api-calls" });
    }
  });

  it("read-write: pauses (hard) and resumes a queue; the page follows", async () => {
    await rsmq.sendMessageAsync({ qname: "emails", message: "hello" });
    opened = await openPage(`${await served.serve(rsmq, false)}#/queues/emails`);
    const { page } = opened;
    const paused = page.locator('#settings dd[data-setting="paused"]');
    await page.locator('#pause-form input[name="hard"]').check();
    await page.locator('button[data-action="pause-queue"]').click();
    await page.locator('#toasts .toast[data-kind="ok"]').first().waitFor();
    expect((await rsmq.getQueueAttributesAsync({ qname: "emails" })).paused).to.include({ hard: true });
    await waitFor(async () => /, hard/.test((await paused.textContent()) ?? ""), "the hard pause shown");

    await page.locator('button[data-action="resume-queue"]').click();
    await waitFor(async () => !(await rsmq.getQueueAttributesAsync({ qname: "emails" })).paused, "the resume (and its restore)");
    await waitFor(async () => (await paused.textContent()) === "no", "the resume shown");
    expect(await rsmq.receiveMessageAsync({ qname: "emails" })).to.include({ message: "hello" });
  });

  it("read-write: pauses for some minutes, by the server's time", async () => {
    opened = await openPage(`${await served.serve(rsmq, false)}#/queues/plain`);
    const { page } = opened;
    await page.locator('#pause-form input[name="minutes"]').fill("30");
    const before = Date.now();
    await page.locator('button[data-action="pause-queue"]').click();
    await page.locator('#toasts .toast[data-kind="ok"]').first().waitFor();
    const { until } = (await rsmq.getQueueAttributesAsync({ qname: "plain" })).paused!;
    expect(until).to.be.within(before + 30 * 60_000 - 5000, Date.now() + 30 * 60_000);
    await rsmq.resumeQueueAsync({ qname: "plain" });
  });

  it("read-write: sets a rate limit and removes it; the page follows", async () => {
    opened = await openPage(`${await served.serve(rsmq, false)}#/queues/api-calls`);
    const { page } = opened;
    const shown = page.locator('#settings dd[data-setting="rateLimit"]');
    await page.locator('#rate-limit-form input[name="max"]').fill("10");
    await page.locator('#rate-limit-form input[name="perMs"]').fill("1000");
    await page.locator('#rate-limit-form input[name="burst"]').fill("5");
    await page.locator('#rate-limit-form select[name="mode"]').selectOption("pace");
    await page.locator('button[data-action="set-rate-limit"]').click();
    await page.locator('#toasts .toast[data-kind="ok"]').first().waitFor();
    expect((await rsmq.getQueueAttributesAsync({ qname: "api-calls" })).rateLimit).to.deep.equal({
      limits: [{ max: 10, perMs: 1000, burst: 5 }],
      mode: "pace",
    });
    // The block the read-only case set is still in force: it follows the limit.
    await waitFor(
      async () => /^10\/1s\+5 \(paced at send\); receives blocked until /.test((await shown.textContent()) ?? ""),
      "the limit shown",
    );

    await page.locator('button[data-action="remove-rate-limit"]').click();
    await waitFor(async () => !(await rsmq.getQueueAttributesAsync({ qname: "api-calls" })).rateLimit, "the limit removed");
    await waitFor(async () => /^none; receives blocked until /.test((await shown.textContent()) ?? ""), "no limit shown");
  });

  it("read-write: sets a concurrency limit (a badge of what is leased) and removes it; the consumers are listed", async () => {
    const { layout, run } = internalsOf(rsmq);
    await run(() =>
      lookAndBeat(layout, "plain", { workerId: "browserWorker001", json: beatJson("host-c", 3030, 2, 1000), ttlMs: 600_000 }),
    );
    await rsmq.sendMessageAsync({ qname: "plain", message: "held" });
    opened = await openPage(`${await served.serve(rsmq, false)}#/queues/plain`);
    const { page } = opened;
    const worker = page.locator('#consumers tr[data-consumer="browserWorker001"]');
    await worker.waitFor();
    expect(await worker.locator('[data-col="host"]').textContent()).to.equal("host-c");
    expect(await worker.locator('[data-col="pid"]').textContent()).to.equal("3030");

    await page.locator('#concurrency-form input[name="max"]').fill("2");
    await page.locator('button[data-action="set-concurrency"]').click();
    await page.locator('#toasts .toast[data-kind="ok"]').first().waitFor();
    expect((await rsmq.getQueueAttributesAsync({ qname: "plain" })).concurrency).to.equal(2);
    await rsmq.receiveMessageAsync({ qname: "plain", vt: 600 });
    const badge = page.locator('#concurrency-badge[data-badge="concurrency"]');
    await waitFor(async () => (await badge.isVisible()) && (await badge.textContent()) === "1/2 in flight", "the badge of what is leased");
    await page.goto(`${page.url().split("#")[0]}#/`);
    const listed = page.locator('#queues tr[data-qname="plain"] [data-badge="concurrency"]');
    await listed.waitFor();
    expect(await listed.textContent()).to.equal("1/2 in flight");
    await page.goto(`${page.url().split("#")[0]}#/queues/plain`);
    await badge.waitFor();

    await page.locator('button[data-action="remove-concurrency"]').click();
    await waitFor(async () => !(await rsmq.getQueueAttributesAsync({ qname: "plain" })).concurrency, "the limit removed");
    await waitFor(async () => !(await badge.isVisible()), "the badge gone");
  });
});
