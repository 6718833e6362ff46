/**
 * What the dashboard costs Redis, counted at the server (INFO commandstats of a server of this
 * suite's own, so no other test's commands are in it): nothing with no stream open, and with 1 or
 * 5 open streams the same one reading per interval (1 EVALSHA_RO for every queue of the namespace),
 * every stream getting every reading (test/queue-state/queue-board.test.ts checks that the dashboard's
 * own meter counts exactly what the server saw); and the message list's live reloads, which every
 * open page of a queue makes after the same reading, one read of Redis for all of them.
 */
import { expect } from "chai";
import { createServer } from "http";
import type { Server } from "http";
import type { AddressInfo } from "net";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { createDashboard } from "../../lib/dashboard";
import { startRedisServer } from "../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../lib/cli/redis/redis-server";
import { countsBetween, readCommandStats } from "../../lib/cli/redis/command-stats";
import type { QueuesResponse } from "../../lib/dashboard/api-types";
import { openEventStream } from "../support/event-stream";
import type { OpenStream } from "../support/event-stream";
import { serverTimePassed, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single");

const INTERVAL_MS = 100;
/** The commands lua/queueStates-n.lua runs, for the queues of this suite. */
const INSIDE_THE_SCRIPT = ["smembers", "hmget", "zcard", "zcount", "zrangebyscore", "zrange"];

describe("dashboard cost at the server", function () {
  this.timeout(60_000);
  let redis: RedisServerProcess;
  let counter: RedisClientType;
  let rsmq: RedisSMQ;
  let dashboard: ReturnType<typeof createDashboard>;
  let server: Server;
  let base: string;
  const streams: OpenStream[] = [];

  before(async () => {
    redis = await startRedisServer();
    counter = createClient({ url: redis.url });
    await counter.connect();
    rsmq = new RedisSMQ({ host: redis.host, port: redis.port, ns: "cost" });
    for (const qname of ["a", "b", "c", "c-dlq"]) await rsmq.createQueueAsync({ qname });
    await rsmq.sendMessageAsync({ qname: "a", message: "m" });
    dashboard = createDashboard({ rsmq, intervalMs: INTERVAL_MS });
    server = createServer((req, res) => dashboard(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });

  after(async () => {
    dashboard?.close();
    await new Promise((resolve) => server?.close(resolve));
    await rsmq?.quitAsync();
    await counter?.quit();
    await redis?.stop();
  });

  /** Client commands the server ran since `before` (the counter's own INFO left out). */
  async function commandsSince(before: Awaited<ReturnType<typeof readCommandStats>>) {
    // The test's own INFO and TIME (serverTimePassed) left out.
    return countsBetween(before, await readCommandStats(counter), ["info", "time"]);
  }

  it("sends nothing while no tab is open", async () => {
    // A first reading (to learn the queues), then nothing: no stream, no request.
    await fetch(`${base}api/queues`);
    const before = await readCommandStats(counter);
    await serverTimePassed(counter, 10 * INTERVAL_MS);
    expect(await commandsSince(before)).to.deep.equal({});
  });

  it("reads a list once for every page that follows it after the same reading (live=1), and once per request without", async () => {
    const list = `${base}api/queues/a/messages?offset=0&limit=50`;
    const pages = 5;
    await fetch(list); // the script loaded (EVALSHA, then EVAL on NOSCRIPT), before counting
    await fetch(`${base}api/queues`); // a reading: what the pages were just told of
    let before = await readCommandStats(counter);
    const answers = await Promise.all(Array.from({ length: pages }, () => fetch(`${list}&live=1`).then((res) => res.json())));
    expect(await commandsSince(before), "one read for every page").to.deep.equal({
      evalsha_ro: 1,
      hexists: 1,
      hmget: 1,
      zcard: 1,
      zrange: 1,
    });
    for (const answer of answers) expect((answer as { total: number }).total).to.equal(1);
    // The next reading: the pages read again, once.
    await serverTimePassed(counter, 2 * INTERVAL_MS);
    await fetch(`${base}api/queues`);
    before = await readCommandStats(counter);
    await Promise.all(Array.from({ length: pages }, () => fetch(`${list}&live=1`).then((res) => res.json())));
    const next = await commandsSince(before);
    expect(next.evalsha_ro, "one read after the next reading").to.equal(1);
    // Without live=1 (a page's first read, a refresh after an action): one read each.
    before = await readCommandStats(counter);
    await Promise.all(Array.from({ length: pages }, () => fetch(list).then((res) => res.json())));
    expect((await commandsSince(before)).evalsha_ro).to.equal(pages);
  });

  for (const open of [1, 5]) {
    it(`reads once per interval with ${open} open stream${open === 1 ? "" : "s"}: 1 command per reading, whatever the number of tabs`, async () => {
      const before = await readCommandStats(counter);
      for (let i = 0; i < open; i++) streams.push(await openEventStream(`${base}api/stream`));
      const readings = 8;
      await waitFor(() => streams.every((stream) => stream.json("queues").length >= readings), `${readings} readings on every stream`);
      for (const stream of streams) stream.close();
      const commands = await commandsSince(before);
      const got = streams[0].json<QueuesResponse>("queues");
      const readingsMade = new Set(got.map((event) => event.now)).size;
      // INFO commandstats counts the commands a script runs too: each reading is one EVALSHA_RO,
      // whose script reads the registry once, and the queues with the rest (TIME is left out: the
      // test reads it too). A command the
      // client sent besides would show as one more (an SMEMBERS of its own, say).
      expect(Object.keys(commands).sort()).to.deep.equal(["evalsha_ro", ...INSIDE_THE_SCRIPT].sort());
      expect(commands.smembers, "SMEMBERS: the script's own").to.equal(commands.evalsha_ro);
      // One per reading each stream saw, plus at most one under way when the last stream closed.
      expect(commands.evalsha_ro).to.be.within(readingsMade, readingsMade + 1);
      for (const stream of streams) expect(stream.json<QueuesResponse>("queues").length).to.be.at.least(readings);
      expect(got[got.length - 1].cost.streams).to.equal(open);
      expect(got[got.length - 1].queues.map((row) => row.qname)).to.deep.equal(["a", "b", "c", "c-dlq"]);
    });
  }
});
