/**
 * The dashboard's `metrics` route (relative to its mount): the same queue-state metrics as
 * `rsmq-next metrics`, in the text format, from the reading its open tabs share; with the
 * dashboard's security headers, GET only, read-only mode or not; 503 with a one-line reason
 * while Redis cannot be read. Over the three mounts of docs/dashboard.md.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { createDashboard } from "../../lib/dashboard";
import type { DashboardHandler } from "../../lib/dashboard";
import { CONTENT_SECURITY_POLICY } from "../../lib/dashboard/http/security-headers";
import { connectionOptions, uniqueNs } from "../support/server";
import { MOUNTS, send } from "../support/dashboard";
import type { Mounted } from "../support/dashboard";
import { parseExposition } from "../support/prometheus";
import { CLOCK_SAMPLES, expectedSamples, seedQueues } from "../support/queue-state-seed";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

for (const { name, mount } of MOUNTS) {
  describe(`dashboard metrics route: ${name}`, () => {
    let rsmq: RedisSMQ;
    let handler: DashboardHandler;
    let mounted: Mounted;

    beforeEach(async () => {
      rsmq = new RedisSMQ(connectionOptions(uniqueNs("dashmetrics")));
      await seedQueues(rsmq);
      handler = createDashboard({ rsmq });
      mounted = await mount(handler);
    });
    afterEach(async () => {
      handler.close();
      await mounted.close();
      await rsmq.quitAsync().catch(() => undefined);
    });

    it("GET metrics: the queue-state metrics in the text format, with the security headers", async () => {
      const answer = await send(`${mounted.base}metrics`);
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.headers["content-type"]).to.equal("text/plain; version=0.0.4; charset=utf-8");
      expect(answer.headers["cache-control"]).to.equal("no-store");
      expect(answer.headers["content-security-policy"]).to.equal(CONTENT_SECURITY_POLICY);
      const samples = parseExposition(answer.text);
      expect(Object.fromEntries([...samples].filter(([sample]) => !CLOCK_SAMPLES.includes(sample)))).to.deep.equal(expectedSamples());
    });

    it("another method: 405 naming GET", async () => {
      const answer = await send(`${mounted.base}metrics`, { method: "POST", body: {} });
      expect([answer.status, answer.headers.allow]).to.deep.equal([405, "GET"]);
    });

    it("Redis closed: 503 with the reason on one line", async () => {
      await rsmq.quitAsync();
      const answer = await send(`${mounted.base}metrics`);
      expect(answer.status).to.equal(503);
      expect(answer.text).to.match(/^rsmq-next: cannot read the queues from Redis: [^\n]+\n$/);
    });
  });
}
