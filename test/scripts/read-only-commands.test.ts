/**
 * Read-only scripts go as EVALSHA_RO (EVAL_RO after NOSCRIPT) on Redis 7, and as plain EVALSHA
 * (EVAL) where the server refuses those: a server before Redis 7 knows no such command, and an ACL
 * written for an earlier release of rsmq-next grants only EVALSHA and EVAL. The test suite has only
 * Redis 7 to run on, so a server started with `--rename-command EVALSHA_RO ""` (and EVAL_RO) stands
 * in for Redis 6: it answers "ERR unknown command" as Redis 6 does. Either refusal is learnt from
 * the first call and costs one refused command per connection, not per call.
 */
import { expect } from "chai";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import Redis from "ioredis";
import RedisSMQ = require("../../lib");
import { startRedisServer } from "../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../lib/cli/redis/redis-server";
import { readPeek, readQueueStats } from "../../lib/cli/queue-reads";
import { nextDue } from "../../lib/operations/next-due";
import { internalsOf } from "../../lib/internals";
import { documentedRules, forTest, PASSWORD } from "../support/acl-rules";
import { singleServerClient, singleServerOptions, uniqueNs } from "../support/server";
import { MonitorWatch } from "../support/monitor-socket";
import { connectionOptionsAs } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single");

/** Every read-only call of an instance, on queue `q`, with what it answered. */
async function everyRead(rsmq: RedisSMQ): Promise<string[]> {
  const queue = internalsOf(rsmq);
  return [
    `attributes ${(await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs}`,
    `peekMessages ${(await rsmq.peekMessagesAsync({ qname: "q" })).length}`,
    `peekDeadLetters ${(await rsmq.peekDeadLettersAsync({ qname: "q" })).length}`,
    `stats ${(await readQueueStats(rsmq, "q")).msgs}`,
    `peek ${(await readPeek(rsmq, "q", 10)).messages.length}`,
    `nextDue ${JSON.stringify(await queue.run(() => nextDue(queue.layout, "q")))}`,
  ];
}

const READ_ANSWERS = ["attributes 1", "peekMessages 1", "peekDeadLetters 1", "stats 1", "peek 1", "nextDue 0"];

/** `errorstat_<prefix>` of INFO errorstats: error replies the server gave, by their first word. */
async function errorReplies(client: RedisClientType, prefix: string): Promise<number> {
  const match = new RegExp(`^errorstat_${prefix}:count=(\\d+)`, "m").exec(await client.info("errorstats"));
  return match ? Number(match[1]) : 0;
}

/** The script commands clients sent, as MONITOR saw them (refused commands never reach MONITOR). */
async function scriptCommandsDuring(server: { host: string; port: number }, action: () => Promise<unknown>): Promise<string[]> {
  const watch = await MonitorWatch.open([server]);
  try {
    await action();
    return (await watch.commands()).filter(({ fromScript, args }) => !fromScript && /^eval/.test(args[0])).map(({ args }) => args[0]);
  } finally {
    await watch.close();
  }
}

