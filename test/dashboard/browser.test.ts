/**
 * The dashboard in a real browser: Debian's chromium driven by playwright-core, against a real
 * Redis, with the handler mounted by Express under a sub-path (so every URL the page uses must be
 * relative). What an operator sees: the overview with every queue and its counts (an rsmq 0.12.4
 * queue among them), a message sent by another client appearing without a reload, a queue page
 * listing messages with their states, a hostile body staying text, a redrive that empties the
 * dead-letter queue, the actions hidden in read-only mode, and Redis going down and coming back.
 * Through all of it: no console error, no CSP violation, no request off the origin.
 *
 * `RSMQ_NEXT_SCREENSHOT=1` also writes docs/dashboard.png (the picture docs/dashboard.md shows).
 */
import { expect } from "chai";
import { createServer } from "http";
import type { Server } from "http";
import type { AddressInfo } from "net";
import * as path from "path";
import OldRSMQ = require("rsmq");
import RedisSMQ = require("../../lib/index");
import { createDashboard } from "../../lib/dashboard";
import { startRedisServer } from "../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../lib/cli/redis/redis-server";
import { closeBrowser, closeCheckedPage, openPage } from "../support/browser";
import type { OpenedPage } from "../support/browser";
import { deadLetterOne } from "../support/retry";
import type { Rsmq } from "../support/old-rsmq";
import { runsOn } from "../support/targets";
import { MOUNT, ServedDashboards } from "../support/served-dashboards";

runsOn("single");

const XSS = '<img src=x onerror="window.__xss = true">';

