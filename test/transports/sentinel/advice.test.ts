/**
 * A Sentinel-managed ioredis client without `failoverDetector: true` keeps writing to the old
 * primary after a manual failover, and those writes are lost (measured by failover.test.ts): the
 * library says so once per process, with a warning code. Each case runs in a child process of its
 * own, since the warning is once per process. No server is needed (the clients never connect).
 * The same with ioredis 5 and ioredis 6 clients.
 */
import { expect } from "chai";
import { builtEntry, runChild } from "../../support/child-process";
import { freePort } from "../../support/redis-server";
import { runsOn } from "../../support/targets";

runsOn("single");

/** The warning codes a child process emits after making one RedisSMQ per entry of `clients` (options of a `pkg` client). */
async function warningsFor(pkg: string, clients: Array<Record<string, unknown>>): Promise<string[]> {
  const port = await freePort(); // no sentinel listens there
  const program = `
    const { Redis, Cluster } = require(${JSON.stringify(require.resolve(pkg))});
    const RedisSMQ = require(${JSON.stringify(builtEntry)});
    const codes = [];
    process.on("warning", (warning) => codes.push(warning.code));
    for (const options of ${JSON.stringify(clients)}) {
      const sentinel = { sentinels: [{ host: "127.0.0.1", port: ${port} }], name: "mymaster" };
      const client = options.cluster
        ? new Cluster([{ host: "127.0.0.1", port: ${port} }], { lazyConnect: true })
        : new Redis({ ...(options.standalone ? { port: ${port} } : sentinel), lazyConnect: true, ...options.client });
      client.on("error", () => {});
      const rsmq = new RedisSMQ({ client, ns: "advice" });
      rsmq.on("error", () => {});
    }
    // The warning is emitted on a later tick; the clients never connect, so nothing is left to close.
    setTimeout(() => process.stdout.write(JSON.stringify(codes), () => process.exit(0)), 50);
  `;
  const outcome = await runChild(program);
  expect(outcome.exited, outcome.stderr).to.equal(true);
  return JSON.parse(outcome.stdout) as string[];
}

for (const pkg of ["ioredis", "ioredis6"]) {
  describe(`a Sentinel-managed ${pkg} client without failoverDetector`, () => {
    it("is warned about once per process, with code RSMQ_NEXT_SENTINEL_FAILOVER_DETECTOR", async () => {
      expect(await warningsFor(pkg, [{}, {}, { client: { failoverDetector: false } }])).to.deep.equal([
        "RSMQ_NEXT_SENTINEL_FAILOVER_DETECTOR",
      ]);
    });

    it("no warning with failoverDetector: true, for a standalone client or for a Cluster client", async () => {
      expect(await warningsFor(pkg, [{ client: { failoverDetector: true } }, { standalone: true }, { cluster: true }])).to.deep.equal([]);
    });
  });
}
