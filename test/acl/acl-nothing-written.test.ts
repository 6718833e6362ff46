/**
 * A command the ACL refuses fails the whole script before it writes anything: for each role in
 * docs/acl.md, the user loses one command at a time and runs each script of the role once;
 * every call that fails with `noPermission` must leave the namespace exactly as it found it (no
 * message id without its body, no counter bumped, no queue half-created). Each probe is one script
 * (a cluster's separate registry SADD/SREM, which runs before or after the script by design, is
 * left out), so what it found is the state just before it.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import type { Operation } from "../../lib/operations/operation";
import { createQueue } from "../../lib/operations/create-queue";
import { deadLetter } from "../../lib/operations/dead-letter";
import { deadLetterCopy } from "../../lib/operations/dead-letter-copy";
import { redriveAtomically } from "../../lib/operations/redrive-atomically";
import { redriveClaim } from "../../lib/operations/redrive-claim";
import { redriveCopy } from "../../lib/operations/redrive-copy";
import { deleteQueue } from "../../lib/operations/delete-queue";
import { resumeQueue } from "../../lib/operations/resume-queue";
import { pauseScores } from "../../lib/operations/pause-queue";
import { rateLimitBounce } from "../../lib/operations/rate-limit-bounce";
import { beatJson, lookAndBeat, removeConsumer } from "../../lib/operations/consumer-beat";
import { internalsOf } from "../../lib/internals";
import { fireSchedule } from "../../lib/operations/fire-schedule";
import { readSchedules } from "../../lib/operations/list-schedules";
import { planFire } from "../../lib/schedules/fire-plan";
import { commandsOf, forTest, PASSWORD, documentedRules } from "../support/acl-rules";
import type { Role } from "../support/acl-rules";
import { allKeys } from "../support/inspect";
import { connectionOptions, keysOf, onCluster, plainClient, uniqueNs } from "../support/server";
import { exactState } from "../support/state";
import { connectionOptionsAs, onEveryServer } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

/**
 * Commands that scripts write with: each one's loss must be refused by some probe. In a cluster the
 * registry's SADD and SREM are plain commands beside the scripts (it lives in another slot).
 */
function scriptWrites(): string[] {
  const writes = ["zadd", "hset", "hsetnx", "hincrby", "hdel", "zrem", "del", "unlink", "set"];
  return onCluster() ? writes : [...writes, "sadd", "srem"];
}

const why = { source: "q", deliveries: 1, reason: "poison" as const, error: "boom" };

/** The script alone, without a cluster's plain registry write before or after it. */
function scriptOnly<T>(command: Operation<T>): Operation<T> {
  return { script: command.script, keys: command.keys, args: command.args, parse: command.parse };
}

interface Probe {
  readonly name: string;
  readonly roles: readonly Role[];
  /** Only where the library runs it (the atomic scripts need both queues in one slot). */
  readonly singleServerOnly?: boolean;
  /** Made by the default user; returns what the call needs. */
  prepare(setup: RedisSMQ, qname: string, dlq: string): Promise<string[]>;
  call(user: { plain: RedisSMQ; realtime: RedisSMQ }, qname: string, dlq: string, ids: string[]): Promise<unknown>;
}

const CONSUMERS: readonly Role[] = ["worker", "admin"];

/** Two messages; the first received once already and visible again, so both first and later receives run. */
async function twoMessages(setup: RedisSMQ, qname: string): Promise<string[]> {
  await setup.createQueueAsync({ qname });
  const first = await setup.sendMessageAsync({ qname, message: "first" });
  const second = await setup.sendMessageAsync({ qname, message: "second" });
  await setup.receiveMessageAsync({ qname, vt: 0 });
  return [first, second];
}

/** A queue with the schedule `tick`, whose first slot (its upsert's time) is due at once. */
async function scheduled(setup: RedisSMQ, qname: string): Promise<string[]> {
  await setup.createQueueAsync({ qname });
  await setup.upsertScheduleAsync({ qname, name: "tick", every: 3_600_000, message: "tick" });
  return [];
}

