/**
 * The doctor's users of docs/acl.md (read from the file): the read-only one finds what the
 * default user finds and writes nothing; the fixing one repairs; and without any one command of
 * its line, each fails with a noPermission error (the least it needs).
 */
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { commandsOf, forTest, PASSWORD } from "../support/acl-rules";
import { connectionOptions, keysOf, onCluster, plainClient, uniqueNs } from "../support/server";
import { connectionOptionsAs, onEveryServer } from "../support/worker";
import { exactState } from "../support/state";
import { allKeys } from "../support/inspect";
import { plantMessages } from "../support/retention";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

/** The `ACL SETUSER <user>` line of docs/acl.md's doctor section for the run's target. */
function doctorLine(user: "rsmq-doctor" | "rsmq-doctor-fix"): string[] {
  const doc = readFileSync(join(__dirname, "..", "..", "..", "docs", "acl.md"), "utf8");
  const section = doc.slice(doc.indexOf("\n## The doctor\n"));
  const lines = [...section.matchAll(new RegExp(`^ACL SETUSER ${user} (.+)$`, "gm"))].map((match) => match[1].trim().split(/\s+/));
  expect(lines, `docs/acl.md: a ${user} line for one server and one for Redis Cluster`).to.have.length(2);
  return onCluster() ? lines[1] : lines[0];
}

describe("ACL: the doctor's users of docs/acl.md", function () {
  this.timeout(60_000);
  let ns: string;
  let user: string;
  let setup: RedisSMQ;
  let redis: RedisClientType;
  let asUser: RedisSMQ | undefined;

  beforeEach(async () => {
    ns = uniqueNs("acldoc");
    user = `acl-${ns}`;
    setup = new RedisSMQ(connectionOptions(ns));
    redis = await plainClient();
  });
  afterEach(async () => {
    await asUser?.quitAsync().catch(() => undefined);
    asUser = undefined;
    await onEveryServer(["ACL", "DELUSER", user]);
    await setup.quitAsync();
    await redis.quit();
  });

  /**
   * Something of every kind each script handles: an orphaned field, a member and a body apart, a
   * missing setting, the registry both ways, an expired message.
   */
  async function plant(): Promise<void> {
    for (const key of await allKeys(redis, `${ns}:*`)) await redis.del(key);
    for (const qname of ["q", "unlisted"]) await setup.createQueueAsync({ qname });
    await setup.sendMessageAsync({ qname: "q", message: "live" });
    const q = keysOf(ns, "q");
    await redis.hSet(q.hash, { "0000000001aaaaaaaaaaaaaaaaaaaaa1:tp": "{}", "0000000001aaaaaaaaaaaaaaaaaaaaa2": "body", retention: "x" });
    await redis.hDel(q.hash, "delay");
    // An expired message no receive meets, for the retention sweep a fix runs.
    await setup.createQueueAsync({ qname: "aging", retention: 3600 });
    await plantMessages(redis, ns, "aging", { count: 1, ageSeconds: 7200, dueInMs: 600_000 });
    await redis.zAdd(q.messages, { score: 1, value: "0000000001aaaaaaaaaaaaaaaaaaaaa3" });
    await redis.sRem(q.registry, "unlisted");
    await redis.sAdd(q.registry, "ghost");
  }

  /**
   * The doctor as the user, its error or report; scripts flushed first, so that EVAL runs too. One
   * connection for the test: Redis applies an ACL change to connections already open.
   */
  async function doctorAsUser(fix: boolean): Promise<Error | RedisSMQ.DoctorReport> {
    await onEveryServer(["SCRIPT", "FLUSH"]);
    asUser ??= new RedisSMQ(connectionOptionsAs(ns, user, PASSWORD));
    return asUser.doctorAsync({ fix }).catch((error: Error) => error);
  }

  for (const [name, fix] of [
    ["rsmq-doctor", false],
    ["rsmq-doctor-fix", true],
  ] as const) {
    it(`${name}: ${fix ? "repairs" : "finds what the default user finds, writing nothing"} with its line; each command fewer fails with noPermission`, async () => {
      const rules = doctorLine(name);
      await onEveryServer(["ACL", "SETUSER", user, ...forTest(rules, ns)]);
      await plant();
      const expected = await setup.doctorAsync({ fix });
      await plant();
      const before = await exactState(redis, ns);
      const report = await doctorAsUser(fix);
      expect(report).to.deep.equal(expected);
      if (!fix) expect(await exactState(redis, ns)).to.deep.equal(before);
      // With EVALSHA granted, a refused EVALSHA_RO or EVAL_RO only makes the connection send reads by EVALSHA and EVAL.
      for (const command of commandsOf(rules).filter((granted) => !(fix && /^eval(sha)?_ro$/.test(granted)))) {
        await plant();
        await onEveryServer(["ACL", "SETUSER", user, `-${command}`]);
        const refused = await doctorAsUser(fix);
        expect(refused instanceof Error && refused.name, `a noPermission error without +${command}; got ${String(refused)}`).to.equal(
          "noPermission",
        );
        await onEveryServer(["ACL", "SETUSER", user, `+${command}`]);
      }
    });
  }
});
