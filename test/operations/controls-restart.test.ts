/**
 * A queue's controls live in its hash, so Redis persistence keeps them: a server killed (SIGKILL)
 * and restarted from its AOF comes back hard-paused, limited and blocked exactly as it was, with
 * the shifted scores, and the resume afterwards restores every score.
 */
import { expect } from "chai";
import { mkdtempSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { KeyLayout } from "../../lib/keys";
import { startLocalRedis } from "../support/redis-server";
import type { TestRedis } from "../support/redis-server";
import { uniqueNs } from "../support/server";
import { Cleanup, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single");

describe("controls across a server restart", () => {
  const cleanup = new Cleanup();
  let server: TestRedis | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await cleanup.run();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("kill -9 and an AOF restart keep the pause (hard, with its scores), the limit and the block", async function () {
    this.timeout(60_000);
    dir = mkdtempSync(join(tmpdir(), "rsmq-controls-"));
    server = await startLocalRedis({ dir, args: ["--appendonly", "yes", "--appendfsync", "always"] });
    const ns = uniqueNs("aof");
    const rsmq = cleanup.rsmq(new RedisSMQ({ host: server.host, port: server.port, ns }));
    // The restart drops the connection: told through `error`, which this test expects.
    rsmq.on("error", () => undefined);
    const client = createClient({ url: server.url }) as RedisClientType;
    client.on("error", () => undefined);
    await client.connect();
    cleanup.add(() => client.quit());
    const keys = KeyLayout.for(ns, false).queue("q");

    await rsmq.createQueueAsync({ qname: "q" });
    for (let i = 0; i < 3; i += 1) await rsmq.sendMessageAsync({ qname: "q", message: `m${i}` });
    const before = await client.zRangeWithScores(keys.messages, 0, -1);
    await rsmq.pauseQueueAsync({ qname: "q", hard: true });
    await rsmq.setRateLimitAsync({ qname: "q", limits: [{ max: 10, perMs: 1000, burst: 3 }], mode: "pace" });
    await rsmq.rateLimitQueueAsync({ qname: "q", ms: 600_000 });
    const hash = await client.hGetAll(keys.hash);
    const shifted = await client.zRangeWithScores(keys.messages, 0, -1);

    await server.restart();
    await waitFor(async () => (await client.ping().catch(() => "")) === "PONG", "the restarted server");
    expect(await client.hGetAll(keys.hash)).to.deep.equal(hash);
    expect(await client.zRangeWithScores(keys.messages, 0, -1)).to.deep.equal(shifted);
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect(attributes.paused).to.include({ hard: true });
    expect(attributes.rateLimit).to.deep.equal({ limits: [{ max: 10, perMs: 1000, burst: 3 }], mode: "pace" });
    expect(attributes.rateLimitedUntil).to.equal(Number(hash.rlblock));

    expect(await rsmq.resumeQueueAsync({ qname: "q" })).to.equal(1);
    expect(await client.zRangeWithScores(keys.messages, 0, -1)).to.deep.equal(before);
  });
});
