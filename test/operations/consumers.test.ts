/**
 * The Workers' heartbeat entries (issue 39's contract): lookAndBeat writes `~w:<id>` and the
 * `consumers` index and sweeps expired entries, answering exactly as nextDue; removeConsumer;
 * listConsumers; purge keeps the entries; the doctor knows them; and rsmq 0.12.4's receive,
 * delete and deleteQueue on a queue that has them behave as on one that has not.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import type { RedisSMQInternals } from "../../lib/internals";
import { beatJson, lookAndBeat, newWorkerId, removeConsumer } from "../../lib/operations/consumer-beat";
import type { ConsumerBeat } from "../../lib/operations/consumer-beat";
import { idleLook } from "../../lib/operations/next-due";
import type { IdleLook } from "../../lib/operations/next-due";
import { asMessage, openOldRsmq, rejectionOf } from "../support/old-rsmq";
import { allKeys, serverNowMs } from "../support/inspect";
import { exactState } from "../support/state";
import { connectionOptions, keysOf, plainClient, singleServerClient, singleServerOnly, uniqueNs } from "../support/server";
import { monitor } from "../support/wire";
import { Cleanup, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const ENTRY = /^(\d+):(\d+):(.*)$/;

function beatOf(workerId: string, ttlMs = 60_000, startedAt = 1_700_000_000_000): ConsumerBeat {
  return { workerId, json: beatJson("host-a", 4242, 5, startedAt), ttlMs };
}

describe("consumer heartbeats", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let internals: RedisSMQInternals;
  let client: RedisClientType;
  const cleanup = new Cleanup();
  const hash = (): string => keysOf(ns, "q").hash;
  const beat = (beat: ConsumerBeat, qname = "q"): Promise<IdleLook> => internals.run(() => lookAndBeat(internals.layout, qname, beat));
  const look = (qname = "q"): Promise<IdleLook> => internals.run(() => idleLook(internals.layout, qname));
  const remove = (workerId: string, qname = "q"): Promise<0 | 1> => internals.run(() => removeConsumer(internals.layout, qname, workerId));
  const field = async (name: string): Promise<string | undefined> => (await client.hGet(hash(), name)) ?? undefined;

  beforeEach(async () => {
    ns = uniqueNs("beat");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    internals = internalsOf(rsmq);
    client = await plainClient();
    cleanup.add(() => client.quit());
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => cleanup.run());

  it("newWorkerId draws 16 characters of [A-Za-z0-9], a new one each time", () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newWorkerId()));
    expect(ids.size).to.equal(1000);
    for (const id of ids) expect(id).to.match(/^[A-Za-z0-9]{16}$/);
  });

  it("a beat writes the entry (server clock, expiring after ttl) and adds the id to the index once", async () => {
    const id = newWorkerId();
    const before = await serverNowMs(client);
    await beat(beatOf(id, 30_000));
    const after = await serverNowMs(client);
    const [, expiresAt, lastSeen, json] = ENTRY.exec((await field(`~w:${id}`)) ?? "") ?? [];
    expect(Number(lastSeen)).to.be.within(before, after);
    expect(Number(expiresAt)).to.equal(Number(lastSeen) + 30_000);
    expect(JSON.parse(json)).to.deep.equal({ host: "host-a", pid: 4242, concurrency: 5, startedAt: 1_700_000_000_000 });
    expect(await field("consumers")).to.equal(id);
    // A second Worker is appended; beating again changes neither the order nor the count.
    const other = newWorkerId();
    await beat(beatOf(other));
    await beat(beatOf(id));
    expect(await field("consumers")).to.equal(`${id} ${other}`);
  });

  it("a beat sweeps the listed entries that expired or are gone, and keeps the live ones", async () => {
    const [expiring, live, gone, beater] = [newWorkerId(), newWorkerId(), newWorkerId(), newWorkerId()];
    await beat(beatOf(expiring, 50));
    await beat(beatOf(live, 60_000));
    const [, expiresAt] = ENTRY.exec((await field(`~w:${expiring}`)) ?? "") ?? [];
    // Listed without an entry: a hand edit, or an entry some other hand removed.
    await client.hSet(hash(), "consumers", `${expiring} ${live} ${gone}`);
    await waitFor(async () => (await serverNowMs(client)) > Number(expiresAt), "the short entry to expire on the server's clock");
    await beat(beatOf(beater));
    expect(await field("consumers")).to.equal(`${live} ${beater}`);
    expect(await field(`~w:${expiring}`)).to.equal(undefined);
    expect(await field(`~w:${live}`)).to.match(ENTRY);
    expect(await field(`~w:${beater}`)).to.match(ENTRY);
  });

  it("removeConsumer removes the entry and its id (the index goes with the last): 1, then 0", async () => {
    const [first, second] = [newWorkerId(), newWorkerId()];
    await beat(beatOf(first));
    await beat(beatOf(second));
    expect(await remove(first)).to.equal(1);
    expect([await field(`~w:${first}`), await field("consumers")]).to.deep.equal([undefined, second]);
    expect(await remove(first)).to.equal(0);
    expect(await remove(second)).to.equal(1);
    expect([await field(`~w:${second}`), await field("consumers")]).to.deep.equal([undefined, undefined]);
    // A queue deleted meanwhile: 0, and nothing is created.
    expect(await remove(first, "missing")).to.equal(0);
    expect(await client.exists(keysOf(ns, "missing").hash)).to.equal(0);
  });

  it("listConsumers lists the live entries only, sorted by startedAt then id, with the server's times", async () => {
    const ids = ["bbbbbbbbbbbbbbbb", "aaaaaaaaaaaaaaaa", "cccccccccccccccc", "dddddddddddddddd"];
    await beat(beatOf(ids[0], 60_000, 2000));
    await beat(beatOf(ids[1], 60_000, 2000));
    await beat(beatOf(ids[2], 60_000, 1000));
    await beat(beatOf(ids[3], 30, 500));
    const [, expiresAt] = ENTRY.exec((await field(`~w:${ids[3]}`)) ?? "") ?? [];
    await waitFor(async () => (await serverNowMs(client)) > Number(expiresAt), "the short entry to expire on the server's clock");
    const listed = await rsmq.listConsumersAsync({ qname: "q" });
    expect(listed.map((consumer) => [consumer.id, consumer.startedAt])).to.deep.equal([
      [ids[2], 1000],
      [ids[1], 2000],
      [ids[0], 2000],
    ]);
    const [, entryExpires, entrySeen] = ENTRY.exec((await field(`~w:${ids[2]}`)) ?? "") ?? [];
    expect(listed[0]).to.deep.equal({
      id: ids[2],
      host: "host-a",
      pid: 4242,
      concurrency: 5,
      startedAt: 1000,
      lastSeenAt: Number(entrySeen),
      expiresAt: Number(entryExpires),
    });
    // The callback twin, and a queue without entries.
    const viaCallback = await new Promise((resolve, reject) =>
      rsmq.listConsumers({ qname: "q" }, (error, result) => (error ? reject(error) : resolve(result))),
    );
    expect(viaCallback).to.deep.equal(listed);
    await rsmq.createQueueAsync({ qname: "quiet" });
    expect(await rsmq.listConsumersAsync({ qname: "quiet" })).to.deep.equal([]);
  });

  it("lookAndBeat answers exactly as nextDue's look on each queue state", async () => {
    /** The two looks, the reply's numbers (ms from now) within the server time between them. */
    async function expectSameLook(qname: string, state: string): Promise<IdleLook> {
      const from = await serverNowMs(client);
      const plain = await look(qname);
      const beaten = await beat(beatOf(newWorkerId()), qname);
      const elapsed = (await serverNowMs(client)) - from;
      const numbers = (value: unknown): number[] => (JSON.stringify(value).match(/-?\d+/g) ?? []).map(Number);
      const text = (value: unknown): string => JSON.stringify(value).replace(/-?\d+/g, "#");
      expect(text(beaten), state).to.equal(text(plain));
      const [a, b] = [numbers(plain), numbers(beaten)];
      // + 1: a rate limit's retry is µs rounded up to ms, so two reads less than 1 ms apart may differ by 1.
      a.forEach((n, i) => expect(n - b[i], `${state}: ${JSON.stringify([plain, beaten])}`).to.be.within(0, elapsed + 1));
      return plain;
    }
    /** What a look says, in a word: the states below must each be what their name says. */
    const kindOf = ({ nextDueMs, sweepWanted }: IdleLook): string => {
      const kind = nextDueMs === null ? "empty" : typeof nextDueMs === "number" ? (nextDueMs === 0 ? "due" : "later") : nextDueMs.reason;
      return sweepWanted ? `${kind}, sweep` : kind;
    };
    const states: Array<[string, string, (qname: string) => Promise<unknown>]> = [
      ["empty", "empty", async () => undefined],
      ["due", "due", (qname) => rsmq.sendMessageAsync({ qname, message: "now" })],
      ["delayed", "later", (qname) => rsmq.sendMessageAsync({ qname, message: "later", delay: 60 })],
      ["paused", "paused", (qname) => rsmq.sendMessageAsync({ qname, message: "now" }).then(() => rsmq.pauseQueueAsync({ qname }))],
      [
        "paused until",
        "paused",
        (qname) =>
          rsmq.sendMessageAsync({ qname, message: "now" }).then(() => rsmq.pauseQueueAsync({ qname, until: Date.now() + 600_000 })),
      ],
      [
        "limited",
        "limited",
        async (qname) => {
          await rsmq.setRateLimitAsync({ qname, limits: [{ max: 1, perMs: 600_000 }] });
          await rsmq.sendMessagesAsync({ qname, messages: [{ message: "taken" }, { message: "held" }] });
          await rsmq.receiveMessageAsync({ qname });
        },
      ],
      [
        "blocked",
        "limited",
        (qname) => rsmq.sendMessageAsync({ qname, message: "now" }).then(() => rsmq.rateLimitQueueAsync({ qname, ms: 600_000 })),
      ],
      ["blocked, nothing due", "empty", (qname) => rsmq.rateLimitQueueAsync({ qname, ms: 600_000 })],
    ];
    for (const [state, kind, prepare] of states) {
      const qname = state.replace(/\W+/g, "-");
      await rsmq.createQueueAsync({ qname });
      await prepare(qname);
      expect(kindOf(await expectSameLook(qname, state)), state).to.equal(kind);
    }
    // A retention whose sweep is wanted: the hint comes the same way.
    await rsmq.createQueueAsync({ qname: "kept", retention: 3600 });
    await rsmq.sendMessageAsync({ qname: "kept", message: "old enough to sweep" });
    expect(kindOf(await expectSameLook("kept", "sweep wanted"))).to.equal("due, sweep");
  });

  it("a missing queue: lookAndBeat and listConsumers reject queueNotFound, writing nothing", async () => {
    const before = await exactState(client, ns);
    expect((await rejectionOf(beat(beatOf(newWorkerId()), "missing"))).name).to.equal("queueNotFound");
    expect((await rejectionOf(rsmq.listConsumersAsync({ qname: "missing" }))).name).to.equal("queueNotFound");
    expect(await exactState(client, ns)).to.deep.equal(before);
  });

  const invalid: Array<[string, () => Promise<unknown>, string]> = [
    ["a short workerId", () => beat(beatOf("abc")), "invalidValue"],
    ["a workerId with a space", () => beat(beatOf("aaaaaaaa aaaaaaa")), "invalidValue"],
    ["a ttl of 0", () => beat(beatOf(newWorkerId(), 0)), "invalidValue"],
    ["a fractional ttl", () => beat(beatOf(newWorkerId(), 1.5)), "invalidValue"],
    ["a beat with a bad qname", () => beat(beatOf(newWorkerId()), "bad name"), "invalidFormat"],
    ["removeConsumer of a bad workerId", () => remove("~w:"), "invalidValue"],
    ["listConsumers without qname", () => rsmq.listConsumersAsync({} as never), "missingParameter"],
  ];
  for (const [label, call, name] of invalid) {
    it(`${label}: ${name}, no command, nothing written`, async () => {
      const before = await exactState(client, ns);
      let error: Error | undefined;
      const commands = await monitor(async () => {
        error = await rejectionOf(call());
      });
      expect(error?.name).to.equal(name);
      expect(commands).to.deep.equal([]);
      expect(await exactState(client, ns)).to.deep.equal(before);
    });
  }

  it("purge keeps the index and every entry it lists, and drops `maxed`", async () => {
    const [first, second] = [newWorkerId(), newWorkerId()];
    await beat(beatOf(first));
    await beat(beatOf(second));
    await rsmq.sendMessagesAsync({ qname: "q", messages: [{ message: "a" }, { message: "b" }] });
    await client.hSet(hash(), "maxed", "1");
    const kept = [await field("consumers"), await field(`~w:${first}`), await field(`~w:${second}`)];
    expect(await rsmq.purgeQueueAsync({ qname: "q" })).to.equal(2);
    expect([await field("consumers"), await field(`~w:${first}`), await field(`~w:${second}`)]).to.deep.equal(kept);
    expect(await field("maxed")).to.equal(undefined);
    expect((await rsmq.listConsumersAsync({ qname: "q" })).map((consumer) => consumer.id).sort()).to.deep.equal([first, second].sort());
  });

  it("the doctor finds nothing out of place in the entries, live, stale or unlisted, nor in `maxed`", async () => {
    await beat(beatOf(newWorkerId()));
    await beat(beatOf(newWorkerId(), 1));
    await client.hSet(hash(), { [`~w:${newWorkerId()}`]: "1:1:{}", maxed: "1" });
    await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    const report = await rsmq.doctorAsync({ qnames: ["q"] });
    expect(report.findings).to.deep.equal([]);
    expect(report.left).to.equal(0);
  });

  it("rsmq 0.12.4's receive, delete, pop and attributes read a queue with entries as one without; its deleteQueue leaves nothing", async function () {
    singleServerOnly(this, "rsmq 0.12.4 talks to one server");
    const redis = await singleServerClient();
    cleanup.add(() => redis.quit());
    const old = openOldRsmq(ns);
    cleanup.add(() => old.quitAsync());
    const next = cleanup.rsmq(new RedisSMQ({ ...connectionOptions(ns) }));
    const nextInternals = internalsOf(next);
    /** The same steps on a queue, through rsmq 0.12.4; what each answered, ids and times made comparable. */
    async function steps(qname: string): Promise<unknown[]> {
      const answers: unknown[] = [];
      const sent = [await old.sendMessageAsync({ qname, message: "one" }), await old.sendMessageAsync({ qname, message: "two" })];
      // Messages due in the same ms are taken in id order: once the server's clock is past "two"'s
      // score, "one" made visible again is due after it on both queues, whatever the timing.
      const twoDueAt = Number(await redis.zScore(`${ns}:${qname}`, sent[1]));
      await waitFor(async () => (await serverNowMs(redis)) > twoDueAt, "the server's clock past the second send");
      const received = asMessage(await old.receiveMessageAsync({ qname, vt: 30 }));
      answers.push([sent.indexOf(received.id), received.message, received.rc]);
      answers.push(await old.changeMessageVisibilityAsync({ qname, id: received.id, vt: 0 }));
      const again = asMessage(await old.receiveMessageAsync({ qname }));
      answers.push([sent.indexOf(again.id), again.message, again.rc]);
      answers.push(await old.deleteMessageAsync({ qname, id: again.id }));
      const popped = asMessage(await old.popMessageAsync({ qname }));
      answers.push([sent.indexOf(popped.id), popped.message]);
      answers.push(await old.receiveMessageAsync({ qname }));
      const { msgs, hiddenmsgs, totalrecv, totalsent, vt, delay, maxsize } = await old.getQueueAttributesAsync({ qname });
      answers.push({ msgs, hiddenmsgs, totalrecv, totalsent, vt, delay, maxsize });
      return answers;
    }
    await next.createQueueAsync({ qname: "plain" });
    await next.createQueueAsync({ qname: "beaten" });
    for (const id of [newWorkerId(), newWorkerId()]) {
      await nextInternals.run(() => lookAndBeat(nextInternals.layout, "beaten", beatOf(id)));
    }
    const entries = Object.keys(await redis.hGetAll(`${ns}:beaten:Q`)).filter((name) => name.startsWith("~w:") || name === "consumers");
    expect(entries).to.have.length(3);
    expect(await steps("beaten")).to.deep.equal(await steps("plain"));
    // The entries are still there, and still listed.
    expect(await next.listConsumersAsync({ qname: "beaten" })).to.have.length(2);
    expect(await old.deleteQueueAsync({ qname: "beaten" })).to.equal(1);
    expect(await allKeys(redis, `${ns}:beaten*`)).to.deep.equal([]);
  });
});
