/**
 * `@opentelemetry/api` is an optional peer: without it installed (a child process whose module
 * resolution cannot find it, test/support/hide-otel.ts) `telemetry: true` records nothing, fails
 * nothing, and says so once; without the option, the API is never loaded at all.
 */
import { expect } from "chai";
import * as path from "path";
import { builtEntry, runChild } from "../support/child-process";
import { testRedis, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

const internalsModule = path.resolve(__dirname, "../../lib/internals.js");

/** A child program: two instances with `options`, a queue, a send and a Worker that handles it; prints what it saw. */
function program(options: string): string {
  return `
    const warnings = [];
    process.on("warning", (warning) => warnings.push(warning.code));
    const RedisSMQ = require(${JSON.stringify(builtEntry)});
    const { internalsOf } = require(${JSON.stringify(internalsModule)});
    (async () => {
      const base = { url: process.env.RSMQ_TEST_URL, ns: process.env.RSMQ_TEST_NS };
      const rsmq = new RedisSMQ({ ...base, ...${options} });
      const other = new RedisSMQ({ ...base, ...${options} });
      await rsmq.createQueueAsync({ qname: "q" });
      const id = await rsmq.sendMessageAsync({ qname: "q", message: "hello" });
      const handled = await new Promise((resolve) => {
        const worker = new RedisSMQ.Worker(rsmq, { qname: "q", handler: (message) => resolve(message.id) });
        worker.start();
      });
      const hub = internalsOf(rsmq).telemetry;
      const loaded = Object.keys(require.cache).filter((file) => file.includes("@opentelemetry"));
      await Promise.all([rsmq.quitAsync(), other.quitAsync()]);
      await new Promise((resolve) => setImmediate(resolve));
      console.log(JSON.stringify({ sent: id, handled, recording: hub.recording !== undefined, tracing: hub.tracing !== undefined, loaded, warnings }));
    })().catch((error) => { console.error(error); process.exitCode = 1; });
  `;
}

describe("telemetry: without @opentelemetry/api, and without the option", () => {
  const env = () => ({ RSMQ_TEST_URL: testRedis().url, RSMQ_TEST_NS: uniqueNs() });

  it("with the API not installed, telemetry: true records nothing, throws nothing, and warns once", async () => {
    const child = await runChild(program("{ telemetry: true }"), {
      ...env(),
      NODE_OPTIONS: `--require ${path.resolve(__dirname, "../support/hide-otel.js")}`,
    });
    expect(child.code, child.stderr).to.equal(0);
    const seen = JSON.parse(child.stdout) as Record<string, unknown>;
    expect(seen.handled).to.equal(seen.sent);
    expect(seen).to.include({ recording: false, tracing: false });
    expect(seen.loaded).to.deep.equal([]);
    expect(seen.warnings).to.deep.equal(["RSMQ_NEXT_TELEMETRY_UNAVAILABLE"]);
    expect(child.stderr).to.include("@opentelemetry/api is not installed");
  });

  it("with the API installed but no SDK registered, telemetry: true takes the path without telemetry, and says so once", async () => {
    const child = await runChild(program("{ telemetry: true }"), env());
    expect(child.code, child.stderr).to.equal(0);
    const seen = JSON.parse(child.stdout) as Record<string, unknown>;
    expect(seen.handled).to.equal(seen.sent);
    // Nothing to record into: the calls take today's path (no spans, no details asked of the scripts).
    expect(seen).to.include({ recording: false, tracing: false });
    expect(seen.warnings).to.deep.equal(["RSMQ_NEXT_TELEMETRY_NO_SDK"]);
    expect(child.stderr).to.include("no OpenTelemetry SDK");
  });

  it("with an SDK registered globally before the instance is made, telemetry: true records and traces", async () => {
    const register = `
      const { BasicTracerProvider } = require("@opentelemetry/sdk-trace-base");
      const { MeterProvider } = require("@opentelemetry/sdk-metrics");
      new BasicTracerProvider().register();
      require("@opentelemetry/api").metrics.setGlobalMeterProvider(new MeterProvider());
    `;
    const child = await runChild(register + program("{ telemetry: true }"), env());
    expect(child.code, child.stderr).to.equal(0);
    const seen = JSON.parse(child.stdout) as Record<string, unknown>;
    expect(seen.handled).to.equal(seen.sent);
    expect(seen).to.include({ recording: true, tracing: true });
    expect(seen.warnings).to.deep.equal([]);
  });

  it("with only a tracer provider registered, it traces and records no metric", async () => {
    const register = `new (require("@opentelemetry/sdk-trace-base").BasicTracerProvider)().register();`;
    const child = await runChild(register + program("{ telemetry: true }"), env());
    expect(child.code, child.stderr).to.equal(0);
    const seen = JSON.parse(child.stdout) as Record<string, unknown>;
    expect(seen).to.include({ recording: false, tracing: true });
    expect(seen.warnings).to.deep.equal([]);
  });

  it("without the option, the API is never loaded (not after construction, a send and a Worker's message either)", async () => {
    const child = await runChild(program("{}"), env());
    expect(child.code, child.stderr).to.equal(0);
    const seen = JSON.parse(child.stdout) as Record<string, unknown>;
    expect(seen.handled).to.equal(seen.sent);
    expect(seen).to.include({ recording: false, tracing: false });
    expect(seen.loaded).to.deep.equal([]);
    expect(seen.warnings).to.deep.equal([]);
  });
});
