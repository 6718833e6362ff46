/**
 * A drop-in must not move the data: rsmq 0.12.4 passed its whole options object to node-redis v3,
 * which reads top-level keys only, so the nested `options` (`db`, `url`, `host`, `port`, ...) never
 * reached the connection and those users' queues live where the top-level keys point. Each case
 * creates a queue with rsmq 0.12.4 and with rsmq-next from the same options and compares where the
 * keys landed (server and database, read with a separate client); `honorNestedOptions: true` makes
 * rsmq-next follow the nested object instead. Databases 0-3 only.
 */
import { expect } from "chai";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import OldRSMQ = require("rsmq");
import RedisSMQ = require("../../lib");
import { builtEntry, runChild } from "../support/child-process";
import { startLocalRedis } from "../support/redis-server";
import type { TestRedis } from "../support/redis-server";
import { singleServerOnly, testRedis, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

type Options = Record<string, unknown> & { ns: string };

const OTHER_HOST = "127.0.0.2";

/** The databases 0-3 of the server at `url` that hold `key`. */
async function databasesHolding(url: string, key: string): Promise<number[]> {
  const client = createClient({ url }) as RedisClientType;
  client.on("error", () => undefined);
  await client.connect();
  try {
    const found: number[] = [];
    for (let db = 0; db <= 3; db++) {
      await client.select(db);
      if ((await client.exists(key)) === 1) found.push(db);
    }
    return found;
  } finally {
    await client.quit();
  }
}

/** Removes the queue's keys from databases 0-3 of the server at `url`. */
async function clean(url: string, ns: string): Promise<void> {
  const client = createClient({ url }) as RedisClientType;
  client.on("error", () => undefined);
  await client.connect();
  try {
    for (let db = 0; db <= 3; db++) {
      await client.select(db);
      await client.del([`${ns}:q:Q`, `${ns}:q`, `${ns}:QUEUES`]);
    }
  } finally {
    await client.quit();
  }
}

interface Landing {
  /** Databases holding the queue on the run's test server. */
  testServer: number[];
  /** Databases holding the queue on the other server, when the case has one. */
  other: number[];
}

/** Creates queue "q" through `make(options)` and says where its keys landed; removes them after. */
async function landingOf(
  make: (options: Options) => { createQueueAsync(o: { qname: string }): Promise<number>; quitAsync(): Promise<unknown> },
  options: () => Options,
  other?: { url: string },
): Promise<Landing> {
  const given = options();
  const rsmq = make(given);
  try {
    expect(await rsmq.createQueueAsync({ qname: "q" })).to.equal(1);
  } finally {
    await rsmq.quitAsync();
  }
  const key = `${given.ns}:q:Q`;
  const landing = {
    testServer: await databasesHolding(testRedis().url, key),
    other: other ? await databasesHolding(other.url, key) : [],
  };
  await clean(testRedis().url, given.ns);
  if (other) await clean(other.url, given.ns);
  return landing;
}

// rsmq mutates its options object (it writes host and port into `options`), so each library gets a fresh one.
const viaRsmq = (options: Options) =>
  new OldRSMQ(options as never) as unknown as { createQueueAsync(o: { qname: string }): Promise<number>; quitAsync(): Promise<unknown> };
const viaNext = (options: Options) => new RedisSMQ(options);

/** Where rsmq 0.12.4 and rsmq-next put a queue created with these options. */
async function bothLandings(options: () => Options, other?: { url: string }): Promise<{ rsmq: Landing; next: Landing }> {
  return { rsmq: await landingOf(viaRsmq, options, other), next: await landingOf(viaNext, options, other) };
}

describe("nested `options` and where the data lives (rsmq 0.12.4 beside rsmq-next)", function () {
  let other: TestRedis | undefined;

  before(function () {
    singleServerOnly(this, "rsmq 0.12.4 runs on one server");
  });

  after(async () => {
    await other?.close();
  });

  /**
   * A second redis-server on the test server's port but on 127.0.0.2, for the cases where the
   * nested options name another server: top-level `port` alone then reaches the test server in
   * both libraries (rsmq 0.12.4 would add host 127.0.0.1), and a nested `host` the other one.
   */
  async function otherServer(): Promise<{ host: string; port: number; url: string }> {
    const { port } = testRedis();
    other ??= await startLocalRedis({ args: ["--port", String(port), "--bind", OTHER_HOST] });
    return { host: OTHER_HOST, port, url: `redis://${OTHER_HOST}:${port}` };
  }

  const top = (ns: string) => ({ host: testRedis().host, port: testRedis().port, ns });

  it("nested `db`: both use db 0 of the top-level server", async () => {
    const ns = uniqueNs();
    const landings = await bothLandings(() => ({ ...top(ns), options: { db: 1 } }));
    expect(landings.rsmq).to.deep.equal({ testServer: [0], other: [] });
    expect(landings.next).to.deep.equal(landings.rsmq);
  });

  it("rsmq-cli's `--clientopt db=1` (a nested string `db`): both use db 0", async () => {
    const ns = uniqueNs();
    const landings = await bothLandings(() => ({ ...top(ns), options: { db: "1" } }));
    expect(landings.rsmq).to.deep.equal({ testServer: [0], other: [] });
    expect(landings.next).to.deep.equal(landings.rsmq);
  });

  it("nested `host` and `port` of another server: both use the top-level one", async () => {
    const ns = uniqueNs();
    const server = await otherServer();
    const landings = await bothLandings(
      () => ({ ns, port: server.port, options: { host: server.host, port: server.port, db: 2 } }),
      server,
    );
    expect(landings.rsmq).to.deep.equal({ testServer: [0], other: [] });
    expect(landings.next).to.deep.equal(landings.rsmq);
  });

  it("nested `url`: both use the top-level server and db", async () => {
    const ns = uniqueNs();
    const server = await otherServer();
    const landings = await bothLandings(() => ({ ...top(ns), db: 3, options: { url: `${server.url}/1` } }), server);
    expect(landings.rsmq).to.deep.equal({ testServer: [3], other: [] });
    expect(landings.next).to.deep.equal(landings.rsmq);
  });

  it("top-level `url` with a nested `db`: both use the url's server and db", async () => {
    const ns = uniqueNs();
    const landings = await bothLandings(() => ({ ns, url: `${testRedis().url}/2`, options: { db: 1 } }));
    expect(landings.rsmq).to.deep.equal({ testServer: [2], other: [] });
    expect(landings.next).to.deep.equal(landings.rsmq);
  });

  it("a nested `password` the server does not want: both connect and ignore it", async () => {
    const ns = uniqueNs();
    const landings = await bothLandings(() => ({ ...top(ns), options: { password: "not-configured" } }));
    expect(landings.rsmq).to.deep.equal({ testServer: [0], other: [] });
    expect(landings.next).to.deep.equal(landings.rsmq);
  });

  it("`honorNestedOptions: true` follows the nested `db`", async () => {
    const ns = uniqueNs();
    const landing = await landingOf(viaNext, () => ({ ...top(ns), honorNestedOptions: true, options: { db: 1 } }));
    expect(landing).to.deep.equal({ testServer: [1], other: [] });
  });

  it("`honorNestedOptions: true` follows nested `host` and `port` to the other server", async () => {
    const ns = uniqueNs();
    const server = await otherServer();
    const landing = await landingOf(
      viaNext,
      () => ({ ns, port: server.port, honorNestedOptions: true, options: { host: server.host, db: 2 } }),
      server,
    );
    expect(landing).to.deep.equal({ testServer: [], other: [2] });
  });

  it("`honorNestedOptions: true` follows a nested `url`", async () => {
    const ns = uniqueNs();
    const server = await otherServer();
    const landing = await landingOf(viaNext, () => ({ ...top(ns), honorNestedOptions: true, options: { url: `${server.url}/1` } }), server);
    expect(landing).to.deep.equal({ testServer: [], other: [1] });
  });

  it("node-redis v4 keys in `options` (no rsmq 0.12.4 user could have had them) are followed: `database`", async () => {
    const ns = uniqueNs();
    const landing = await landingOf(viaNext, () => ({ ...top(ns), options: { database: 3 } }));
    expect(landing).to.deep.equal({ testServer: [3], other: [] });
  });

  it("rejects a `honorNestedOptions` that is not a boolean before connecting", () => {
    expect(() => new RedisSMQ({ ...top(uniqueNs()), honorNestedOptions: "yes" } as unknown as RedisSMQ.ConstructorOptions)).to.throw(
      TypeError,
      "Expected `honorNestedOptions` to be a boolean, got `yes` (string)",
    );
  });

  it("warns once per process, naming both targets and how to choose, and not when the nested options change nothing", async () => {
    // A fresh process, so that no earlier test has used up the warning.
    const script = `
      const RedisSMQ = require(${JSON.stringify(builtEntry)});
      const warnings = [];
      process.on("warning", (warning) => warnings.push({ name: warning.name, code: warning.code, message: warning.message }));
      (async () => {
        const base = { host: process.env.HOST, port: Number(process.env.PORT), ns: process.env.NS };
        const instances = [
          new RedisSMQ({ ...base, options: { db: 1 } }),
          new RedisSMQ({ ...base, options: { db: 1 } }),
          new RedisSMQ({ ...base, options: { host: base.host, port: base.port, db: 0 } }),
          new RedisSMQ({ ...base, honorNestedOptions: true, options: { db: 2 } }),
          new RedisSMQ({ ...base, options: { database: 3 } }),
        ];
        const created = await instances[0].createQueueAsync({ qname: "q" });
        for (const rsmq of instances) await rsmq.quitAsync();
        await new Promise((resolve) => setImmediate(resolve));
        console.log(JSON.stringify({ warnings, created }));
      })().catch((error) => { console.error(error); process.exit(1); });
    `;
    const { host, port } = testRedis();
    const ns = uniqueNs();
    const outcome = await runChild(script, { HOST: host, PORT: String(port), NS: ns });
    await clean(testRedis().url, ns);
    expect(outcome.code, outcome.stderr).to.equal(0);
    const { warnings, created } = JSON.parse(outcome.stdout) as {
      warnings: Array<{ name: string; code: string; message: string }>;
      created: number;
    };
    expect(created).to.equal(1);
    expect(warnings.map(({ name, code }) => [name, code])).to.deep.equal([["Warning", "RSMQ_NEXT_NESTED_OPTIONS"]]);
    const [message] = warnings.map((warning) => warning.message);
    expect(message).to.include(`${host}:${port} db 1`);
    expect(message).to.include(`${host}:${port} db 0`);
    expect(message).to.include("rsmq 0.12.4");
    expect(message).to.include("honorNestedOptions: true");
    expect(message).to.include("`client`");
    expect(message).to.include("top level");
  });
});
