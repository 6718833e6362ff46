/**
 * The dashboard's triage actions in a real browser (Debian's chromium through playwright-core),
 * each as an operator clicks it, against a real Redis, mounted by Express under a sub-path: find
 * a message by a text in its body and by its id (in read-only mode too, a hostile body staying
 * text), redrive one dead letter from the results, send with a priority, change the retention,
 * and purge a queue after typing its name. Through all of it: no console error, no CSP
 * violation, no request off the origin.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { startRedisServer } from "../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../lib/cli/redis/redis-server";
import { closeBrowser, closeCheckedPage, openPage } from "../support/browser";
import type { OpenedPage } from "../support/browser";
import { deadLetterOne } from "../support/retry";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";
import { ServedDashboards } from "../support/served-dashboards";

runsOn("single");

const XSS = '<img src=x onerror="window.__xss = true"> order failed';

describe("dashboard triage in a real browser (chromium)", function () {
  this.timeout(90_000);
  let redis: RedisServerProcess;
  let rsmq: RedisSMQ;
  const served = new ServedDashboards();
  let opened: OpenedPage | undefined;
  let dead: { charge: string; poison: string };

  before(async () => {
    redis = await startRedisServer();
    rsmq = new RedisSMQ({ host: redis.host, port: redis.port, ns: "triage" });
    await rsmq.createQueueAsync({ qname: "orders" });
    dead = {
      charge: await deadLetterOne(rsmq, "orders", "orders-dlq", "charge failed", { reason: "exhausted", error: "card declined" }),
      poison: await deadLetterOne(rsmq, "orders", "orders-dlq", "bad order", { reason: "poison", error: "no such item" }),
    };
    for (const item of ["apple", "pear"]) await rsmq.sendMessageAsync({ qname: "orders", message: JSON.stringify({ item }) });
    await rsmq.sendMessageAsync({ qname: "orders", message: XSS });
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

  it("read-only: finds by a text in the bodies and by id, shows bodies as text, says its bound, offers no action", async () => {
    opened = await openPage(`${await served.serve(rsmq, true)}#/queues/orders`);
    const { page } = opened;
    expect(await page.locator("#find-bound").textContent()).to.match(/at most 10,000 messages/);
    await page.locator('#find-messages input[name="query"]').fill("failed");
    await page.locator('button[data-action="find"]').click();
    await page.locator("#found tr[data-id]").first().waitFor();
    expect(await page.locator('#found td[data-col="body"]').allTextContents()).to.deep.equal([XSS]);
    expect(await page.locator("#found img").count(), "an <img> made from a body").to.equal(0);
    expect(await page.evaluate(() => (globalThis as { __xss?: boolean }).__xss)).to.equal(undefined);
    expect(await page.locator("#find-note").textContent()).to.equal("Looked at 3 of 3 messages; searched to the end.");

    const [apple] = (await rsmq.peekMessagesAsync({ qname: "orders" })).filter((m) => m.message.includes("apple"));
    await page.locator('#find-messages select[name="by"]').selectOption("id");
    await page.locator('#find-messages input[name="query"]').fill(apple.id);
    await page.locator('button[data-action="find"]').click();
    await page.locator(`#found tr[data-id="${apple.id}"]`).waitFor();
    expect(await page.locator('#found td[data-col="body"]').allTextContents()).to.deep.equal([apple.message]);
    expect(
      await page
        .locator('#queue button[data-action]:visible:not([data-action^="find"]):not([data-filter])')
        .evaluateAll((b) =>
          b
            .map((one) => one.getAttribute("data-action"))
            .filter(
              (action) =>
                !["refresh-messages", "prev-page", "next-page", "show-body", "filter-messages", "clear-filter", "count-tenants"].includes(
                  String(action),
                ),
            ),
        ),
    ).to.deep.equal([]);
  });

  it("redrives one dead letter found by its text, after confirming", async () => {
    opened = await openPage(`${await served.serve(rsmq, false)}#/queues/orders-dlq`);
    const { page } = opened;
    // The page is built read-only until the first reading says otherwise, then built again: a
    // query typed before that would be lost with the old form. The send form is read-write's.
    await page.locator("#send-message").waitFor();
    await page.locator('#find-messages input[name="query"]').fill("charge");
    await page.locator('button[data-action="find"]').click();
    await page.locator(`#found tr[data-id="${dead.charge}"][data-state="deadLettered"]`).waitFor();
    await page.locator(`#found tr[data-id="${dead.charge}"] button[data-action="redrive-one"]`).click();
    await page.locator('dialog#confirm button[data-action="confirm"]').click();
    await page.locator('#toasts .toast[data-kind="ok"]').waitFor();
    await page.locator(`#found tr[data-id="${dead.charge}"]`).waitFor({ state: "detached" });
    expect((await rsmq.peekMessagesAsync({ qname: "orders-dlq" })).map((m) => m.id)).to.deep.equal([dead.poison]);
    expect(await rsmq.peekMessageAsync({ qname: "orders", id: dead.charge })).to.include({
      id: dead.charge,
      message: "charge failed",
    });
  });

  it("sends with a priority: the message goes before the older ones", async () => {
    opened = await openPage(`${await served.serve(rsmq, false)}#/queues/orders`);
    const { page } = opened;
    await page.locator('#send-message textarea[name="message"]').fill("rush order");
    await page.locator('#send-message input[name="priority"]').fill("9");
    await page.locator('button[data-action="send-message"]').click();
    await page.locator('#toasts .toast[data-kind="ok"]').waitFor();
    const [first] = await rsmq.peekMessagesAsync({ qname: "orders", count: 1 });
    expect(first.message).to.equal("rush order");
  });

  it("changes the retention", async () => {
    opened = await openPage(`${await served.serve(rsmq, false)}#/queues/orders`);
    const { page } = opened;
    await page.locator('#retention-form input[name="retention"]').fill("86400");
    await page.locator('#retention-form input[name="expireTo"]').fill("orders-expired");
    await page.locator('button[data-action="save-retention"]').click();
    await page.locator('#toasts .toast[data-kind="ok"]').waitFor();
    expect(await rsmq.getQueueAttributesAsync({ qname: "orders" })).to.include({ retention: 86400, expireTo: "orders-expired" });
  });

  it("purges a queue only once its name is typed; the queue stays", async () => {
    opened = await openPage(`${await served.serve(rsmq, false)}#/queues/orders`);
    const { page } = opened;
    expect((await rsmq.getQueueAttributesAsync({ qname: "orders" })).msgs).to.be.above(0);
    await page.locator('button[data-action="purge-queue"]').click();
    const confirm = page.locator('dialog#confirm button[data-action="confirm"]');
    expect(await confirm.isDisabled()).to.equal(true);
    await page.locator("#confirm-input").fill("order");
    expect(await confirm.isDisabled()).to.equal(true);
    await page.locator("#confirm-input").fill("orders");
    await confirm.click();
    await page.locator('#toasts .toast[data-kind="ok"]').waitFor();
    await waitFor(async () => (await rsmq.getQueueAttributesAsync({ qname: "orders" })).msgs === 0, "the purge");
    expect(await rsmq.listQueuesAsync()).to.include("orders");
  });
});
