/**
 * createDashboard itself: its options checked at creation, naming the option; Redis going away and
 * coming back (the queue list answers 200 with `redis.ok: false`, a queue's routes 503, and both
 * heal); a body parser mounted before it (Express's express.json()); close() ending the streams.
 */
import { expect } from "chai";
import express = require("express");
import { createServer } from "http";
import RedisSMQ = require("../../lib/index");
import { createDashboard } from "../../lib/dashboard";
import type { DashboardOptions } from "../../lib/dashboard";
import { startRedisServer } from "../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../lib/cli/redis/redis-server";
import { connectionOptions, uniqueNs } from "../support/server";
import { waitFor } from "../support/worker";
import { nodeHttpAtRoot, openStream, post, send } from "../support/dashboard";
import type { Mounted } from "../support/dashboard";
import { runsOn } from "../support/targets";

runsOn("single");

describe("createDashboard", () => {
  describe("options, checked when it is created", () => {
    let rsmq: RedisSMQ;
    before(() => {
      rsmq = new RedisSMQ(connectionOptions(uniqueNs("dashopt")));
    });
    after(() => rsmq.quitAsync());

    const cases: Array<[string, () => Partial<DashboardOptions> & Record<string, unknown>, string]> = [
      ["no rsmq", () => ({}), "Expected `rsmq` to be a RedisSMQ instance, got `undefined` (undefined)"],
      ["rsmq not an instance", () => ({ rsmq: {} }), "Expected `rsmq` to be a RedisSMQ instance, got `object`"],
      ["readOnly a string", () => ({ rsmq, readOnly: "false" }), 'Expected `readOnly` to be a boolean, got `"false"` (string)'],
      [
        "intervalMs 0",
        () => ({ rsmq, intervalMs: 0 }),
        "Expected `intervalMs` to be an integer from 100 to 3600000 (ms), got `0` (number)",
      ],
      [
        "intervalMs a string",
        () => ({ rsmq, intervalMs: "2000" }),
        'Expected `intervalMs` to be an integer from 100 to 3600000 (ms), got `"2000"` (string)',
      ],
      [
        "previewChars 1.5",
        () => ({ rsmq, previewChars: 1.5 }),
        "Expected `previewChars` to be an integer from 1 to 100000, got `1.5` (number)",
      ],
      ["deadLetterQueues an array", () => ({ rsmq, deadLetterQueues: [] }), "Expected `deadLetterQueues` to be an object of queue names"],
      [
        "a dead-letter queue not a string",
        () => ({ rsmq, deadLetterQueues: { orders: 5 } }),
        "Expected `deadLetterQueues.orders` to be a queue name, got `5` (number)",
      ],
      ["an unknown option", () => ({ rsmq, intervalMS: 2000 }), "Unknown option `intervalMS`"],
    ];
    for (const [what, options, message] of cases) {
      it(`${what}: a TypeError that says so`, () => {
        expect(() => createDashboard(options() as unknown as DashboardOptions))
          .to.throw(TypeError)
          .with.property("message")
          .that.includes(message);
      });
    }

    it("the defaults: read-only, every 2 s", async () => {
      const handler = createDashboard({ rsmq });
      const mounted = await nodeHttpAtRoot(handler);
      try {
        expect((await send(`${mounted.base}api/queues`)).json).to.include({ readOnly: true, intervalMs: 2000 });
      } finally {
        handler.close();
        await mounted.close();
      }
    });
  });

  describe("while Redis is down, and after it is back", () => {
    let redis: RedisServerProcess;
    let rsmq: RedisSMQ;
    let handler: ReturnType<typeof createDashboard>;
    let mounted: Mounted;

    before(async function () {
      this.timeout(30_000);
      redis = await startRedisServer();
      rsmq = new RedisSMQ({ host: redis.host, port: redis.port, ns: uniqueNs("dashdown"), offlineTimeoutMs: 300 });
      rsmq.on("error", () => undefined);
      await rsmq.createQueueAsync({ qname: "jobs" });
      handler = createDashboard({ rsmq, intervalMs: 100 });
      mounted = await nodeHttpAtRoot(handler);
    });
    after(async () => {
      handler?.close();
      await mounted?.close();
      await rsmq?.quitAsync().catch(() => undefined);
      await redis?.stop();
    });

    it("GET api/queues answers 200 with redis.ok false and no queues; a queue's route 503; both heal", async function () {
      this.timeout(30_000);
      expect((await send(`${mounted.base}api/queues`)).json.redis).to.deep.equal({ ok: true });
      const stream = await openStream(`${mounted.base}api/stream`);
      const port = redis.port;
      await redis.stop();
      let down: any;
      await waitFor(async () => {
        down = (await send(`${mounted.base}api/queues`)).json;
        return down.redis.ok === false;
      }, "the reading to fail");
      expect(down.redis.error).to.be.a("string").and.not.equal("");
      expect(down.redis.since).to.be.a("number");
      expect(down.queues).to.deep.equal([]);
      await waitFor(() => stream.text().includes('"ok":false'), "the stream to say Redis is down");
      const queue = await send(`${mounted.base}api/queues/jobs`);
      expect([queue.status, queue.json.error], queue.text).to.deep.equal([503, "redisUnavailable"]);
      redis = await startRedisServer({ port });
      await waitFor(async () => (await send(`${mounted.base}api/queues`)).json.redis.ok === true, "the readings to heal");
      // A fresh server: the queue is gone, and the answer says so (404), not 503.
      expect((await send(`${mounted.base}api/queues/jobs`)).status).to.equal(404);
      stream.close();
    });
  });

  describe("mounted behind a body parser, and closed", () => {
    let rsmq: RedisSMQ;
    before(async () => {
      rsmq = new RedisSMQ(connectionOptions(uniqueNs("dashbody")));
      await rsmq.createQueueAsync({ qname: "jobs" });
    });
    after(() => rsmq.quitAsync());

    it("reads req.body when express.json() consumed the stream", async () => {
      const handler = createDashboard({ rsmq, readOnly: false });
      const app = express();
      app.use(express.json());
      app.use("/ops/queues", handler);
      const server = createServer(app);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const { port } = server.address() as { port: number };
      try {
        const sent = await post(`http://127.0.0.1:${port}/ops/queues/api/queues/jobs/messages`, { message: "parsed before" });
        expect(sent.status, sent.text).to.equal(201);
        const [message] = await rsmq.peekMessagesAsync({ qname: "jobs" });
        expect(message.message).to.equal("parsed before");
      } finally {
        handler.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it("close() ends the open streams; a new stream is refused (503)", async () => {
      const handler = createDashboard({ rsmq });
      const mounted = await nodeHttpAtRoot(handler);
      try {
        const stream = await openStream(`${mounted.base}api/stream`);
        const ended = new Promise((resolve) => stream.res.on("end", resolve));
        await waitFor(() => stream.text().includes("event: queues"), "an event");
        handler.close();
        await ended;
        const refused = await send(`${mounted.base}api/stream`);
        expect([refused.status, refused.json.error]).to.deep.equal([503, "closed"]);
      } finally {
        await mounted.close();
      }
    });
  });
});
