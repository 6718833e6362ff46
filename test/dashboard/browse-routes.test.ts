/**
 * The dashboard's attribute routes (docs/dashboard.md, JSON API) against a real Redis: the message
 * browser filtered by attributes (`GET api/queues/:qname/browse?where=name=value`, a cursor to go
 * on, at most 10,000 messages looked at per request), the tenants view (`GET .../tenants`,
 * counts by state, "at least" past 10,000 messages), each message's attributes in the message
 * list, bad input 400 with nothing sent, both served read-only, and nothing written.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { createDashboard } from "../../lib/dashboard";
import type { DashboardHandler } from "../../lib/dashboard";
import { connectionOptions, plainClient, uniqueNs } from "../support/server";
import { exactState } from "../support/state";
import { nodeHttpAtRoot, send } from "../support/dashboard";
import { commandStatsDuring } from "../support/wire";
import type { Mounted } from "../support/dashboard";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("dashboard attribute routes: filtered browse and tenants", function () {
  this.timeout(60_000);
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  let handler: DashboardHandler;
  let ro: Mounted;
  let qname: string;
  let n = 0;

  before(async () => {
    ns = uniqueNs("attrs");
    rsmq = new RedisSMQ(connectionOptions(ns));
    client = await plainClient();
    handler = createDashboard({ rsmq, previewChars: 20 });
    ro = await nodeHttpAtRoot(handler);
  });
  after(async () => {
    handler.close();
    await ro?.close();
    await rsmq.quitAsync();
    await client.quit();
  });
  beforeEach(async () => {
    qname = `q${++n}`;
    await rsmq.createQueueAsync({ qname });
  });

  const get = (route: string) => send(ro.base + route);

  it("filters by attributes read-only, with a cursor to go on, bodies cut to the preview", async () => {
    const ids: Record<string, string[]> = { a: [], b: [] };
    for (let i = 0; i < 6; i++) {
      const tenant = i % 2 ? "b" : "a";
      ids[tenant].push(await rsmq.sendMessageAsync({ qname, message: `${"x".repeat(30)}${i}`, attributes: { tenant, n: i } }));
    }
    const before = await exactState(client, ns);
    const first = await get(`api/queues/${qname}/browse?where=tenant=a&limit=2`);
    expect(first.status, first.text).to.equal(200);
    expect(first.json.messages.map((m: { id: string }) => m.id)).to.deep.equal(ids.a.slice(0, 2));
    expect(first.json.messages[0]).to.include({ truncated: true, body: "x".repeat(20), state: "visible" });
    expect(first.json.messages[0].attributes).to.deep.equal({ tenant: "a", n: 0 });
    expect(first.json.bounds).to.deep.equal({ perRequest: 10_000, perCall: 1000 });
    expect(first.json.cursor).to.be.a("string");
    const rest = await get(`api/queues/${qname}/browse?where=tenant=a&limit=2&cursor=${encodeURIComponent(first.json.cursor)}`);
    expect(rest.json.messages.map((m: { id: string }) => m.id)).to.deep.equal(ids.a.slice(2));
    expect(rest.json.cursor).to.equal(null);
    const typed = await get(`api/queues/${qname}/browse?where=${encodeURIComponent("n:=3")}&where=tenant=b`);
    expect(typed.json.messages.map((m: { id: string }) => m.id)).to.deep.equal([ids.b[1]]);
    expect(await exactState(client, ns)).to.deep.equal(before);
  });

  it("gives each message's attributes in the message list, bytes as {b64}", async () => {
    const id = await rsmq.sendMessageAsync({ qname, message: "m", attributes: { tenant: "a", key: Buffer.from([0, 255]), urgent: true } });
    const page = await get(`api/queues/${qname}/messages`);
    expect(page.json.messages.map((m: { id: string; attributes: unknown }) => [m.id, m.attributes])).to.deep.equal([
      [id, { tenant: "a", key: { b64: "AP8=" }, urgent: true }],
    ]);
  });

  it("counts the tenants with messages by state, and the messages without one", async () => {
    for (let i = 0; i < 3; i++) await rsmq.sendMessageAsync({ qname, message: "a", tenant: "a" });
    await rsmq.sendMessageAsync({ qname, message: "b later", tenant: "b", delay: 60 });
    await rsmq.sendMessageAsync({ qname, message: "plain" });
    await rsmq.receiveMessageAsync({ qname, vt: 60 });
    const answer = await get(`api/queues/${qname}/tenants`);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json).to.deep.include({ qname, total: 5, looked: 5, complete: true, withoutTenant: 1 });
    expect(answer.json.tenants).to.deep.equal([
      { tenant: "a", visible: 2, inFlight: 1, delayed: 0, total: 3 },
      { tenant: "b", visible: 0, inFlight: 0, delayed: 1, total: 1 },
    ]);
  });

  it("counts tenants of large messages in one call: the bodies are cut to a byte on the server", async () => {
    for (let i = 0; i < 20; i++) await rsmq.sendMessageAsync({ qname, message: "x".repeat(60_000), tenant: i < 15 ? "a" : "b" });
    const calls = await commandStatsDuring(() =>
      get(`api/queues/${qname}/tenants`).then((answer) => {
        expect(answer.json.tenants.map((t: { tenant: string; total: number }) => [t.tenant, t.total])).to.deep.equal([
          ["a", 15],
          ["b", 5],
        ]);
      }),
    );
    expect(calls.evalsha_ro).to.equal(1);
  });

  it("says the tenant counts are lower bounds past 10,000 messages", async () => {
    for (let start = 0; start < 10_050; start += 1000) {
      const messages = Array.from({ length: Math.min(1000, 10_050 - start) }, () => ({ message: "m" }));
      await rsmq.sendMessagesAsync({ qname, messages });
    }
    // A tenant's message past the 10,000 looked at: delayed, so after every visible one (sent
    // visible, fair scoring would place it next in line, among the first looked at).
    await rsmq.sendMessageAsync({ qname, message: "late", tenant: "late", delay: 60 });
    const answer = await get(`api/queues/${qname}/tenants`);
    expect(answer.json).to.deep.include({ total: 10_051, looked: 10_000, complete: false, withoutTenant: 10_000, tenants: [] });
  });

  it("answers 400 for bad input and 404 for a missing queue", async () => {
    for (const query of [
      "where=tenant",
      "where=bad%20name%3Da",
      "where=n%3A%3D%5B1%5D",
      "where=tenant=a&state=hidden",
      "where=tenant=a&limit=0",
      "where=tenant=a&cursor=nope",
    ]) {
      const answer = await get(`api/queues/${qname}/browse?${query}`);
      expect([answer.status, answer.json?.error], `${query}: ${answer.text}`).to.deep.equal([400, "invalidValue"]);
    }
    expect((await get("api/queues/nope/browse?where=tenant=a")).status).to.equal(404);
    expect((await get("api/queues/nope/tenants")).status).to.equal(404);
  });
});
