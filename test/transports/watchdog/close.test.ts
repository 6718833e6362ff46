/**
 * Closing a link's watchdog ends the calls still waiting for the link to be ready: they were never
 * sent, and each rejects at once with connectionClosed instead of holding its offlineTimeoutMs
 * timer. Such a timer kept a process alive after its work was done: a Worker stopped before its
 * wake subscription's ioredis copy was ready (the command line's `worker --until-empty` over
 * Sentinel under load) waited out the 20 s default before the process could exit.
 */
import { expect } from "chai";
import { spawn } from "child_process";
import * as path from "path";
import { Redis } from "ioredis";
import { createClient } from "redis";
import { LinkWatchdog } from "../../../lib/transports/watchdog/link-watchdog";
import { ioredisLink } from "../../../lib/transports/ioredis/ioredis-link";
import type { AnyIoredis } from "../../../lib/transports/ioredis/client-shape";
import { freePort } from "../../support/redis-server";
import { runsOn } from "../../support/targets";

runsOn("single");

/** Longer than the test may take: a call still held by it would time the test out. */
const BOUNDS = { offlineTimeoutMs: 120_000, commandTimeoutMs: 1_000 };

const rejectionOf = (promise: Promise<unknown>): Promise<Error | undefined> =>
  promise.then(
    () => undefined,
    (error: Error) => error,
  );

describe("link watchdog: close", () => {
  it("rejects a call held for an ioredis client that is not ready, at once, with connectionClosed", async () => {
    // Nothing listens on the port: the client keeps trying, and the call waits for it.
    const client = new Redis({ host: "127.0.0.1", port: await freePort(), retryStrategy: () => 50 });
    client.on("error", () => undefined);
    const watchdog = new LinkWatchdog(ioredisLink(client as unknown as AnyIoredis), BOUNDS);
    try {
      let sent = false;
      const call = watchdog.call(() => {
        sent = true;
        return client.ping();
      });
      watchdog.close();
      const error = await rejectionOf(call);
      expect(error?.name).to.equal("connectionClosed");
      expect(error?.message).to.match(/never sent/);
      expect(sent, "the held call was sent").to.equal(false);
    } finally {
      client.disconnect();
    }
  });

  it("rejects a call waiting for a node-redis client that is not connected, at once, and withdraws it", async () => {
    const client = createClient({ socket: { host: "127.0.0.1", port: await freePort(), reconnectStrategy: () => 50 } });
    client.on("error", () => undefined);
    void client.connect().catch(() => undefined);
    const link = {
      get isReady() {
        return client.isReady;
      },
      where: "127.0.0.1",
      withdrawable: true,
      on: (event: string, listener: (...args: any[]) => void) => void client.on(event, listener),
      off: (event: string, listener: (...args: any[]) => void) => void client.off(event, listener),
    };
    const watchdog = new LinkWatchdog(link, BOUNDS);
    try {
      let withdrawn = false;
      const call = watchdog.call((signal) => {
        signal?.addEventListener("abort", () => (withdrawn = true));
        return client.sendCommand(["PING"], { signal });
      });
      watchdog.close();
      expect((await rejectionOf(call))?.name).to.equal("connectionClosed");
      expect(withdrawn, "the queued call was withdrawn").to.equal(true);
    } finally {
      await client.disconnect().catch(() => undefined);
    }
  });

  it("lets a process exit by itself once it closed the watchdog and the client", async () => {
    const port = await freePort();
    const lib = path.resolve(__dirname, "../../../lib/transports");
    const script = `
      const { Redis } = require("ioredis");
      const { LinkWatchdog } = require(${JSON.stringify(path.join(lib, "watchdog/link-watchdog"))});
      const { ioredisLink } = require(${JSON.stringify(path.join(lib, "ioredis/ioredis-link"))});
      const client = new Redis({ host: "127.0.0.1", port: ${port}, retryStrategy: () => 50 });
      client.on("error", () => {});
      const watchdog = new LinkWatchdog(ioredisLink(client), ${JSON.stringify(BOUNDS)});
      watchdog.call(() => client.ping()).catch(() => {});
      setTimeout(() => { watchdog.close(); client.disconnect(); }, 100);
    `;
    const child = spawn(process.execPath, ["-e", script], { cwd: path.resolve(__dirname, "../../../.."), stdio: "ignore" });
    const exit = await new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    expect(exit).to.equal(0);
  });
});
