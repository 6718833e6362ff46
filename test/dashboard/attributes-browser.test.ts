/**
 * The message browser's attribute filter and the tenants view in a real browser (Debian's
 * chromium through playwright-core), read-only, against a real Redis, mounted by Express under a
 * sub-path: a filter by tenant shows only that tenant's messages and pages on with the cursor,
 * the tenants view shows the counts, and an attribute value that is HTML renders as text. Through
 * all of it: no console error, no CSP violation, no request off the origin.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { startRedisServer } from "../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../lib/cli/redis/redis-server";
import { closeBrowser, closeCheckedPage, openPage } from "../support/browser";
import type { OpenedPage } from "../support/browser";
import { runsOn } from "../support/targets";
import { waitFor } from "../support/worker";
import { ServedDashboards } from "../support/served-dashboards";

runsOn("single");

const XSS = '<img src=x onerror="window.__xss = true">';

describe("dashboard attribute filter and tenants in a real browser (chromium)", function () {
  this.timeout(90_000);
  let redis: RedisServerProcess;
  let rsmq: RedisSMQ;
  const served = new ServedDashboards();
  let opened: OpenedPage | undefined;
  const sent: Record<string, string[]> = { acme: [], globex: [], hostile: [] };

  before(async () => {
    redis = await startRedisServer();
    rsmq = new RedisSMQ({ host: redis.host, port: redis.port, ns: "tenants" });
    await rsmq.createQueueAsync({ qname: "jobs" });
    // 60 of acme (more than a page of 50), 3 of globex, one whose attribute is HTML.
    for (let i = 0; i < 60; i++) sent.acme.push(await rsmq.sendMessageAsync({ qname: "jobs", message: `acme ${i}`, tenant: "acme" }));
    for (let i = 0; i < 3; i++) sent.globex.push(await rsmq.sendMessageAsync({ qname: "jobs", message: `globex ${i}`, tenant: "globex" }));
    sent.hostile.push(await rsmq.sendMessageAsync({ qname: "jobs", message: "hostile", attributes: { tenant: "evil", note: XSS } }));
    await rsmq.sendMessageAsync({ qname: "jobs", message: "plain" });
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

  it("filters by tenant: only that tenant's messages, page after page with the cursor", async () => {
    opened = await openPage(`${await served.serve(rsmq, true)}#/queues/jobs`);
    const { page } = opened;
    await page.locator("#messages tr[data-id]").first().waitFor();
    await page.locator('#message-filter input[name="where"]').fill("tenant=globex");
    await page.locator('button[data-action="filter-messages"]').click();
    await page.locator(`#messages tr[data-id="${sent.globex[0]}"]`).waitFor();
    await waitFor(async () => (await page.locator("#messages tr[data-id]").count()) === 3, "globex's three rows");
    expect(await page.locator("#messages tr[data-id]").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-id")))).to.deep.equal(
      sent.globex,
    );
    expect(await page.locator("#messages [data-attributes]").allTextContents()).to.deep.equal([
      "tenant=globex",
      "tenant=globex",
      "tenant=globex",
    ]);

    await page.locator('#message-filter input[name="where"]').fill("tenant=acme");
    await page.locator('button[data-action="filter-messages"]').click();
    await page.locator(`#messages tr[data-id="${sent.acme[0]}"]`).waitFor();
    expect(await page.locator("#messages tr[data-id]").count()).to.equal(50);
    // Tenants are ordered fairly: globex's 3 and evil's 1 sit among acme's first messages, so
    // acme's 50th is the 54th in receive order.
    expect(await page.locator("#page-info").textContent()).to.equal("50 matching of 54 looked at; more to look at");
    await page.locator('button[data-action="next-page"]').click();
    await page.locator(`#messages tr[data-id="${sent.acme[50]}"]`).waitFor();
    expect(await page.locator("#messages tr[data-id]").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-id")))).to.deep.equal(
      sent.acme.slice(50),
    );
    expect(await page.locator('button[data-action="next-page"]').isDisabled()).to.equal(true);

    await page.locator('button[data-action="clear-filter"]').click();
    await waitFor(async () => (await page.locator("#messages tr[data-id]").count()) === 50, "the unfiltered page's 50 rows");
    expect(await page.locator("#page-info").textContent()).to.equal("1–50 of 65");
  });

  it("shows the tenants with their counts, and an attribute that is HTML as text", async () => {
    opened = await openPage(`${await served.serve(rsmq, true)}#/queues/jobs`);
    const { page } = opened;
    await page.locator('#tenant-table tr[data-tenant="acme"]').waitFor();
    const rows = await page
      .locator("#tenant-table tbody tr")
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
    expect(rows).to.deep.equal([
      ["acme", "60", "0", "0", "60"],
      ["globex", "3", "0", "0", "3"],
      ["evil", "1", "0", "0", "1"],
    ]);
    expect(await page.locator("#tenants-note").textContent()).to.equal("Counted over all 65 messages; 1 without a tenant.");

    await page.locator('#message-filter input[name="where"]').fill("tenant=evil");
    await page.locator('button[data-action="filter-messages"]').click();
    await page.locator(`#messages tr[data-id="${sent.hostile[0]}"]`).waitFor();
    // The unfiltered page holds that message too (tenants are ordered fairly, so it is near the
    // head): wait for the filter's one row.
    await waitFor(async () => (await page.locator("#messages tr[data-id]").count()) === 1, "the filter's one row");
    expect(await page.locator("#messages [data-attributes]").allTextContents()).to.deep.equal([`tenant=evil  note=${XSS}`]);
    expect(await page.locator("#queue img").count(), "an <img> made from an attribute").to.equal(0);
    expect(await page.evaluate(() => (globalThis as { __xss?: boolean }).__xss)).to.equal(undefined);
  });
});
