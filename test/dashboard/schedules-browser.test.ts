/**
 * A queue's schedules on the dashboard in a real browser (Debian's chromium through
 * playwright-core), against a real Redis, mounted by Express under a sub-path: read-only, the
 * queue's page lists its schedules (timing, next run as an ISO time, state) with no button to
 * change them; read-write, an operator pauses a schedule, resumes it and removes it (confirmed),
 * and the list follows each change. Through all of it: no console error, no CSP violation, no
 * request off the origin.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { startRedisServer } from "../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../lib/cli/redis/redis-server";
import { closeBrowser, closeCheckedPage, openPage } from "../support/browser";
import type { OpenedPage } from "../support/browser";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";
import { ServedDashboards } from "../support/served-dashboards";

runsOn("single");

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("dashboard: a queue's schedules in a real browser (chromium)", function () {
  this.timeout(90_000);
  let redis: RedisServerProcess;
  let rsmq: RedisSMQ;
  const served = new ServedDashboards();
  let opened: OpenedPage | undefined;

  const paused = async (name: string): Promise<boolean | undefined> =>
    (await rsmq.listSchedulesAsync({ qname: "reports" })).find((info) => info.name === name)?.paused;

  before(async () => {
    redis = await startRedisServer();
    rsmq = new RedisSMQ({ host: redis.host, port: redis.port, ns: "schedules" });
    await rsmq.createQueueAsync({ qname: "reports" });
    await rsmq.upsertScheduleAsync({ qname: "reports", name: "nightly", cron: "0 2 * * *", tz: "Europe/Berlin", message: "{}" });
    await rsmq.upsertScheduleAsync({ qname: "reports", name: "ping", every: 60_000, message: "ping" });
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

  it("read-only: the schedules with their timing, next run and state, and no button to change them", async () => {
    opened = await openPage(`${await served.serve(rsmq, true)}#/queues/reports`);
    const { page } = opened;
    const nightly = page.locator('#schedules tr[data-schedule="nightly"]');
    await nightly.waitFor();
    expect(await page.locator("#schedules tbody tr").count()).to.equal(2);
    expect(await nightly.locator('[data-col="timing"]').textContent()).to.equal('cron "0 2 * * *" Europe/Berlin');
    expect(await nightly.locator('[data-col="nextRun"]').textContent()).to.match(ISO);
    expect(await nightly.locator('[data-col="lastRun"]').textContent()).to.equal("—");
    expect(await nightly.locator('[data-col="state"]').textContent()).to.equal("active");
    const ping = page.locator('#schedules tr[data-schedule="ping"]');
    expect(await ping.locator('[data-col="timing"]').textContent()).to.equal("every 60 s");
    expect(await ping.locator('[data-col="count"]').textContent()).to.equal("0");
    expect(await page.locator("#schedules").getAttribute("data-schedules")).to.equal("2");
    expect(await page.locator("#schedules button").count()).to.equal(0);
  });

  it("read-write: pauses a schedule, resumes it and removes it (after confirming); the list follows", async () => {
    opened = await openPage(`${await served.serve(rsmq, false)}#/queues/reports`);
    const { page } = opened;
    const ping = page.locator('#schedules tr[data-schedule="ping"]');
    await ping.locator('button[data-action="pause-schedule"]').click();
    await waitFor(async () => (await paused("ping")) === true, "the schedule paused");
    await waitFor(async () => (await ping.getAttribute("data-state")) === "paused", "the pause shown");
    expect(await ping.locator('[data-col="state"]').textContent()).to.equal("paused");
    expect(await ping.locator('[data-col="nextRun"]').textContent()).to.equal("—");
    expect(await paused("nightly")).to.equal(false);

    await ping.locator('button[data-action="resume-schedule"]').click();
    await waitFor(async () => (await paused("ping")) === false, "the schedule resumed");
    await waitFor(async () => (await ping.getAttribute("data-state")) === "active", "the resume shown");
    expect(await ping.locator('[data-col="nextRun"]').textContent()).to.match(ISO);

    await ping.locator('button[data-action="remove-schedule"]').click();
    await page.locator('dialog#confirm button[data-action="confirm"]').click();
    await waitFor(async () => (await rsmq.listSchedulesAsync({ qname: "reports" })).length === 1, "the schedule removed");
    await waitFor(async () => (await ping.count()) === 0, "the row gone");
    expect(await page.locator('#schedules tr[data-schedule="nightly"]').count()).to.equal(1);
  });
});