const PROBES: Probe[] = [
  {
    name: "sendMessage",
    roles: ["producer", "admin"],
    prepare: async (setup, qname) => [await setup.createQueueAsync({ qname }).then(() => "")],
    call: ({ plain }, qname) => plain.sendMessageAsync({ qname, message: "m" }),
  },
  {
    name: "sendMessage with realtime",
    roles: ["producer", "admin"],
    prepare: async (setup, qname) => [await setup.createQueueAsync({ qname }).then(() => "")],
    call: ({ realtime }, qname) => realtime.sendMessageAsync({ qname, message: "m" }),
  },
  {
    name: "sendMessage with a dedupId",
    roles: ["producer", "admin"],
    prepare: async (setup, qname) => [await setup.createQueueAsync({ qname }).then(() => "")],
    call: ({ realtime }, qname) => realtime.sendMessageAsync({ qname, message: "m", dedupId: "once" }),
  },
  {
    name: "sendMessages with a dedupId",
    roles: ["producer", "admin"],
    prepare: async (setup, qname) => [await setup.createQueueAsync({ qname }).then(() => "")],
    call: ({ realtime }, qname) => realtime.sendMessagesAsync({ qname, messages: [{ message: "m", dedupId: "once" }, { message: "n" }] }),
  },
  {
    name: "receiveMessages",
    roles: CONSUMERS,
    prepare: (setup, qname) => twoMessages(setup, qname),
    call: ({ plain }, qname) => plain.receiveMessagesAsync({ qname, count: 3 }),
  },
  {
    name: "popMessage",
    roles: CONSUMERS,
    prepare: (setup, qname) => twoMessages(setup, qname),
    call: ({ plain }, qname) => plain.popMessageAsync({ qname }),
  },
  {
    name: "deleteMessage",
    roles: CONSUMERS,
    prepare: (setup, qname) => twoMessages(setup, qname),
    call: ({ plain }, qname, _dlq, [id]) => plain.deleteMessageAsync({ qname, id }),
  },
  {
    name: "deleteMessages",
    roles: CONSUMERS,
    prepare: (setup, qname) => twoMessages(setup, qname),
    call: ({ plain }, qname, _dlq, ids) => plain.deleteMessagesAsync({ qname, ids }),
  },
  {
    name: "changeMessageVisibility",
    roles: CONSUMERS,
    prepare: (setup, qname) => twoMessages(setup, qname),
    call: ({ plain }, qname, _dlq, [id]) => plain.changeMessageVisibilityAsync({ qname, id, vt: 10 }),
  },
  {
    name: "changeMessagesVisibility",
    roles: CONSUMERS,
    prepare: (setup, qname) => twoMessages(setup, qname),
    call: ({ plain }, qname, _dlq, ids) => plain.changeMessagesVisibilityAsync({ qname, ids, vt: 10 }),
  },
  {
    name: "deadLetter into an existing queue",
    roles: CONSUMERS,
    singleServerOnly: true,
    prepare: async (setup, qname, dlq) => {
      await setup.createQueueAsync({ qname: dlq });
      return twoMessages(setup, qname);
    },
    call: ({ plain }, qname, dlq, [id]) => {
      const { layout, run } = internalsOf(plain);
      return run(() => deadLetter(layout, qname, dlq, id, why));
    },
  },
  {
    name: "deadLetter creating its queue",
    roles: ["admin"],
    singleServerOnly: true,
    prepare: (setup, qname) => twoMessages(setup, qname),
    call: ({ plain }, qname, dlq, [id]) => {
      const { layout, run } = internalsOf(plain);
      return run(() => deadLetter(layout, qname, dlq, id, why));
    },
  },
  {
    name: "deadLetterCopy into an existing queue",
    roles: CONSUMERS,
    prepare: async (setup, qname, dlq) => {
      await setup.createQueueAsync({ qname: dlq });
      return twoMessages(setup, qname);
    },
    call: ({ plain }, _qname, dlq, [id]) => {
      const { layout, run } = internalsOf(plain);
      return run(() => scriptOnly(deadLetterCopy(layout, dlq, id, "first", why, { vt: 30, delay: 0, maxsize: 65536 })));
    },
  },
  {
    name: "deadLetterCopy creating its queue",
    roles: ["admin"],
    prepare: (setup, qname) => twoMessages(setup, qname),
    call: ({ plain }, _qname, dlq, [id]) => {
      const { layout, run } = internalsOf(plain);
      return run(() => scriptOnly(deadLetterCopy(layout, dlq, id, "first", why, { vt: 30, delay: 0, maxsize: 65536 })));
    },
  },
  {
    name: "createQueue",
    roles: ["admin"],
    prepare: async () => [],
    call: ({ plain }, qname) => {
      const { layout, run } = internalsOf(plain);
      return run(() => scriptOnly(createQueue(layout, { qname })));
    },
  },
  {
    name: "setQueueAttributes",
    roles: ["admin"],
    prepare: (setup, qname) => twoMessages(setup, qname),
    call: ({ plain }, qname) => plain.setQueueAttributesAsync({ qname, vt: 20, maxsize: 2048 }),
  },
  {
    name: "deleteQueue",
    roles: ["admin"],
    prepare: (setup, qname) => twoMessages(setup, qname),
    call: ({ plain }, qname) => {
      const { layout, run } = internalsOf(plain);
      return run(() => scriptOnly(deleteQueue(layout, { qname })));
    },
  },
  {
    // A hard pause's resume: the restore's ZADD and the field's HDEL.
    name: "resumeQueue",
    roles: ["admin"],
    prepare: async (setup, qname) => {
      const ids = await twoMessages(setup, qname);
      await setup.pauseQueueAsync({ qname, hard: true });
      return ids;
    },
    call: ({ plain }, qname) => {
      const { layout, run } = internalsOf(plain);
      return run(() => resumeQueue(layout, qname));
    },
  },
  {
    // A hard pause's restore, past the resume's own first chunk: the rest's ZADD and the field's HDEL.
    name: "pauseScores",
    roles: ["admin"],
    prepare: async (setup, qname) => {
      const ids = await twoMessages(setup, qname);
      const batch = Array.from({ length: 1000 }, (_, i) => ({ message: `m${i}` }));
      await setup.sendMessagesAsync({ qname, messages: batch });
      await setup.pauseQueueAsync({ qname, hard: true });
      const { layout, run } = internalsOf(setup);
      expect((await run(() => resumeQueue(layout, qname))).state, "the restore goes on").to.equal(2);
      return ids;
    },
    call: ({ plain }, qname) => {
      const { layout, run } = internalsOf(plain);
      return run(() => pauseScores(layout, qname, "restore"));
    },
  },
  {
    name: "setRateLimit",
    roles: ["admin"],
    prepare: (setup, qname) => twoMessages(setup, qname),
    call: ({ plain }, qname) => plain.setRateLimitAsync({ qname, limits: [{ max: 5, perMs: 1000 }] }),
  },
  {
    // A handler's RateLimitError: the message's ZADD, the block's HSET, its rc's HINCRBY.
    name: "rateLimitBounce",
    roles: CONSUMERS,
    prepare: (setup, qname) => twoMessages(setup, qname),
    call: ({ plain }, qname, _dlq, [first]) => {
      const { layout, run } = internalsOf(plain);
      return run(() => rateLimitBounce(layout, qname, first, 5000));
    },
  },
  {
    // A Worker's look with its heartbeat: the entry's HSET, and the HDEL of another's expired entry.
    name: "lookAndBeat",
    roles: CONSUMERS,
    prepare: async (setup, qname) => {
      const ids = await twoMessages(setup, qname);
      const { layout, run } = internalsOf(setup);
      await run(() => lookAndBeat(layout, qname, { workerId: "expiredWorker001", json: beatJson("h", 1, 1, 0), ttlMs: 1 }));
      return ids;
    },
    call: ({ plain }, qname) => {
      const { layout, run } = internalsOf(plain);
      return run(() => lookAndBeat(layout, qname, { workerId: "aclWorker0000001", json: beatJson("h", 2, 1, 0), ttlMs: 60_000 }));
    },
  },
  {
    // A stopping Worker's entry: its HDEL, and the index's HSET.
    name: "removeConsumer",
    roles: CONSUMERS,
    prepare: async (setup, qname) => {
      const ids = await twoMessages(setup, qname);
      const { layout, run } = internalsOf(setup);
      for (const workerId of ["aclWorker0000001", "aclWorker0000002"]) {
        await run(() => lookAndBeat(layout, qname, { workerId, json: beatJson("h", 1, 1, 0), ttlMs: 60_000 }));
      }
      return ids;
    },
    call: ({ plain }, qname) => {
      const { layout, run } = internalsOf(plain);
      return run(() => removeConsumer(layout, qname, "aclWorker0000001"));
    },
  },
  {
    name: "purgeQueue",
    roles: ["admin"],
    prepare: (setup, qname) => twoMessages(setup, qname),
    call: ({ plain }, qname) => plain.purgeQueueAsync({ qname }),
  },
  {
    name: "redrive",
    roles: ["admin"],
    singleServerOnly: true,
    prepare: async (setup, qname, dlq) => {
      await setup.createQueueAsync({ qname });
      return twoMessages(setup, dlq);
    },
    call: ({ plain }, qname, dlq, ids) => {
      const { layout, run } = internalsOf(plain);
      return run(() => redriveAtomically(layout, dlq, qname, ids));
    },
  },
  {
    name: "redriveClaim",
    roles: ["admin"],
    prepare: (setup, _qname, dlq) => twoMessages(setup, dlq),
    call: ({ plain }, _qname, dlq, ids) => {
      const { layout, run } = internalsOf(plain);
      return run(() => redriveClaim(layout, dlq, ids, 60_000));
    },
  },
  {
    name: "redriveCopy",
    roles: ["admin"],
    prepare: async (setup, qname) => {
      await setup.createQueueAsync({ qname });
      await setup.sendMessageAsync({ qname, message: "already there" });
      return [];
    },
    call: ({ plain }, qname) => {
      const { layout, run } = internalsOf(plain);
      const messages = [
        { id: "0000000000aaaaaaaaaaaaaaaaaaaaaaaa", message: "one" },
        { id: "0000000000bbbbbbbbbbbbbbbbbbbbbbbb", message: "two" },
      ];
      return run(() => redriveCopy(layout, qname, messages));
    },
  },
  {
    name: "upsertSchedule",
    roles: ["admin"],
    prepare: (setup, qname) => scheduled(setup, qname),
    call: ({ plain }, qname) => plain.upsertScheduleAsync({ qname, name: "new", every: 60_000, message: "m" }),
  },
  {
    name: "pauseSchedule",
    roles: ["admin"],
    prepare: (setup, qname) => scheduled(setup, qname),
    call: ({ plain }, qname) => plain.pauseScheduleAsync({ qname, name: "tick" }),
  },
  {
    name: "removeSchedule",
    roles: ["admin"],
    prepare: (setup, qname) => scheduled(setup, qname),
    call: ({ plain }, qname) => plain.removeScheduleAsync({ qname, name: "tick" }),
  },
  {
    // A firer's pass (a Worker's, a Scheduler's): the read, then the fire of the slot due at once.
    name: "fireSchedule",
    roles: CONSUMERS,
    prepare: (setup, qname) => scheduled(setup, qname),
    call: async ({ plain }, qname) => {
      const { layout, run } = internalsOf(plain);
      const { nowMs, stored } = await run(() => readSchedules(layout, qname));
      const plan = planFire(stored[0], nowMs);
      if (!plan) throw new Error("expected the first slot of `tick` to be due");
      return run(() => fireSchedule(layout, "wake", qname, stored[0], plan));
    },
  },
];

