/**
 * The idle cost at the REAL defaults (maxIdleSleepMs 30 s, subscriberPingMs left out), counted at
 * the server: every command clients send over a real window of more than two caps, from an
 * instance of its own on a redis-server of its own (see support/idle-count.ts). The promise: per
 * cap interval at most each Worker's look, plus one health check of the instance's shared wake
 * subscription riding the same tick; so one idle Worker costs at most 2 commands per 30 s, 240
 * an hour. The same holds with schedules defined: the Worker's firer learns the next slot from
 * the look itself.
 *
 * The counts wait about 80 s and do nothing else, so they start in a root `before` hook, when the
 * run starts, and run beside the rest of the pass; the tests below only read their results.
 * They run on the single-server pass (each count opens its own server; the ioredis client is
 * one of them).
 */
import { expect } from "chai";
import { spawnSync } from "child_process";
import { DEFAULT_MAX_IDLE_SLEEP_MS } from "../../lib/worker/worker-option-table";
import { IdleCount } from "../support/idle-count";
import type { IdleResult } from "../support/idle-count";
import { onCluster, onPassedClient } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const CAP_MS = DEFAULT_MAX_IDLE_SLEEP_MS;
/** Two ticks and a half: the window opens as the Workers fall asleep, so it holds two ticks each, with 15 s to spare. */
const WINDOW_MS = 75_000;
/** How much earlier than a whole cap two of the instance's health checks may come (timers, the look's own round trip). */
const CHECK_SLACK_MS = 1_000;
/** What a Worker's look is sent as: EVALSHA (EVALSHA_RO where read-only scripts say so). */
const LOOK = /^evalsha(_ro)?$/;

const counts: { one?: IdleCount; two?: IdleCount; ioredis?: IdleCount; scheduled?: IdleCount } = {};

/** Each count starts a redis-server of its own: REDIS_URL or a container cannot stand in. */
const runnable = (): boolean => !onCluster() && !onPassedClient() && spawnSync("redis-server", ["--version"]).status === 0;

// Root hooks: the counts start with the run and are closed at its end, whatever ran.
before(function () {
  if (!runnable()) return;
  const options = { windowMs: WINDOW_MS, capMs: CAP_MS };
  counts.one = IdleCount.start({ ...options, workers: 1, client: "node-redis" });
  counts.two = IdleCount.start({ ...options, workers: 2, client: "node-redis" });
  counts.ioredis = IdleCount.start({ ...options, workers: 1, client: "ioredis" });
  counts.scheduled = IdleCount.start({ ...options, workers: 1, client: "node-redis", schedules: true });
});

after(async function () {
  this.timeout(20_000);
  await Promise.all(Object.values(counts).map((count) => count.close()));
});

/** The most ticks (a look each, one per Worker) a window of `ms` can hold: they are at least a cap apart. */
const ticksWithin = (ms: number): number => Math.floor(ms / CAP_MS) + 1;

/** The commands by name, for messages. */
function byName(result: IdleResult): Record<string, number> {
  const names: Record<string, number> = {};
  for (const command of result.commands) names[command.args[0]] = (names[command.args[0]] ?? 0) + 1;
  return names;
}

/** The count, and its rate per hour at one tick per cap (the window holds whole ticks, not whole hours). */
function describeCount(result: IdleResult, workers: number): string {
  const ticks = Math.max(
    ...[...Array(workers).keys()].map((worker) => result.events.filter((event) => event.worker === worker && event.name === "look").length),
  );
  const perTick = result.commands.length / ticks;
  return (
    `${result.commands.length} client commands ${JSON.stringify(byName(result))} (+ ${result.inScripts} inside scripts) ` +
    `in ${(result.windowMs / 1000).toFixed(1)} s, ${ticks} ticks of ${workers} Worker(s): ${perTick} per ${CAP_MS / 1000} s cap, ` +
    `${Math.round((perTick * 3_600_000) / CAP_MS)} an hour`
  );
}

