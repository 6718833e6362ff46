/**
 * Fair queues' state (docs/fair-queues.md): one `~fq:<tenant>` field per tenant in the queue's
 * hash. The empty-queue receive sweeps them, purge drops them, rsmq 0.12.4's deleteQueue takes them
 * with the hash, the doctor reports a stale one (and its fix removes it) but not a live one, and
 * rsmq 0.12.4 never reads them as messages.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { asMessage, openNextBesideOld, openOldRsmq } from "../support/old-rsmq";
import { connectionOptions, keysOf, plainClient, singleServerClient, uniqueNs } from "../support/server";
import { allKeys, serverNowMs } from "../support/inspect";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const TENANTS = 11;

describe("Fair queues: the tenants' state", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  const keys = (): ReturnType<typeof keysOf> => keysOf(ns, "q");
  const tagFields = async (): Promise<string[]> => (await client.hKeys(keys().hash)).filter((field) => field.startsWith("~fq:")).sort();

  beforeEach(async () => {
    ns = uniqueNs("fairstate");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => cleanup.run());

  /** Each of TENANTS tenants sends 3, half of them in one batch; resolves the ids. */
  async function sendTenants(): Promise<string[]> {
    const ids: string[] = [];
    for (let t = 0; t < TENANTS; t += 1) {
      ids.push(await rsmq.sendMessageAsync({ qname: "q", message: `t${t}-0`, tenant: `tenant:${t}` }));
      const batch = await rsmq.sendMessagesAsync({
        qname: "q",
        messages: [1, 2].map((i) => ({ message: `t${t}-${i}`, tenant: `tenant:${t}` })),
      });
      ids.push(...batch.map((entry) => entry.id!));
    }
    return ids;
  }

  it("after the queue empties, one empty receive leaves no ~fq: field", async () => {
    const ids = await sendTenants();
    expect(await tagFields()).to.have.length(TENANTS);
    for (const id of ids) expect(await rsmq.deleteMessageAsync({ qname: "q", id })).to.equal(1);
    // Deletes leave the tags: only the empty-queue sweep knows none can matter.
    expect(await tagFields()).to.have.length(TENANTS);
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await tagFields()).to.deep.equal([]);
  });

  it("a receive of a queue that still holds a message keeps the tags", async () => {
    await sendTenants();
    await rsmq.receiveMessageAsync({ qname: "q" });
    expect(await tagFields()).to.have.length(TENANTS);
  });

  it("purge drops every tag", async () => {
    await sendTenants();
    expect(await rsmq.purgeQueueAsync({ qname: "q" })).to.equal(TENANTS * 3);
    expect(await tagFields()).to.deep.equal([]);
  });

  it("the doctor reports a stale tag of a queue that is not empty, and its fix removes only that one", async () => {
    await sendTenants();
    const now = await serverNowMs(client);
    // Two hours back: below now - 60 s and below every waiting message's score.
    await client.hSet(keys().hash, "~fq:gone", String(now - 7_200_000));
    // A tag that is no number (written by hand) is read by no send either.
    await client.hSet(keys().hash, "~fq:junk", "not a number");
    const report = await rsmq.doctorAsync({ qnames: ["q"] });
    const stale = report.findings.find((finding) => finding.kind === "staleFairTag");
    expect(stale).to.include({ found: 2, repairable: true });
    expect(stale!.examples.map(({ item }) => item).sort()).to.deep.equal(["~fq:gone", "~fq:junk"]);
    expect(report.findings.map((finding) => finding.kind)).to.deep.equal(["staleFairTag"]);

    const fixed = await rsmq.doctorAsync({ qnames: ["q"], fix: true });
    expect(fixed.findings.find((finding) => finding.kind === "staleFairTag")).to.include({ found: 2, fixed: 2, left: 0 });
    expect(await tagFields()).to.have.length(TENANTS);
    expect(await client.hExists(keys().hash, "~fq:gone")).to.equal(false);
    expect(await client.hExists(keys().hash, "~fq:junk")).to.equal(false);
    expect((await rsmq.doctorAsync({ qnames: ["q"] })).findings).to.deep.equal([]);
  });

  it("the doctor keeps a tag older than 60 s while a message older still waits at its level", async () => {
    const now = await serverNowMs(client);
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "old", tenant: "a" });
    // The waiting message is put 10 minutes back: the head of level 0. A tag above it still counts.
    await client.zAdd(keys().messages, { score: now - 600_000, value: id });
    await client.hSet(keys().hash, "~fq:a", String(now - 300_000));
    expect((await rsmq.doctorAsync({ qnames: ["q"], fix: true })).findings).to.deep.equal([]);
    expect(await tagFields()).to.deep.equal(["~fq:a"]);
  });
});

