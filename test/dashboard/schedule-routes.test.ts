/**
 * The dashboard's schedule routes (docs/dashboard.md, JSON API) against a real Redis:
 * `GET api/queues/:q/schedules` (listSchedulesAsync's entries at the server's time, by name),
 * `POST api/queues/:q/schedules/:name/pause`, `.../resume` and `.../remove`, one public call each,
 * and the queue's row counting its schedules. Each mutation refused in read-only mode (405) and
 * cross-site (403), a body field 400, a missing queue or schedule 404, nothing written in a refusal.
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

describe("dashboard schedule routes", function () {
  const dash = dashboardPair("sched-routes");
  let ns: string, rsmq: RedisSMQ, client: RedisClientType, rw: Mounted, ro: Mounted, qname: string;
  beforeEach(() => ({ ns, rsmq, client, rw, ro, qname } = dash));

  const at = (mounted: Mounted, route: string): string => mounted.base + route;
  const state = (): Promise<unknown> => exactState(client, ns);
  const row = async (mounted = ro) => (await send(at(mounted, `api/queues/${qname}`))).json.queue;
  const schedulePath = (name: string, action: string): string => `api/queues/${qname}/schedules/${encodeURIComponent(name)}/${action}`;

  it("an untouched queue: no schedules listed, the row counts 0", async () => {
    const answer = await send(at(ro, `api/queues/${qname}/schedules`));
    expect([answer.status, answer.json.qname, answer.json.schedules], answer.text).to.deep.equal([200, qname, []]);
    expect(answer.json.now).to.be.a("number");
    expect((await row()).schedules).to.equal(0);
  });

  it("GET .../schedules: listSchedulesAsync's entries by name, at the server's time; the row and the overview count them", async () => {
    await rsmq.upsertScheduleAsync({ qname, name: "nightly", cron: "0 2 * * *", tz: "Europe/Berlin", message: "{}" });
    await rsmq.upsertScheduleAsync({ qname, name: "every.minute", every: 60_000, message: "<b>ping</b>" });
    const answer = await send(at(ro, `api/queues/${qname}/schedules`));
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json.schedules.map((s: { name: string }) => s.name)).to.deep.equal(["every.minute", "nightly"]);
    expect(answer.json.schedules[1]).to.include({ cron: "0 2 * * *", tz: "Europe/Berlin", paused: false, ended: false, count: 0 });
    expect(answer.json.schedules[1].nextRunAt).to.be.above(answer.json.now);
    // nextRunAt of a fresh schedule is computed from the server's time of the read: compare the rest.
    const strip = (list: Array<Record<string, unknown>>) => list.map(({ nextRunAt: _next, ...rest }) => rest);
    expect(strip(answer.json.schedules)).to.deep.equal(strip(JSON.parse(JSON.stringify(await rsmq.listSchedulesAsync({ qname })))));
    expect((await row()).schedules).to.equal(2);
    const overview = (await send(at(ro, "api/queues"))).json.queues.find((q: { qname: string }) => q.qname === qname);
    expect(overview.schedules).to.equal(2);
    expectError(await send(at(ro, "api/queues/nosuchqueue/schedules")), 404, "queueNotFound");
  });

  it("POST .../pause, .../resume, .../remove: one call each, saying whether it changed anything", async () => {
    await rsmq.upsertScheduleAsync({ qname, name: "ping", every: 60_000, message: "ping" });
    const paused = await post(at(rw, schedulePath("ping", "pause")), {});
    expect([paused.status, paused.json], paused.text).to.deep.equal([200, { qname, name: "ping", paused: true }]);
    expect((await rsmq.listSchedulesAsync({ qname }))[0]).to.include({ paused: true, nextRunAt: null });
    expect((await post(at(rw, schedulePath("ping", "pause")), {})).json).to.deep.equal({ qname, name: "ping", paused: false });
    const resumed = await post(at(rw, schedulePath("ping", "resume")), {});
    expect([resumed.status, resumed.json], resumed.text).to.deep.equal([200, { qname, name: "ping", resumed: true }]);
    expect((await rsmq.listSchedulesAsync({ qname }))[0].paused).to.equal(false);
    expect((await post(at(rw, schedulePath("ping", "resume")), {})).json).to.deep.equal({ qname, name: "ping", resumed: false });
    const removed = await post(at(rw, schedulePath("ping", "remove")), {});
    expect([removed.status, removed.json], removed.text).to.deep.equal([200, { qname, name: "ping", removed: true }]);
    expect(await rsmq.listSchedulesAsync({ qname })).to.deep.equal([]);
    expect((await post(at(rw, schedulePath("ping", "remove")), {})).json).to.deep.equal({ qname, name: "ping", removed: false });
  });

  it("a schedule the queue lacks: pause and resume 404 scheduleNotFound; a missing queue 404; bad input 400; nothing written", async () => {
    await rsmq.upsertScheduleAsync({ qname, name: "kept", every: 60_000, message: "kept" });
    const before = await state();
    for (const action of ["pause", "resume"]) {
      expectError(await post(at(rw, schedulePath("nope", action)), {}), 404, "scheduleNotFound");
    }
    for (const action of ["pause", "resume", "remove"]) {
      expectError(await post(at(rw, `api/queues/nosuchqueue/schedules/kept/${action}`), {}), 404, "queueNotFound");
      expectError(await post(at(rw, schedulePath("bad name!", action)), {}), 400, "invalidValue");
      expectError(await post(at(rw, schedulePath("kept", action)), { name: "kept" }), 400, "unknownField");
    }
    expect(await state()).to.deep.equal(before);
  });

  it("read-only: 405 readOnly, even cross-site; cross-site on read-write: 403 crossSite; nothing written either way", async () => {
    await rsmq.upsertScheduleAsync({ qname, name: "ping", every: 60_000, message: "ping" });
    const before = await state();
    for (const action of ["pause", "resume", "remove"]) {
      const route = schedulePath("ping", action);
      expectError(await post(at(ro, route), {}), 405, "readOnly");
      expectError(await post(at(ro, route), {}, { "Sec-Fetch-Site": "cross-site" }), 405, "readOnly");
      for (const headers of [{ "Sec-Fetch-Site": "cross-site" }, { Origin: "http://evil.example" }, {}] as Array<Record<string, string>>) {
        expectError(await post(at(rw, route), {}, headers), 403, "crossSite");
      }
    }
    expect(await state()).to.deep.equal(before);
    // The list is a read: read-only serves it.
    expect((await send(at(ro, `api/queues/${qname}/schedules`))).json.schedules.map((s: { name: string }) => s.name)).to.deep.equal([
      "ping",
    ]);
  });
});
