/**
 * The dashboard's control routes (docs/dashboard.md, JSON API) against a real Redis: pause (until,
 * hard) and resume, set and remove a rate limit, each one call of the public methods; the queue's
 * row shows the pause, the limit and a block (`GET api/queues`, `GET api/queues/:qname`). Each
 * mutation refused in read-only mode (405) and cross-site (403), a body field it does not take
 * 400, bad input 400, a missing queue 404, and in every refusal the Redis state exactly as before.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { exactState } from "../support/state";
import { post, send } from "../support/dashboard";
import type { Mounted } from "../support/dashboard";
import { runsOn } from "../support/targets";
import { dashboardPair, expectError } from "../support/dashboard-pair";

runsOn("single", "cluster", "client");

describe("dashboard control routes", function () {
  const dash = dashboardPair("controls");
  let ns: string, rsmq: RedisSMQ, client: RedisClientType, rw: Mounted, ro: Mounted, qname: string;
  beforeEach(() => ({ ns, rsmq, client, rw, ro, qname } = dash));

  const at = (mounted: Mounted, route: string): string => mounted.base + route;
  const state = (): Promise<unknown> => exactState(client, ns);
  const row = async (mounted = ro) => (await send(at(mounted, `api/queues/${qname}`))).json.queue;
  const attributes = () => rsmq.getQueueAttributesAsync({ qname });

  it("an untouched queue's row: paused, rateLimit and rateLimitedUntil null", async () => {
    expect(await row()).to.include({ paused: null, rateLimit: null, rateLimitedUntil: null });
  });

  it("POST .../pause {} then .../resume: { qname, paused: true }, { qname, resumed }; the row shows the pause", async () => {
    await rsmq.sendMessageAsync({ qname, message: "held" });
    const paused = await post(at(rw, `api/queues/${qname}/pause`), {});
    expect([paused.status, paused.json], paused.text).to.deep.equal([200, { qname, paused: true }]);
    expect(await rsmq.receiveMessageAsync({ qname })).to.deep.equal({});
    const shown = await row();
    expect(shown.paused).to.deep.equal((await attributes()).paused);
    expect(shown.paused).to.include({ hard: false });
    const overview = (await send(at(ro, "api/queues"))).json.queues.find((q: { qname: string }) => q.qname === qname);
    expect(overview.paused).to.deep.equal(shown.paused);
    const resumed = await post(at(rw, `api/queues/${qname}/resume`), {});
    expect([resumed.status, resumed.json], resumed.text).to.deep.equal([200, { qname, resumed: true }]);
    expect(await row()).to.include({ paused: null });
    expect((await post(at(rw, `api/queues/${qname}/resume`), {})).json).to.deep.equal({ qname, resumed: false });
  });

  it("POST .../pause { until } and { hard: true }: as the method takes them", async () => {
    const until = Date.now() + 3_600_000;
    expect((await post(at(rw, `api/queues/${qname}/pause`), { until })).status).to.equal(200);
    expect((await row()).paused).to.include({ until, hard: false });
    expect((await post(at(rw, `api/queues/${qname}/resume`), {})).status).to.equal(200);
    expect((await post(at(rw, `api/queues/${qname}/pause`), { hard: true })).status).to.equal(200);
    expect((await row()).paused).to.include({ hard: true });
    expect((await post(at(rw, `api/queues/${qname}/resume`), {})).json).to.deep.equal({ qname, resumed: true });
  });

  it("POST .../rate-limit { limits, mode } then .../rate-limit/remove; the row shows the limit and a block", async () => {
    const limits = [
      { max: 10, perMs: 1000, burst: 5 },
      { max: 300, perMs: 60_000, burst: 0 },
    ];
    const set = await post(at(rw, `api/queues/${qname}/rate-limit`), { limits, mode: "pace" });
    expect([set.status, set.json], set.text).to.deep.equal([200, { qname }]);
    expect((await row()).rateLimit).to.deep.equal({ limits, mode: "pace" });
    await rsmq.rateLimitQueueAsync({ qname, ms: 60_000 });
    expect((await row()).rateLimitedUntil).to.equal((await attributes()).rateLimitedUntil);
    const removed = await post(at(rw, `api/queues/${qname}/rate-limit/remove`), {});
    expect([removed.status, removed.json], removed.text).to.deep.equal([200, { qname, removed: true }]);
    expect((await row()).rateLimit).to.equal(null);
    expect((await post(at(rw, `api/queues/${qname}/rate-limit/remove`), {})).json).to.deep.equal({ qname, removed: false });
    // A limit without its burst and mode: burst 0, checked at receive.
    expect((await post(at(rw, `api/queues/${qname}/rate-limit`), { limits: [{ max: 3, perMs: 1000 }] })).status).to.equal(200);
    expect((await row()).rateLimit).to.deep.equal({ limits: [{ max: 3, perMs: 1000, burst: 0 }], mode: "receive" });
  });

  it("bad input: 400, nothing written; a missing queue 404; a field the route does not take 400 unknownField", async () => {
    const before = await state();
    const bad: Array<[string, unknown]> = [
      [`api/queues/${qname}/pause`, { until: Date.now() - 1000 }],
      [`api/queues/${qname}/pause`, { until: "soon" }],
      [`api/queues/${qname}/pause`, { hard: true, until: Date.now() + 60_000 }],
      [`api/queues/${qname}/rate-limit`, { limits: [{ max: 0, perMs: 1000 }] }],
      [`api/queues/${qname}/rate-limit`, { limits: [{ max: 1, perMs: -5 }] }],
      [`api/queues/${qname}/rate-limit`, { limits: [{ max: 1, perMs: 1000, per: 3 }] }],
      [`api/queues/${qname}/rate-limit`, { limits: [] }],
      [`api/queues/${qname}/rate-limit`, { limits: [{ max: 1, perMs: 1000 }], mode: "fast" }],
      [`api/queues/${qname}/rate-limit`, {}],
    ];
    for (const [route, body] of bad) {
      const answer = await post(at(rw, route), body);
      expect(answer.status, `${route} ${JSON.stringify(body)}: ${answer.text}`).to.equal(400);
    }
    expectError(await post(at(rw, `api/queues/${qname}/pause`), { untill: 5 }), 400, "unknownField");
    expectError(await post(at(rw, `api/queues/${qname}/resume`), { hard: true }), 400, "unknownField");
    expect(await state()).to.deep.equal(before);
    for (const route of ["pause", "resume", "rate-limit/remove"]) {
      expectError(await post(at(rw, `api/queues/nosuchqueue/${route}`), {}), 404, "queueNotFound");
    }
    expectError(await post(at(rw, "api/queues/nosuchqueue/rate-limit"), { limits: [{ max: 1, perMs: 1000 }] }), 404, "queueNotFound");
  });

  it("read-only: 405 readOnly, even cross-site; cross-site on read-write: 403 crossSite; nothing written either way", async () => {
    await rsmq.setRateLimitAsync({ qname, limits: [{ max: 5, perMs: 1000 }] });
    const before = await state();
    const mutations: Array<[string, unknown]> = [
      [`api/queues/${qname}/pause`, {}],
      [`api/queues/${qname}/resume`, {}],
      [`api/queues/${qname}/rate-limit`, { limits: [{ max: 1, perMs: 1000 }] }],
      [`api/queues/${qname}/rate-limit/remove`, {}],
    ];
    for (const [route, body] of mutations) {
      expectError(await post(at(ro, route), body), 405, "readOnly");
      expectError(await post(at(ro, route), body, { "Sec-Fetch-Site": "cross-site" }), 405, "readOnly");
      const refusals: Array<Record<string, string>> = [{ "Sec-Fetch-Site": "cross-site" }, { Origin: "http://evil.example" }, {}];
      for (const headers of refusals) {
        expectError(await post(at(rw, route), body, headers), 403, "crossSite");
      }
    }
    expect(await state()).to.deep.equal(before);
  });
});
