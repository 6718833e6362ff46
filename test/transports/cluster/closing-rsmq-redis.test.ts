/**
 * test/transports/closing-rsmq-redis.test.ts on Redis Cluster: closing `rsmq.redis` (the cluster client this
 * instance opened, or the one passed in: node-redis' or ioredis') lets the process exit by itself
 * however many node connections the Worker's wake subscriptions opened beside it.
 */
import { expectClosedCleanly, runClosing, WHILE } from "../../support/closing-child";
import type { Activity, ClosingSetup } from "../../support/closing-child";
import { testCluster, uniqueNs } from "../../support/server";
import { runsOn } from "../../support/targets";

runsOn("cluster");

/** The bound on the child's exit (see test/transports/closing-rsmq-redis.test.ts): a hang is for ever. */
const EXIT_WITHIN_MS = 30_000;

function owned(closeWith: "quit" | "disconnect"): ClosingSetup {
  return {
    setup: `
      const rsmq = new RedisSMQ({ cluster: { rootNodes: JSON.parse(process.env.ROOT_NODES) }, ns });
      const close = () => rsmq.redis.${closeWith}();`,
  };
}

const BORROWED_NODE_REDIS: ClosingSetup = {
  setup: `
    const { createCluster } = require("redis");
    const client = createCluster({ rootNodes: JSON.parse(process.env.ROOT_NODES) });
    client.on("error", () => undefined);
    await client.connect();
    const rsmq = new RedisSMQ({ client, ns });
    const close = () => client.quit();`,
};

const IOREDIS_CLUSTER: ClosingSetup = {
  setup: `
    const Redis = require("ioredis");
    const nodes = JSON.parse(process.env.ROOT_NODES).map(({ url }) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) }));
    const client = new Redis.Cluster(nodes);
    client.on("error", () => undefined);
    const rsmq = new RedisSMQ({ client, ns });
    const close = () => client.quit();`,
  afterClose: `if (client.status !== "end") await new Promise((resolve) => client.once("end", resolve));`,
};

const CASES: Array<{ title: string; setup: ClosingSetup; activities: Activity[] }> = [
  {
    title: "rsmq.redis.quit() of the cluster client opened from `cluster`",
    setup: owned("quit"),
    activities: ["nothing", "worker", "subscription"],
  },
  { title: "rsmq.redis.disconnect() of the cluster client opened from `cluster`", setup: owned("disconnect"), activities: ["worker"] },
  {
    title: "quit() of a node-redis cluster client passed in",
    setup: BORROWED_NODE_REDIS,
    activities: ["nothing", "worker", "subscription"],
  },
  { title: "quit() of an ioredis Cluster client passed in", setup: IOREDIS_CLUSTER, activities: ["nothing", "worker", "subscription"] },
];

describe("Redis Cluster: closing rsmq.redis, or the client passed in", function () {
  this.timeout(EXIT_WITHIN_MS + 20_000);
  for (const { title, setup, activities } of CASES) {
    for (const activity of activities) {
      it(`lets the process exit by itself: ${title}${WHILE[activity]}`, async () => {
        const env = { ROOT_NODES: JSON.stringify(testCluster().rootNodes()), NS: uniqueNs() };
        expectClosedCleanly(await runClosing(setup, activity, env, EXIT_WITHIN_MS), activity, EXIT_WITHIN_MS);
      });
    }
  }
});
