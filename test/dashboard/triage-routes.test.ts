/**
 * The dashboard's triage routes (docs/dashboard.md, JSON API) against a real Redis: purge (its
 * name typed to confirm), a send with a priority, a retention change, one dead letter redriven,
 * and find by id or by a text in the bodies (a bounded scan in chunks that answers a cursor). Each
 * mutation refused in read-only mode (405) and cross-site (403), bad input 400, and in every
 * refusal the Redis state exactly as before.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { createDashboard } from "../../lib/dashboard";
import type { DashboardHandler } from "../../lib/dashboard";
import { FIND_CHUNK_MESSAGES, FIND_MATCHES, FIND_PER_REQUEST } from "../../lib/queue-state/find-messages";
import { PRIORITY_STEP_MS } from "../../lib/operations/priority";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { deadLetterOne, loadScripts, CommandWatch } from "../support/retry";
import { exactState } from "../support/state";
import { nodeHttpAtRoot, post, send } from "../support/dashboard";
import type { Answer, Mounted } from "../support/dashboard";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

function expectError(answer: Answer, status: number, error: string): void {
  expect([answer.status, answer.json?.error], answer.text).to.deep.equal([status, error]);
  expect(answer.json.message).to.be.a("string").and.not.equal("");
}

describe("dashboard triage routes", function () {
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  let handlers: DashboardHandler[];
  let rw: Mounted;
  let ro: Mounted;
  let qname: string;
  let n = 0;

  before(async () => {
    ns = uniqueNs("triage");
    rsmq = new RedisSMQ(connectionOptions(ns));
    client = await plainClient();
    const writable = createDashboard({ rsmq, readOnly: false, previewChars: 20 });
    const readOnly = createDashboard({ rsmq });
    handlers = [writable, readOnly];
    [rw, ro] = await Promise.all([nodeHttpAtRoot(writable), nodeHttpAtRoot(readOnly)]);
  });
  after(async () => {
    for (const handler of handlers) handler.close();
    await Promise.all([rw?.close(), ro?.close()]);
    await rsmq.quitAsync();
    await client.quit();
  });
  beforeEach(async () => {
    qname = `q${++n}`;
    await rsmq.createQueueAsync({ qname });
  });

  const at = (mounted: Mounted, route: string): string => mounted.base + route;
  const state = (): Promise<unknown> => exactState(client, ns);

  describe("purge", () => {
    it("empties the queue with { confirm: qname } and keeps it with its settings; { qname, removed }", async () => {
      await rsmq.setQueueAttributesAsync({ qname, vt: 77 });
      for (const message of ["a", "b", "c"]) await rsmq.sendMessageAsync({ qname, message });
      const answer = await post(at(rw, `api/queues/${qname}/purge`), { confirm: qname });
      expect([answer.status, answer.json], answer.text).to.deep.equal([200, { qname, removed: 3 }]);
      expect(await rsmq.getQueueAttributesAsync({ qname })).to.include({ msgs: 0, vt: 77, totalsent: 3 });
    });

    it("without the name, or another name: 400 confirmRequired, nothing written; a missing queue 404", async () => {
      await rsmq.sendMessageAsync({ qname, message: "stays" });
      const before = await state();
      for (const body of [{}, { confirm: "other" }, { confirm: qname.toUpperCase() }, { confirm: [qname] }]) {
        expectError(await post(at(rw, `api/queues/${qname}/purge`), body), 400, "confirmRequired");
      }
      expect(await state()).to.deep.equal(before);
      expectError(await post(at(rw, "api/queues/nosuchqueue/purge"), { confirm: "nosuchqueue" }), 404, "queueNotFound");
      expectError(await post(at(rw, "api/queues/bad%20name/purge"), { confirm: "bad name" }), 400, "invalidFormat");
    });
  });

  describe("send with a priority", () => {
    it("POST .../messages { message, priority }: scored by its level, received before an older priority-0 message", async () => {
      const low = (await post(at(rw, `api/queues/${qname}/messages`), { message: "low" })).json.id as string;
      const sent = await post(at(rw, `api/queues/${qname}/messages`), { message: "urgent", priority: 9 });
      expect(sent.status, sent.text).to.equal(201);
      const lowScore = (await client.zScore(keysOf(ns, qname).messages, low))!;
      const highScore = (await client.zScore(keysOf(ns, qname).messages, sent.json.id as string))!;
      expect(lowScore - highScore).to.be.at.least(9 * PRIORITY_STEP_MS - 60_000);
      const received = await rsmq.receiveMessageAsync({ qname });
      expect(received).to.include({ id: sent.json.id, message: "urgent" });
    });

    it("a priority out of 0 to 9, or not a whole number: 400 invalidValue, nothing written", async () => {
      const before = await state();
      for (const priority of [10, -1, 1.5, "9"]) {
        expectError(await post(at(rw, `api/queues/${qname}/messages`), { message: "m", priority }), 400, "invalidValue");
      }
      expect(await state()).to.deep.equal(before);
    });
  });

  describe("retention", () => {
    it('POST .../attributes { retention, expireTo } sets them; { retention: 0, expireTo: "" } removes them', async () => {
      const answer = await post(at(rw, `api/queues/${qname}/attributes`), { retention: 3600, expireTo: `${qname}-dlq` });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json.attributes).to.include({ retention: 3600, expireTo: `${qname}-dlq` });
      expect(await rsmq.getQueueAttributesAsync({ qname })).to.include({ retention: 3600, expireTo: `${qname}-dlq` });
      const off = await post(at(rw, `api/queues/${qname}/attributes`), { retention: 0, expireTo: "" });
      expect(off.status, off.text).to.equal(200);
      expect(await rsmq.getQueueAttributesAsync({ qname })).not.to.have.any.keys("retention", "expireTo");
    });

    it("a bad retention or expireTo: 400, nothing written", async () => {
      const before = await state();
      for (const body of [{ retention: -1 }, { retention: "soon" }, { expireTo: qname }, { expireTo: "bad name" }]) {
        const answer = await post(at(rw, `api/queues/${qname}/attributes`), body);
        expect(answer.status, `${JSON.stringify(body)}: ${answer.text}`).to.equal(400);
      }
      expect(await state()).to.deep.equal(before);
    });
  });

  describe("redrive one dead letter", () => {
    it("POST .../messages/:id/redrive moves that one home ({ id, moved: 1 }); the others stay", async () => {
      const dlq = `${qname}-dlq`;
      const ids = [await deadLetterOne(rsmq, qname, dlq, "a"), await deadLetterOne(rsmq, qname, dlq, "b")];
      const answer = await post(at(rw, `api/queues/${dlq}/messages/${ids[1]}/redrive`));
      expect([answer.status, answer.json], answer.text).to.deep.equal([200, { id: ids[1], moved: 1 }]);
      expect(await client.zRange(keysOf(ns, qname).messages, 0, -1)).to.deep.equal([ids[1]]);
      expect(await client.zRange(keysOf(ns, dlq).messages, 0, -1)).to.deep.equal([ids[0]]);
    });

    it("{ to } moves it there; one with no source and no `to`, or gone: 404 messageNotFound, nothing written", async () => {
      const dlq = `${qname}-dlq`;
      await rsmq.createQueueAsync({ qname: dlq });
      const plain = await rsmq.sendMessageAsync({ qname: dlq, message: "no source" });
      const before = await state();
      expectError(await post(at(rw, `api/queues/${dlq}/messages/${plain}/redrive`)), 404, "messageNotFound");
      expectError(await post(at(rw, `api/queues/${dlq}/messages/${"a".repeat(32)}/redrive`)), 404, "messageNotFound");
      expectError(await post(at(rw, `api/queues/${dlq}/messages/nope/redrive`)), 400, "invalidFormat");
      expectError(await post(at(rw, `api/queues/${dlq}/messages/${plain}/redrive`), { to: "bad name" }), 400, "invalidFormat");
      expectError(await post(at(rw, `api/queues/${dlq}/messages/${plain}/redrive`), { to: dlq }), 400, "invalidValue");
      expect(await state()).to.deep.equal(before);
      const answer = await post(at(rw, `api/queues/${dlq}/messages/${plain}/redrive`), { to: qname });
      expect([answer.status, answer.json], answer.text).to.deep.equal([200, { id: plain, moved: 1 }]);
      expect(await client.zRange(keysOf(ns, qname).messages, 0, -1)).to.deep.equal([plain]);
    });
  });

  describe("find", () => {
    it("by id: the message, body cut to the preview; an id not there: no messages; a malformed one 400", async () => {
      const id = await rsmq.sendMessageAsync({ qname, message: "x".repeat(50) });
      const answer = await send(at(ro, `api/queues/${qname}/find?id=${id}`));
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json).to.include({ qname, by: "id", cursor: null });
      expect(answer.json.messages).to.have.length(1);
      expect(answer.json.messages[0]).to.include({ id, state: "visible", size: 50, truncated: false });
      const none = await send(at(ro, `api/queues/${qname}/find?id=${"a".repeat(32)}`));
      expect([none.status, none.json.messages]).to.deep.equal([200, []]);
      expectError(await send(at(ro, `api/queues/${qname}/find?id=nope`)), 400, "invalidFormat");
    });

    it("by text: the messages whose body holds it (plain text, case and all), never received; the bounds said", async () => {
      const ids: Record<string, string> = {};
      for (const body of ["order 17 failed", "order 18 ok", "ORDER 19 FAILED", "a.*b failed?", "<img src=x onerror=alert(1)> failed"]) {
        ids[body] = await rsmq.sendMessageAsync({ qname, message: body });
      }
      const answer = await send(at(ro, `api/queues/${qname}/find?text=${encodeURIComponent("failed")}`));
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json).to.include({ qname, by: "text", total: 5, looked: 5, cursor: null });
      expect(answer.json.bounds).to.deep.equal({
        perRequest: FIND_PER_REQUEST,
        perCall: FIND_CHUNK_MESSAGES,
        bytesPerCall: 1024 * 1024,
        matches: FIND_MATCHES,
      });
      const found = (answer.json.messages as Array<{ id: string }>).map((m) => m.id).sort();
      expect(found).to.deep.equal([ids["order 17 failed"], ids["a.*b failed?"], ids["<img src=x onerror=alert(1)> failed"]].sort());
      const pattern = await send(at(ro, `api/queues/${qname}/find?text=${encodeURIComponent(".*b f")}`));
      expect((pattern.json.messages as Array<{ id: string }>).map((m) => m.id)).to.deep.equal([ids["a.*b failed?"]]);
      // The preview is cut as the message list cuts it (previewChars 20 on the read-write dashboard).
      const cut = await send(at(rw, `api/queues/${qname}/find?text=onerror`));
      expect(cut.json.messages[0]).to.include({ body: "<img src=x onerror=a", truncated: true });
      expect((await rsmq.getQueueAttributesAsync({ qname })).totalrecv).to.equal(0);
    });

    it("goes on from a cursor: over a queue larger than a request looks at, every message is found once", async function () {
      this.timeout(60_000);
      const count = FIND_PER_REQUEST + 500;
      const all: string[] = [];
      for (let i = 0; i < count; i += 1000) {
        const entries = Array.from({ length: Math.min(1000, count - i) }, (_, j) => ({ message: `needle ${i + j}` }));
        const sent = await rsmq.sendMessagesAsync({ qname, messages: entries });
        all.push(...sent.map((r) => (r as { id: string }).id));
      }
      const seen = new Set<string>();
      let cursor = "0";
      let requests = 0;
      for (;;) {
        const answer = await send(at(ro, `api/queues/${qname}/find?text=needle&cursor=${cursor}`));
        expect(answer.status, answer.text).to.equal(200);
        requests += 1;
        expect(answer.json.messages.length).to.be.at.most(FIND_MATCHES + 128);
        for (const m of answer.json.messages as Array<{ id: string }>) seen.add(m.id);
        if (answer.json.cursor === null) break;
        cursor = answer.json.cursor as string;
      }
      expect(seen.size).to.equal(count);

      // With no match, a request stops after FIND_PER_REQUEST messages (and the ZSCAN step under way) and answers a cursor.
      const first = await send(at(ro, `api/queues/${qname}/find?text=nowhere`));
      expect(first.json.looked).to.be.within(FIND_PER_REQUEST, FIND_PER_REQUEST + 128);
      expect(first.json.cursor).to.be.a("string").and.not.equal("0");
      const rest = await send(at(ro, `api/queues/${qname}/find?text=nowhere&cursor=${first.json.cursor as string}`));
      expect(rest.json).to.include({ cursor: null });
      expect(first.json.looked + rest.json.looked).to.be.at.least(count);
      // A request stops at FIND_MATCHES matches, or after the ZSCAN step (about 100, 128 at most here) that passed it.
      expect(requests).to.be.at.least(Math.ceil(count / (FIND_MATCHES + 128)));
    });

    it("each request is a few short script calls: at most one per chunk of messages, read-only", async () => {
      for (let i = 0; i < 2500; i += 500) {
        await rsmq.sendMessagesAsync({ qname, messages: Array.from({ length: 500 }, (_, j) => ({ message: `m ${i + j}` })) });
      }
      await loadScripts(client, ["findMessages"]);
      const watch = await CommandWatch.open();
      try {
        const answer = await send(at(ro, `api/queues/${qname}/find?text=nothing-like-this`));
        expect(answer.json).to.include({ looked: 2500, cursor: null });
        const calls = await watch.scriptCalls("findMessages");
        expect(calls.map((c) => c.args[0])).to.deep.equal(["evalsha_ro", "evalsha_ro", "evalsha_ro"]);
      } finally {
        await watch.close();
      }
    });

    it("bad input 400 before any round trip: neither or both of id and text, an empty or long text, a bad cursor; a missing queue 404", async () => {
      const route = at(ro, `api/queues/${qname}/find`);
      for (const query of [
        "",
        "?text=",
        `?text=a&id=${"a".repeat(32)}`,
        `?text=${"a".repeat(201)}`,
        "?text=a&cursor=x",
        "?text=a&cursor=-1",
      ]) {
        expectError(await send(route + query), 400, "invalidValue");
      }
      expectError(await send(at(ro, "api/queues/nosuchqueue/find?text=a")), 404, "queueNotFound");
    });
  });

  describe("security", () => {
    const mutations = (id: string): Array<[string, unknown]> => [
      [`api/queues/${qname}/purge`, { confirm: qname }],
      [`api/queues/${qname}/messages`, { message: "intruder", priority: 9 }],
      [`api/queues/${qname}/attributes`, { retention: 60 }],
      [`api/queues/${qname}-dlq/messages/${id}/redrive`, {}],
    ];

    it("read-only: 405 readOnly on every triage mutation, even cross-site; nothing written; find is served", async () => {
      const id = await deadLetterOne(rsmq, qname, `${qname}-dlq`, "dead");
      await rsmq.sendMessageAsync({ qname, message: "stays" });
      const before = await state();
      for (const [route, body] of mutations(id)) {
        expectError(await post(at(ro, route), body), 405, "readOnly");
        expectError(await post(at(ro, route), body, { "Sec-Fetch-Site": "cross-site" }), 405, "readOnly");
      }
      expect(await state()).to.deep.equal(before);
      expect((await send(at(ro, `api/queues/${qname}/find?text=stays`))).status).to.equal(200);
    });

    it("cross-site: 403 crossSite on every triage mutation; nothing written", async () => {
      const id = await deadLetterOne(rsmq, qname, `${qname}-dlq`, "dead");
      const before = await state();
      for (const [route, body] of mutations(id)) {
        const refusals: Array<Record<string, string>> = [{ "Sec-Fetch-Site": "cross-site" }, { Origin: "http://evil.example" }, {}];
        for (const headers of refusals) {
          expectError(await post(at(rw, route), body, headers), 403, "crossSite");
        }
      }
      expect(await state()).to.deep.equal(before);
    });

    it("find takes GET only; a POST to it is 405 with Allow: GET", async () => {
      const answer = await post(at(rw, `api/queues/${qname}/find`), {});
      expectError(answer, 405, "methodNotAllowed");
      expect(answer.headers.allow).to.equal("GET");
    });
  });
});
