/**
 * The command line's schedules against the test server (docs/cli.md): `schedule set` (every or cron
 * with a zone, each option passed on; again with the same timing: replaced), `schedule ls` (a table
 * with ISO times, or --json as listSchedulesAsync gives it), `schedule pause|resume|rm` (human and
 * --json), and `stats` counting them. Bad arguments exit 2 before anything is written; a missing
 * queue or schedule exits 1.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { at, json } from "../support/cli";
import { exactState } from "../support/state";
import { runsOn } from "../support/targets";
import { cliQueue } from "../support/cli-queue";

// One server: the scripts run on the cluster in test/schedules/, and the command's cluster
// connection in the other CLI suites; here it would only repeat processes.
runsOn("single");

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("CLI: schedule set, ls, pause, resume, rm", () => {
  const fixture = cliQueue("cli-sched");
  const cli = fixture.cli;
  let ns: string, rsmq: RedisSMQ, client: RedisClientType;
  beforeEach(() => ({ ns, rsmq, client } = fixture));
  const listed = () => rsmq.listSchedulesAsync({ qname: "q" });

  it("set --every: created, then replaced with the same timing (its state kept); --json says which", async () => {
    const first = await cli("schedule", "set", "q", "ping", "--every", "60000", "--message", "ping");
    expect([first.code, first.stdout], first.stderr).to.deep.equal([0, "created schedule ping of queue q: every 60 s\n"]);
    const [stored] = await listed();
    expect(stored).to.include({ name: "ping", every: 60_000, tz: "UTC", message: "ping", paused: false, count: 0 });
    const again = await cli("schedule", "set", "q", "ping", "--every", "1m", "--message", "pong");
    expect([again.code, again.stdout], again.stderr).to.deep.equal([0, "replaced schedule ping of queue q: every 60 s\n"]);
    const [replaced] = await listed();
    expect(replaced).to.include({ message: "pong", anchor: stored.anchor, createdAt: stored.createdAt });
    expect(json(await cli("--json", "schedule", "set", "q", "ping", "--every", "60000", "--message", "ping"))).to.deep.equal({
      qname: "q",
      name: "ping",
      created: false,
    });
    expect(json(await cli("--json", "schedule", "set", "q", "other", "--every", "2s", "--message", "x"))).to.deep.equal({
      qname: "q",
      name: "other",
      created: true,
    });
  });

  it("set --cron with --tz, and every option passed on as upsertSchedule takes it", async () => {
    const cron = await cli("schedule", "set", "q", "nightly", "--cron", "0 2 * * *", "--tz", "Europe/Berlin", "--message", "{}");
    expect([cron.code, cron.stdout], cron.stderr).to.deep.equal([
      0,
      'created schedule nightly of queue q: cron "0 2 * * *" Europe/Berlin\n',
    ]);
    const startAt = Date.UTC(2030, 0, 1);
    const set = await cli(
      ...["schedule", "set", "q", "full", "--every", "5000", "--message", "body", "--delay", "7", "--priority", "3"],
      ...["--catchup", "none", "--catchup-window", "1h", "--overlap", "skip", "--start-at", "2030-01-01T00:00:00Z"],
      ...["--end-at", String(startAt + 86_400_000), "--limit", "5"],
    );
    expect(set.code, set.stderr).to.equal(0);
    const byName = Object.fromEntries((await listed()).map((info) => [info.name, info]));
    expect(byName.nightly).to.include({ cron: "0 2 * * *", tz: "Europe/Berlin", message: "{}" });
    expect(byName.nightly).not.to.have.property("every");
    expect(byName.full).to.include({
      every: 5000,
      message: "body",
      delay: 7,
      priority: 3,
      catchup: "none",
      catchupWindowMs: 3_600_000,
      overlap: "skip",
      startAt,
      anchor: startAt,
      endAt: startAt + 86_400_000,
      limit: 5,
    });
    expect(byName.full.nextRunAt).to.equal(startAt);
  });

  it("ls: a table by name with ISO times and the state (human), listSchedulesAsync's entries (--json); none says so", async () => {
    expect((await cli("schedule", "ls", "q")).stdout).to.equal("queue q has no schedule\n");
    expect(json(await cli("--json", "schedule", "ls", "q"))).to.deep.equal([]);
    await rsmq.upsertScheduleAsync({ qname: "q", name: "b-cron", cron: "30 6 * * 1-5", tz: "America/New_York", message: "x" });
    // A period longer than the test: both reads below see the same next slot (the first after the upsert).
    await rsmq.upsertScheduleAsync({ qname: "q", name: "a-every", every: 90_000, message: "y" });
    await rsmq.upsertScheduleAsync({ qname: "q", name: "c-paused", every: 60_000, message: "z" });
    await rsmq.pauseScheduleAsync({ qname: "q", name: "c-paused" });
    const [human, machine] = await Promise.all([cli("schedule", "ls", "q"), cli("schedule", "ls", "q", "--json")]);
    expect(human.code, human.stderr).to.equal(0);
    const lines = human.stdout.trimEnd().split("\n");
    expect(lines[0].split(/\s{2,}/)).to.deep.equal(["NAME", "TIMING", "NEXT RUN", "LAST RUN", "SENT", "MISSED", "SKIPPED", "STATE"]);
    const rows = lines.slice(1).map((line) => line.split(/\s{2,}/));
    expect(rows.map((cells) => [cells[0], cells[1], cells[3], cells[4], cells[5], cells[6], cells[7]])).to.deep.equal([
      ["a-every", "every 90 s", "-", "0", "0", "0", "active"],
      ["b-cron", 'cron "30 6 * * 1-5" America/New_York', "-", "0", "0", "0", "active"],
      ["c-paused", "every 60 s", "-", "0", "0", "0", "paused"],
    ]);
    expect(rows[0][2]).to.match(ISO);
    expect(rows[1][2]).to.match(ISO);
    expect(rows[2][2]).to.equal("-");
    // A weekday at 06:30 in New York is 10:30 or 11:30 UTC.
    expect(new Date(rows[1][2]).getUTCMinutes()).to.equal(30);
    expect(json(machine)).to.deep.equal(JSON.parse(JSON.stringify(await listed())));
  });

  it("pause, resume and rm: what changed (human and --json); a schedule the queue lacks: pause and resume exit 1, rm says so", async () => {
    await rsmq.upsertScheduleAsync({ qname: "q", name: "ping", every: 60_000, message: "ping" });
    const pause = await cli("schedule", "pause", "q", "ping");
    expect([pause.code, pause.stdout], pause.stderr).to.deep.equal([0, "paused schedule ping of queue q\n"]);
    expect((await listed())[0].paused).to.equal(true);
    expect((await cli("schedule", "pause", "q", "ping")).stdout).to.equal("schedule ping of queue q was paused already\n");
    expect(json(await cli("--json", "schedule", "pause", "q", "ping"))).to.deep.equal({ qname: "q", name: "ping", paused: false });
    const resume = await cli("schedule", "resume", "q", "ping");
    expect([resume.code, resume.stdout], resume.stderr).to.deep.equal([0, "resumed schedule ping of queue q\n"]);
    expect((await listed())[0].paused).to.equal(false);
    expect((await cli("schedule", "resume", "q", "ping")).stdout).to.equal("schedule ping of queue q was not paused\n");
    expect(json(await cli("--json", "schedule", "resume", "q", "ping"))).to.deep.equal({ qname: "q", name: "ping", resumed: false });
    const rm = await cli("schedule", "rm", "q", "ping");
    expect([rm.code, rm.stdout], rm.stderr).to.deep.equal([0, "removed schedule ping of queue q\n"]);
    expect(await listed()).to.deep.equal([]);
    expect((await cli("schedule", "rm", "q", "ping")).stdout).to.equal("queue q has no schedule ping\n");
    expect(json(await cli("--json", "schedule", "rm", "q", "ping"))).to.deep.equal({ qname: "q", name: "ping", removed: false });
    for (const verb of ["pause", "resume"]) {
      const missing = await cli("schedule", verb, "q", "ping");
      expect([missing.code, missing.stderr.includes('queue "q" has no schedule "ping"')], missing.stderr).to.deep.equal([1, true]);
      expect(missing.stderr).to.include("rsmq-next schedule ls q");
    }
  });

  it("stats counts the schedules, only when there are some", async () => {
    expect((await cli("stats", "q")).stdout).not.to.match(/^schedules /m);
    expect(json(await cli("--json", "stats", "q")).schedules).to.equal(0);
    await rsmq.upsertScheduleAsync({ qname: "q", name: "a", every: 60_000, message: "a" });
    await rsmq.upsertScheduleAsync({ qname: "q", name: "b", every: 60_000, message: "b" });
    expect((await cli("stats", "q")).stdout).to.match(/^schedules {3}2 \(rsmq-next schedule ls q\)$/m);
    expect(json(await cli("--json", "stats", "q")).schedules).to.equal(2);
  });

  it("bad arguments exit 2 saying what was wrong, and write nothing; a missing queue exits 1", async () => {
    await rsmq.upsertScheduleAsync({ qname: "q", name: "kept", every: 60_000, message: "kept" });
    const before = await exactState(client, ns);
    const set = (...args: string[]) => ["schedule", "set", "q", "s", "--message", "m", ...args];
    const cases: Array<[string[], RegExp]> = [
      [set("--every", "60000", "--cron", "* * * * *"), /every|cron/],
      [set(), /every|cron/],
      [set("--every", "999"), /every/],
      [set("--every", "soon"), /Expected whole milliseconds/],
      [set("--every", "60000", "--tz", "Europe/Berlin"), /tz/],
      [set("--cron", "61 * * * *"), /cron/],
      [set("--cron", "0 2 * * *", "--tz", "Mars/Olympus_Mons"), /Mars\/Olympus_Mons|tz/],
      [set("--every", "60000", "--catchup", "some"), /Allowed choices are latest, all, none/],
      [set("--every", "60000", "--overlap", "never"), /Allowed choices are allow, skip/],
      [set("--every", "60000", "--priority", "10"), /Expected an integer from 0 to 9/],
      [set("--every", "60000", "--limit", "0"), /Expected an integer from 1 to 1000000000/],
      [set("--every", "60000", "--start-at", "yesterday"), /Expected an ISO time/],
      [["schedule", "set", "q", "s", "--every", "60000"], /--message <text>/],
      [["schedule", "set", "q", "bad name", "--every", "60000", "--message", "m"], /name/],
      [["schedule", "set", "bad qname", "s", "--every", "60000", "--message", "m"], /invalid queue name/],
      [["schedule", "ls"], /missing required argument/],
      [["schedule", "frobnicate", "q"], /unknown command|schedule/],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(...args)));
    cases.forEach(([args, message], i) => {
      expect(results[i].code, `${args.join(" ")}: ${results[i].stderr}`).to.equal(2);
      expect(results[i].stderr, args.join(" ")).to.match(message);
    });
    expect(await exactState(client, ns)).to.deep.equal(before);
    for (const args of [
      ["schedule", "set", "nope", "s", "--every", "60000", "--message", "m"],
      ["schedule", "ls", "nope"],
      ["schedule", "pause", "nope", "s"],
      ["schedule", "rm", "nope", "s"],
    ]) {
      const missing = await cli(...args);
      expect([missing.code, missing.stderr.includes('queue "nope" does not exist')], `${args.join(" ")}: ${missing.stderr}`).to.deep.equal([
        1,
        true,
      ]);
    }
  });
});
