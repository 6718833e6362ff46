/**
 * The bench (`npm run bench`) is not part of `npm test`, but this runs its whole code path once
 * on tiny sizes against the test server, so it cannot rot: every measurement, the report, the
 * JSON record, the charts and the READMEs' generated tables. It checks that each figure was
 * actually measured and is coherent (counts where something must have happened, ratios against
 * the rsmq rows and the floors, a verdict for every goal, memory samples), never how fast anything
 * was: sizes this small say nothing about speed; that the READMEs it renders (with a tiny
 * connections part added, as a full run has) add up, ratios, load, duration and connections, by
 * the same reader test/docs/bench-figures.test.ts applies to the committed ones. Then the marker
 * replacement on its own, that a run recorded before a part existed still renders ("not measured
 * in this run"), and that the committed READMEs quote the latest full run.
 */
import { expect } from "chai";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { BULLMQ_LABEL, BULLMQ_VERSION } from "../../bench/bullmq";
import { hasCombinedCall } from "../../bench/combined-call";
import { CONFIGS } from "../../bench/config";
import { measureConnections } from "../../bench/connections";
import { goalRows, NOT_MEASURED } from "../../bench/goals";
import { perHourUnscaled } from "../../bench/idle-cost";
import { machineState, PART, recordPart } from "../../bench/machine-load";
import { replaceBlock } from "../../bench/markers";
import {
  CONNECTIONS_BLOCK,
  DURATION_BLOCK,
  HEADLINE_BLOCK,
  RESULTS_BLOCK,
  connectionsBlock,
  durationBlock,
  headlineBlock,
  headlineRows,
  resultsBlock,
  updateBlock,
} from "../../bench/readme-blocks";
import type { RunRecord } from "../../bench/readme-blocks";
import { consoleReport, formatCount, headline, markdownReport, writeResults } from "../../bench/report";
import { readReferenceRun, REFERENCE_RUN_FILE } from "../../bench/reference-run";
import { idleSubjects, runSuite } from "../../bench/suite";
import { combinedKey, throughputCases } from "../../bench/throughput";
import { OPERATIONS } from "../../lib/methods/registry";
import type { BenchResults } from "../../bench/suite";
import { resolveConstructorOptions } from "../../lib/options/constructor-options";
import { figureProblems } from "../support/bench-figures";
import { testRedis } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