describe("read-only scripts on a server without EVALSHA_RO (Redis before 7, stood in for by rename-command)", () => {
  let server: RedisServerProcess;
  let admin: RedisClientType;
  let ns: string;
  const opened: Array<{ quitAsync(): Promise<unknown> } | { quit(): Promise<unknown> }> = [];

  before(async () => {
    server = await startRedisServer({ args: ["--rename-command", "EVALSHA_RO", "", "--rename-command", "EVAL_RO", ""] });
    admin = createClient({ url: server.url }) as RedisClientType;
    admin.on("error", () => undefined);
    await admin.connect();
  });
  after(async () => {
    await admin?.quit();
    await server?.stop();
  });
  beforeEach(async () => {
    ns = uniqueNs("ro");
    const setup = new RedisSMQ({ host: server.host, port: server.port, ns });
    await setup.createQueueAsync({ qname: "q" });
    await setup.sendMessageAsync({ qname: "q", message: "x" });
    await setup.quitAsync();
    await admin.sendCommand(["SCRIPT", "FLUSH"]);
  });
  afterEach(async () => {
    for (const instance of opened.splice(0)) await ("quitAsync" in instance ? instance.quitAsync() : instance.quit());
  });

  const clients = {
    "node-redis": (): RedisSMQ => new RedisSMQ({ host: server.host, port: server.port, ns }),
    ioredis: (): RedisSMQ => {
      const client = new Redis({ host: server.host, port: server.port });
      client.on("error", () => undefined);
      opened.push(client);
      return new RedisSMQ({ client, ns });
    },
  };

  for (const [kind, open] of Object.entries(clients)) {
    it(`${kind}: answers every read, with one refused EVALSHA_RO on the connection, then one EVALSHA per read`, async () => {
      const rsmq = open();
      opened.unshift(rsmq);
      // Connected first: a client's own set-up (CLIENT SETINFO on Redis 7.0) is refused with ERR too.
      expect(await rsmq.listQueuesAsync()).to.deep.equal(["q"]);
      let refusedBefore = 0;
      let answers: string[] = [];
      // Counted inside, so that the monitor's own connection is not counted.
      const sent = await scriptCommandsDuring(server, async () => {
        refusedBefore = await errorReplies(admin, "ERR");
        answers = await everyRead(rsmq);
      });
      expect(answers).to.deep.equal(READ_ANSWERS);
      // The first read: EVALSHA_RO refused (unseen by MONITOR), EVALSHA answered NOSCRIPT, then EVAL.
      expect(await errorReplies(admin, "ERR")).to.equal(refusedBefore + 1);
      // peekMessages and peek share a script: five scripts for the six reads.
      expect(sent.filter((name) => name === "eval")).to.have.length(5);
      expect(sent.filter((name) => name === "evalsha")).to.have.length(READ_ANSWERS.length);
      // Cached now: each read is one EVALSHA, and nothing more is refused.
      let refusedAfter = 0;
      const again = await scriptCommandsDuring(server, async () => {
        refusedAfter = await errorReplies(admin, "ERR");
        answers = await everyRead(rsmq);
      });
      expect(answers).to.deep.equal(READ_ANSWERS);
      expect(again).to.deep.equal(READ_ANSWERS.map(() => "evalsha"));
      expect(await errorReplies(admin, "ERR")).to.equal(refusedAfter);
    });
  }
});

describe("read-only scripts for a user whose ACL grants EVALSHA and EVAL only (as docs/acl.md did before)", () => {
  let ns: string;
  let user: string;
  let admin: RedisClientType;
  let rsmq: RedisSMQ | undefined;

  beforeEach(async () => {
    ns = uniqueNs("ro");
    user = `ro-${ns}`;
    admin = await singleServerClient();
    const setup = new RedisSMQ(singleServerOptions(ns));
    await setup.createQueueAsync({ qname: "q" });
    await setup.sendMessageAsync({ qname: "q", message: "x" });
    await setup.quitAsync();
  });
  afterEach(async () => {
    await rsmq?.quitAsync();
    await admin.sendCommand(["ACL", "DELUSER", user]);
    await admin.quit();
  });

  it("answers every read, with one refused EVALSHA_RO on the connection, then one EVALSHA per read", async () => {
    const withoutReadOnly = documentedRules(false)
      .get("admin")!
      .filter((rule) => rule !== "+evalsha_ro" && rule !== "+eval_ro");
    await admin.sendCommand(["ACL", "SETUSER", user, ...forTest(withoutReadOnly, ns)]);
    rsmq = new RedisSMQ(connectionOptionsAs(ns, user, PASSWORD));
    expect(await rsmq.listQueuesAsync()).to.deep.equal(["q"]);
    const refusedBefore = await errorReplies(admin, "NOPERM");
    expect(await everyRead(rsmq)).to.deep.equal(READ_ANSWERS);
    expect(await everyRead(rsmq)).to.deep.equal(READ_ANSWERS);
    expect(await errorReplies(admin, "NOPERM")).to.equal(refusedBefore + 1);
  });
});
