/**
 * The ACL lines of docs/acl.md are the least each role needs, on the run's target: read from that file
 * (so the documentation cannot drift), each is given to a new user (on a cluster, on every node),
 * that user runs the role's operations without an error, and then, one command at a time, the
 * user loses that command and some operation of the role fails with a `noPermission` error that
 * names it (a rejection, or the `error` event of the instance or Worker, for what no call fails).
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { internalsOf } from "../../lib/internals";
import { fireSchedule } from "../../lib/operations/fire-schedule";
import { readSchedules } from "../../lib/operations/list-schedules";
import { planFire } from "../../lib/schedules/fire-plan";
import { commandsOf, forTest, PASSWORD, documentedRules } from "../support/acl-rules";
import type { Role } from "../support/acl-rules";
import { connectionOptions, keysOf, onCluster, plainClient, uniqueNs } from "../support/server";
import { connectionOptionsAs, onEveryServer, subscribersOf, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const { Worker, PoisonError } = RedisSMQ;

describe("ACL: the least-privilege users of docs/acl.md", () => {
  let ns: string;
  let user: string;
  let setup: RedisSMQ;
  let admin: RedisClientType;
  let asUser: RedisSMQ;
  let realtimeUser: RedisSMQ;
  /** Every error the user's instances, their Workers and the operations reported. */
  let errors: Error[] = [];
  let runs = 0;

  beforeEach(async () => {
    ns = uniqueNs("acl");
    user = `acl-${ns}`;
    errors = [];
    setup = new RedisSMQ(connectionOptions(ns));
    admin = await plainClient();
  });
  afterEach(async () => {
    // Instances quit before their user goes (DELUSER drops the user's connections).
    await asUser?.quitAsync().catch(() => undefined);
    await realtimeUser?.quitAsync().catch(() => undefined);
    await onEveryServer(["ACL", "DELUSER", user]);
    await setup.quitAsync();
    await admin.quit();
  });

  async function createUser(rules: string[]): Promise<void> {
    await onEveryServer(["ACL", "SETUSER", user, ...forTest(rules, ns)]);
    await openAsUser();
  }

  async function closeUser(): Promise<void> {
    await asUser?.quitAsync().catch(() => undefined);
    await realtimeUser?.quitAsync().catch(() => undefined);
  }

  /** New connections as the user: what a connection needs only when it opens (CLUSTER SLOTS) is asked again. */
  async function openAsUser(): Promise<void> {
    await closeUser();
    asUser = new RedisSMQ(connectionOptionsAs(ns, user, PASSWORD));
    realtimeUser = new RedisSMQ({ ...connectionOptionsAs(ns, user, PASSWORD), realtime: true });
    // Each reports into the list of the run it was opened for.
    const sink = errors;
    for (const instance of [asUser, realtimeUser]) instance.on("error", (error) => sink.push(error));
  }

  /** Runs `operation`, keeping its rejection with the other errors. */
  async function attempt(operation: () => Promise<unknown>): Promise<void> {
    const sink = errors;
    try {
      await operation();
    } catch (error) {
      sink.push(error as Error);
    }
  }

  /** Fresh queue names for one run, so that nothing of an earlier run (a held message, a report made once) is in the way. */
  function queueNames(): { qname: string; dlq: string } {
    runs += 1;
    return { qname: `q${runs}`, dlq: `q${runs}-dlq` };
  }

  async function produce(qname: string): Promise<void> {
    await attempt(() => asUser.sendMessageAsync({ qname, message: "plain" }));
    await attempt(() => realtimeUser.sendMessageAsync({ qname, message: "realtime" }));
    // A batch with a dedupId: its side key takes SET (and GET for a duplicate).
    await attempt(() => realtimeUser.sendMessagesAsync({ qname, messages: [{ message: "batch", dedupId: "b" }, { message: "batch 2" }] }));
    // An idempotent send claims its key (SET), and its repeat reads the first id (GET).
    for (let i = 0; i < 2; i++) await attempt(() => asUser.sendMessageAsync({ qname, message: "once", dedupId: "once" }));
    // A tenant's send reads its tag (HGET) and the queue's head (ZRANGEBYSCORE): docs/fair-queues.md.
    await attempt(() => asUser.sendMessageAsync({ qname, message: "fair", tenant: "acme" }));
  }

  async function consume(qname: string): Promise<void> {
    for (const message of ["a", "b", "c", "d"]) await setup.sendMessageAsync({ qname, message });
    await attempt(async () => {
      const received = (await asUser.receiveMessageAsync({ qname })) as RedisSMQ.QueueMessage;
      await asUser.changeMessageVisibilityAsync({ qname, id: received.id, vt: 0 });
      await asUser.deleteMessageAsync({ qname, id: received.id });
    });
    await attempt(async () => {
      const { messages } = await asUser.receiveMessagesAsync({ qname, count: 2 });
      await asUser.changeMessagesVisibilityAsync({ qname, ids: messages.map(({ id }) => id), vt: 5 });
      await asUser.deleteMessagesAsync({ qname, ids: messages.map(({ id }) => id) });
    });
    await attempt(() => asUser.popMessageAsync({ qname }));
  }

  /**
   * Under a concurrency limit of 1 (set by `limit`, the role's own instance or the setup's): a
   * receive leases (ZCARD, ZADD, PTTL, PEXPIRE), one at the limit heals (ZRANGE, ZMSCORE) and
   * marks `maxed`, and the delete that frees the slot publishes `~free:`.
   */
  async function consumeLimited(qname: string, limit: RedisSMQ): Promise<void> {
    await setup.createQueueAsync({ qname });
    await attempt(() => limit.setConcurrencyAsync({ qname, max: 1 }));
    for (const message of ["x", "y"]) await setup.sendMessageAsync({ qname, message });
    await attempt(async () => {
      const held = (await asUser.receiveMessageAsync({ qname })) as RedisSMQ.QueueMessage;
      await asUser.receiveMessageAsync({ qname });
      await asUser.deleteMessageAsync({ qname, id: held.id });
    });
  }

  /**
   * A firer's pass over `qname`'s schedules as `instance`: the read (listSchedules-2), a plan, and
   * the fire of the slot due at once (fireSchedule-n: its slot's claim is a SET), for the
   * schedule `tick` the setup writes (its first slot is its upsert's time).
   */
  async function fireSchedules(qname: string, instance: RedisSMQ): Promise<void> {
    await setup.upsertScheduleAsync({ qname, name: "tick", every: 3_600_000, message: "tick" }).catch(() => undefined);
    await attempt(async () => {
      const internals = internalsOf(instance);
      const { nowMs, stored } = await internals.run(() => readSchedules(internals.layout, qname));
      for (const schedule of stored) {
        const plan = planFire(schedule, nowMs);
        if (plan) await internals.run(() => fireSchedule(internals.layout, "wake", qname, schedule, plan));
      }
    });
  }

  /** The schedule methods: write, pause, resume, list and remove one, as the admin does. */
  async function manageSchedules(qname: string): Promise<void> {
    await attempt(() => asUser.upsertScheduleAsync({ qname, name: "admin", every: 60_000, message: "m" }));
    await attempt(() => asUser.pauseScheduleAsync({ qname, name: "admin" }));
    await attempt(() => asUser.resumeScheduleAsync({ qname, name: "admin" }));
    await attempt(() => asUser.listSchedulesAsync({ qname }));
    await attempt(() => asUser.removeScheduleAsync({ qname, name: "admin" }));
  }

  /**
   * A Worker with wakes that dead-letters a poison message into `dlq`; returns once the message
   * stopped, a poll after it returned and the wake subscription is in place, or an error was
   * reported, and the worker stopped.
   */
  async function workPoison(qname: string, dlq: string): Promise<void> {
    await setup.sendMessageAsync({ qname, message: "poison" });
    const worker = new Worker(asUser, {
      qname,
      deadLetterQueue: dlq,
      maxIdleSleepMs: 60_000,
      stopTimeoutMs: 2_000,
      handler: () => {
        throw new PoisonError("poison");
      },
    });
    // The poll after the dead-letter move is where a refused command of the empty queue (ZRANGE
    // of the next due time) shows: the run is over once such a poll returned, not at the move.
    let stopped = false;
    let polledSinceStop = false;
    worker.on("stop", () => void (stopped = true));
    for (const poll of ["receive", "look"] as const) worker.on(poll, () => void (polledSinceStop = stopped));
    worker.on("error", (error) => errors.push(error));
    worker.start();
    const channel = keysOf(ns, qname).realtimeChannel;
    try {
      await waitFor(
        async () => errors.some(isRefusal) || (polledSinceStop && (await subscribersOf(admin, channel)) === 1),
        "the poison message dead-lettered, a poll after it and the wake subscription, or a refusal",
      );
    } finally {
      await worker.stop();
    }
  }

  /** What each role does, in one quick pass; admin also creates, purges and deletes its queues, redrives, and pauses and limits them. */
  const operations: Record<Role, (names: { qname: string; dlq: string }) => Promise<void>> = {
    producer: async ({ qname }) => {
      await setup.createQueueAsync({ qname });
      await produce(qname);
    },
    worker: async ({ qname, dlq }) => {
      await setup.createQueueAsync({ qname });
      await setup.createQueueAsync({ qname: dlq });
      await setup.createQueueAsync({ qname: `${qname}-scheduled` });
      await consume(qname);
      await consumeLimited(`${qname}-limited`, setup);
      await fireSchedules(`${qname}-scheduled`, asUser);
      await workPoison(qname, dlq);
    },
    admin: async ({ qname, dlq }) => {
      await attempt(() => asUser.createQueueAsync({ qname }));
      // When that was refused, the rest still needs the queue (queueExists otherwise).
      await setup.createQueueAsync({ qname }).catch(() => undefined);
      await attempt(() => asUser.setQueueAttributesAsync({ qname, vt: 20 }));
      await attempt(() => asUser.getQueueAttributesAsync({ qname }));
      await attempt(() => asUser.listQueuesAsync());
      await produce(qname);
      await consume(qname);
      // The dead-letter queue does not exist yet: the Worker creates it.
      await workPoison(qname, dlq);
      await attempt(() => asUser.peekMessagesAsync({ qname: dlq }));
      await attempt(() => asUser.peekDeadLettersAsync({ qname: dlq }));
      // browseMessages with a where and a state: ZCOUNT, ZRANGE, HGET of `:at` and HMGET.
      await attempt(() => asUser.browseMessagesAsync({ qname: dlq, where: { tenant: "a" }, state: "visible" }));
      await attempt(() => asUser.redriveAsync({ from: dlq }));
      // The controls: a hard pause and its resume move scores and publish the resume's wake.
      await setup.sendMessageAsync({ qname, message: "paused" }).catch(() => undefined);
      await attempt(() => asUser.pauseQueueAsync({ qname, hard: true }));
      await attempt(() => asUser.resumeQueueAsync({ qname }));
      await attempt(() => asUser.setRateLimitAsync({ qname, limits: [{ max: 1000, perMs: 1000 }] }));
      await attempt(() => asUser.rateLimitQueueAsync({ qname, ms: 1 }));
      await attempt(() => asUser.removeRateLimitAsync({ qname }));
      await consumeLimited(`${qname}-limited`, asUser);
      await attempt(() => asUser.getQueueAttributesAsync({ qname: `${qname}-limited` }));
      await attempt(() => asUser.removeConcurrencyAsync({ qname: `${qname}-limited` }));
      await manageSchedules(qname);
      await setup.createQueueAsync({ qname: `${qname}-scheduled` });
      await fireSchedules(`${qname}-scheduled`, asUser);
      await attempt(() => asUser.purgeQueueAsync({ qname }));
      await attempt(() => asUser.deleteQueueAsync({ qname: dlq }));
      await attempt(() => asUser.deleteQueueAsync({ qname }));
    },
  };

  const isRefusal = (error: Error): boolean => error.name === "noPermission";
  /** Commands whose refusal rsmq-next answers with a fallback instead of an error (docs/acl.md says which). */
  const FALLS_BACK: Record<Role, Set<string>> = {
    producer: new Set(["evalsha_ro", "eval_ro", "zrange"]), // without ZRANGE a send publishes its wake every time
    worker: new Set(["evalsha_ro", "eval_ro"]),
    admin: new Set(["evalsha_ro", "eval_ro"]),
  };

  for (const role of ["producer", "worker", "admin"] as const) {
    it(`${role}: its documented line lets it do its work, and each command fewer is named in a noPermission error`, async function () {
      this.timeout(60_000);
      const rules = documentedRules(onCluster()).get(role)!;
      await createUser(rules);

      await operations[role](queueNames());
      expect(errors.map(String), "errors with every command of the line").to.deep.equal([]);

      for (const command of commandsOf(rules)) {
        await onEveryServer(["ACL", "SETUSER", user, `-${command}`]);
        // Without cached scripts every script goes EVALSHA, NOSCRIPT, EVAL, so EVAL is needed too.
        await onEveryServer(["SCRIPT", "FLUSH"]);
        const reported: Error[] = (errors = []);
        await openAsUser();
        if (FALLS_BACK[role].has(command)) {
          // Read-only scripts then go by EVALSHA and EVAL (and wait out a write pause): the work still succeeds.
          await operations[role](queueNames());
          await closeUser();
          expect(reported.map(String), `errors without +${command}`).to.deep.equal([]);
          await onEveryServer(["ACL", "SETUSER", user, `+${command}`]);
          continue;
        }
        const naming = (): Error[] => reported.filter((error) => isRefusal(error) && error.message.includes(`+${command}`));
        // A connection refused as it opens (no CLUSTER SLOTS) keeps the calls waiting for it: its
        // reported refusal is the answer then, and the calls end when the instance quits.
        const work = operations[role](queueNames());
        work.catch(() => undefined);
        await Promise.race([work, waitFor(() => naming().length > 0, `a noPermission error naming +${command}`)]);
        // Nothing of this run may go on into the next: the calls still waiting end as the instances quit.
        await closeUser();
        await work;
        expect(naming(), `a noPermission error naming +${command}; got ${JSON.stringify(reported.map(String))}`).to.not.deep.equal([]);
        await onEveryServer(["ACL", "SETUSER", user, `+${command}`]);
      }
    });
  }

  it("worker: its line also covers visibility extension and retries", async function () {
    this.timeout(20_000);
    await createUser(documentedRules(onCluster()).get("worker")!);
    const { qname, dlq } = queueNames();
    await setup.createQueueAsync({ qname });
    await setup.createQueueAsync({ qname: dlq });
    for (const message of ["slow", "flaky"]) await setup.sendMessageAsync({ qname, message });
    const handled: string[] = [];
    let failedOnce = false;
    const worker = new Worker(asUser, {
      qname,
      vt: 1,
      deadLetterQueue: dlq,
      retry: { maxDeliveries: 3, initialDelayMs: 10, maxDelayMs: 10 },
      handler: async (message) => {
        if (message.message === "flaky" && !failedOnce) {
          failedOnce = true;
          throw new Error("first delivery fails");
        }
        // Held until the worker extended its visibility (vt 1 s: extended after 0.5 s).
        if (message.message === "slow") await waitFor(() => worker.counters.extensions > 0, "an extension");
        handled.push(message.message);
      },
    });
    worker.on("error", (error) => errors.push(error));
    worker.start();
    try {
      await waitFor(() => handled.length === 2, "both messages handled");
    } finally {
      await worker.stop();
    }
    expect(handled.sort()).to.deep.equal(["flaky", "slow"]);
    expect(worker.counters.extensions).to.be.above(0);
    expect(errors.map(String)).to.deep.equal([]);
  });
});
