/**
 * The dashboard's HTTP contract (docs/dashboard.md), the same suite over three mounts: node:http at
 * the root, Express 5 and Fastify 4 under /ops/queues. Each route's status and JSON against a real
 * Redis; the security headers exactly; cross-site and read-only POSTs refused with the Redis state
 * unchanged; bad input, bodies that are not JSON and unknown routes answered with the error JSON.
 */
import { expect } from "chai";
import { existsSync } from "fs";
import * as path from "path";
import RedisSMQ = require("../../lib/index");
import { createDashboard } from "../../lib/dashboard";
import type { DashboardHandler } from "../../lib/dashboard";
import { CONTENT_SECURITY_POLICY } from "../../lib/dashboard/http/security-headers";
import { connectionOptions, uniqueNs } from "../support/server";
import { waitFor } from "../support/worker";
import { deadLetterOne } from "../support/retry";
import { MOUNTS, SAME_ORIGIN, openStream, post, send } from "../support/dashboard";
import type { Answer, Mounted } from "../support/dashboard";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const hasPage = existsSync(path.resolve(__dirname, "../../../web/index.html"));

function expectSecurityHeaders(answer: Answer): void {
  expect(answer.headers["content-security-policy"]).to.equal(CSP);
  expect(answer.headers["x-content-type-options"]).to.equal("nosniff");
  expect(answer.headers["referrer-policy"]).to.equal("no-referrer");
  expect(answer.headers["x-frame-options"]).to.equal("DENY");
  expect(answer.headers["x-robots-tag"]).to.equal("noindex");
}

function expectError(answer: Answer, status: number, error: string): void {
  expect([answer.status, answer.json?.error], answer.text).to.deep.equal([status, error]);
  expect(answer.json.message).to.be.a("string").and.not.equal("");
  expect(answer.headers["cache-control"]).to.equal("no-store");
  expectSecurityHeaders(answer);
}

/** Everything a mutation could change in the namespace: the queues, their settings and counters, every message. */
async function redisState(rsmq: RedisSMQ): Promise<unknown> {
  const queues = (await rsmq.listQueuesAsync()).sort();
  const state: Record<string, unknown> = {};
  for (const qname of queues) {
    const { created, modified, vt, delay, maxsize, totalsent, totalrecv, msgs, hiddenmsgs } = await rsmq.getQueueAttributesAsync({ qname });
    const messages = await rsmq.peekMessagesAsync({ qname, count: 1000 });
    state[qname] = { created, modified, vt, delay, maxsize, totalsent, totalrecv, msgs, hiddenmsgs, messages };
  }
  return state;
}

it("the CSP constant is the one docs/dashboard.md promises", () => expect(CONTENT_SECURITY_POLICY).to.equal(CSP));

