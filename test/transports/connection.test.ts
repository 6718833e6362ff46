/**
 * Where an instance connects and what happens to the connection: db/url options (top level and the
 * nested `options` rsmq 0.12.4 ignored), clients passed in (node-redis v4 borrowed and left open, v3
 * recognised), quit, and the events around an outage of the real server.
 */
import { expect } from "chai";
import { execFile } from "child_process";
import { once } from "events";
import type { EventEmitter } from "events";
import { existsSync } from "fs";
import { createServer } from "net";
import type { AddressInfo } from "net";
import * as path from "path";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { builtEntry, runChild } from "../support/child-process";
import { connectionOptions, plainClient, testRedis, uniqueNs } from "../support/server";
import { SilentListener } from "../support/silent-listener";
import { runsOn } from "../support/targets";

runsOn("single");

/** The node-redis v3 that rsmq 0.12.4 itself depends on (what rsmq users pass as `client`). */
interface V3Client extends EventEmitter {
  connected: boolean;
  ping(callback: (error: Error | null, reply: string) => void): boolean;
  select(db: number, callback: (error: Error | null) => void): boolean;
  quit(callback?: (error: Error | null, reply: string) => void): boolean;
}
interface V3Module {
  createClient(options: { host: string; port: number; db?: number }): V3Client;
}
const V3_PATH = path.resolve(__dirname, "../../../node_modules/rsmq/node_modules/redis");

/** The databases (0-15) in which `key` exists, read with a separate client. */
async function databasesHolding(key: string): Promise<number[]> {
  const client = await plainClient();
  try {
    const found: number[] = [];
    for (let db = 0; db < 16; db++) {
      await client.select(db);
      if ((await client.exists(key)) === 1) found.push(db);
    }
    return found;
  } finally {
    await client.quit();
  }
}

/** Creates queue "q" through an instance built from `options` and says which db it landed in. */
async function databasesOfNewQueue(options: RedisSMQ.ConstructorOptions & { ns: string }): Promise<number[]> {
  const rsmq = new RedisSMQ(options);
  try {
    expect(await rsmq.createQueueAsync({ qname: "q" })).to.equal(1);
  } finally {
    await rsmq.quitAsync();
  }
  return databasesHolding(`${options.ns}:q:Q`);
}

/** Resolves once `predicate` holds (checked every few ms); mocha's timeout bounds the wait. */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Counts `event` on `emitter` from now on. */
function counter(emitter: EventEmitter, event: string): { count: number; stop(): void } {
  const state = {
    count: 0,
    stop: () => emitter.off(event, listener),
  };
  const listener = (): void => {
    state.count++;
  };
  emitter.on(event, listener);
  return state;
}

