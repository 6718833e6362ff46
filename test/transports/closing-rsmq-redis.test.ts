/**
 * Closing the connection a user can reach (`rsmq.redis`, or the `client` passed in) closes the
 * instance: rsmq 0.12.4 code ends with `rsmq.redis.quit()` (rsmq-cli does on every command), and
 * the process must then exit by itself however many connections, subscriptions and Workers the
 * instance opened beside it. Calls made afterwards fail with `connectionClosed`.
 * Redis Cluster and an ioredis Cluster: test/transports/cluster/closing-rsmq-redis.test.ts.
 */
import { expect } from "chai";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { expectClosedCleanly, runClosing, WHILE } from "../support/closing-child";
import type { Activity, ClosingSetup } from "../support/closing-child";
import { testRedis, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

/**
 * The bound on the child's exit: a hang is for ever, and a loaded machine needs up to 8 s for the
 * whole program (Node's start, the queue, a Worker's first looks); rsmq 0.12.4 exits in 250 ms.
 */
const EXIT_WITHIN_MS = 20_000;

function owned(extra: string, closeWith: "quit" | "disconnect" = "quit"): ClosingSetup {
  return {
    setup: `
      const rsmq = new RedisSMQ({ host: process.env.HOST, port: Number(process.env.PORT), ns${extra} });
      const close = () => rsmq.redis.${closeWith}();`,
  };
}

/** A node-redis client passed in (used alone unless `connections` asks for more). */
function borrowed(extra: string): ClosingSetup {
  return {
    setup: `
      const { createClient } = require("redis");
      const client = createClient({ url: process.env.URL });
      client.on("error", () => undefined);
      await client.connect();
      const rsmq = new RedisSMQ({ client, ns${extra} });
      const close = () => client.quit();`,
  };
}

const IOREDIS: ClosingSetup = {
  setup: `
    const Redis = require("ioredis");
    const client = new Redis({ host: process.env.HOST, port: Number(process.env.PORT) });
    client.on("error", () => undefined);
    const rsmq = new RedisSMQ({ client, ns });
    const close = () => client.quit();`,
  // ioredis' quit() resolves with QUIT's reply; the client ends when the socket closes after it.
  afterClose: `if (client.status !== "end") await new Promise((resolve) => client.once("end", resolve));`,
};

const CASES: Array<{ title: string; setup: ClosingSetup; activities: Activity[] }> = [
  { title: "rsmq.redis.quit() at the default connections", setup: owned(""), activities: ["nothing", "worker"] },
  { title: "rsmq.redis.quit() with connections: 2", setup: owned(", connections: 2"), activities: ["nothing", "worker", "subscription"] },
  { title: "rsmq.redis.quit() with connections: 1", setup: owned(", connections: 1"), activities: ["nothing", "worker", "subscription"] },
  { title: "rsmq.redis.disconnect() with connections: 2", setup: owned(", connections: 2", "disconnect"), activities: ["worker"] },
  { title: "quit() of a node-redis client passed in", setup: borrowed(""), activities: ["nothing", "worker"] },
  {
    title: "quit() of a node-redis client passed in (connections: 2)",
    setup: borrowed(", connections: 2"),
    activities: ["nothing", "worker"],
  },
  { title: "quit() of an ioredis client passed in", setup: IOREDIS, activities: ["nothing", "worker", "subscription"] },
];

describe("closing rsmq.redis, or the client passed in", () => {
  describe("lets the process exit by itself (the rsmq-cli pattern, in a child process)", function () {
    this.timeout(EXIT_WITHIN_MS + 20_000);
    for (const { title, setup, activities } of CASES) {
      for (const activity of activities) {
        it(`${title}${WHILE[activity]}`, async () => {
          const { host, port, url } = testRedis();
          expectClosedCleanly(
            await runClosing(setup, activity, { HOST: host, PORT: String(port), URL: url, NS: uniqueNs() }, EXIT_WITHIN_MS),
            activity,
            EXIT_WITHIN_MS,
          );
        });
      }
    }
  });

  describe("calls made afterwards", () => {
    let rsmq: RedisSMQ | undefined;
    afterEach(async () => {
      await rsmq?.quitAsync();
      rsmq = undefined;
    });

    it("fail with connectionClosed, which says what happened and what to do, before any round trip", async () => {
      rsmq = new RedisSMQ({ ...hostAndPort(), ns: uniqueNs(), connections: 2 });
      await rsmq.createQueueAsync({ qname: "q" });
      await rsmq.redis.quit();
      const error = await rsmq.sendMessageAsync({ qname: "q", message: "x" }).then(
        () => undefined,
        (reason: Error) => reason,
      );
      expect(error?.name).to.equal("connectionClosed");
      expect(error?.message).to.include("rsmq.redis");
      expect(error?.message).to.include("new RedisSMQ");
      expect(error?.message).to.include("rsmq.quit()");
      // Every kind of call: the callback API, listQueues, the new methods.
      const names = await Promise.all([
        new Promise((resolve) => rsmq!.listQueues((err) => resolve(err?.name))),
        rsmq.receiveMessagesAsync({ qname: "q", count: 2 }).catch((reason: Error) => reason.name),
        rsmq.getQueueAttributesAsync({ qname: "q" }).catch((reason: Error) => reason.name),
      ]);
      expect(names).to.deep.equal(["connectionClosed", "connectionClosed", "connectionClosed"]);
      // Bad input is still named first: it needs no connection to be wrong.
      const bad = await rsmq.sendMessageAsync({ qname: "bad name!", message: "x" }).catch((reason: Error) => reason.name);
      expect(bad).to.equal("invalidFormat");
      // Nothing is left open, and quit() afterwards has nothing to do.
      expect(rsmq.connected).to.equal(false);
      expect(await rsmq.quitAsync()).to.equal("OK");
    });

    it("leave a client passed in as the user left it, closed for good", async () => {
      const client = createClient({ url: testRedis().url }) as RedisClientType;
      client.on("error", () => undefined);
      await client.connect();
      rsmq = new RedisSMQ({ client, ns: uniqueNs() });
      await rsmq.listQueuesAsync();
      await client.disconnect();
      const error = await rsmq.listQueuesAsync().catch((reason: Error) => reason);
      expect((error as Error).name).to.equal("connectionClosed");
      expect(client.isOpen).to.equal(false);
    });
  });
});

function hostAndPort(): { host: string; port: number } {
  const { host, port } = testRedis();
  return { host, port };
}
