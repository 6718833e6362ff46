/**
 * ioredis clients are recognised by their shape, in ioredis 5 and ioredis 6 alike: a standalone,
 * a Sentinel-managed and a Cluster client, each made with `lazyConnect` toward a port where no
 * server listens, taken for what it is, and used as it is by RedisSMQ (`rsmq.redis` is the client).
 * Whether it asks for RESP3 (where wakes can share its connection) is told apart too.
 */
import { expect } from "chai";
import Redis5, { Cluster as Cluster5 } from "ioredis";
import Redis6, { Cluster as Cluster6 } from "ioredis6";
import RedisSMQ = require("../../../lib");
import { asksForResp3, isIoredis, isIoredisClient, isIoredisCluster, whereOf } from "../../../lib/transports/ioredis/client-shape";
import type { AnyIoredis, IoredisClient } from "../../../lib/transports/ioredis/client-shape";
import { runsOn } from "../../support/targets";

runsOn("single");

type Made = { disconnect(): void; on(event: "error", listener: () => void): unknown; status: string };

const MAKERS = {
  ioredis5: {
    standalone: (options: Record<string, unknown>) => new Redis5({ port: 1, lazyConnect: true, ...options }),
    cluster: () => new Cluster5([{ host: "127.0.0.1", port: 1 }], { lazyConnect: true }),
  },
  ioredis6: {
    standalone: (options: Record<string, unknown>) => new Redis6({ port: 1, lazyConnect: true, ...options }),
    cluster: () => new Cluster6([{ host: "127.0.0.1", port: 1 }], { lazyConnect: true }),
  },
};

for (const [version, make] of Object.entries(MAKERS)) {
  describe(`recognising ${version} clients by their shape`, () => {
    const made: Made[] = [];
    afterEach(() => {
      for (const client of made.splice(0)) client.disconnect();
    });

    function keep<T extends Made>(client: T): T {
      client.on("error", () => undefined);
      made.push(client);
      return client;
    }

    /** A RedisSMQ on the client: it is `rsmq.redis`. */
    async function usedAsItIs(client: Made): Promise<void> {
      const rsmq = new RedisSMQ({ client, ns: "shape", offlineTimeoutMs: 100 } as never);
      rsmq.on("error", () => undefined);
      expect(rsmq.redis).to.equal(client);
      await rsmq.quitAsync();
    }

    it("a standalone client", async () => {
      const client = keep(make.standalone({}));
      expect([isIoredisClient(client), isIoredisCluster(client), isIoredis(client)]).to.deep.equal([true, false, true]);
      expect(whereOf(client as unknown as AnyIoredis)).to.equal("localhost:1");
      await usedAsItIs(client);
    });

    it("a Sentinel-managed client", async () => {
      const client = keep(make.standalone({ sentinels: [{ host: "127.0.0.1", port: 1 }], name: "primary", failoverDetector: true }));
      expect([isIoredisClient(client), isIoredisCluster(client)]).to.deep.equal([true, false]);
      expect(whereOf(client as unknown as AnyIoredis)).to.equal('the primary "primary" named by Sentinel');
      await usedAsItIs(client);
    });

    it("a Cluster client", async () => {
      const client = keep(make.cluster());
      expect([isIoredisClient(client), isIoredisCluster(client), isIoredis(client)]).to.deep.equal([false, true, true]);
      expect(whereOf(client as unknown as AnyIoredis)).to.equal("the ioredis Cluster");
      await usedAsItIs(client);
    });

    it(`asks for RESP3: ${version === "ioredis6" ? "yes, unless made with protocol: 2" : "never"}`, () => {
      const byDefault = keep(make.standalone({}));
      const resp2 = keep(make.standalone({ protocol: 2 }));
      const expected = version === "ioredis6" ? [true, false] : [false, false];
      expect([byDefault, resp2].map((client) => asksForResp3(client as unknown as IoredisClient))).to.deep.equal(expected);
    });
  });
}
