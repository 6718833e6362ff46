/**
 * The bench (`npm run bench`) is not part of `npm test`, but this runs its whole code path once
 * on tiny sizes against the test server, so it cannot rot: every measurement, the report, the
 * JSON record and the charts. It checks that each figure was actually measured and is coherent
 * (counts where something must have happened, ratios against the rsmq rows), never how fast
 * anything was: sizes this small say nothing about speed.
 */
import { expect } from "chai";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { CONFIGS } from "../bench/config";
import { consoleReport, headline, markdownReport, writeResults } from "../bench/report";
import { idleSubjects, runSuite, type BenchResults } from "../bench/suite";
import { testRedis } from "./support/server";

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
      const json = JSON.parse(readFileSync(written.find((path) => path.endsWith(".json"))!, "utf8")) as BenchResults;
      expect(json.versions).to.include.keys("rsmq", "rsmq-next", "bullmq", "redis-server");
      for (const chart of written.filter((path) => path.endsWith(".svg"))) {
        expect(readFileSync(chart, "utf8")).to.match(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