describe("Fair queues beside rsmq 0.12.4", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let client: RedisClientType;
  afterEach(() => cleanup.run());

  beforeEach(async () => {
    ns = uniqueNs("fairold");
    client = await singleServerClient();
    cleanup.add(() => client.quit());
  });

  it("rsmq 0.12.4's deleteQueue leaves no key", async () => {
    const next = cleanup.rsmq(openNextBesideOld(ns));
    const old = openOldRsmq(ns);
    cleanup.add(() => old.quitAsync());
    await next.createQueueAsync({ qname: "q" });
    await next.sendMessagesAsync({
      qname: "q",
      messages: [
        { message: "a", tenant: "A" },
        { message: "b", tenant: "B" },
      ],
    });
    await next.sendMessageAsync({ qname: "q", message: "c", tenant: "C", attributes: { n: 1 } });
    expect((await client.hKeys(`${ns}:q:Q`)).filter((field) => field.startsWith("~fq:"))).to.have.length(3);
    expect(await old.deleteQueueAsync({ qname: "q" })).to.equal(1);
    expect(await allKeys(client, `${ns}:*`)).to.deep.equal([]);
  });

  it("rsmq 0.12.4 reads a queue with tags as one without: getQueueAttributes, receive, delete", async () => {
    const next = cleanup.rsmq(openNextBesideOld(ns));
    const old = openOldRsmq(ns);
    cleanup.add(() => old.quitAsync());
    for (const qname of ["fair", "plain"]) await next.createQueueAsync({ qname });
    for (let i = 0; i < 3; i += 1) {
      await next.sendMessageAsync({ qname: "fair", message: `m${i}`, tenant: `t${i}` });
      await next.sendMessageAsync({ qname: "plain", message: `m${i}` });
    }
    const fair = await old.getQueueAttributesAsync({ qname: "fair" });
    const plain = await old.getQueueAttributesAsync({ qname: "plain" });
    const counts = ({ msgs, totalsent, totalrecv }: RedisSMQ.QueueAttributes): number[] => [msgs, totalsent, totalrecv];
    expect(counts(fair)).to.deep.equal(counts(plain));
    // Not compared with the plain queue's: rsmq 0.12.4 builds its "now" from TIME's microseconds
    // without their leading zeros, so a message sent this very ms may count as hidden to it. The
    // tenants' messages are scored before now: visible.
    expect(fair.hiddenmsgs).to.equal(0);
    const bodies: Record<string, string[]> = { fair: [], plain: [] };
    for (const qname of ["fair", "plain"]) {
      for (let i = 0; i < 3; i += 1) {
        const message = asMessage(await old.receiveMessageAsync({ qname }));
        expect(Object.keys(message).sort()).to.deep.equal(["fr", "id", "message", "rc", "sent"]);
        bodies[qname].push(message.message);
        expect(await old.deleteMessageAsync({ qname, id: message.id })).to.equal(1);
      }
      expect(await old.receiveMessageAsync({ qname })).to.deep.equal({});
    }
    expect(bodies.fair.sort()).to.deep.equal(bodies.plain.sort());
  });
});
