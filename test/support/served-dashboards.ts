/**
 * Dashboards served for the browser tests: each under /ops/queues in an Express app on a free
 * port, its live readings every 250 ms; `close()` ends them all (in `after`).
 */
import { createServer } from "http";
import type { Server } from "http";
import type { AddressInfo } from "net";
import express = require("express");
import type RedisSMQ = require("../../lib/index");
import { createDashboard } from "../../lib/dashboard";
import type { DashboardHandler } from "../../lib/dashboard";

/** Where the dashboards are mounted. */
export const MOUNT = "/ops/queues";

export class ServedDashboards {
  private readonly dashboards: DashboardHandler[] = [];
  private readonly servers: Server[] = [];

  /** Serves a dashboard of `rsmq` (read-only or not); resolves its URL, ending in a slash. */
  async serve(rsmq: RedisSMQ, readOnly: boolean): Promise<string> {
    const dashboard = createDashboard({ rsmq, readOnly, intervalMs: 250 });
    this.dashboards.push(dashboard);
    const app = express();
    app.use(MOUNT, dashboard);
    const server = createServer(app);
    this.servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}${MOUNT}/`;
  }

  /** Closes every dashboard and server served so far. */
  async close(): Promise<void> {
    for (const dashboard of this.dashboards.splice(0)) dashboard.close();
    for (const server of this.servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  }
}