describe("bench (tiny run of bench:quick's code path)", function () {
  this.timeout(60_000);
  let results: BenchResults;

  before(async function () {
    const target = testRedis();
    const config = CONFIGS.tiny;
    results = await runSuite(config, {
      main: target,
      idle: idleSubjects(config).map(() => target),
      pollers: target,
      separate: false,
    });
  });

  it("measures the wire cost of every call of both libraries", () => {
    const libs = (call: string): string[] => results.wireCost.filter((row) => row.call === call).map((row) => row.lib);
    expect(libs("sendMessage")).to.deep.equal(["rsmq", "rsmq-next"]);
    expect(libs("receiveMessages (10 waiting, count 10)")).to.deep.equal(["rsmq-next"]);
    for (const row of results.wireCost) {
      expect(row.roundTrips, `${row.lib} ${row.call}`).to.be.at.least(1);
      expect(row.clientCommands.length, `${row.lib} ${row.call}`).to.be.at.least(1);
      // Every client command and every in-script call is a call the server counted.
      expect(row.serverCalls, `${row.lib} ${row.call}`).to.equal(row.clientCommands.length + row.inScript);
    }
  });

  it("counts idle commands for every subject and ranks the 100 ms poller above the Worker", () => {
    expect(results.idle.map((row) => row.name)).to.have.length(idleSubjects(CONFIGS.tiny).length);
    const poll = results.idle.find((row) => row.name.startsWith("rsmq 0.12.4, polled"))!;
    const worker = results.idle.find((row) => row.name.startsWith("rsmq-next Worker"))!;
    expect(poll.clientCommands).to.be.greaterThan(0);
    expect(poll.byName).to.include.keys("evalsha", "multi");
    expect(worker.scale).to.equal(CONFIGS.tiny.idle.workerScale);
    expect(poll.clientPerHour).to.be.greaterThan(worker.clientPerHour);
  });

  it("measures throughput for every case in every round, with ratios against rsmq", () => {
    for (const row of results.throughput) {
      expect(row.samples, row.key).to.have.length(CONFIGS.tiny.throughput.repetitions);
      expect(row.perSecond, row.key).to.be.greaterThan(0);
      expect(row.throughputRatio, row.key).to.be.finite;
      if (row.key === row.baseline) expect(row.throughputRatio).to.equal(1);
    }
    const keys = results.throughput.map((row) => row.key);
    expect(keys).to.include.members(["rsmq send C=1", "rsmq-next receive+delete C=50", "rsmq-next Worker C=50", "bullmq process C=50"]);
  });

  it("measures the floor of both clients at C=1 and C=50, and holds each single call against its own client's floor", () => {
    const row = (key: string) => results.throughput.find((entry) => entry.key === key)!;
    for (const c of [1, 50]) {
      for (const lib of ["rsmq", "rsmq-next"]) {
        expect(row(`${lib} floor C=${c}`).kind).to.equal("floor");
        expect(row(`${lib} floor C=${c}`).perSecond).to.be.greaterThan(0);
        expect(row(`${lib} send C=${c}`)).to.include({ floor: `${lib} floor C=${c}`, callsPerMessage: 1 });
        expect(row(`${lib} receive+delete C=${c}`)).to.include({ floor: `${lib} floor C=${c}`, callsPerMessage: 2 });
        expect(row(`${lib} send C=${c}`).floorRatio).to.be.greaterThan(0);
      }
    }
    // A call that carries many messages has no floor to be held against.
    for (const key of ["rsmq-next Worker C=50", "rsmq-next batch 50", "bullmq add C=50"])
      expect(row(key).floorRatio, key).to.equal(undefined);
  });

  it("runs BullMQ at the version installed, says that version everywhere, and counts its connections", () => {
    const installed = (require("bullmq/package.json") as { version: string }).version;
    expect(BULLMQ_VERSION).to.equal(installed);
    expect(results.versions.bullmq).to.equal(installed);
    expect(results.idle.map((row) => row.name)).to.include(`BullMQ ${installed} Worker, defaults`);
    const bullmqRows = results.throughput.filter((row) => row.key.startsWith("bullmq "));
    expect(bullmqRows.map((row) => row.library)).to.deep.equal(Array(4).fill(`BullMQ ${installed}`));
    // A Queue on one connection; a Worker on its command connection and its blocking one.
    expect(results.connectionsPerClient!.bullmq).to.deep.equal({ queue: 1, worker: 2 });
    expect(markdownReport(results)).to.include(`${BULLMQ_LABEL}'s Queue on 1 connection and its Worker on 2 connections`);
  });

  it("has the combined call's loop at 1 and 50 in flight exactly where the build has the call", function () {
    const keys = (combined: boolean) => throughputCases([1, 50], combined).map((testCase) => testCase.key);
    expect(keys(true).filter((key) => key.includes("deleteAndReceive"))).to.deep.equal([combinedKey(1), combinedKey(50)]);
    expect(keys(false).filter((key) => key.includes("deleteAndReceive"))).to.deep.equal([]);
    const measured = results.throughput.filter((row) => row.key.includes("deleteAndReceive"));
    if (!hasCombinedCall(OPERATIONS)) {
      expect(measured).to.deep.equal([]);
      // This build has no deleteAndReceiveAsync yet: its rows are checked once it has.
      return this.skip();
    }
    for (const c of [1, 50]) {
      const row = measured.find((entry) => entry.key === combinedKey(c))!;
      expect(row, combinedKey(c)).to.include({
        baseline: `rsmq receive+delete C=${c}`,
        floor: `rsmq-next floor C=${c}`,
        callsPerMessage: 1,
      });
      expect(row.samples).to.have.length(CONFIGS.tiny.throughput.repetitions);
      expect(row.perSecond).to.be.greaterThan(0);
      expect(row.throughputRatio).to.be.finite;
    }
  });

  it("gives every goal a measured value and a verdict", () => {
    const goals = goalRows(results);
    expect(goals).to.have.length(14);
    for (const goal of goals) {
      expect(goal.measured, goal.goal).to.not.equal(NOT_MEASURED);
      expect(goal.verdict, goal.goal).to.match(goal.met ? /^met$/ : /^(short|over) by \d+%$/);
    }
    const floorGoal = goals.find((goal) => goal.goal.includes("against the floor"))!;
    const send = results.throughput.find((row) => row.key === "rsmq-next send C=1")!;
    expect(floorGoal.measured).to.equal(`${send.floorRatio!.toFixed(2)} of floor`);
    expect(floorGoal.cpu).to.deep.equal({ client: send.clientCpuMicrosPerMessage, redis: send.cpuMicrosPerMessage });
    expect(floorGoal.against!.label).to.equal("floor");
  });

  it("holds the Worker at concurrency 1 against BullMQ's, and at 1 and 50 against its figures in the run before issue 37", () => {
    const goals = goalRows(results);
    const row = (key: string) => results.throughput.find((entry) => entry.key === key)!;
    const againstBullmq = goals.find((goal) => goal.goal.startsWith("Worker, concurrency 1, against BullMQ"))!;
    expect(againstBullmq.goal).to.equal(`Worker, concurrency 1, against BullMQ ${BULLMQ_VERSION}'s Worker at concurrency 1`);
    expect(againstBullmq.target).to.equal("≥ 1.50×");
    expect(againstBullmq.measured).to.equal(`${(row("rsmq-next Worker C=1").perSecond / row("bullmq process C=1").perSecond).toFixed(2)}×`);
    expect(againstBullmq.against!.label).to.equal(`BullMQ ${BULLMQ_VERSION}`);
    // The earlier figures are read from the committed record, and kept in this run's record.
    const reference = readReferenceRun()!;
    expect(reference.file).to.equal(REFERENCE_RUN_FILE);
    expect(results.reference).to.deep.equal(reference);
    const committed = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", REFERENCE_RUN_FILE), "utf8")) as BenchResults;
    for (const [c, target] of [
      [1, "≥ 1.50×"],
      [50, "≥ 1.00×"],
    ] as const) {
      const before = committed.throughput.find((entry) => entry.key === `rsmq-next Worker C=${c}`)!;
      const goal = goals.find((entry) => entry.goal.startsWith(`Worker, concurrency ${c}, against its own figure`))!;
      expect(goal.goal).to.include(
        `the run of ${committed.date.slice(0, 10)} (${Math.round(before.perSecond).toLocaleString("en-US")} msg/s)`,
      );
      expect(goal.target).to.equal(target);
      // Each run's Worker × its own run's rsmq 0.12.4, so that the day's machine speed drops out.
      const rsmqBefore = committed.throughput.find((entry) => entry.key === `rsmq receive+delete C=${c}`)!;
      const now = row(`rsmq-next Worker C=${c}`).perSecond / row(`rsmq receive+delete C=${c}`).perSecond;
      expect(goal.measured).to.equal(`${(now / (before.perSecond / rsmqBefore.perSecond)).toFixed(2)}×`);
      expect(goal.against).to.deep.equal({
        label: `run of ${committed.date.slice(0, 10)}`,
        client: before.clientCpuMicrosPerMessage,
        redis: before.cpuMicrosPerMessage,
      });
    }
  });

  it("samples a Worker's memory from start to its last message, after a forced GC", () => {
    const memory = results.memory!;
    const { messages, sampleEvery } = CONFIGS.tiny.memory;
    expect(memory.messages).to.equal(messages);
    expect(memory.gcForced).to.equal(true);
    expect(memory.samples.map((sample) => sample.handled)).to.deep.equal(
      Array.from({ length: messages / sampleEvery + 1 }, (_, i) => i * sampleEvery),
    );
    for (const which of ["heapUsed", "rss"] as const) {
      const figure = memory[which];
      expect(figure.start, which).to.be.greaterThan(0);
      expect(figure.peak, which).to.be.at.least(Math.max(figure.start, figure.end));
      expect(figure.bytesPerMessage, which).to.be.finite;
    }
  });

  it("scales a scaled idle Worker's whole count back, its PINGs included (they ride its looks)", () => {
    // 800 commands in 120 s at scale 100 (a look and a PING per 300 ms cap): 8 in 120 s unscaled.
    expect(perHourUnscaled(800, 120_000, 100)).to.be.closeTo(8 * 30, 1e-9);
    expect(perHourUnscaled(400, 120_000, 1)).to.be.closeTo(400 * 30, 1e-9);
  });

  it("measures per-call latency through the delay proxy for both libraries", () => {
    const ping = results.network.operations.filter((row) => row.operation === "PING (one round trip)");
    expect(ping).to.have.length(2);
    // Through the proxy a round trip cannot take less than the delay both ways.
    for (const row of ping) expect(row.latency.p50).to.be.at.least(2 * CONFIGS.tiny.network.delayMs);
  });

  it("measures delivery latency and lateness for every consumer", () => {
    const immediate = results.delivery.filter((row) => row.delaySeconds === 0);
    const delayed = results.delivery.filter((row) => row.delaySeconds > 0);
    expect(immediate).to.have.length(5);
    expect(delayed).to.have.length(3);
    for (const row of results.delivery) {
      expect(row.latency.n, `${row.consumer} <- ${row.producer}`).to.be.greaterThan(0);
      expect(row.latency.p50, `${row.consumer} <- ${row.producer}`).to.be.at.least(0);
    }
  });

  it("reports tables, headline ratios, JSON and both charts", () => {
    expect(consoleReport(results)).to.include("Wire cost per call").and.include("Idle cost");
    expect(markdownReport(results)).to.include("| Call |");
    expect(headline(results).join("\n")).to.include("throughput C=50").and.include("idle commands/hour");
    const dir = mkdtempSync(join(tmpdir(), "bench-test-"));
    try {
      const written = writeResults(results, dir);
      for (const path of written) expect(existsSync(path), path).to.equal(true);
      const json = JSON.parse(
        readFileSync(
          written.find((path) => path.endsWith(".json"))!,
          "utf8",
        ),
      ) as BenchResults;
      expect(json.versions).to.include.keys("rsmq", "rsmq-next", "bullmq", "redis-server");
      for (const chart of written.filter((path) => path.endsWith(".svg"))) {
        expect(readFileSync(chart, "utf8")).to.match(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("renders the READMEs' headline and results blocks from the same results", () => {
    // The tiny run has no Worker at its real cap: the idle rows use the scaled Worker instead.
    const rows = headlineRows(results);
    expect(rows.map((row) => row.operation)).to.include("sendMessage, messages a second, 1 in flight");
    const send = results.throughput.find((row) => row.key === "rsmq-next send C=1")!;
    expect(rows.find((row) => row.operation.startsWith("sendMessage, messages"))!.ratio).to.match(
      send.throughputRatio >= 1 ? /× higher$/ : /× lower$/,
    );
    // A tiny window may see no command from the scaled Worker, so only the rsmq side is certain here.
    const poll = results.idle.find((row) => row.name.startsWith("rsmq 0.12.4, polled"))!;
    expect(rows.find((row) => row.operation.startsWith("Redis commands an hour"))!.rsmq).to.equal(formatCount(poll.clientPerHour));
    const block = headlineBlock(results);
    expect(block.split("\n")[0]).to.equal("| Operation | rsmq 0.12.4 | rsmq-next | rsmq-next against rsmq |");
    expect(block).to.include("| Goal | Target | Measured | Verdict |");
    expect(block).to.include(`One tiny run on ${results.date.slice(0, 10)}`);
    expect(resultsBlock(results))
      .to.include(markdownReport(results))
      .and.include(`results/${results.date.slice(0, 10)}.json`);
  });

  it("records every part's duration and load average, and the connections each library instance had", () => {
    expect(results.parts!.map((part) => part.name)).to.deep.equal([
      PART.wireCost,
      PART.idle,
      PART.throughput,
      PART.network,
      PART.workerDelivery,
      PART.memory,
    ]);
    for (const part of results.parts!) {
      expect(part.durationMs, part.name).to.be.at.least(0);
      expect(part.loadAtStart, part.name).to.have.length(3);
      expect(part.loadAtEnd, part.name).to.have.length(3);
    }
    expect(results.connectionsPerClient).to.deep.equal({
      rsmq: 1,
      "rsmq-next": resolveConstructorOptions({}).connection.connections,
      bullmq: { queue: 1, worker: 2 },
    });
  });

  it("renders READMEs whose printed ratios, load, duration and connections add up (as a full run renders them)", async () => {
    // A full run adds the connections part after the suite, timed as a part of its own.
    const parts = [...results.parts!];
    const connections = await recordPart(parts, PART.connections, () =>
      measureConnections(testRedis(), { messages: 20, rounds: 2, counts: [1, 2] }, () => undefined),
    );
    const record: RunRecord = { ...results, parts, connections };
    const root = join(__dirname, "..", "..", "..");
    let readme = readFileSync(join(root, "README.md"), "utf8");
    let benchReadme = readFileSync(join(root, "bench", "README.md"), "utf8");
    readme = replaceBlock(readme, HEADLINE_BLOCK, headlineBlock(record))!;
    for (const [name, content] of [
      [DURATION_BLOCK, durationBlock(record)],
      [CONNECTIONS_BLOCK, connectionsBlock(record)],
      [RESULTS_BLOCK, resultsBlock(record)],
    ] as const) {
      benchReadme = replaceBlock(benchReadme, name, content)!;
    }
    expect(figureProblems(readme, benchReadme, record)).to.deep.equal([]);
    const state = machineState(record);
    expect(readme).to.include(state.quiet ? "on a quiet machine (load at most" : "on a loaded machine (load");
    expect(connectionsBlock(record)).to.include("| send | rsmq-next, 2 connections |");
  });

  it("calls a machine quiet only when every recorded load stayed below the core count", () => {
    const at = (load: number) => ({ name: PART.throughput, durationMs: 1, loadAtStart: [load, 0, 0], loadAtEnd: [load, 0, 0] });
    const machine = { cpus: 2, loadAverageAtStart: [0.5, 0, 0], loadAverageAtEnd: [0.6, 0, 0] };
    expect(machineState({ machine, parts: [at(1.99)] })).to.include({ quiet: true, peak: 1.99 });
    expect(machineState({ machine, parts: [at(1.2), at(2)] })).to.include({ quiet: false, peak: 2 });
    // Without the parts' loads (an older record) a low start and end do not make it quiet.
    expect(machineState({ machine }).quiet).to.equal(undefined);
    expect(machineState({ machine: { ...machine, loadAverageAtStart: [2.4, 0, 0] } })).to.include({ quiet: false, peak: 2.4 });
  });

  it("renders a run recorded before the floors and the memory part, saying what it did not measure", () => {
    const older = JSON.parse(JSON.stringify(results)) as BenchResults;
    delete older.memory;
    delete older.reference;
    delete older.connectionsPerClient!.bullmq;
    older.throughput = older.throughput.filter((row) => row.kind !== "floor");
    for (const row of older.throughput) {
      delete row.floor;
      delete row.floorRatio;
      delete row.callsPerMessage;
    }
    const markdown = markdownReport(older);
    expect(markdown).to.include(`"of floor": ${NOT_MEASURED}`).and.include(`A Worker's heap and RSS over many messages: ${NOT_MEASURED}.`);
    const unmeasured = goalRows(older).filter((goal) => goal.measured === NOT_MEASURED);
    // The floor goal, the two memory goals, and the two held against the run before issue 37.
    expect(unmeasured.map((goal) => goal.goal)).to.have.length(5);
    expect(unmeasured.map((goal) => goal.goal)).to.include(
      `Worker, concurrency 1, against its own figure in the run before issue 37 (${REFERENCE_RUN_FILE}), each × rsmq 0.12.4 in its run`,
    );
    expect(markdownReport(older)).to.not.include("'s Queue on");
    expect(headlineBlock(older)).to.include(NOT_MEASURED);
    expect(resultsBlock(older)).to.include(markdown);
  });
});

describe("bench README blocks (markers)", () => {
  const start = "<!-- bench:results:start -->";
  const end = "<!-- bench:results:end -->";

  it("replaces what is between the markers and nothing else, the same way every time", () => {
    const text = `# Title\n\nBefore.\n\n${start}\nold table\n${end}\n\nAfter.\n`;
    const once = replaceBlock(text, "results", "| a |\n| --- |\n| 1 |\n")!;
    expect(once).to.equal(`# Title\n\nBefore.\n\n${start}\n| a |\n| --- |\n| 1 |\n${end}\n\nAfter.\n`);
    expect(replaceBlock(once, "results", "| a |\n| --- |\n| 1 |\n")).to.equal(once);
    expect(replaceBlock(`${start}\n${end}`, "results", "x")).to.equal(`${start}\nx\n${end}`);
  });

  it("returns undefined for a text without the block, so the file is left alone", () => {
    expect(replaceBlock("# README\n\nno markers here\n", "results", "x")).to.equal(undefined);
    // Another block's markers are not this block's.
    expect(replaceBlock("<!-- bench:headline:start -->\n<!-- bench:headline:end -->\n", "results", "x")).to.equal(undefined);
  });

  it("counts only markers on a line of their own: prose that quotes one is not a marker", () => {
    const text = `Between \`${start}\` and \`${end}\`.\n${start}\nold\n${end}\n`;
    expect(replaceBlock(text, "results", "new")).to.equal(`Between \`${start}\` and \`${end}\`.\n${start}\nnew\n${end}\n`);
  });

  it("refuses a block that is half there rather than guess", () => {
    expect(() => replaceBlock(`${start}\nold\n`, "results", "x")).to.throw(/found 1 start and 0 end/);
    expect(() => replaceBlock(`${end}\nold\n${start}\n`, "results", "x")).to.throw(/with the end first/);
    expect(() => replaceBlock(`${start}\n${end}\n${start}\n${end}\n`, "results", "x")).to.throw(/found 2 start and 2 end/);
  });

  it("updateBlock rewrites a file with the markers and leaves one without them untouched", () => {
    const dir = mkdtempSync(join(tmpdir(), "bench-readme-"));
    try {
      const marked = join(dir, "marked.md");
      const plain = join(dir, "plain.md");
      writeFileSync(marked, `Intro.\n${start}\nold\n${end}\n`);
      writeFileSync(plain, "Intro.\n");
      expect(updateBlock(marked, "results", "new")).to.equal("updated");
      expect(readFileSync(marked, "utf8")).to.equal(`Intro.\n${start}\nnew\n${end}\n`);
      expect(updateBlock(marked, "results", "new")).to.equal("unchanged");
      expect(updateBlock(plain, "results", "new")).to.equal("no markers");
      expect(readFileSync(plain, "utf8")).to.equal("Intro.\n");
      expect(updateBlock(join(dir, "absent.md"), "results", "new")).to.equal("no file");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("bench README blocks (committed)", () => {
  const root = join(__dirname, "..", "..", "..");
  const resultsDir = join(root, "bench", "results");

  /** The newest full run committed under bench/results/ (files are named by date). */
  function latestFullRun(): { file: string; results: RunRecord } {
    const runs = readdirSync(resultsDir)
      .filter((name) => /^\d{4}-\d{2}-\d{2}\.json$/.test(name))
      .sort()
      .map((name) => ({ file: `bench/results/${name}`, results: JSON.parse(readFileSync(join(resultsDir, name), "utf8")) as RunRecord }))
      .filter(({ results }) => results.mode === "full");
    expect(runs, "a full run under bench/results/").to.not.be.empty;
    return runs[runs.length - 1];
  }

  it("bench/README.md and README.md hold the tables the latest full run gives", () => {
    const { file, results } = latestFullRun();
    const fix = `regenerate them: npm run build:bench && node build/bench/run.js --from ${file}`;
    for (const [path, name, content] of [
      ["bench/README.md", DURATION_BLOCK, durationBlock(results)],
      ["bench/README.md", CONNECTIONS_BLOCK, connectionsBlock(results)],
      ["bench/README.md", RESULTS_BLOCK, resultsBlock(results)],
      ["README.md", HEADLINE_BLOCK, headlineBlock(results)],
    ] as const) {
      const text = readFileSync(join(root, path), "utf8");
      const expected = replaceBlock(text, name, content);
      if (path === "bench/README.md") expect(expected, `${path} has its bench:${name} markers`).to.be.a("string");
      // A README without the markers is left alone by the bench, and so by this check.
      if (expected !== undefined)
        expect(text === expected, `${path}'s bench:${name} block is not what ${file} gives: ${fix}`).to.equal(true);
    }
  });
});
