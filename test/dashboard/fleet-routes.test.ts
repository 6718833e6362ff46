/**
 * The dashboard's concurrency and consumers routes (docs/dashboard.md, JSON API) against a real
 * Redis: `POST api/queues/:q/concurrency { max }` and `.../concurrency/remove`, one public call
 * each; `GET api/queues/:q/consumers`, the Workers' live heartbeat entries; and the queue's row
 * showing the limit, what is leased of it and the consumers. Each mutation refused in read-only
 * mode (405) and cross-site (403), bad input 400, a missing queue 404, nothing written in a refusal.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { beatJson, lookAndBeat, newWorkerId } from "../../lib/operations/consumer-beat";
import { exactState } from "../support/state";
import { post, send } from "../support/dashboard";
import type { Mounted } from "../support/dashboard";
import { runsOn } from "../support/targets";
import { dashboardPair, expectError } from "../support/dashboard-pair";
import { waitFor } from "../support/worker";

runsOn("single", "cluster", "client");

describe("dashboard concurrency and consumers routes", function () {
  const dash = dashboardPair("fleet-routes");
  let ns: string, rsmq: RedisSMQ, client: RedisClientType, rw: Mounted, ro: Mounted, qname: string;
  beforeEach(() => ({ ns, rsmq, client, rw, ro, qname } = dash));

  const at = (mounted: Mounted, route: string): string => mounted.base + route;
  const state = (): Promise<unknown> => exactState(client, ns);
  const row = async (mounted = ro) => (await send(at(mounted, `api/queues/${qname}`))).json.queue;
  const beat = (workerId: string, startedAt: number, ttlMs = 60_000): Promise<unknown> => {
    const { layout, run } = internalsOf(rsmq);
    return run(() => lookAndBeat(layout, qname, { workerId, json: beatJson("host-b", 77, 4, startedAt), ttlMs }));
  };

  it("an untouched queue's row: concurrency and leased null, no consumers", async () => {
    expect(await row()).to.include({ concurrency: null, leased: null, consumers: 0 });
    const answer = await send(at(ro, `api/queues/${qname}/consumers`));
    expect([answer.status, answer.json.qname, answer.json.consumers]).to.deep.equal([200, qname, []]);
  });

  it("POST .../concurrency { max } then .../concurrency/remove; the row shows the limit and what is leased", async () => {
    await rsmq.sendMessagesAsync({ qname, messages: [{ message: "a" }, { message: "b" }, { message: "c" }] });
    const set = await post(at(rw, `api/queues/${qname}/concurrency`), { max: 2 });
    expect([set.status, set.json], set.text).to.deep.equal([200, { qname, concurrency: 2 }]);
    expect((await rsmq.getQueueAttributesAsync({ qname })).concurrency).to.equal(2);
    await rsmq.receiveMessagesAsync({ qname, count: 3, vt: 60 });
    expect(await row()).to.include({ concurrency: 2, leased: 2 });
    const overview = (await send(at(ro, "api/queues"))).json.queues.find((q: { qname: string }) => q.qname === qname);
    expect(overview).to.include({ concurrency: 2, leased: 2 });
    const removed = await post(at(rw, `api/queues/${qname}/concurrency/remove`), {});
    expect([removed.status, removed.json], removed.text).to.deep.equal([200, { qname, removed: true }]);
    expect(await row()).to.include({ concurrency: null, leased: null });
    expect((await post(at(rw, `api/queues/${qname}/concurrency/remove`), {})).json).to.deep.equal({ qname, removed: false });
  });

  it("GET .../consumers: the live entries, sorted by start, at the server's time; the row counts them", async () => {
    const [late, early, gone] = [newWorkerId(), newWorkerId(), newWorkerId()];
    await beat(gone, 1, 1);
    await beat(late, 2000);
    await beat(early, 1000);
    // The 1 ms entry lapses on the server's clock (it may take a millisecond more than the beats did).
    await waitFor(async () => (await rsmq.listConsumersAsync({ qname })).length === 2, "the 1 ms entry to lapse");
    const answer = await send(at(ro, `api/queues/${qname}/consumers`));
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json.now).to.be.a("number");
    expect(answer.json.consumers.map((c: { id: string }) => c.id)).to.deep.equal([early, late]);
    expect(answer.json.consumers[0]).to.include({ id: early, host: "host-b", pid: 77, concurrency: 4, startedAt: 1000 });
    expect(answer.json.consumers).to.deep.equal(await rsmq.listConsumersAsync({ qname }));
    expect((await row()).consumers).to.equal(2);
    expectError(await send(at(ro, "api/queues/nosuchqueue/consumers")), 404, "queueNotFound");
  });

  it("bad input: 400, nothing written; a missing queue 404; a field the route does not take 400 unknownField", async () => {
    const before = await state();
    for (const body of [{ max: 0 }, { max: 10_001 }, { max: 1.5 }, { max: "3" }, {}]) {
      const answer = await post(at(rw, `api/queues/${qname}/concurrency`), body);
      expect(answer.status, `${JSON.stringify(body)}: ${answer.text}`).to.equal(400);
    }
    expectError(await post(at(rw, `api/queues/${qname}/concurrency`), { max: 3, min: 1 }), 400, "unknownField");
    expectError(await post(at(rw, `api/queues/${qname}/concurrency/remove`), { max: 3 }), 400, "unknownField");
    expect(await state()).to.deep.equal(before);
    expectError(await post(at(rw, "api/queues/nosuchqueue/concurrency"), { max: 3 }), 404, "queueNotFound");
    expectError(await post(at(rw, "api/queues/nosuchqueue/concurrency/remove"), {}), 404, "queueNotFound");
  });

  it("read-only: 405 readOnly, even cross-site; cross-site on read-write: 403 crossSite; nothing written either way", async () => {
    await rsmq.setConcurrencyAsync({ qname, max: 5 });
    const before = await state();
    const mutations: Array<[string, unknown]> = [
      [`api/queues/${qname}/concurrency`, { max: 1 }],
      [`api/queues/${qname}/concurrency/remove`, {}],
    ];
    for (const [route, body] of mutations) {
      expectError(await post(at(ro, route), body), 405, "readOnly");
      expectError(await post(at(ro, route), body, { "Sec-Fetch-Site": "cross-site" }), 405, "readOnly");
      for (const headers of [{ "Sec-Fetch-Site": "cross-site" }, { Origin: "http://evil.example" }, {}] as Array<Record<string, string>>) {
        expectError(await post(at(rw, route), body, headers), 403, "crossSite");
      }
    }
    expect(await state()).to.deep.equal(before);
  });
});