describe("dashboard in a real browser (chromium)", function () {
  this.timeout(90_000);
  let redis: RedisServerProcess;
  let rsmq: RedisSMQ;
  let producer: RedisSMQ;
  let old: Rsmq;
  const served = new ServedDashboards();
  let opened: OpenedPage | undefined;

  /** Serves a dashboard under MOUNT with Express; resolves the page's URL. */
  const cell = (qname: string, column: string) => opened!.page.locator(`#queues tr[data-qname="${qname}"] td[data-col="${column}"]`);

  before(async () => {
    redis = await startRedisServer();
    const options = { host: redis.host, port: redis.port, ns: "shop" };
    rsmq = new RedisSMQ(options);
    producer = new RedisSMQ(options);
    old = new OldRSMQ({ ...options }) as unknown as Rsmq;
    // The last test stops Redis: the connection errors it causes are expected here.
    for (const instance of [rsmq, producer]) instance.on("error", () => undefined);
    await old.createQueueAsync({ qname: "legacy" });
    await old.sendMessageAsync({ qname: "legacy", message: "written by rsmq 0.12.4" });
    await rsmq.createQueueAsync({ qname: "orders" });
    // Dead letters first: each is sent to orders and received from there before it moves.
    await deadLetterOne(rsmq, "orders", "orders-dlq", "charge failed", { reason: "exhausted", error: "card declined" });
    await deadLetterOne(rsmq, "orders", "orders-dlq", "bad order", { reason: "poison", error: "no such item" });
    for (const item of ["apple", "pear"]) await rsmq.sendMessageAsync({ qname: "orders", message: JSON.stringify({ item }) });
    await rsmq.receiveMessageAsync({ qname: "orders", vt: 600 });
    await rsmq.sendMessageAsync({ qname: "orders", message: XSS });
    await rsmq.sendMessageAsync({ qname: "orders", message: "later", delay: 300 });
  });

  afterEach(async () => {
    const page = opened;
    opened = undefined;
    await closeCheckedPage(page);
  });

  after(async () => {
    await served.close();
    await closeBrowser();
    await Promise.all([rsmq?.quitAsync(), producer?.quitAsync(), old?.quitAsync()]);
    await redis?.stop();
  });

  it("shows every queue with its counts, and a message sent elsewhere without a reload", async () => {
    opened = await openPage(await served.serve(rsmq, true));
    const { page } = opened;
    const headers = await page.locator("#queues thead th").allTextContents();
    expect(headers.slice(0, 5)).to.deep.equal(["Queue", "Visible", "In flight", "Delayed", "Total"]);
    await page.locator('#queues tr[data-qname="legacy"]').waitFor();
    expect(await page.locator("#queues tbody tr").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-qname")))).to.deep.equal([
      "legacy",
      "orders",
      "orders-dlq",
    ]);
    expect(await cell("orders", "visible").textContent()).to.equal("2");
    expect(await cell("orders", "inFlight").textContent()).to.equal("1");
    expect(await cell("orders", "delayed").textContent()).to.equal("1");
    expect(await cell("orders", "total").textContent()).to.equal("4");
    expect(await cell("orders", "deadLetters").textContent())
      .to.contain("orders-dlq")
      .and.contain("2");
    expect(await cell("legacy", "visible").textContent()).to.equal("1");
    await page.locator('#status[data-state="live"]').waitFor();

    await producer.sendMessageAsync({ qname: "legacy", message: "sent by another client" });
    await page.locator('#queues tr[data-qname="legacy"] td[data-col="visible"][data-value="2"]').waitFor();
    expect(await page.locator("#mode").textContent()).to.match(/read-only/);
    expect(await page.locator("button[data-action]:visible").count(), "actions shown in read-only mode").to.equal(0);
  });

  it("lists a queue's messages with their states, and shows a hostile body as text", async () => {
    opened = await openPage(`${await served.serve(rsmq, true)}#/queues/orders`);
    const { page } = opened;
    await page.locator("#messages tr[data-id]").first().waitFor();
    const states = await page.locator("#messages tr[data-id]").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-state")));
    // Receive order: the delayed one is due in 300 s, the one in flight in 600 s.
    expect(states).to.deep.equal(["visible", "visible", "delayed", "inFlight"]);
    const bodies = await page.locator('#messages td[data-col="body"]').allTextContents();
    expect(bodies.join(" | ")).to.contain(XSS);
    expect(await page.locator("#messages img").count(), "an <img> made from a body").to.equal(0);
    expect(await page.evaluate(() => (globalThis as { __xss?: boolean }).__xss)).to.equal(undefined);
    if (process.env.RSMQ_NEXT_SCREENSHOT) {
      // Some traffic for the rate chart: sends and receives between the readings.
      for (let i = 0; i < 12; i++) {
        await producer.sendMessageAsync({ qname: "orders", message: JSON.stringify({ item: `order ${i}` }) });
        if (i % 3 === 0) await producer.receiveMessageAsync({ qname: "orders", vt: 600 });
        await page.waitForTimeout(120);
      }
      await page.locator("svg#rate-chart polyline.sent").waitFor({ state: "attached" });
      await page.locator('button[data-action="refresh-messages"]').click();
      await page.locator("#messages tr[data-id]").nth(8).waitFor();
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.screenshot({ path: path.resolve(__dirname, "../../../docs/dashboard.png") });
    }
  });

  it("redrives the dead-letter queue with a click, when writes are on", async () => {
    opened = await openPage(`${await served.serve(rsmq, false)}#/queues/orders-dlq`);
    const { page } = opened;
    await page.locator("#dead-letters tr[data-group]").first().waitFor();
    expect(await page.locator("#dead-letters tr[data-group]").count()).to.equal(2);
    const before = (await rsmq.getQueueAttributesAsync({ qname: "orders" })).msgs;
    await page.locator('button[data-action="redrive-all"]').click();
    await page.locator('dialog#confirm button[data-action="confirm"]').click();
    // The live stream brings the emptied queue to the page, no reload.
    await page.locator('#queue-stats [data-stat="total"][data-value="0"]').waitFor();
    expect((await rsmq.getQueueAttributesAsync({ qname: "orders-dlq" })).msgs).to.equal(0);
    expect((await rsmq.getQueueAttributesAsync({ qname: "orders" })).msgs).to.equal(before + 2);
  });

  it("keeps the overview's rows while Redis is down, marked stale", async () => {
    opened = await openPage(await served.serve(rsmq, true));
    const { page } = opened;
    await page.locator('#queues tr[data-qname="orders"]').waitFor();
    await page.locator('#status[data-state="live"]').waitFor();
    const port = redis.port;
    await redis.stop();
    await page.locator("#stale:not([hidden])").waitFor();
    expect(await page.locator("#status").getAttribute("data-state")).not.to.equal("live");
    expect(await page.locator('#queues tr[data-qname="orders"]').count(), "the last rows, kept").to.equal(1);
    redis = await startRedisServer({ port });
    await page.locator("#stale[hidden]").waitFor({ state: "attached", timeout: 30_000 });
  });

  it("shows Redis going down, and heals when it is back", async () => {
    opened = await openPage(await served.serve(rsmq, true));
    const { page } = opened;
    await page.locator('#status[data-state="live"]').waitFor();
    const port = redis.port;
    await redis.stop();
    await page.locator("#redis-banner:not([hidden])").waitFor();
    expect(await page.locator("#redis-banner").textContent()).to.match(/Redis/);
    redis = await startRedisServer({ port });
    await page.locator("#redis-banner[hidden]").waitFor({ state: "attached", timeout: 30_000 });
  });
});

