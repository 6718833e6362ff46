/**
 * One test server for the whole run (mocha root hooks start and stop it), and the helpers every
 * suite needs: a unique namespace per test and a plain client for looking at the data.
 */
import { randomBytes } from "crypto";
import { createClient, type RedisClientType } from "redis";
import { startTestRedis, type TestRedis } from "./redis-server";

let server: TestRedis | undefined;

export const mochaHooks = {
  async beforeAll(this: Mocha.Context): Promise<void> {
    this.timeout(120_000);
    server = await startTestRedis();
  },
  async afterAll(): Promise<void> {
    await server?.close();
  },
};

export function testRedis(): TestRedis {
  if (!server) throw new Error("the test Redis server is not running (root hooks not loaded?)");
  return server;
}

/** A namespace no other test uses, so tests never see each other's keys. */
export function uniqueNs(prefix = "t"): string {
  return `${prefix}${randomBytes(4).toString("hex")}`;
}

/** Options for RedisSMQ (either library) pointing at the test server. */
export function connectionOptions(ns: string): { host: string; port: number; ns: string } {
  const { host, port } = testRedis();
  return { host, port, ns };
}

/** A connected node-redis v4 client on the test server; close it with `quit()`. */
export async function plainClient(): Promise<RedisClientType> {
  const client = createClient({ url: testRedis().url }) as RedisClientType;
  client.on("error", () => undefined);
  await client.connect();
  return client;
}