async function v4Client(database?: number): Promise<RedisClientType> {
  const client = createClient({ url: testRedis().url, database }) as RedisClientType;
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

/** A local port nothing listens on (it was free a moment ago). */
function unusedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe("connection", () => {
  describe("database and url options", () => {
    it("honours top-level `db`", async () => {
      const ns = uniqueNs();
      expect(await databasesOfNewQueue({ ...connectionOptions(ns), db: 3 })).to.deep.equal([3]);
    });

    it("honours nested `options: { db }` with `honorNestedOptions: true` (rsmq 0.12.4 ignored it: see options/nested-options.test.ts)", async () => {
      const ns = uniqueNs();
      expect(await databasesOfNewQueue({ ...connectionOptions(ns), honorNestedOptions: true, options: { db: 4 } })).to.deep.equal([4]);
    });

    it("honours nested `options: { database }`", async () => {
      const ns = uniqueNs();
      expect(await databasesOfNewQueue({ ...connectionOptions(ns), options: { database: 5 } })).to.deep.equal([5]);
    });

    it("lets top-level keys win over nested ones", async () => {
      const ns = uniqueNs();
      expect(await databasesOfNewQueue({ ...connectionOptions(ns), db: 6, options: { db: 7 } })).to.deep.equal([6]);
    });

    it("connects with `url`, database included", async () => {
      const ns = uniqueNs();
      expect(await databasesOfNewQueue({ ns, url: `${testRedis().url}/8` })).to.deep.equal([8]);
    });

    it("lets `url` win over host and port, as node-redis does", async () => {
      const ns = uniqueNs();
      // Port 1 is never a Redis server: were it used, the queue would never be created.
      const options = { ns, host: "127.0.0.1", port: 1, url: testRedis().url };
      expect(await databasesOfNewQueue(options)).to.deep.equal([0]);
    });

    it("leaves the caller's options object as it was", async () => {
      const ns = uniqueNs();
      const options = { ...connectionOptions(ns), db: 2, options: { database: 3 } };
      const copy = JSON.parse(JSON.stringify(options));
      await databasesOfNewQueue(options);
      expect(options).to.deep.equal(copy);
    });
  });

  describe("a node-redis v4 client passed as `client`", () => {
    it("is used as it is and stays open after quit", async () => {
      const ns = uniqueNs();
      const client = await v4Client(9);
      try {
        const rsmq = new RedisSMQ({ ns, client });
        expect(rsmq.redis).to.equal(client);
        expect(await rsmq.createQueueAsync({ qname: "q" })).to.equal(1);
        await rsmq.sendMessageAsync({ qname: "q", message: "m" });
        expect(await rsmq.quitAsync()).to.equal("OK");
        expect(client.isOpen).to.equal(true);
        expect(await client.ping()).to.equal("PONG");
        // The client's own database, not a default.
        expect(await databasesHolding(`${ns}:q:Q`)).to.deep.equal([9]);
      } finally {
        await client.quit();
      }
    });

    it("is connected for you when it is not open yet", async () => {
      const ns = uniqueNs();
      const client = createClient({ url: testRedis().url }) as RedisClientType;
      client.on("error", () => undefined);
      const rsmq = new RedisSMQ({ ns, client });
      try {
        expect(rsmq.redis).to.equal(client);
        expect(await rsmq.createQueueAsync({ qname: "q" })).to.equal(1);
        expect(client.isOpen).to.equal(true);
        await rsmq.quitAsync();
        expect(client.isOpen).to.equal(true);
        expect(await client.ping()).to.equal("PONG");
      } finally {
        if (client.isOpen) await client.quit();
      }
    });

    it("emits connect for a client that is already ready", async () => {
      const client = await v4Client();
      try {
        const rsmq = new RedisSMQ({ ns: uniqueNs(), client });
        await once(rsmq, "connect");
        expect(rsmq.connected).to.equal(true);
        await rsmq.quitAsync();
      } finally {
        await client.quit();
      }
    });
  });

  describe("a node-redis v3 client passed as `client`", () => {
    let redisV3: V3Module;
    before(() => {
      expect(existsSync(V3_PATH), `${V3_PATH} (rsmq 0.12.4's own redis@3)`).to.equal(true);
      redisV3 = require(V3_PATH) as V3Module;
    });

    it("lends its server and db; quitting rsmq-next leaves it open", async () => {
      const { host, port } = testRedis();
      const ns = uniqueNs();
      const v3 = redisV3.createClient({ host, port, db: 10 });
      v3.on("error", () => undefined);
      await once(v3, "ready");
      // The one-time warning is asserted in a fresh process below; here it may already be spent.
      const rsmq = new RedisSMQ({ ns, client: v3 });
      try {
        expect(rsmq.redis).to.not.equal(v3);
        expect(await rsmq.createQueueAsync({ qname: "q" })).to.equal(1);
        const id = await rsmq.sendMessageAsync({ qname: "q", message: "m" });
        expect(id).to.have.length(32);
        expect(await databasesHolding(`${ns}:q:Q`)).to.deep.equal([10]);
        expect(await rsmq.quitAsync()).to.equal("OK");
        expect(v3.connected).to.equal(true);
        const pong = await new Promise<string>((resolve, reject) => v3.ping((error, reply) => (error ? reject(error) : resolve(reply))));
        expect(pong).to.equal("PONG");
      } finally {
        await new Promise((resolve) => v3.quit(resolve));
      }
    });

    it("follows a db chosen later with SELECT", async () => {
      const { host, port } = testRedis();
      const ns = uniqueNs();
      const v3 = redisV3.createClient({ host, port });
      v3.on("error", () => undefined);
      try {
        await new Promise<void>((resolve, reject) => v3.select(11, (error) => (error ? reject(error) : resolve())));
        const rsmq = new RedisSMQ({ ns, client: v3 });
        expect(await rsmq.createQueueAsync({ qname: "q" })).to.equal(1);
        await rsmq.quitAsync();
        expect(await databasesHolding(`${ns}:q:Q`)).to.deep.equal([11]);
      } finally {
        await new Promise((resolve) => v3.quit(resolve));
      }
    });

    it("warns once per process with code RSMQ_NEXT_V3_CLIENT", async () => {
      // A fresh process, so that no earlier test has used up the one warning.
      const script = `
        const RedisSMQ = require(${JSON.stringify(path.resolve(__dirname, "../../lib/index.js"))});
        const redisV3 = require(${JSON.stringify(V3_PATH)});
        const warnings = [];
        process.on("warning", (warning) => warnings.push({ name: warning.name, code: warning.code }));
        (async () => {
          const v3 = redisV3.createClient({ host: process.env.HOST, port: Number(process.env.PORT) });
          await new Promise((resolve) => v3.once("ready", resolve));
          const first = new RedisSMQ({ ns: process.env.NS, client: v3 });
          const second = new RedisSMQ({ ns: process.env.NS, client: v3 });
          const created = await first.createQueueAsync({ qname: "q" });
          const queues = await second.listQueuesAsync();
          await first.quitAsync();
          await second.quitAsync();
          await new Promise((resolve) => setTimeout(resolve, 10));
          const v3Connected = v3.connected;
          await new Promise((resolve) => v3.quit(resolve));
          console.log(JSON.stringify({ warnings, created, queues, v3Connected }));
        })().catch((error) => { console.error(error); process.exit(1); });
      `;
      const { host, port } = testRedis();
      const output = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          ["-e", script],
          { env: { ...process.env, HOST: host, PORT: String(port), NS: uniqueNs() } },
          (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
        );
      });
      expect(output.code, output.stderr).to.equal(0);
      const result = JSON.parse(output.stdout);
      expect(result).to.deep.equal({
        warnings: [{ name: "Warning", code: "RSMQ_NEXT_V3_CLIENT" }],
        created: 1,
        queues: ["q"],
        v3Connected: true,
      });
    });
  });

  describe("quit and connect", () => {
    it("quit(callback) gets null and 'OK', and closes a connection it opened", async () => {
      const rsmq = new RedisSMQ(connectionOptions(uniqueNs()));
      await rsmq.listQueuesAsync();
      const [error, reply] = await new Promise<[unknown, unknown]>((resolve) => rsmq.quit((err, res) => resolve([err, res])));
      expect(error).to.equal(null);
      expect(reply).to.equal("OK");
      expect(rsmq.redis.isOpen).to.equal(false);
    });

    it("emits connect once the connection is up", async () => {
      const rsmq = new RedisSMQ(connectionOptions(uniqueNs()));
      try {
        await once(rsmq, "connect");
        expect(rsmq.connected).to.equal(true);
      } finally {
        await rsmq.quitAsync();
      }
    });
  });

  describe("an unknown constructor option", () => {
    it("is ignored as rsmq 0.12.4 did, with one warning per key per process naming the known keys", async () => {
      // A fresh process, so that no earlier test has used up the warnings.
      const script = `
        const RedisSMQ = require(${JSON.stringify(builtEntry)});
        const warnings = [];
        process.on("warning", (warning) => warnings.push({ name: warning.name, code: warning.code, message: warning.message }));
        (async () => {
          const base = { host: process.env.HOST, port: Number(process.env.PORT), ns: process.env.NS };
          const first = new RedisSMQ({ ...base, realtme: true, colour: "blue" });
          const second = new RedisSMQ({ ...base, realtme: true, options: { databse: 0 } });
          const created = await first.createQueueAsync({ qname: "q" });
          const queues = await second.listQueuesAsync();
          await first.quitAsync();
          await second.quitAsync();
          await new Promise((resolve) => setImmediate(resolve));
          console.log(JSON.stringify({ warnings, created, queues }));
        })().catch((error) => { console.error(error); process.exit(1); });
      `;
      const { host, port } = testRedis();
      const outcome = await runChild(script, { HOST: host, PORT: String(port), NS: uniqueNs() });
      expect(outcome.code, outcome.stderr).to.equal(0);
      const { warnings, created, queues } = JSON.parse(outcome.stdout) as {
        warnings: Array<{ name: string; code: string; message: string }>;
        created: number;
        queues: string[];
      };
      expect([created, queues]).to.deep.equal([1, ["q"]]);
      expect(warnings.map(({ name, code }) => [name, code])).to.deep.equal([
        ["Warning", "RSMQ_NEXT_UNKNOWN_OPTION"],
        ["Warning", "RSMQ_NEXT_UNKNOWN_OPTION"],
        ["Warning", "RSMQ_NEXT_UNKNOWN_OPTION"],
      ]);
      const [realtme, colour, databse] = warnings.map(({ message }) => message);
      expect(realtme).to.match(/^rsmq-next: the option `realtme` is not known and is ignored: did you mean `realtime`\? Known options: /);
      expect(colour).to.match(/^rsmq-next: the option `colour` is not known and is ignored\. Known options: /);
      expect(databse).to.match(/^rsmq-next: the option `options\.databse` is not known and is ignored: did you mean `options\.database`\?/);
      for (const key of [
        "ns",
        "realtime",
        "client",
        "cluster",
        "waitForReplicas",
        "url",
        "database",
        "socket",
        "host",
        "port",
        "db",
        "connect_timeout",
      ]) {
        expect(colour).to.include(key);
      }
    });
  });

  describe("quitAsync() while the connection is still opening", () => {
    /** A child that quits `afterMs` after construction (no wait at all for -1), then prints what it saw. */
    function quitEarly(port: number, afterMs: number): string {
      return `
        const RedisSMQ = require(${JSON.stringify(builtEntry)});
        const rsmq = new RedisSMQ({ host: process.env.HOST, port: ${port}, ns: process.env.NS });
        const seen = [];
        rsmq.on("connect", () => seen.push("connect"));
        rsmq.on("error", () => seen.push("error"));
        const quit = () => rsmq.quitAsync().then((reply) => console.log(JSON.stringify({ reply, seen })));
        if (${afterMs} < 0) quit(); else setTimeout(quit, ${afterMs});
      `;
    }

    for (const afterMs of [-1, 0, 1]) {
      it(`lets the process exit by itself (quit ${afterMs < 0 ? "at once" : `after ${afterMs} ms`})`, async () => {
        const { host, port } = testRedis();
        const outcome = await runChild(quitEarly(port, afterMs), { HOST: host, NS: uniqueNs() });
        expect(outcome.exited, `the process did not exit within 10 s; stderr: ${outcome.stderr}`).to.equal(true);
        expect(outcome.code, outcome.stderr).to.equal(0);
        // A connect that finished after the quit is closed at once and never announced.
        expect(JSON.parse(outcome.stdout)).to.deep.equal({ reply: "OK", seen: [] });
      });
    }

    it("lets the process exit by itself when nothing listens on the port", async () => {
      const closedPort = await unusedPort();
      const outcome = await runChild(quitEarly(closedPort, 50), { HOST: "127.0.0.1", NS: uniqueNs() });
      expect(outcome.exited, `the process did not exit within 10 s; stderr: ${outcome.stderr}`).to.equal(true);
      expect(outcome.code, outcome.stderr).to.equal(0);
      expect(JSON.parse(outcome.stdout).reply).to.equal("OK");
    });

    it("a long run of failed attempts gathers nothing: each socket's AbortSignal is its own", async () => {
      const closedPort = await unusedPort();
      const program = `
        const RedisSMQ = require(${JSON.stringify(builtEntry)});
        const rsmq = new RedisSMQ({ host: "127.0.0.1", port: ${closedPort}, ns: "x", options: { socket: { reconnectStrategy: 5 } } });
        let errors = 0;
        rsmq.on("error", () => {
          if (++errors === 30) rsmq.quitAsync().then((reply) => console.log(reply));
        });
      `;
      const outcome = await runChild(program, {}, 20_000);
      expect(outcome.exited, outcome.stderr).to.equal(true);
      expect(outcome.stdout.trim()).to.equal("OK");
      expect(outcome.stderr).not.to.include("MaxListenersExceededWarning");
    });
  });

  describe("quitAsync() on a server that accepts and never answers (a handshake stuck for ever)", () => {
    let listener: SilentListener;
    beforeEach(async () => (listener = await SilentListener.start()));
    afterEach(() => listener.close());

    /**
     * How long a child may take to exit: room for a slow start on a loaded machine, and less than
     * the 10 s that quit() used to wait for a stuck attempt.
     */
    const STUCK_EXIT_BOUND_MS = 9000;

    /**
     * A child on the silent listener that quits after `before` (a call that times out, or the
     * handshake having started), then prints what it saw. Its connectTimeout is small, so a
     * process still running a few seconds later was not let go by the attempt in flight.
     */
    function quitStuck(before: "call" | "handshake", listenForErrors: boolean): string {
      return `
        const RedisSMQ = require(${JSON.stringify(builtEntry)});
        const rsmq = new RedisSMQ({
          host: "127.0.0.1", port: Number(process.env.PORT), ns: process.env.NS,
          offlineTimeoutMs: 200, options: { socket: { connectTimeout: 200 } },
        });
        const seen = [];
        rsmq.on("connect", () => seen.push("connect"));
        if (${listenForErrors}) rsmq.on("error", (error) => seen.push("error " + error.name + ": " + error.message));
        process.on("warning", (warning) => seen.push("warning " + (warning.code || warning.name) + ": " + warning.message));
        const quit = (rejected) => rsmq.quitAsync().then((reply) => console.log(JSON.stringify({ rejected, reply, seen })));
        if ("${before}" === "call") rsmq.listQueuesAsync().then(() => quit("nothing"), (error) => quit(error.name));
        else rsmq.redis.once("connect", () => setTimeout(() => quit("nothing"), 100));
      `;
    }

    for (const listenForErrors of [true, false]) {
      it(`after a call rejected connectionTimeout: resolves, emits no error${listenForErrors ? "" : " and no warning (no error listener)"}, and the process exits by itself`, async () => {
        const outcome = await runChild(
          quitStuck("call", listenForErrors),
          { PORT: String(listener.port), NS: uniqueNs() },
          STUCK_EXIT_BOUND_MS,
        );
        expect(outcome.exited, `the process did not exit by itself; stdout: ${outcome.stdout} stderr: ${outcome.stderr}`).to.equal(true);
        expect(outcome.code, outcome.stderr).to.equal(0);
        expect(JSON.parse(outcome.stdout)).to.deep.equal({ rejected: "connectionTimeout", reply: "OK", seen: [] });
        expect(outcome.stderr).to.equal("");
      });
    }

    it("during the handshake: resolves, emits nothing, and the process exits by itself", async () => {
      const outcome = await runChild(quitStuck("handshake", true), { PORT: String(listener.port), NS: uniqueNs() }, STUCK_EXIT_BOUND_MS);
      expect(outcome.exited, `the process did not exit by itself; stdout: ${outcome.stdout} stderr: ${outcome.stderr}`).to.equal(true);
      expect(outcome.code, outcome.stderr).to.equal(0);
      expect(JSON.parse(outcome.stdout)).to.deep.equal({ rejected: "nothing", reply: "OK", seen: [] });
    });
  });

  describe("server outage", function () {
    before(function () {
      if (!testRedis().restartable) this.skip();
    });

    it("an instance with no error listener survives the outage and works afterwards", async () => {
      const rsmq = new RedisSMQ(connectionOptions(uniqueNs()));
      await once(rsmq, "connect");
      const reconnecting = counter(rsmq.redis, "reconnecting");
      try {
        await testRedis().stopProcess();
        // node-redis has noticed and failed at least one retry: errors were raised and not heard.
        await until(() => reconnecting.count >= 2);
        expect(rsmq.listenerCount("error")).to.equal(0);
      } finally {
        await testRedis().startProcess();
      }
      try {
        // The restarted server is empty; the call waits for the reconnect.
        expect(await rsmq.createQueueAsync({ qname: "q" })).to.equal(1);
        expect(rsmq.connected).to.equal(true);
      } finally {
        reconnecting.stop();
        await rsmq.quitAsync();
      }
    });

    it("emits error(Error) and one disconnect, holds calls until the server is back, then connect", async () => {
      const rsmq = new RedisSMQ(connectionOptions(uniqueNs()));
      await once(rsmq, "connect");
      const errors: unknown[] = [];
      rsmq.on("error", (error) => errors.push(error));
      const disconnects = counter(rsmq, "disconnect");
      const connects = counter(rsmq, "connect");
      const reconnecting = counter(rsmq.redis, "reconnecting");
      let pending: Promise<1> | undefined;
      try {
        await testRedis().stopProcess();
        await until(() => reconnecting.count >= 1 && errors.length >= 1);
        expect(rsmq.connected).to.equal(false);
        // Made while the server is down: held in node-redis' offline queue.
        pending = rsmq.createQueueAsync({ qname: "q" });
        pending.catch(() => undefined);
        const reconnectsBefore = reconnecting.count;
        await until(() => reconnecting.count >= reconnectsBefore + 2);
        expect(errors.length).to.be.at.least(2);
        for (const error of errors) expect(error).to.be.instanceOf(Error);
        expect(disconnects.count).to.equal(1);
        expect(connects.count).to.equal(0);
      } finally {
        await testRedis().startProcess();
      }
      try {
        expect(await pending).to.equal(1);
        await until(() => connects.count >= 1);
        expect(connects.count).to.equal(1);
        expect(disconnects.count).to.equal(1);
        expect(rsmq.connected).to.equal(true);
      } finally {
        reconnecting.stop();
        await rsmq.quitAsync();
      }
    });
  });
});
