/**
 * The stage of one fault scenario: a redis-server of its own (extra arguments and a temporary
 * data directory as the scenario needs), a client for injecting the fault and reading the queue,
 * one queue, a Ledger, and everything opened closed again afterwards, whatever happened.
 */
import { mkdtempSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../../lib/index");
import { KeyLayout } from "../../../lib/keys";
import { startLocalRedis } from "../../support/redis-server";
import type { TestRedis } from "../../support/redis-server";
import { Cleanup, waitFor } from "../../support/worker";
import { Ledger } from "./ledger";

const CLEANUP_TIMEOUT_MS = 10_000;

export interface Scene {
  readonly server: TestRedis;
  /** A connection of the suite's own (named "fault-injector"), for the fault and for reading state. */
  readonly admin: RedisClientType;
  readonly ns: string;
  readonly qname: string;
  readonly ledger: Ledger;
  readonly cleanup: Cleanup;
  /** An rsmq-next instance on the scenario's server, closed at the end. */
  open(extra?: { realtime?: boolean }): RedisSMQ;
  /** Messages the queue holds (its sorted set). */
  queued(): Promise<number>;
  /** Waits until the queue holds no message, failing after `timeoutMs` with how many are left. */
  waitEmpty(timeoutMs: number): Promise<void>;
}

/** Runs `body` on a fresh server started with `args`; the server and its directory are gone afterwards. */
export async function inScene<T>(scenario: string, args: string[], body: (scene: Scene) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "rsmq-faults-"));
  const server = await startLocalRedis({ args, dir });
  const cleanup = new Cleanup();
  const ns = "faults";
  const qname = "jobs";
  const keys = KeyLayout.for(ns, false).queue(qname);
  try {
    const admin = createClient({ url: server.url, name: "fault-injector" }) as RedisClientType;
    admin.on("error", () => undefined);
    await admin.connect();
    cleanup.add(() => admin.quit());
    const queued = (): Promise<number> => admin.zCard(keys.messages);
    const scene: Scene = {
      server,
      admin,
      ns,
      qname,
      ledger: new Ledger(scenario),
      cleanup,
      open(extra = {}) {
        const rsmq = new RedisSMQ({ host: server.host, port: server.port, ns, ...extra });
        rsmq.on("error", () => undefined);
        return cleanup.rsmq(rsmq);
      },
      queued,
      async waitEmpty(timeoutMs) {
        let left = -1;
        try {
          await waitFor(async () => (left = await queued()) === 0, `${scenario}: the queue empty`, timeoutMs);
        } catch (error) {
          throw new Error(`${(error as Error).message} (${left} messages left)`);
        }
      },
    };
    return await body(scene);
  } finally {
    try {
      // Bounded: a connection to a server a failed scenario left down would wait for it forever.
      await within(cleanup.run(), CLEANUP_TIMEOUT_MS, `${scenario}: closing workers and connections`);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** `promise`'s outcome, or a rejection naming `what` once `timeoutMs` passed first. */
function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