/** Asserts the 2-per-cap promise on one count: the looks, one per Worker per tick, and at most one PING per cap for the instance. */
function expectIdleBound(result: IdleResult, workers: number): void {
  const summary = describeCount(result, workers);
  console.log(`      ${summary}`);
  const ticks = ticksWithin(result.windowMs);
  const looks = result.commands.filter((command) => LOOK.test(command.args[0]));
  const pings = result.commands.filter((command) => command.args[0] === "ping");
  // Nothing but the looks and the subscription's health checks (no receive, no resubscribe, no timer of its own).
  expect(result.commands.length, summary).to.equal(looks.length + pings.length);
  expect(result.commands.length, `at most ${workers} look(s) + 1 check per ${CAP_MS} ms cap: ${summary}`).to.be.at.most(
    (workers + 1) * ticks,
  );
  // Each look the server saw is one the Workers reported, and every poll in the window was a look.
  const polls = result.events.filter((event) => event.name === "look" || event.name === "receive");
  expect(polls.map((event) => event.name)).to.deep.equal(Array(looks.length).fill("look"));
  // Two ticks each: the command connection carries a look in each cap.
  for (let worker = 0; worker < workers; worker++) {
    const mine = polls.filter((event) => event.worker === worker).length;
    expect(mine, `Worker ${worker}'s looks: ${summary}`).to.be.within(2, ticks);
  }
  // One health check of the shared subscription per cap, whatever the number of Workers: one in
  // each of the two caps, never two within less than a cap, all on the subscription's connection.
  expect(pings.length, `the wake subscription's health checks: ${summary}`).to.be.within(2, ticks);
  const gaps = pings.slice(1).map((ping, index) => (ping.time - pings[index].time) * 1000);
  for (const gap of gaps) expect(gap, `ms between two health checks: ${summary}`).to.be.at.least(CAP_MS - CHECK_SLACK_MS);
  const pingedOn = new Set(pings.map((ping) => ping.client));
  expect(pingedOn.size, summary).to.equal(1);
  for (const look of looks) expect(pingedOn.has(look.client), "a look on the subscription's connection").to.equal(false);
}

describe("Worker: idle cost at the defaults (counted at the server over 75 s, beside the rest of the run)", function () {
  before(function () {
    if (onCluster() || onPassedClient()) this.skip();
    if (!counts.one) {
      console.log("\n  Skipping the idle count at the defaults: it needs redis-server on PATH\n");
      this.skip();
    }
  });

  it("one idle Worker sends at most 2 commands per 30 s cap: its look and one PING of the wake subscription", async function () {
    this.timeout(WINDOW_MS + 3 * CAP_MS);
    const result = await counts.one!.result;
    expectIdleBound(result, 1);
    // Here every tick checks the subscription (nothing else was heard on it), and every look goes
    // on one command connection: both connections carry a command and its reply in each cap.
    expect(byName(result).ping).to.equal(result.commands.length / 2);
    expect(new Set(result.commands.filter((command) => LOOK.test(command.args[0])).map((look) => look.client)).size).to.equal(1);
  });

  it("two idle Workers of one instance: a look each per cap, and still one PING for the subscription they share", async function () {
    this.timeout(WINDOW_MS + 3 * CAP_MS);
    expectIdleBound(await counts.two!.result, 2);
  });

  it("with 3 schedules defined (a daily cron, an hourly `every`, a weekly cron): still its look and one PING per cap", async function () {
    this.timeout(WINDOW_MS + 3 * CAP_MS);
    const result = await counts.scheduled!.result;
    expectIdleBound(result, 1);
    expect(byName(result).ping).to.equal(result.commands.length / 2);
  });

  it("through an ioredis client: the same 2 commands per cap", async function () {
    this.timeout(WINDOW_MS + 3 * CAP_MS);
    const result = await counts.ioredis!.result;
    expectIdleBound(result, 1);
    expect(byName(result).ping).to.equal(result.commands.length / 2);
    expect(new Set(result.commands.map((command) => command.client)).size).to.equal(2);
  });
});
