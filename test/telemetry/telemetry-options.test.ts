/**
 * The `telemetry` option resolved: `true` is every default, the object form overrides each, false
 * is off (the option's refusals are in test/options/constructor-options.test.ts, with the others').
 */
import { expect } from "chai";
import { resolveTelemetry } from "../../lib/telemetry/telemetry-options";
import { runsOn } from "../support/targets";

runsOn("single");

describe("telemetry: the option's settings", () => {
  it("true: the API's globals, tracing and metrics on, the carried context as parent, the context carried", () => {
    expect(resolveTelemetry(true)).to.deep.equal({
      tracerProvider: undefined,
      meterProvider: undefined,
      propagator: undefined,
      tracing: true,
      metrics: true,
      processContext: "parent",
      carryContext: true,
      queueState: false,
      tenantLabels: 0,
    });
  });

  it("queueState: true reads every queue, a list those queues, false or left out none", () => {
    expect(resolveTelemetry({ queueState: true })?.queueState).to.equal("all");
    expect(resolveTelemetry({ queueState: ["a", "b"] })?.queueState).to.deep.equal(["a", "b"]);
    expect(resolveTelemetry({ queueState: false })?.queueState).to.equal(false);
  });

  it("false: off", () => {
    expect(resolveTelemetry(false)).to.equal(undefined);
  });

  it("an object overrides each default, and null reads as left out", () => {
    const tracerProvider = { getTracer: () => undefined };
    expect(
      resolveTelemetry({
        tracerProvider,
        metrics: false,
        processContext: "link",
        carryContext: false,
        tracing: null as unknown as boolean,
        queueState: ["jobs"],
        tenantLabels: 20,
      }),
    ).to.deep.equal({
      tracerProvider,
      meterProvider: undefined,
      propagator: undefined,
      tracing: true,
      metrics: false,
      processContext: "link",
      carryContext: false,
      queueState: ["jobs"],
      tenantLabels: 20,
    });
  });
});
