/**
 * The one redis-server starter (lib/cli/redis/redis-server.ts) that the demo, the test harness and
 * the cluster harness share: it resolves once the server answers, and every way a start can fail
 * ends within the bound with a RedisServerStartError whose code says which.
 */
import { expect } from "chai";
import { createClient } from "redis";
import { RedisServerStartError, startRedisServer } from "../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../lib/cli/redis/redis-server";
import { listening } from "../support/cli";
import { testRedis } from "../support/server";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single");

async function startFailure(start: Promise<RedisServerProcess>): Promise<RedisServerStartError> {
  const error = await start.then(
    async (server) => {
      await server.stop("SIGKILL");
      throw new Error(`started on ${server.port}, expected a failure`);
    },
    (failure: unknown) => failure,
  );
  expect(error).to.be.instanceOf(RedisServerStartError);
  return error as RedisServerStartError;
}

describe("redis-server starter", function () {
  it("resolves once the server answers on a free port; stop() ends it", async () => {
    const server = await startRedisServer();
    try {
      const client = createClient({ url: server.url });
      client.on("error", () => undefined);
      await client.connect();
      expect(await client.ping()).to.equal("PONG");
      await client.quit();
      expect(server.running).to.equal(true);
      expect(server.log()).to.include("Ready to accept connections");
    } finally {
      await server.stop();
    }
    expect(server.running).to.equal(false);
    expect(await listening(server.port)).to.equal(false);
  });

  it("a port already taken: code portInUse", async () => {
    const error = await startFailure(startRedisServer({ port: testRedis().port }));
    expect(error.code).to.equal("portInUse");
    expect(error.name).to.equal("RedisServerStartError");
  });

  it("an argument redis-server refuses: code exited, with its log", async () => {
    const error = await startFailure(startRedisServer({ args: ["--no-such-option", "1"] }));
    expect(error.code).to.equal("exited");
    expect(error.log).to.match(/no-such-option/i);
  });

  it("not ready within startTimeoutMs: code timeout, naming the bound, and the server is killed", async () => {
    // At loglevel warning the server never logs that it is ready, so the start can only time out.
    const error = await startFailure(startRedisServer({ args: ["--loglevel", "warning"], startTimeoutMs: 500 }));
    expect(error.code).to.equal("timeout");
    expect(error.message).to.include("startTimeoutMs");
    const port = Number(/on port (\d+)/.exec(error.message)![1]);
    // SIGKILL was sent: the port is released once the process is gone.
    await waitFor(async () => !(await listening(port)), `port ${port} to be released`);
  });
});