/**
 * What an operator triages with, in the same browser: a message list that follows deletes and
 * sends made elsewhere, each message's priority, a queue's retention, dead letters whose errors
 * differ only by numbers or ids folded into one group, a rate chart with axes and units, and a
 * Redis that stops answering (SIGSTOP: the process hangs, as a stuck server does) and comes back.
 * A namespace and a redis-server of its own, so the suite above keeps its fixture.
 */
describe("dashboard in a real browser: triage (chromium)", function () {
  this.timeout(90_000);
  let redis: RedisServerProcess;
  let rsmq: RedisSMQ;
  let producer: RedisSMQ;
  let server: Server | undefined;
  let dashboard: ReturnType<typeof createDashboard> | undefined;
  let opened: OpenedPage | undefined;
  let base: string;
  let urgent: string;
  let low: string;

  const TIMEOUT_ERRORS = [
    "order 1234 timed out after 30000 ms (request 3f2b8c1e-9d4a-4c1b-8e2f-0a1b2c3d4e5f, trace 0x7fa3c2d1e4b5)",
    "order 98 timed out after 5000 ms (request 7c9e6679-7425-40de-944b-e07fc1f90ae7, trace 0x19be44aa0c3f)",
  ];

  before(async () => {
    redis = await startRedisServer();
    const options = { host: redis.host, port: redis.port, ns: "triage" };
    rsmq = new RedisSMQ(options);
    producer = new RedisSMQ(options);
    for (const instance of [rsmq, producer]) instance.on("error", () => undefined);
    await rsmq.createQueueAsync({ qname: "billing", retention: 3600, expireTo: "billing-expired" });
    for (const error of TIMEOUT_ERRORS) await deadLetterOne(rsmq, "billing", "billing-dlq", "charge", { reason: "exhausted", error });
    await deadLetterOne(rsmq, "billing", "billing-dlq", "refund", { reason: "poison", error: "card declined" });
    low = await rsmq.sendMessageAsync({ qname: "billing", message: "low" });
    urgent = await rsmq.sendMessageAsync({ qname: "billing", message: "urgent", priority: 7 });
    dashboard = createDashboard({ rsmq, readOnly: true, intervalMs: 250 });
    server = createServer((req, res) => dashboard!(req, res));
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterEach(async () => {
    const page = opened;
    opened = undefined;
    await closeCheckedPage(page);
  });

  after(async () => {
    dashboard?.close();
    await new Promise((resolve) => server?.close(resolve));
    await closeBrowser();
    await Promise.all([rsmq?.quitAsync(), producer?.quitAsync()]);
    await redis?.stop();
  });

  const row = (id: string) => opened!.page.locator(`#messages tr[data-id="${id}"]`);

  it("shows each message's priority, and the queue's retention and expireTo", async () => {
    opened = await openPage(`${base}#/queues/billing`);
    const { page } = opened;
    await row(urgent).waitFor();
    expect(await page.locator("#messages thead th").allTextContents()).to.include("Priority");
    expect(await row(urgent).locator('td[data-col="priority"]').getAttribute("data-value")).to.equal("7");
    expect(await row(urgent).locator('td[data-col="priority"]').textContent()).to.equal("7");
    expect(await row(low).locator('td[data-col="priority"]').getAttribute("data-value")).to.equal("0");
    await page.locator('#settings [data-setting="retention"]').waitFor();
    expect(await page.locator('#settings [data-setting="retention"]').textContent()).to.equal("3600 s (1h 0m)");
    expect(await page.locator('#settings [data-setting="expireTo"]').textContent()).to.equal("billing-expired");
  });

  it("pages on from the last message a page showed, when the byte bound cut the page short", async () => {
    // 60 messages of 6,000 bytes: a page of 50 stops at 256 KiB of bodies, after 43 of them.
    await rsmq.createQueueAsync({ qname: "paged" });
    const sent: string[] = [];
    for (let i = 0; i < 60; i++) sent.push(await rsmq.sendMessageAsync({ qname: "paged", message: `${i}:`.padEnd(6000, "x") }));
    opened = await openPage(`${base}#/queues/paged`);
    const { page } = opened;
    const shownIds = () => page.locator("#messages tbody tr[data-id]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-id")));
    await page.locator(`#messages tr[data-id="${sent[0]}"]`).waitFor();
    const first = await shownIds();
    expect(first.length).to.be.within(1, 49);
    await page.locator('[data-action="next-page"]').click();
    await page.locator(`#messages tr[data-id="${sent[first.length]}"]`).waitFor();
    const second = await shownIds();
    // Nothing skipped: the second page starts right after the first one's last message.
    expect(second[0]).to.equal(sent[first.length]);
    await rsmq.deleteQueueAsync({ qname: "paged" });
  });

  it("follows deletes and sends made by another client in the message list, without a reload or a click", async () => {
    opened = await openPage(`${base}#/queues/billing`);
    const { page } = opened;
    await row(low).waitFor();
    await page.locator('#status[data-state="live"]').waitFor();
    await producer.deleteMessageAsync({ qname: "billing", id: low });
    await row(low).waitFor({ state: "detached" });
    const sent = await producer.sendMessageAsync({ qname: "billing", message: "sent elsewhere" });
    await row(sent).waitFor();
    expect(await row(urgent).count(), "the other rows stay").to.equal(1);
    low = await producer.sendMessageAsync({ qname: "billing", message: "low" });
  });

  it("folds dead letters whose errors differ only by numbers and ids, shows one example, and says '1 delivery'", async () => {
    opened = await openPage(`${base}#/queues/billing-dlq`);
    const { page } = opened;
    await page.locator("#dead-letters tr[data-group]").first().waitFor();
    expect(await page.locator("#dead-letters tr[data-group]").count()).to.equal(2);
    const folded = page.locator('#dead-letters tr[data-group][data-reason="exhausted"]');
    expect(await folded.locator('td[data-col="count"]').getAttribute("data-value")).to.equal("2");
    const shown = await folded.locator('td[data-col="error"] .example').textContent();
    expect(TIMEOUT_ERRORS, "one real error as the example").to.include(shown);
    expect(await folded.locator('td[data-col="error"] .variants').textContent()).to.match(/2 different errors/);
    await page.locator("#messages .dead-info").first().waitFor();
    const notes = await page.locator("#messages .dead-info").allTextContents();
    expect(notes.length).to.equal(3);
    for (const note of notes) expect(note).to.match(/ after 1 delivery from billing: /);
  });

  it("draws the rate chart with axes and units", async () => {
    opened = await openPage(`${base}#/queues/billing`);
    const { page } = opened;
    await page.locator('#status[data-state="live"]').waitFor();
    // Traffic between readings, so the chart has rates to draw.
    for (let i = 0; i < 4; i++) {
      const id = await producer.sendMessageAsync({ qname: "billing", message: `chart ${i}` });
      await row(id).waitFor();
      await producer.deleteMessageAsync({ qname: "billing", id });
      await row(id).waitFor({ state: "detached" });
    }
    await page.locator("svg#rate-chart polyline.sent").waitFor({ state: "attached" });
    expect(await page.locator("svg#rate-chart .y-unit").textContent()).to.equal("msg/s");
    const yTicks = await page.locator("svg#rate-chart .y-tick").allTextContents();
    expect(yTicks[0]).to.equal("0");
    expect(yTicks.length).to.be.at.least(2);
    const xTicks = await page.locator("svg#rate-chart .x-tick").allTextContents();
    expect(xTicks[xTicks.length - 1]).to.equal("now");
    expect(xTicks[0]).to.match(/^-\d+(\.\d)? s$/);
  });

  it("keeps the last data during a Redis outage, marked stale since when, never 'live', and heals without a reload", async () => {
    opened = await openPage(`${base}#/queues/billing`);
    const { page } = opened;
    await row(urgent).waitFor();
    await page.locator('#status[data-state="live"]').waitFor();
    const rowsBefore = await page.locator("#messages tr[data-id]").count();
    const totalBefore = await page.locator('#queue-stats [data-stat="total"]').getAttribute("data-value");
    // Every change of the status or the stale marker, as the page showed it (after each handler
    // ran). A string: the tests compile without the DOM's types.
    await page.evaluate(`(() => {
      const seen = (window.__seen = []);
      const status = document.querySelector("#status");
      const stale = document.querySelector("#stale");
      const note = () => seen.push({ status: status.dataset.state, stale: !stale.hidden });
      new MutationObserver(note).observe(document.querySelector("header"), { attributes: true, subtree: true, childList: true });
    })()`);
    const pausedAt = Date.now();
    process.kill(redis.pid!, "SIGSTOP");
    try {
      await page.locator("#stale:not([hidden])").waitFor();
      expect(await page.locator("#status").getAttribute("data-state")).to.equal("stale");
      const since = Number(await page.locator("#stale").getAttribute("data-since"));
      expect(since, "stale since: when the readings stopped").to.be.within(pausedAt - 1000, Date.now());
      expect(await page.locator("#stale").textContent()).to.match(/^stale since \d/);
      expect(await page.locator("#view").getAttribute("data-stale")).to.equal("true");
      // The last data stays: the figures, the rows, and the overview when the operator goes there.
      expect(await page.locator("#messages tr[data-id]").count()).to.equal(rowsBefore);
      expect(await page.locator('#queue-stats [data-stat="total"]').getAttribute("data-value")).to.equal(totalBefore);
      await page.evaluate('location.hash = "#/"');
      await page.locator('#queues tr[data-qname="billing"] td[data-col="total"]').waitFor();
      expect(await page.locator('#queues tr[data-qname="billing"] td[data-col="total"]').getAttribute("data-value")).to.equal(totalBefore);
      await page.evaluate('location.hash = "#/queues/billing"');
      await row(urgent).waitFor();
    } finally {
      process.kill(redis.pid!, "SIGCONT");
    }
    await page.locator("#stale[hidden]").waitFor({ state: "attached", timeout: 45_000 });
    await page.locator('#status[data-state="live"]').waitFor();
    expect(await page.locator("#view").getAttribute("data-stale")).to.equal(null);
    // Back without a reload: a message sent now shows in the list and in the figures.
    const sent = await producer.sendMessageAsync({ qname: "billing", message: "after the outage" });
    await row(sent).waitFor();
    await page.locator(`#queue-stats [data-stat="total"][data-value="${Number(totalBefore) + 1}"]`).waitFor();
    const seen: Array<{ status: string; stale: boolean }> = await page.evaluate("window.__seen");
    expect(seen.some((one) => one.stale)).to.equal(true);
    expect(
      seen.filter((one) => one.stale && one.status === "live"),
      "'live' while stale",
    ).to.deep.equal([]);
  });
});
