/**
 * Idempotent sends (docs/idempotent-sends.md): a send with a dedupId stores at most one message
 * per window and answers the first one's id; the window (per call, the queue's default, 5 min);
 * bad input refused before any round trip; and the retry after a lost reply, which is what the
 * feature is for.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import { RedisSMQ } from "../../lib";
import type { QueueKeys } from "../../lib/keys";
import { dedupKey } from "../../lib/operations/dedup-id";
import { dataClient, exactState, outcome, rawKey } from "../support/differential";
import { connectionOptions, singleServerOnly, testRedis, uniqueNs } from "../support/server";
import { SilentProxy } from "../support/silent-proxy";
import { monitor } from "../support/wire";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

/** Polls `check` every 20 ms until it holds, for at most `withinMs`. */
async function until(check: () => Promise<boolean>, withinMs = 5000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not reached");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("idempotent sends: dedupId", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let data: RedisClientType;
  const keyOf = (qname: string, dedupId: string | true, message = ""): string =>
    dedupKey({ messages: rawKey("next", ns, qname) } as QueueKeys, dedupId, message);
  const stored = (qname: string): Promise<number> => data.zCard(rawKey("next", ns, qname));
  const totalsent = async (qname: string): Promise<string | undefined> =>
    (await data.hGet(rawKey("next", ns, `${qname}:Q`), "totalsent")) ?? undefined;

  beforeEach(async () => {
    ns = uniqueNs("dedup");
    rsmq = new RedisSMQ(connectionOptions(ns));
    data = await dataClient("next");
    await rsmq.createQueueAsync({ qname: "jobs" });
  });

  afterEach(async () => {
    await rsmq.quitAsync();
    await data.quit();
  });

  it("a second send within the window stores nothing, answers the first id and emits duplicate", async () => {
    const duplicates: unknown[] = [];
    rsmq.on("duplicate", (duplicate) => duplicates.push(duplicate));
    const first = await rsmq.sendMessageAsync({ qname: "jobs", message: "a", dedupId: "order-1" });
    const before = await exactState(data, ns);
    const second = await rsmq.sendMessageAsync({ qname: "jobs", message: "b", dedupId: "order-1" });
    expect(second).to.equal(first);
    expect(await exactState(data, ns)).to.deep.equal(before);
    expect(await stored("jobs")).to.equal(1);
    expect(await totalsent("jobs")).to.equal("1");
    expect(duplicates).to.deep.equal([{ qname: "jobs", id: first, dedupId: "order-1" }]);
    const other = await rsmq.sendMessageAsync({ qname: "jobs", message: "b", dedupId: "order-2" });
    expect(other).to.not.equal(first);
    expect(await stored("jobs")).to.equal(2);
  });

  it("stays a duplicate after the first message was received, and after it was deleted", async () => {
    const first = await rsmq.sendMessageAsync({ qname: "jobs", message: "a", dedupId: "x" });
    const received = (await rsmq.receiveMessageAsync({ qname: "jobs" })) as { id: string };
    expect(received.id).to.equal(first);
    expect(await rsmq.sendMessageAsync({ qname: "jobs", message: "a", dedupId: "x" })).to.equal(first);
    expect(await rsmq.deleteMessageAsync({ qname: "jobs", id: first })).to.equal(1);
    expect(await rsmq.sendMessageAsync({ qname: "jobs", message: "a", dedupId: "x" })).to.equal(first);
    expect(await stored("jobs")).to.equal(0);
    expect(await totalsent("jobs")).to.equal("1");
  });

  it("after the window a send with the same id stores a new message", async () => {
    const first = await rsmq.sendMessageAsync({ qname: "jobs", message: "a", dedupId: "x", dedupWindowMs: 200 });
    const ttl = await data.pTTL(keyOf("jobs", "x"));
    expect(ttl).to.be.within(1, 200);
    await until(async () => (await data.exists(keyOf("jobs", "x"))) === 0);
    const second = await rsmq.sendMessageAsync({ qname: "jobs", message: "a", dedupId: "x", dedupWindowMs: 200 });
    expect(second).to.not.equal(first);
    expect(await stored("jobs")).to.equal(2);
    expect(await data.get(keyOf("jobs", "x"))).to.equal(second);
  });

  it("dedupId true derives the id from the body: the same body is a duplicate, another is not", async () => {
    const first = await rsmq.sendMessageAsync({ qname: "jobs", message: "same", dedupId: true });
    expect(await data.get(keyOf("jobs", true, "same"))).to.equal(first);
    expect(await rsmq.sendMessageAsync({ qname: "jobs", message: "same", dedupId: true })).to.equal(first);
    expect(await rsmq.sendMessageAsync({ qname: "jobs", message: "other", dedupId: true })).to.not.equal(first);
    expect(await stored("jobs")).to.equal(2);
  });

  it("the window: 5 minutes by default, the queue's dedupWindowMs, the call's over both", async () => {
    await rsmq.sendMessageAsync({ qname: "jobs", message: "a", dedupId: "d" });
    expect(await data.pTTL(keyOf("jobs", "d"))).to.be.within(299_000, 300_000);
    await rsmq.createQueueAsync({ qname: "short", dedupWindowMs: 60_000 });
    expect(await rsmq.getQueueAttributesAsync({ qname: "short" })).to.include({ dedupWindowMs: 60_000 });
    await rsmq.sendMessageAsync({ qname: "short", message: "a", dedupId: "d" });
    expect(await data.pTTL(keyOf("short", "d"))).to.be.within(59_000, 60_000);
    await rsmq.sendMessageAsync({ qname: "short", message: "a", dedupId: "e", dedupWindowMs: 5000 });
    expect(await data.pTTL(keyOf("short", "e"))).to.be.within(4000, 5000);
    const set = await rsmq.setQueueAttributesAsync({ qname: "short", dedupWindowMs: 7_200_000 });
    expect(set).to.include({ dedupWindowMs: 7_200_000 });
    await rsmq.sendMessageAsync({ qname: "short", message: "a", dedupId: "f" });
    expect(await data.pTTL(keyOf("short", "f"))).to.be.within(7_199_000, 7_200_000);
    const removed = await rsmq.setQueueAttributesAsync({ qname: "short", dedupWindowMs: 0 });
    expect(removed).to.not.have.property("dedupWindowMs");
    expect(await data.hExists(rawKey("next", ns, "short:Q"), "dedupwindow")).to.equal(false);
  });

  it("a queue without a window reads as rsmq 0.12.4's: no dedupWindowMs, no field", async () => {
    expect(await rsmq.getQueueAttributesAsync({ qname: "jobs" })).to.not.have.property("dedupWindowMs");
    expect(await data.hExists(rawKey("next", ns, "jobs:Q"), "dedupwindow")).to.equal(false);
  });

  it("with realtime, the first send is notified and a duplicate is not", async function () {
    singleServerOnly(this, "a plain SUBSCRIBE; the cluster's sharded channel is covered by the realtime tests");
    const live = new RedisSMQ({ ...connectionOptions(ns), realtime: true });
    const subscriber = data.duplicate();
    const heard: string[] = [];
    try {
      await subscriber.connect();
      await subscriber.subscribe(rawKey("next", ns, "rt:jobs"), (count) => heard.push(count));
      await live.sendMessageAsync({ qname: "jobs", message: "a", dedupId: "rt" });
      await live.sendMessageAsync({ qname: "jobs", message: "a", dedupId: "rt" });
      // A plain send after both: once it is heard, anything the duplicate published would have been too.
      await live.sendMessageAsync({ qname: "jobs", message: "b" });
      await until(async () => heard.length >= 2);
      expect(heard).to.deep.equal(["1", "2"]);
    } finally {
      await subscriber.quit();
      await live.quitAsync();
    }
  });

  it("a send to a missing queue is queueNotFound and claims nothing", async () => {
    const result = await outcome(rsmq.sendMessageAsync({ qname: "nope", message: "a", dedupId: "x" }));
    expect(result).to.have.property("error").that.includes({ name: "queueNotFound" });
    expect(await data.exists(keyOf("nope", "x"))).to.equal(0);
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ["dedupId 5", { dedupId: 5 }, "dedupId must be a string of 1 to 128 characters, or true to derive it from the message"],
    ["an empty dedupId", { dedupId: "" }, "dedupId must be a string of 1 to 128 characters, or true to derive it from the message"],
    [
      "a dedupId of 129 characters",
      { dedupId: "x".repeat(129) },
      "dedupId must be a string of 1 to 128 characters, or true to derive it from the message",
    ],
    ["an object dedupId", { dedupId: {} }, "dedupId must be a string of 1 to 128 characters, or true to derive it from the message"],
    ["dedupWindowMs 0", { dedupId: "x", dedupWindowMs: 0 }, "dedupWindowMs must be a whole number of ms between 1 and 86400000"],
    ["dedupWindowMs -1", { dedupId: "x", dedupWindowMs: -1 }, "dedupWindowMs must be a whole number of ms between 1 and 86400000"],
    ["dedupWindowMs 1.5", { dedupId: "x", dedupWindowMs: 1.5 }, "dedupWindowMs must be a whole number of ms between 1 and 86400000"],
    [
      "dedupWindowMs 86400001",
      { dedupId: "x", dedupWindowMs: 86_400_001 },
      "dedupWindowMs must be a whole number of ms between 1 and 86400000",
    ],
    ['dedupWindowMs "5"', { dedupId: "x", dedupWindowMs: "5" }, "dedupWindowMs must be a whole number of ms between 1 and 86400000"],
  ];
  for (const [label, options, message] of invalid) {
    it(`sendMessage with ${label}: invalidValue, no command, nothing written`, async () => {
      const before = await exactState(data, ns);
      let result: Awaited<ReturnType<typeof outcome>> | undefined;
      const commands = await monitor(async () => {
        result = await outcome(rsmq.sendMessageAsync({ qname: "jobs", message: "a", ...options } as never));
      });
      expect(result).to.have.property("error").that.includes({ isError: true, name: "invalidValue", message });
      expect(commands).to.deep.equal([]);
      expect(await exactState(data, ns)).to.deep.equal(before);
    });
  }
  for (const method of ["createQueueAsync", "setQueueAttributesAsync"] as const) {
    it(`${method.replace(/Async$/, "")} with dedupWindowMs "5": invalidValue, no command, nothing written`, async () => {
      const before = await exactState(data, ns);
      let result: Awaited<ReturnType<typeof outcome>> | undefined;
      const commands = await monitor(async () => {
        result = await outcome((rsmq[method] as (o: unknown) => Promise<unknown>)({ qname: "jobs", dedupWindowMs: "5" }));
      });
      expect(result).to.have.property("error").that.includes({ name: "invalidValue" });
      expect(commands).to.deep.equal([]);
      expect(await exactState(data, ns)).to.deep.equal(before);
    });
  }

  describe("a retry after the reply was lost", () => {
    let proxy: SilentProxy | undefined;
    afterEach(async () => {
      await proxy?.close();
      proxy = undefined;
    });

    it("the script ran, the reply never came: the retry stores nothing and answers the stored id", async function () {
      singleServerOnly(this, "the proxy forwards one server's connection");
      const server = testRedis();
      proxy = await SilentProxy.start({ host: server.host, port: server.port });
      const flaky = new RedisSMQ({ host: "127.0.0.1", port: proxy.port, ns, commandTimeoutMs: 300 });
      try {
        // Loads the script through the proxy first: a lost NOSCRIPT would mean it never ran.
        await flaky.createQueueAsync({ qname: "warm" });
        await flaky.sendMessageAsync({ qname: "warm", message: "w", dedupId: "w" });
        proxy.dropReplies();
        const lost = await outcome(flaky.sendMessageAsync({ qname: "jobs", message: "pay 10", dedupId: "payment-7" }));
        expect(lost).to.have.property("error");
        await until(async () => (await stored("jobs")) === 1);
        const retried = await rsmq.sendMessageAsync({ qname: "jobs", message: "pay 10", dedupId: "payment-7" });
        expect(await data.zRange(rawKey("next", ns, "jobs"), 0, -1)).to.deep.equal([retried]);
        expect(await totalsent("jobs")).to.equal("1");
      } finally {
        await proxy.close();
        proxy = undefined;
        await outcome(flaky.quitAsync());
      }
    });
  });
});