describe("ACL: a refused command writes nothing", () => {
  let ns: string;
  let user: string;
  let setup: RedisSMQ;
  let admin: RedisClientType;
  let plain: RedisSMQ | undefined;
  let realtime: RedisSMQ | undefined;
  let runs = 0;

  beforeEach(async () => {
    ns = uniqueNs("aclw");
    user = `acl-${ns}`;
    setup = new RedisSMQ(connectionOptions(ns));
    admin = await plainClient();
  });
  afterEach(async () => {
    await plain?.quitAsync().catch(() => undefined);
    await realtime?.quitAsync().catch(() => undefined);
    await onEveryServer(["ACL", "DELUSER", user]);
    await setup.quitAsync();
    await admin.quit();
  });

  async function clear(): Promise<void> {
    for (const key of await allKeys(admin, `${ns}:*`)) await admin.del(key);
  }

  for (const role of ["producer", "worker", "admin"] as const) {
    it(`${role}: each command fewer fails the call with the data as it was`, async function () {
      this.timeout(60_000);
      const rules = documentedRules(onCluster()).get(role)!;
      await onEveryServer(["ACL", "SETUSER", user, ...forTest(rules, ns)]);
      plain = new RedisSMQ(connectionOptionsAs(ns, user, PASSWORD));
      realtime = new RedisSMQ({ ...connectionOptionsAs(ns, user, PASSWORD), realtime: true });
      // A refused realtime notification is reported here; the send itself succeeds.
      for (const instance of [plain, realtime]) instance.on("error", () => undefined);
      // Connected while the user has every command: a cluster connection reads the slot map as it opens.
      for (const instance of [plain, realtime]) {
        const missing = await instance.getQueueAttributesAsync({ qname: "none" }).catch((error: Error) => error);
        expect((missing as Error).name).to.equal("queueNotFound");
      }
      const probes = PROBES.filter((probe) => probe.roles.includes(role) && !(probe.singleServerOnly && onCluster()));
      const refusedBy = new Map<string, string[]>();

      for (const command of commandsOf(rules)) {
        await onEveryServer(["ACL", "SETUSER", user, `-${command}`]);
        const refused: string[] = [];
        for (const probe of probes) {
          runs += 1;
          const [qname, dlq] = [`q${runs}`, `q${runs}-dlq`];
          const ids = await probe.prepare(setup, qname, dlq);
          const before = await exactState(admin, ns);
          const outcome = await probe.call({ plain, realtime }, qname, dlq, ids).then(
            () => undefined,
            (error: Error) => error,
          );
          if (outcome) {
            expect(outcome.name, `${probe.name} without +${command}: ${outcome.message}`).to.equal("noPermission");
            expect(await exactState(admin, ns), `what ${probe.name} left without +${command} (${outcome.message})`).to.deep.equal(before);
            refused.push(probe.name);
          }
          await clear();
        }
        refusedBy.set(command, refused);
        await onEveryServer(["ACL", "SETUSER", user, `+${command}`]);
      }
      // Not vacuous: losing any write command of the line is refused by some probe.
      for (const command of commandsOf(rules).filter((name) => scriptWrites().includes(name))) {
        expect(refusedBy.get(command), `probes refused without +${command}`).to.not.deep.equal([]);
      }
    });
  }

  it("a key the user may read but not write is refused before anything is written, naming the keys", async () => {
    const qname = "keyed";
    const { messages, hash } = keysOf(ns, qname);
    await setup.createQueueAsync({ qname });
    // Every command of the producer's line, but writes only to the queue's sorted set, not its hash.
    // Redis checks a script's declared keys when EVALSHA arrives, so this is refused before the
    // script runs (it already was before scripts checked their commands); kept so it stays that way.
    const rules = forTest(documentedRules(onCluster()).get("producer")!, ns).map((rule) => (rule === `~${ns}:*` ? `%R~${ns}:*` : rule));
    await onEveryServer(["ACL", "SETUSER", user, ...rules, `%W~${messages}`]);
    plain = new RedisSMQ(connectionOptionsAs(ns, user, PASSWORD));
    const before = await exactState(admin, ns);
    const refused = await plain.sendMessageAsync({ qname, message: "m" }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refused?.name).to.equal("noPermission");
    expect(refused?.message).to.include(hash);
    expect(await exactState(admin, ns)).to.deep.equal(before);
  });
});