for (const { name, mount } of MOUNTS) {
  describe(`dashboard HTTP contract: ${name}`, function () {
    let rsmq: RedisSMQ;
    let handlers: DashboardHandler[];
    let rw: Mounted;
    let ro: Mounted;
    let qname: string;
    let n = 0;

    before(async () => {
      rsmq = new RedisSMQ(connectionOptions(uniqueNs("dash")));
      const writable = createDashboard({ rsmq, readOnly: false });
      const readOnly = createDashboard({ rsmq });
      handlers = [writable, readOnly];
      [rw, ro] = await Promise.all([mount(writable), mount(readOnly)]);
    });
    after(async () => {
      for (const handler of handlers) handler.close();
      await Promise.all([rw?.close(), ro?.close()]);
      await rsmq.quitAsync();
    });
    beforeEach(async () => {
      qname = `q${++n}`;
      await rsmq.createQueueAsync({ qname });
    });

    const at = (mounted: Mounted, route: string): string => mounted.base + route;

    describe("the page", () => {
      it("GET the mount root: the page, with the security headers", async function () {
        const answer = await send(rw.base);
        expectSecurityHeaders(answer);
        if (!hasPage) {
          expectError(answer, 500, "pageMissing");
          return;
        }
        expect(answer.status).to.equal(200);
        expect(answer.headers["content-type"]).to.equal("text/html; charset=utf-8");
        expect(answer.headers["cache-control"]).to.equal("no-cache");
      });

      it("the mount path without its trailing slash is redirected to it", async function () {
        if (rw.mountPath === "") return this.skip();
        const answer = await send(`${rw.base.slice(0, -1)}?tab=dlq`);
        expect(answer.status).to.be.oneOf([301, 302]);
        expect(new URL(answer.headers.location!, rw.base.slice(0, -1)).pathname).to.equal(rw.mountPath + "/");
      });
    });

    describe("reads", () => {
      it("GET api/queues: every queue of the namespace, the settings, Redis health and the cost", async () => {
        await rsmq.sendMessageAsync({ qname, message: "one" });
        const answer = await send(at(rw, "api/queues"));
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.headers["cache-control"]).to.equal("no-store");
        expectSecurityHeaders(answer);
        const body = answer.json;
        expect(body).to.include({ intervalMs: 2000, readOnly: false });
        expect(body.now).to.be.a("number");
        expect(body.redis).to.deep.equal({ ok: true });
        expect(body.cost).to.have.keys("commandsPerSecond", "commands", "streams");
        const row = body.queues.find((queue: { qname: string }) => queue.qname === qname);
        expect(row).to.include({ qname, total: 1, visible: 1, vt: 30, delay: 0, maxsize: 65536 });
        expect((await send(at(ro, "api/queues"))).json.readOnly).to.equal(true);
      });

      it("GET api/queues/:qname: one row; a missing queue 404, a malformed name 400", async () => {
        const answer = await send(at(rw, `api/queues/${qname}`));
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.json).to.include({ readOnly: false });
        expect(answer.json.queue).to.include({ qname, total: 0 });
        expectError(await send(at(rw, "api/queues/nosuchqueue")), 404, "queueNotFound");
        expectError(await send(at(rw, "api/queues/bad%20name")), 400, "invalidFormat");
        // Fastify refuses a malformed %-escape itself (400 FST_ERR_BAD_URL) before any route runs.
        if (!name.startsWith("Fastify")) expectError(await send(at(rw, "api/queues/%E0%A4%A")), 400, "invalidPath");
      });

      it("GET api/queues/:qname/messages: a page in receive order; offset and limit checked", async () => {
        const ids = [];
        for (const message of ["a", "b", "c"]) ids.push(await rsmq.sendMessageAsync({ qname, message }));
        const answer = await send(at(rw, `api/queues/${qname}/messages?offset=1&limit=1`));
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.json).to.include({ qname, total: 3, offset: 1, limit: 1 });
        expect(answer.json.messages.map((m: { id: string }) => m.id)).to.deep.equal([ids[1]]);
        expect(answer.json.messages[0]).to.include({ id: ids[1], state: "visible", receiveCount: 0, body: "b", truncated: false });
        const all = await send(at(rw, `api/queues/${qname}/messages`));
        expect(all.json).to.include({ offset: 0, limit: 50 });
        for (const query of ["limit=0", "limit=1001", "limit=abc", "offset=-1", "offset=1.5"]) {
          expectError(await send(at(rw, `api/queues/${qname}/messages?${query}`)), 400, "invalidValue");
        }
        expectError(await send(at(rw, "api/queues/nosuchqueue/messages")), 404, "queueNotFound");
        // Looking never receives.
        expect((await rsmq.getQueueAttributesAsync({ qname })).totalrecv).to.equal(0);
      });

      it("GET api/queues/:qname/messages/:id: the whole body; an unknown id 404, a malformed one 400", async () => {
        const id = await rsmq.sendMessageAsync({ qname, message: "x".repeat(5000) });
        const answer = await send(at(rw, `api/queues/${qname}/messages/${id}`));
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.json).to.include({ qname });
        expect(answer.json.message).to.include({ id, body: "x".repeat(5000), truncated: false, size: 5000 });
        expectError(await send(at(rw, `api/queues/${qname}/messages/${"a".repeat(32)}`)), 404, "messageNotFound");
        expectError(await send(at(rw, `api/queues/${qname}/messages/nope`)), 400, "invalidFormat");
      });

      it("GET api/queues/:qname/dead-letters: the groups", async () => {
        const answer = await send(at(rw, `api/queues/${qname}/dead-letters`));
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.json).to.deep.equal({ qname, total: 0, looked: 0, partial: false, groups: [] });
      });

      it("GET api/stream: server-sent events, a reading per event; closing it unsubscribes", async () => {
        const stream = await openStream(at(rw, "api/stream"));
        try {
          expect(stream.res.statusCode).to.equal(200);
          expect(stream.res.headers["content-type"]).to.equal("text/event-stream; charset=utf-8");
          expect(stream.res.headers["cache-control"]).to.equal("no-store");
          expect(stream.res.headers["x-accel-buffering"]).to.equal("no");
          expect(stream.res.headers["content-security-policy"]).to.equal(CSP);
          await waitFor(() => /\n\n/.test(stream.text().split("event: queues\n")[1] ?? ""), "a first event");
          expect(stream.text()).to.match(/^retry: 2000\n\n/);
          const data = stream.text().split("event: queues\ndata: ")[1].split("\n\n")[0];
          const event = JSON.parse(data);
          expect(event.redis).to.deep.equal({ ok: true });
          expect(event.cost.streams).to.equal(1);
          expect(event.queues.map((queue: { qname: string }) => queue.qname)).to.include(qname);
        } finally {
          stream.close();
        }
        await waitFor(async () => (await send(at(rw, "api/queues"))).json.cost.streams === 0, "the stream to unsubscribe");
      });
    });

    describe("actions (read-write)", () => {
      it("POST api/queues creates a queue (201); an existing one 409; bad settings 400", async () => {
        const created = await post(at(rw, "api/queues"), { qname: `${qname}new`, vt: 10, delay: 1, maxsize: 2048 });
        expect([created.status, created.json], created.text).to.deep.equal([201, { qname: `${qname}new` }]);
        expect(await rsmq.getQueueAttributesAsync({ qname: `${qname}new` })).to.include({ vt: 10, delay: 1, maxsize: 2048 });
        expectError(await post(at(rw, "api/queues"), { qname }), 409, "queueExists");
        expectError(await post(at(rw, "api/queues"), { qname: `${qname}x`, vt: -1 }), 400, "invalidValue");
        expectError(await post(at(rw, "api/queues"), {}), 400, "missingParameter");
      });

      it("POST .../attributes changes the settings", async () => {
        const answer = await post(at(rw, `api/queues/${qname}/attributes`), { vt: 45 });
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.json.attributes).to.include({ vt: 45 });
        expect((await rsmq.getQueueAttributesAsync({ qname })).vt).to.equal(45);
        expectError(await post(at(rw, `api/queues/${qname}/attributes`), {}), 400, "noAttributeSupplied");
      });

      it("POST .../messages sends (201 { id }); .../visible and .../delete act on it; a gone one 404", async () => {
        const sent = await post(at(rw, `api/queues/${qname}/messages`), { message: "hello", delay: 60 });
        expect(sent.status, sent.text).to.equal(201);
        const id = sent.json.id as string;
        expect((await rsmq.getQueueAttributesAsync({ qname })).hiddenmsgs).to.equal(1);
        const visible = await post(at(rw, `api/queues/${qname}/messages/${id}/visible`));
        expect([visible.status, visible.json], visible.text).to.deep.equal([200, { id }]);
        expect((await rsmq.getQueueAttributesAsync({ qname })).hiddenmsgs).to.equal(0);
        const deleted = await post(at(rw, `api/queues/${qname}/messages/${id}/delete`));
        expect([deleted.status, deleted.json], deleted.text).to.deep.equal([200, { id }]);
        expect((await rsmq.getQueueAttributesAsync({ qname })).msgs).to.equal(0);
        expectError(await post(at(rw, `api/queues/${qname}/messages/${id}/delete`)), 404, "messageNotFound");
        expectError(await post(at(rw, `api/queues/${qname}/messages`), { message: 5 }), 400, "messageNotString");
      });

      it("POST .../redrive moves dead letters back ({ moved })", async () => {
        await rsmq.createQueueAsync({ qname: `${qname}-dlq` });
        await rsmq.sendMessageAsync({ qname: `${qname}-dlq`, message: "dead" });
        const answer = await post(at(rw, `api/queues/${qname}-dlq/redrive`), { to: qname });
        expect([answer.status, answer.json], answer.text).to.deep.equal([200, { moved: 1 }]);
        expect((await rsmq.getQueueAttributesAsync({ qname })).msgs).to.equal(1);
      });

      it("GET .../dead-letters groups them; POST .../redrive { reason, error } moves one group only", async () => {
        const dlq = `${qname}-dlq`;
        await rsmq.createQueueAsync({ qname: dlq });
        await deadLetterOne(rsmq, qname, dlq, "bad", { reason: "poison", error: "unparseable" });
        await deadLetterOne(rsmq, qname, dlq, "later", { reason: "exhausted", error: "timeout" });
        await deadLetterOne(rsmq, qname, dlq, "later too", { reason: "exhausted", error: "timeout" });
        const groups = await send(at(rw, `api/queues/${dlq}/dead-letters`));
        expect(groups.status, groups.text).to.equal(200);
        expect(groups.json).to.include({ qname: dlq, total: 3, looked: 3, partial: false });
        expect(groups.json.groups.map((g: { reason: string; error: string; count: number }) => [g.reason, g.error, g.count])).to.deep.equal(
          [
            ["exhausted", "timeout", 2],
            ["poison", "unparseable", 1],
          ],
        );
        const answer = await post(at(rw, `api/queues/${dlq}/redrive`), { reason: "exhausted", error: "timeout" });
        expect([answer.status, answer.json], answer.text).to.deep.equal([200, { moved: 2 }]);
        const [left] = await rsmq.peekMessagesAsync({ qname: dlq });
        expect([left.message, (await rsmq.getQueueAttributesAsync({ qname: dlq })).msgs]).to.deep.equal(["bad", 1]);
        expectError(await post(at(rw, `api/queues/${dlq}/redrive`), { reason: "tired" }), 400, "invalidValue");
      });

      it("POST .../delete deletes the queue only with { confirm: qname }", async () => {
        expectError(await post(at(rw, `api/queues/${qname}/delete`)), 400, "confirmRequired");
        expectError(await post(at(rw, `api/queues/${qname}/delete`), { confirm: "other" }), 400, "confirmRequired");
        expect(await rsmq.listQueuesAsync()).to.include(qname);
        const answer = await post(at(rw, `api/queues/${qname}/delete`), { confirm: qname });
        expect([answer.status, answer.json], answer.text).to.deep.equal([200, { qname }]);
        expect(await rsmq.listQueuesAsync()).not.to.include(qname);
      });

      it("the cost meter counts the actions' commands", async () => {
        const before = (await send(at(rw, "api/queues"))).json.cost.commands as number;
        await post(at(rw, `api/queues/${qname}/messages`), { message: "m" });
        await post(at(rw, `api/queues/${qname}/messages`), { message: 7 }); // refused before any round trip: not counted
        await waitFor(async () => (await send(at(rw, "api/queues"))).json.cost.commands > before, "the meter to move");
      });
    });

    describe("security", () => {
      /** A POST of every mutating route, with the body it takes. */
      const mutations = (id: string): Array<[string, unknown]> => [
        ["api/queues", { qname: `${qname}new` }],
        [`api/queues/${qname}/attributes`, { vt: 99 }],
        [`api/queues/${qname}/messages`, { message: "intruder" }],
        [`api/queues/${qname}/messages/${id}/visible`, {}],
        [`api/queues/${qname}/messages/${id}/delete`, {}],
        [`api/queues/${qname}-dlq/redrive`, { to: qname }],
        [`api/queues/${qname}/delete`, { confirm: qname }],
      ];

      async function withMessages(): Promise<string> {
        await rsmq.createQueueAsync({ qname: `${qname}-dlq` });
        await rsmq.sendMessageAsync({ qname: `${qname}-dlq`, message: "dead" });
        return rsmq.sendMessageAsync({ qname, message: "stays", delay: 60 });
      }

      it("a cross-site POST is refused (403) on every mutating route, and nothing changes", async () => {
        const id = await withMessages();
        const before = await redisState(rsmq);
        const refusals: Array<Record<string, string>> = [
          { "Sec-Fetch-Site": "cross-site" },
          { "Sec-Fetch-Site": "same-site" },
          { Origin: "http://evil.example" },
          { Origin: `http://127.0.0.1:1${new URL(rw.base).port}` },
          {},
        ];
        for (const [route, body] of mutations(id)) {
          for (const headers of refusals) expectError(await post(at(rw, route), body, headers), 403, "crossSite");
        }
        expect(await redisState(rsmq)).to.deep.equal(before);
      });

      it("a POST whose Origin is this host, from a browser without Sec-Fetch-Site, is let through", async () => {
        const answer = await post(at(rw, `api/queues/${qname}/messages`), { message: "ok" }, { Origin: new URL(rw.base).origin });
        expect(answer.status, answer.text).to.equal(201);
      });

      it("read-only: every mutating route answers 405 readOnly, even cross-site or without a body, and nothing changes", async () => {
        const id = await withMessages();
        const before = await redisState(rsmq);
        for (const [route, body] of mutations(id)) {
          expectError(await post(at(ro, route), body), 405, "readOnly");
          expectError(await post(at(ro, route), body, { "Sec-Fetch-Site": "cross-site" }), 405, "readOnly");
          expectError(
            await send(at(ro, route), { method: "POST", body: "not json", headers: { "Content-Type": "text/plain" } }),
            405,
            "readOnly",
          );
        }
        expect(await redisState(rsmq)).to.deep.equal(before);
      });

      it("a body that is not JSON 400, not a JSON object 400, not sent as JSON 415, over 1 MB 413", async () => {
        const route = at(rw, `api/queues/${qname}/messages`);
        const headers = { ...SAME_ORIGIN, "Content-Type": "application/json" };
        expectError(await send(route, { method: "POST", headers, body: "{not json" }), 400, "invalidJson");
        expectError(await send(route, { method: "POST", headers, body: "[1, 2]" }), 400, "invalidJson");
        expectError(
          await send(route, { method: "POST", headers: { ...SAME_ORIGIN, "Content-Type": "text/plain" }, body: '{"message":"x"}' }),
          415,
          "unsupportedMediaType",
        );
        const big = JSON.stringify({ message: "x".repeat(1024 * 1024) });
        expectError(await send(route, { method: "POST", headers, body: big }), 413, "payloadTooLarge");
        expect((await rsmq.getQueueAttributesAsync({ qname })).msgs).to.equal(0);
      });

      it("an unknown route 404 JSON; a method a route does not take 405 with Allow", async () => {
        expectError(await send(at(rw, "api/nothing")), 404, "notFound");
        expectError(await send(at(rw, "package.json")), 404, "notFound");
        expectError(await send(at(rw, "api/queues/")), 404, "notFound");
        const wrongMethod = await send(at(rw, `api/queues/${qname}/delete`));
        expectError(wrongMethod, 405, "methodNotAllowed");
        expect(wrongMethod.headers.allow).to.equal("POST");
        const put = await send(at(rw, "api/queues"), { method: "PUT", headers: SAME_ORIGIN, body: {} });
        expectError(put, 405, "methodNotAllowed");
        expect(put.headers.allow).to.equal("GET, POST");
        expectError(await post(at(rw, "api/stream")), 405, "methodNotAllowed");
      });
    });
  });
}
