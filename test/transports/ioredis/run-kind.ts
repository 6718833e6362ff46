/**
 * The ioredis these suites test: ioredis 6 on the pass that passes an ioredis 6 client in
 * (RSMQ_TEST_CLIENT=ioredis6), ioredis 5 on every other pass, as server.ts' ioredisClient() does.
 */
import type Redis from "ioredis";
import type { RedisOptions } from "ioredis";
import { passedClientKind } from "../../support/server";
import { standaloneTestClient } from "../../support/test-clients";
import type { Cleanup } from "../../support/worker";

/** "ioredis6" on the ioredis 6 pass, "ioredis5" otherwise. */
export function runIoredisKind(): "ioredis5" | "ioredis6" {
  return passedClientKind() === "ioredis6" ? "ioredis6" : "ioredis5";
}

/**
 * Whether the run's ioredis client carries the wake subscriptions on its own connection: ioredis 6
 * speaks RESP3 by default, where a subscribed connection still runs commands; ioredis 5 subscribes
 * on a copy.
 */
export function wakesOnOwnConnection(): boolean {
  return runIoredisKind() === "ioredis6";
}

/** A new ioredis client of the run's kind on host:port, with `options`, ended by `cleanup`. */
export function runIoredis(where: { host: string; port: number }, cleanup: Cleanup, options: RedisOptions = {}): Redis {
  const made = standaloneTestClient(runIoredisKind(), where, {}, options);
  cleanup.add(async () => made.close());
  return made.client as Redis;
}
