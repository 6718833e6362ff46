/**
 * Fair queues beside the rest (docs/fair-queues.md): priorities win over fairness, a delayed
 * message keeps its due time, a send without a tenant keeps its real-time score and writes no tag,
 * a hard pause scores in the shifted space, a paced rate limit wins over the tenant, batch entries
 * and sends with a dedupId are scored fairly, and bad tenants are refused before any round trip.
 */
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { FAIR_BAND_MS, HARD_PAUSE_OFFSET_MS, SHIFTED_FROM } from "../../lib/operations/queue-fields";
import { asMessage, rejectionOf } from "../support/old-rsmq";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { serverNowMs } from "../support/inspect";
import { clientCommands, monitor } from "../support/wire";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const BAND_MS = FAIR_BAND_MS;
const STEP_MS = 1e12;

describe("Fair queues: priorities, delays, pauses, pace, batches", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  const keys = (): ReturnType<typeof keysOf> => keysOf(ns, "q");
  const scoreOf = async (id: string): Promise<number> => Number(await client.zScore(keys().messages, id));
  const tagsOf = async (): Promise<Record<string, string>> =>
    Object.fromEntries(Object.entries(await client.hGetAll(keys().hash)).filter(([field]) => field.startsWith("~fq:")));

  beforeEach(async () => {
    ns = uniqueNs("fairedge");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => cleanup.run());

  async function receiveAll(): Promise<string[]> {
    const got: string[] = [];
    for (;;) {
      const message = await rsmq.receiveMessageAsync({ qname: "q" });
      if (!("id" in message)) return got;
      got.push(message.message);
    }
  }

  it("a lone tenant's messages go 60 s back, 1 ms apart, and its tag is the last score", async () => {
    const before = await serverNowMs(client);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push(await rsmq.sendMessageAsync({ qname: "q", message: `a${i}`, tenant: "a" }));
    const after = await serverNowMs(client);
    const first = await scoreOf(ids[0]);
    expect(first).to.be.within(before - BAND_MS, after - BAND_MS);
    expect([await scoreOf(ids[1]), await scoreOf(ids[2])]).to.deep.equal([first + 1, first + 2]);
    expect(await tagsOf()).to.deep.equal({ "~fq:a": String(first + 2) });
  });

  it("the doctor's band is the sends' band (lua/shared/fair-stale.lua, written again there)", () => {
    const lua = readFileSync(join(__dirname, "../../../lua/shared/fair-stale.lua"), "utf8");
    expect(/FAIR_STALE_BAND_MS = (\d+)/.exec(lua)?.[1]).to.equal(String(FAIR_BAND_MS));
  });

  it("a send without a tenant keeps its real-time score and writes no tag", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "f", tenant: "F" });
    const before = await serverNowMs(client);
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "plain" });
    const after = await serverNowMs(client);
    expect(await scoreOf(id)).to.be.within(before, after);
    expect(Object.keys(await tagsOf())).to.deep.equal(["~fq:F"]);
  });

  it("priorities win: a level-5 message comes before a tenant's level-0 backlog, and levels keep their own heads", async () => {
    await rsmq.sendMessagesAsync({ qname: "q", messages: Array.from({ length: 5 }, (_, i) => ({ message: `F${i}`, tenant: "F" })) });
    await rsmq.sendMessageAsync({ qname: "q", message: "P-plain", priority: 5 });
    const quiet = await rsmq.sendMessageAsync({ qname: "q", message: "P-Q", priority: 5, tenant: "Q" });
    const now = await serverNowMs(client);
    // Q's level-5 head is the plain level-5 message: Q ties it and comes after it (its id is later).
    expect(await scoreOf(quiet)).to.be.within(now - 5 * STEP_MS - 1000, now - 5 * STEP_MS);
    expect(await receiveAll()).to.deep.equal(["P-plain", "P-Q", "F0", "F1", "F2", "F3", "F4"]);
  });

  it("a delayed message keeps its due time and writes no tag", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "f", tenant: "F" });
    const tags = await tagsOf();
    const before = await serverNowMs(client);
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "later", tenant: "F", delay: 30 });
    const after = await serverNowMs(client);
    expect(await scoreOf(id)).to.be.within(before + 30_000, after + 30_000);
    expect(await tagsOf()).to.deep.equal(tags);
  });

  it("batch entries are scored fairly in entry order: F F F Q is received F Q F F", async () => {
    const results = await rsmq.sendMessagesAsync({
      qname: "q",
      messages: [
        { message: "F0", tenant: "F" },
        { message: "F1", attributes: { tenant: "F", n: 1 } },
        { message: "F2", tenant: "F" },
        { message: "Q0", tenant: "Q" },
        { message: "plain" },
      ],
    });
    const scores = await Promise.all(results.map((entry) => scoreOf(entry.id!)));
    expect(scores.slice(1, 4).map((score) => score - scores[0])).to.deep.equal([1, 2, 0]);
    expect(await receiveAll()).to.deep.equal(["F0", "Q0", "F1", "F2", "plain"]);
    expect(await client.hGet(keys().hash, `${results[1].id}:at`)).to.equal(JSON.stringify({ a: { tenant: "F", n: 1 } }));
  });

  it("a send with a dedupId is scored fairly too, and its duplicate writes nothing", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "F0", tenant: "F" });
    await rsmq.sendMessageAsync({ qname: "q", message: "F1", tenant: "F" });
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "Q0", tenant: "Q", dedupId: "once" });
    const tags = await tagsOf();
    expect(tags["~fq:Q"]).to.equal(String(await scoreOf(id)));
    expect(await rsmq.sendMessageAsync({ qname: "q", message: "Q0", tenant: "Q", dedupId: "once" })).to.equal(id);
    expect(await tagsOf()).to.deep.equal(tags);
    expect(await receiveAll()).to.deep.equal(["F0", "Q0", "F1"]);
  });

  it("a hard pause: tenants' sends are scored in the shifted space, and the order holds after the resume", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "F0", tenant: "F" });
    await rsmq.pauseQueueAsync({ qname: "q", hard: true });
    const ids = [
      await rsmq.sendMessageAsync({ qname: "q", message: "F1", tenant: "F" }),
      await rsmq.sendMessageAsync({ qname: "q", message: "F2", tenant: "F" }),
      await rsmq.sendMessageAsync({ qname: "q", message: "Q0", tenant: "Q" }),
    ];
    const scores = await Promise.all(ids.map(scoreOf));
    for (const score of scores) expect(score).to.be.at.least(SHIFTED_FROM);
    // The tags are unshifted: they outlive the resume.
    for (const tag of Object.values(await tagsOf())) expect(Number(tag)).to.be.below(SHIFTED_FROM);
    expect(scores[2] - HARD_PAUSE_OFFSET_MS).to.equal(Number((await tagsOf())["~fq:Q"]));
    await rsmq.resumeQueueAsync({ qname: "q" });
    expect(await receiveAll()).to.deep.equal(["F0", "Q0", "F1", "F2"]);
  });

  it("a paced rate limit wins: the pace scores the send, the tenant is only stored", async () => {
    await rsmq.setRateLimitAsync({ qname: "q", limits: [{ max: 1000, perMs: 1000 }], mode: "pace" });
    const before = await serverNowMs(client);
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "paced", tenant: "F" });
    const after = await serverNowMs(client);
    expect(await scoreOf(id)).to.be.within(before, after + 1);
    expect(await tagsOf()).to.deep.equal({});
    expect(await client.hGet(keys().hash, `${id}:at`)).to.equal(JSON.stringify({ a: { tenant: "F" } }));
  });

  it("popMessage too: a quiet tenant's first message goes to the head, ahead of a flood", async () => {
    await rsmq.sendMessagesAsync({ qname: "q", messages: Array.from({ length: 50 }, (_, i) => ({ message: `F${i}`, tenant: "F" })) });
    await rsmq.sendMessageAsync({ qname: "q", message: "Q0", tenant: "Q" });
    expect(asMessage(await rsmq.popMessageAsync({ qname: "q" })).message).to.equal("F0");
    expect(asMessage(await rsmq.popMessageAsync({ qname: "q" })).message).to.equal("Q0");
  });

  describe("bad input: refused before any round trip, nothing written", () => {
    const cases: Array<[string, Partial<RedisSMQ.SendMessageOptions>, RegExp]> = [
      ["a tenant of 129 characters", { tenant: "t".repeat(129) }, /tenant/],
      ["an empty tenant", { tenant: "" }, /tenant/],
      ["a tenant with a control character", { tenant: "a\nb" }, /tenant/],
      ["a tenant that is not a string", { tenant: 7 as unknown as string }, /tenant/],
      ["a tenant attribute that differs from the option", { tenant: "a", attributes: { tenant: "b" } }, /tenant/],
      [
        "11 attributes (the tenant counts)",
        { tenant: "a", attributes: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i])) },
        /at most 10 attributes/,
      ],
    ];
    for (const [what, options, message] of cases) {
      it(`refuses ${what}`, async () => {
        let error: Error | undefined;
        const commands = await monitor(async () => {
          error = await rejectionOf(rsmq.sendMessageAsync({ qname: "q", message: "m", ...options }));
        });
        expect(error!.name).to.equal("invalidValue");
        expect(error!.message).to.match(message);
        expect(clientCommands(commands)).to.deep.equal([]);
        expect(await client.zCard(keys().messages)).to.equal(0);
        expect(await tagsOf()).to.deep.equal({});
      });
    }
  });
});
