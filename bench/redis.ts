/**
 * The Redis servers the bench talks to. By default each is a fresh `redis-server` from PATH on a
 * free port (the test harness' own starter, reused), so the server's counters (INFO cpu,
 * commandstats) see only the bench. With REDIS_URL every "server" is that one server, and
 * measurements that would run side by side run one after another instead.
 */
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import { startTestRedis } from "../test/support/redis-server";
import type { TestRedis } from "../test/support/redis-server";

/** Where a measurement connects. */
export interface Target {
  readonly host: string;
  readonly port: number;
  readonly url: string;
}

export interface Servers {
  /** One per requested server; all the same server under REDIS_URL. */
  readonly targets: Target[];
  /** Whether the targets are distinct servers (so measurements on them may run at once). */
  readonly separate: boolean;
  close(): Promise<void>;
}

export async function startServers(count: number): Promise<Servers> {
  if (process.env.REDIS_URL) {
    const shared = await startTestRedis();
    return { targets: Array.from({ length: count }, () => shared), separate: false, close: () => shared.close() };
  }
  const started: TestRedis[] = [];
  try {
    for (let i = 0; i < count; i += 1) started.push(await startTestRedis());
  } catch (error) {
    await Promise.all(started.map((server) => server.close()));
    throw error;
  }
  return {
    targets: started,
    separate: count > 1,
    close: async () => void (await Promise.all(started.map((server) => server.close()))),
  };
}

/** A plain node-redis v4 client for probing (INFO, MONITOR-free commands); quit it. */
export async function probeClient(target: Target): Promise<RedisClientType> {
  const client = createClient({ url: target.url }) as RedisClientType;
  client.on("error", () => undefined);
  await client.connect();
  return client;
}
