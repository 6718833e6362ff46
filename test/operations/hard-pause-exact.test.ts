/**
 * A hard pause and its resume on a big queue (100,000 messages on one server, 20,000 on the
 * cluster pass) while sends and deletes go on through both: every message that was there before
 * and was not deleted comes back with exactly the score it had (ZRANGE WITHSCORES before equals
 * after), the deleted ones stay deleted, the new ones are there unshifted; and while paused, every
 * old member carried exactly the offset. rsmq 0.12.4's part (it receives nothing under a hard
 * pause, its deletes work) is in test/differential/controls.test.ts.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { HARD_PAUSE_OFFSET_MS, SHIFTED_FROM } from "../../lib/operations/queue-fields";
import { isCluster, serverNowMs } from "../support/inspect";
import { connectionOptions, keysOf, onCluster, plainClient, uniqueNs } from "../support/server";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

/**
 * Fills the queue with `count` messages whose scores differ (from 10 minutes ago to about 20
 * minutes ahead, several sharing one ms), in slices of 1000 per ZADD/HSET inside one EVAL per
 * 20,000: ids `<n as 32 digits>`, of rsmq's length.
 */
const FILL = `
local queueSet, queueHash = KEYS[1], KEYS[2]
local first, count, base = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local unpackAll = table.unpack or unpack
local members, fields = {}, {}
for i = first, first + count - 1 do
  local id = string.format("%032d", i)
  members[#members + 1] = string.format("%d", base - 600000 + (i * 37) % 1800000)
  members[#members + 1] = id
  fields[#fields + 1] = id
  fields[#fields + 1] = "m"
  if #members == 2000 or i == first + count - 1 then
    redis.call("ZADD", queueSet, unpackAll(members))
    redis.call("HSET", queueHash, unpackAll(fields))
    members, fields = {}, {}
  end
end
return count
`;

async function fill(client: RedisClientType, keys: { messages: string; hash: string }, count: number): Promise<void> {
  const base = await serverNowMs(client);
  for (let first = 0; first < count; first += 20_000) {
    const args = ["EVAL", FILL, "2", keys.messages, keys.hash, String(first), String(Math.min(20_000, count - first)), String(base)];
    if (isCluster(client)) await client.sendCommand(keys.messages, false, args);
    else await client.sendCommand(args);
  }
}

async function scores(client: RedisClientType, key: string): Promise<Map<string, number>> {
  return new Map((await client.zRangeWithScores(key, 0, -1)).map(({ value, score }) => [value, score]));
}

describe("a hard pause's restore is exact", () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it("ZRANGE WITHSCORES before the pause equals after the resume, while sends and deletes continue", async function () {
    this.timeout(120_000);
    const count = onCluster() ? 20_000 : 100_000;
    const ns = uniqueNs("exact");
    const rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    const other = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    const client = await plainClient();
    cleanup.add(() => client.quit());
    await rsmq.createQueueAsync({ qname: "q" });
    const keys = keysOf(ns, "q");
    await fill(client, keys, count);
    const before = await scores(client, keys.messages);
    expect(before.size).to.equal(count);
    const ids = [...before.keys()];

    // Another client sends and deletes, one call at a time, until told to stop.
    const sent: string[] = [];
    const deleted = new Set<string>();
    let running = true;
    let next = 0;
    // The delete in flight: one the server ran before a snapshot may not be in `deleted` yet.
    let deleting: Promise<unknown> = Promise.resolve();
    const traffic = (async () => {
      while (running) {
        sent.push(await other.sendMessageAsync({ qname: "q", message: `new ${sent.length}` }));
        const id = ids[(next += 7919) % ids.length];
        const deletion = other.deleteMessageAsync({ qname: "q", id });
        deleting = deletion;
        if ((await deletion) === 1) deleted.add(id);
      }
    })();

    while (sent.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const sentBefore = sent.length;
    await rsmq.pauseQueueAsync({ qname: "q", hard: true });
    const whilePaused = await scores(client, keys.messages);
    // The loop awaited it first, so its `deleted.add` has run once this await returns.
    await deleting;
    let shifted = 0;
    for (const [id, score] of before) {
      const now = whilePaused.get(id);
      if (now === undefined) continue;
      expect(now, id).to.equal(score + HARD_PAUSE_OFFSET_MS);
      shifted += 1;
    }
    expect(shifted + deleted.size, "every old member shifted or deleted").to.be.at.least(count);
    const sentWhilePaused = sent.length;

    expect(await rsmq.resumeQueueAsync({ qname: "q" })).to.equal(1);
    running = false;
    await traffic;
    console.log(
      `      ${count} messages; sends during the pause's shift ${sentWhilePaused - sentBefore}, during the resume ${sent.length - sentWhilePaused}; ${deleted.size} deleted`,
    );
    expect(sent.length - sentBefore, "sends went on during the pause and the resume").to.be.above(0);
    expect(deleted.size, "deletes went on").to.be.above(0);

    const after = await scores(client, keys.messages);
    const expected = new Map([...before].filter(([id]) => !deleted.has(id)));
    const old = new Map([...after].filter(([id]) => before.has(id)));
    expect(old.size).to.equal(expected.size);
    for (const [id, score] of expected) expect(old.get(id), id).to.equal(score);
    for (const id of sent) expect(after.get(id), `new message ${id}`).to.be.a("number").and.below(SHIFTED_FROM);
    expect(after.size).to.equal(expected.size + sent.length);
    expect(await client.hGet(keys.hash, "paused")).to.equal(null);
  });
});
