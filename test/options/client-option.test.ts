/**
 * The `client` option: every kind of client the package takes passes its check, and an object
 * that is none of them is refused at construction, before any connection is opened, with a
 * message naming what was passed and what is taken (it used to fall through silently to a
 * connection of the package's own, to localhost).
 */
import { expect } from "chai";
import Redis5 from "ioredis";
import Redis6 from "ioredis6";
import { createClient as createClient4, createCluster as createCluster4 } from "redis";
import {
  createClient as createClient5,
  createClientPool as createPool5,
  createCluster as createCluster5,
  createSentinel as createSentinel5,
} from "redis5";
import { createClient as createClient6, createCluster as createCluster6, createSentinel as createSentinel6 } from "redis6";
import RedisSMQ = require("../../lib");
import { resolveConstructorOptions } from "../../lib/options/constructor-options";
import { uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

const NOWHERE = { host: "127.0.0.1", port: 1 };
const NOWHERE_URL = "redis://127.0.0.1:1";

/** Made, never connected: a check reads only its shape. */
const ACCEPTED: Array<[string, () => unknown]> = [
  ["a node-redis 4 client", () => createClient4({ socket: NOWHERE })],
  ["a node-redis 4 client in legacyMode", () => createClient4({ socket: NOWHERE, legacyMode: true })],
  ["a node-redis 4 cluster client", () => createCluster4({ rootNodes: [{ url: NOWHERE_URL }] })],
  ["a node-redis 5 client (RESP2)", () => createClient5({ socket: NOWHERE })],
  ["a node-redis 5 client (RESP3)", () => createClient5({ socket: NOWHERE, RESP: 3 })],
  ["a node-redis 5 cluster client", () => createCluster5({ rootNodes: [{ url: NOWHERE_URL }] })],
  ["a node-redis 6 client (RESP3 by default)", () => createClient6({ socket: NOWHERE })],
  ["a node-redis 6 client (RESP2)", () => createClient6({ socket: NOWHERE, RESP: 2 })],
  ["a node-redis 6 cluster client", () => createCluster6({ rootNodes: [{ url: NOWHERE_URL }] })],
  ["an ioredis 5 client", () => new Redis5({ ...NOWHERE, lazyConnect: true })],
  ["an ioredis 5 Sentinel-managed client", () => new Redis5({ sentinels: [NOWHERE], name: "mymaster", lazyConnect: true })],
  ["an ioredis 5 Cluster", () => new Redis5.Cluster([NOWHERE], { lazyConnect: true })],
  ["an ioredis 6 client", () => new Redis6({ ...NOWHERE, lazyConnect: true })],
  ["an ioredis 6 Cluster", () => new Redis6.Cluster([NOWHERE], { lazyConnect: true })],
  ["a node-redis v3 client (lends its settings)", () => ({ send_command: () => undefined, connection_options: NOWHERE })],
];

class SomeClient {
  host = "127.0.0.1";
  port = 6379;
  get(): undefined {
    return undefined;
  }
}

const REFUSED: Array<[string, () => unknown, RegExp]> = [
  ["a plain object", () => ({ host: "127.0.0.1", port: 6379, db: 0 }), /got an object \(Object\) with keys \{ host, port, db \}/],
  ["an instance of an unknown class", () => new SomeClient(), /got an object \(SomeClient\) with keys \{ host, port \}/],
  [
    "an object with many keys, a few of them shown",
    () => Object.fromEntries("abcdefghij".split("").map((key) => [key, 1])),
    /with keys \{ a, b, c, d, e, f, \.\.\. \}/,
  ],
  ["a string", () => "redis://127.0.0.1:6379", /got `redis:\/\/127\.0\.0\.1:6379` \(string\)/],
  ["a node-redis 5 client pool", () => createPool5({ socket: NOWHERE }), /got an object \(.*\) with keys/],
  ["a node-redis 5 Sentinel client", () => createSentinel5({ name: "m", sentinelRootNodes: [NOWHERE] }), /got an object/],
  ["a node-redis 6 Sentinel client", () => createSentinel6({ name: "m", sentinelRootNodes: [NOWHERE] }), /got an object/],
];

describe("the `client` option", () => {
  for (const [kind, make] of ACCEPTED) {
    it(`takes ${kind}`, () => {
      const client = make();
      try {
        expect(() => resolveConstructorOptions({ client } as never)).not.to.throw();
      } finally {
        // Nothing was opened: only the ioredis clients need ending (a node-redis one refuses a disconnect when not open).
        if (!("isOpen" in (client as object))) (client as { disconnect?: () => unknown }).disconnect?.();
      }
    });
  }

  for (const [kind, make, shown] of REFUSED) {
    it(`refuses ${kind} in the constructor (so nothing is opened), naming what it got and what it takes`, () => {
      const client = make();
      let error: Error | undefined;
      try {
        new RedisSMQ({ client, ns: uniqueNs("client") } as never);
      } catch (thrown) {
        error = thrown as Error;
      }
      expect(error, "thrown by the constructor").to.be.instanceOf(TypeError);
      expect(error!.message).to.match(/^Expected `client` to be a node-redis 4, 5 or 6 client or cluster client/);
      expect(error!.message).to.include("legacyMode").and.include("ioredis 5 or 6").and.include("Sentinel").and.include("node-redis v3");
      expect(error!.message).to.match(shown);
    });
  }
});
