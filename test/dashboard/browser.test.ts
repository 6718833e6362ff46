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
import express = require("express");
import { createServer } from "http";
import type { Server } from "http";
import type { AddressInfo } from "net";
import * as path from "path";
import OldRSMQ = require("rsmq");
import RedisSMQ = require("../../lib/index");
import { createDashboard } from "../../lib/dashboard";
import { startRedisServer } from "../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../lib/cli/redis/redis-server";
import { closeBrowser, openPage } from "../support/browser";
import type { OpenedPage } from "../support/browser";
import { deadLetterOne } from "../support/retry";
import type { Rsmq } from "../support/old-rsmq";
import { runsOn } from "../support/targets";

runsOn("single");

const MOUNT = "/ops/queues";
const XSS = '<img src=x onerror="window.__xss = true">';

describe("dashboard in a real browser (chromium)", function () {
  this.timeout(90_000);
  let redis: RedisServerProcess;
  let rsmq: RedisSMQ;
  let producer: RedisSMQ;
  let old: Rsmq;
  const servers: Server[] = [];
  const dashboards: Array<ReturnType<typeof createDashboard>> = [];
  let opened: OpenedPage | undefined;

  /** Serves a dashboard under MOUNT with Express; resolves the page's URL. */
  async function serve(readOnly: boolean): Promise<string> {
    const dashboard = createDashboard({ rsmq, readOnly, intervalMs: 250 });
    dashboards.push(dashboard);
    const app = express();
    app.use(MOUNT, dashboard);
    const server = createServer(app);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}${MOUNT}/`;
  }

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
    if (!page) return;
    await page.settle();
    const problems = page.problems();
    const foreign = page.foreignRequests();
    await page.close();
    expect(problems, "console errors, page errors and CSP violations").to.deep.equal([]);
    expect(foreign, "requests off the page's origin").to.deep.equal([]);
  });

  after(async () => {
    for (const dashboard of dashboards) dashboard.close();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await closeBrowser();
    await Promise.all([rsmq?.quitAsync(), producer?.quitAsync(), old?.quitAsync()]);
    await redis?.stop();
  });

  it("shows every queue with its counts, and a message sent elsewhere without a reload", async () => {
    opened = await openPage(await serve(true));
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
    opened = await openPage(`${await serve(true)}#/queues/orders`);
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
    opened = await openPage(`${await serve(false)}#/queues/orders-dlq`);
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

  it("shows Redis going down, and heals when it is back", async () => {
    opened = await openPage(await serve(true));
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
