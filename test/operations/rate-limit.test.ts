/**
 * setRateLimit, removeRateLimit, rateLimitQueue and the Worker's rateLimitBounce, by the fields
 * they leave (`ratelimit`, `rltat`, `rlblock`: the contract of issue 38's interfaces) and what
 * attributes report; and every control's bad input refused before any round trip (no command
 * reaches the server, nothing written), each with one command when valid.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { rateLimitBounce } from "../../lib/operations/rate-limit-bounce";
import { HARD_PAUSE_OFFSET_MS } from "../../lib/operations/queue-fields";
import { asMessage, rejectionOf } from "../support/old-rsmq";
import { serverNowMs } from "../support/inspect";
import { loadScripts } from "../support/retry";
import { exactState } from "../support/state";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { clientCommands, monitor } from "../support/wire";
import { onQueueActivity } from "../../lib/wakes/wake-hub";
import { Cleanup, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("rate limit controls", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  const cleanup = new Cleanup();
  const field = async (name: string): Promise<string | undefined> => (await client.hGet(keysOf(ns, "q").hash, name)) ?? undefined;

  beforeEach(async () => {
    ns = uniqueNs("limit");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => cleanup.run());

  it("setRateLimit writes the field (receive mode by default, burst 0), resets the state, and attributes report it", async () => {
    await client.hSet(keysOf(ns, "q").hash, "rltat", "123,456");
    await loadScripts(client, ["setRateLimit"]);
    const commands = await monitor(() =>
      rsmq.setRateLimitAsync({
        qname: "q",
        limits: [
          { max: 3, perMs: 1000 },
          { max: 100, perMs: 60_000, burst: 10 },
        ],
      }),
    );
    expect(clientCommands(commands)).to.deep.equal(["evalsha"]);
    expect(await field("ratelimit")).to.equal("r;3/1000/0,100/60000/10");
    expect(await field("rltat"), "a new limit starts with its full burst").to.equal(undefined);
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).rateLimit).to.deep.equal({
      limits: [
        { max: 3, perMs: 1000, burst: 0 },
        { max: 100, perMs: 60_000, burst: 10 },
      ],
      mode: "receive",
    });
    expect(await rsmq.setRateLimitAsync({ qname: "q", limits: [{ max: 10, perMs: 1000, burst: 5 }], mode: "pace" })).to.equal(1);
    expect(await field("ratelimit")).to.equal("p;10/1000/5");
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).rateLimit).to.deep.equal({
      limits: [{ max: 10, perMs: 1000, burst: 5 }],
      mode: "pace",
    });
  });

  it("removeRateLimit removes the limit and its state: 1, then 0; a block stays", async () => {
    await rsmq.setRateLimitAsync({ qname: "q", limits: [{ max: 1, perMs: 1000 }] });
    await client.hSet(keysOf(ns, "q").hash, "rltat", "1");
    await rsmq.rateLimitQueueAsync({ qname: "q", ms: 60_000 });
    expect(await rsmq.removeRateLimitAsync({ qname: "q" })).to.equal(1);
    expect([await field("ratelimit"), await field("rltat")]).to.deep.equal([undefined, undefined]);
    expect(await field("rlblock")).to.not.equal(undefined);
    expect(await rsmq.removeRateLimitAsync({ qname: "q" })).to.equal(0);
    expect(await rsmq.getQueueAttributesAsync({ qname: "q" })).to.not.have.property("rateLimit");
  });

  it("setRateLimit, and removeRateLimit of a limit, wake held-back consumers here and in other processes (a control wake)", async () => {
    const heard: string[] = [];
    const inProcess: Array<string | undefined> = [];
    const unsubscribe = await internalsOf(rsmq)
      .realtimeWakes()
      .subscribe(keysOf(ns, "q").wakeChannel, (text) => heard.push(String(text)));
    cleanup.add(unsubscribe);
    const stop = onQueueActivity(ns, "q", (text) => inProcess.push(text));
    cleanup.add(async () => stop());
    await rsmq.setRateLimitAsync({ qname: "q", limits: [{ max: 1, perMs: 1000 }] });
    expect(await rsmq.removeRateLimitAsync({ qname: "q" })).to.equal(1);
    expect(await rsmq.removeRateLimitAsync({ qname: "q" }), "no limit: no wake").to.equal(0);
    await rsmq.rateLimitQueueAsync({ qname: "q", ms: 10 });
    await waitFor(() => heard.length === 2, "both wakes on the channel");
    expect(inProcess).to.deep.equal(heard);
    for (const text of heard) expect(text).to.match(/^~limit:\d+$/);
  });

  it("rateLimitQueue blocks until now + ms on the server's clock; a shorter block keeps the longer one; attributes report it while in force", async () => {
    const from = await serverNowMs(client);
    expect(await rsmq.rateLimitQueueAsync({ qname: "q", ms: 60_000 })).to.equal(1);
    const to = await serverNowMs(client);
    const block = Number(await field("rlblock"));
    expect(block).to.be.within(from + 60_000, to + 60_000);
    await rsmq.rateLimitQueueAsync({ qname: "q", ms: 1000 });
    expect(Number(await field("rlblock"))).to.equal(block);
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).rateLimitedUntil).to.equal(block);
    await client.hSet(keysOf(ns, "q").hash, "rlblock", String(from - 1));
    expect(await rsmq.getQueueAttributesAsync({ qname: "q" }), "a block that ended is not reported").to.not.have.property(
      "rateLimitedUntil",
    );
  });

  it("rateLimitBounce hides the message until the block ends, gives its delivery back, and blocks the queue with ms", async () => {
    const internals = internalsOf(rsmq);
    const keys = keysOf(ns, "q");
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).rc).to.equal(1);
    const from = await serverNowMs(client);
    const ms = await internals.run(() => rateLimitBounce(internals.layout, "q", id, 5000));
    const to = await serverNowMs(client);
    expect(ms).to.be.within(5000 - (to - from), 5000);
    expect(Number(await field("rlblock"))).to.be.within(from + 5000, to + 5000);
    expect(await client.zScore(keys.messages, id)).to.equal(Number(await field("rlblock")));
    expect(await field(`${id}:rc`), "the bounce spent no delivery").to.equal("0");

    // Without ms: after the block in force (not 1000 ms), no new block; rc never below 0.
    const again = await internals.run(() => rateLimitBounce(internals.layout, "q", id));
    expect(again).to.be.within(1000, 5000);
    expect(await client.zScore(keys.messages, id)).to.equal(Number(await field("rlblock")));
    expect(await field(`${id}:rc`)).to.equal("0");
    await client.hDel(keys.hash, "rlblock");
    const plain = await internals.run(() => rateLimitBounce(internals.layout, "q", id));
    expect(plain).to.equal(1000);

    // Hard-paused: the score carries the offset, the answer does not.
    await rsmq.pauseQueueAsync({ qname: "q", hard: true });
    const start = await serverNowMs(client);
    expect(await internals.run(() => rateLimitBounce(internals.layout, "q", id))).to.equal(1000);
    expect((await client.zScore(keys.messages, id))! - HARD_PAUSE_OFFSET_MS).to.be.within(start + 1000, (await serverNowMs(client)) + 1000);

    await rsmq.deleteMessageAsync({ qname: "q", id });
    expect(await internals.run(() => rateLimitBounce(internals.layout, "q", id, 5000)), "gone").to.equal(-1);
  });

  it("the doctor knows the controls' fields: a paused, limited, blocked queue has nothing out of place", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    await rsmq.pauseQueueAsync({ qname: "q", hard: true });
    await rsmq.setRateLimitAsync({ qname: "q", limits: [{ max: 1, perMs: 1000 }] });
    await client.hSet(keysOf(ns, "q").hash, "rltat", "1");
    await rsmq.rateLimitQueueAsync({ qname: "q", ms: 60_000 });
    const report = await rsmq.doctorAsync({ qnames: ["q"] });
    expect(report.findings).to.deep.equal([]);
    expect(report.left).to.equal(0);
  });

  it("rejects queueNotFound for a missing queue, writing nothing", async () => {
    for (const call of [
      () => rsmq.setRateLimitAsync({ qname: "missing", limits: [{ max: 1, perMs: 1 }] }),
      () => rsmq.removeRateLimitAsync({ qname: "missing" }),
      () => rsmq.rateLimitQueueAsync({ qname: "missing", ms: 1000 }),
    ]) {
      expect((await rejectionOf(call())).name).to.equal("queueNotFound");
    }
    expect(await client.exists(keysOf(ns, "missing").hash)).to.equal(0);
  });

  const limit = { max: 10, perMs: 1000 };
  const invalid: Array<[string, (r: RedisSMQ) => Promise<unknown>, string]> = [
    ["a limit of max 0", (r) => r.setRateLimitAsync({ qname: "q", limits: [{ max: 0, perMs: 1000 }] }), "invalidValue"],
    ["a negative perMs", (r) => r.setRateLimitAsync({ qname: "q", limits: [{ max: 1, perMs: -1000 }] }), "invalidValue"],
    ["a fractional perMs", (r) => r.setRateLimitAsync({ qname: "q", limits: [{ max: 1, perMs: 0.5 }] }), "invalidValue"],
    ["a negative burst", (r) => r.setRateLimitAsync({ qname: "q", limits: [{ ...limit, burst: -1 }] }), "invalidValue"],
    ["an unknown key in a limit", (r) => r.setRateLimitAsync({ qname: "q", limits: [{ ...limit, per: 5 } as never] }), "invalidValue"],
    ["no limits", (r) => r.setRateLimitAsync({ qname: "q", limits: [] }), "invalidValue"],
    ["nine limits", (r) => r.setRateLimitAsync({ qname: "q", limits: Array(9).fill(limit) }), "invalidValue"],
    ["a limit that is not an object", (r) => r.setRateLimitAsync({ qname: "q", limits: [5 as never] }), "invalidValue"],
    ["mode fast", (r) => r.setRateLimitAsync({ qname: "q", limits: [limit], mode: "fast" as never }), "invalidValue"],
    ["a bad qname", (r) => r.setRateLimitAsync({ qname: "no such", limits: [limit] }), "invalidFormat"],
    ["a block of 0 ms", (r) => r.rateLimitQueueAsync({ qname: "q", ms: 0 }), "invalidValue"],
    ["a negative block", (r) => r.rateLimitQueueAsync({ qname: "q", ms: -5 }), "invalidValue"],
    ["a block as text", (r) => r.rateLimitQueueAsync({ qname: "q", ms: "5" as never }), "invalidValue"],
    ["until in the past", (r) => r.pauseQueueAsync({ qname: "q", until: Date.now() - 1000 }), "invalidValue"],
    ["until as a Date in the past", (r) => r.pauseQueueAsync({ qname: "q", until: new Date(Date.now() - 1000) }), "invalidValue"],
    ["until in seconds", (r) => r.pauseQueueAsync({ qname: "q", until: Math.floor(Date.now() / 1000) + 60 }), "invalidValue"],
    ["until two years ahead", (r) => r.pauseQueueAsync({ qname: "q", until: Date.now() + 2 * 366 * 86_400_000 }), "invalidValue"],
    ["a fractional until", (r) => r.pauseQueueAsync({ qname: "q", until: Date.now() + 60_000.5 }), "invalidValue"],
    ["hard with until", (r) => r.pauseQueueAsync({ qname: "q", until: Date.now() + 60_000, hard: true }), "invalidValue"],
    ["hard as text", (r) => r.pauseQueueAsync({ qname: "q", hard: "yes" as never }), "invalidValue"],
    ["pause without qname", (r) => r.pauseQueueAsync({} as never), "missingParameter"],
    ["resume with a bad qname", (r) => r.resumeQueueAsync({ qname: "bad name" }), "invalidFormat"],
    ["remove with a bad qname", (r) => r.removeRateLimitAsync({ qname: "bad name" }), "invalidFormat"],
  ];
  for (const [label, call, name] of invalid) {
    it(`${label}: ${name}, no command, nothing written`, async () => {
      const before = await exactState(client, ns);
      let error: Error | undefined;
      const commands = await monitor(async () => {
        error = await rejectionOf(call(rsmq));
      });
      expect(error?.name).to.equal(name);
      expect(commands).to.deep.equal([]);
      expect(await exactState(client, ns)).to.deep.equal(before);
    });
  }
});
