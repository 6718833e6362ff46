/**
 * A waiting receive under telemetry: each look is its own receive span (the one script call), so
 * the wait is never reported as the duration of a receive; the last span holds the message.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib");
import { otelSdk, spansNamed, useContextManager } from "../support/otel";
import type { OtelSdk } from "../support/otel";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { commandStatsDuring } from "../support/wire";
import { loadPollScripts, subscribersOf, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("long polling: telemetry", () => {
  let sdk: OtelSdk;
  let rsmq: RedisSMQ;
  let ns: string;
  let removeContextManager: () => void;

  before(() => (removeContextManager = useContextManager()));
  after(() => removeContextManager());

  beforeEach(async () => {
    sdk = otelSdk();
    ns = uniqueNs();
    rsmq = new RedisSMQ({
      ...connectionOptions(ns),
      telemetry: { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, propagator: sdk.propagator },
    });
    await rsmq.createQueueAsync({ qname: "q" });
    await loadPollScripts(ns, "q");
    sdk.exporter.reset();
  });
  afterEach(async () => {
    await rsmq.quitAsync();
    await sdk.shutdown();
  });

  it("one receive span per look, not one for the wait", async () => {
    let got: unknown;
    const stats = await commandStatsDuring(async () => {
      const waiting = rsmq.receiveMessageAsync({ qname: "q", waitMs: 60_000 });
      const client = await plainClient();
      await waitFor(async () => (await subscribersOf(client, keysOf(ns, "q").realtimeChannel)) > 0, "the call's subscription");
      await client.quit();
      // Sent while the call waits: the in-process wake makes it look again.
      await rsmq.sendMessageAsync({ qname: "q", message: "traced" });
      got = await waiting;
    });
    expect(got).to.include({ message: "traced" });
    const receives = spansNamed(sdk.spans(), "receive q");
    // Every receive script the server ran has its span: the first look, the catch-up look after the subscription, the woken look.
    expect(receives).to.have.length((stats.evalsha ?? 0) - 1);
    expect(receives.length).to.be.at.least(2);
    expect(receives.slice(0, -1).every((span) => span.links.length === 0)).to.equal(true);
    expect(receives[receives.length - 1].links).to.have.length(1);
  });
});
