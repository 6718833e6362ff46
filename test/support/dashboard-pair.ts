/**
 * The fixture of the dashboard's route tests: one namespace, a read-write and a read-only dashboard
 * of it, each mounted at the root of its own node:http server, a plain client for the raw state,
 * and a new queue for each test. Call it inside a `describe`: it registers that describe's hooks.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { createDashboard } from "../../lib/dashboard";
import type { DashboardHandler } from "../../lib/dashboard";
import { connectionOptions, plainClient, uniqueNs } from "./server";
import { nodeHttpAtRoot } from "./dashboard";
import type { Answer, Mounted } from "./dashboard";

/** What the hooks set up: read it inside tests and hooks, not when the describe is declared. */
export interface DashboardPair {
  ns: string;
  rsmq: RedisSMQ;
  client: RedisClientType;
  /** The read-write dashboard. */
  rw: Mounted;
  /** The read-only one (the default). */
  ro: Mounted;
  /** This test's queue, created before it. */
  qname: string;
}

/** Registers the hooks (namespace `<nsPrefix>-...`) and returns the object they fill. */
export function dashboardPair(nsPrefix: string): DashboardPair {
  const pair = {} as DashboardPair;
  let handlers: DashboardHandler[] = [];
  let n = 0;
  before(async () => {
    pair.ns = uniqueNs(nsPrefix);
    pair.rsmq = new RedisSMQ(connectionOptions(pair.ns));
    pair.client = await plainClient();
    const writable = createDashboard({ rsmq: pair.rsmq, readOnly: false });
    const readOnly = createDashboard({ rsmq: pair.rsmq });
    handlers = [writable, readOnly];
    [pair.rw, pair.ro] = await Promise.all([nodeHttpAtRoot(writable), nodeHttpAtRoot(readOnly)]);
  });
  after(async () => {
    for (const handler of handlers) handler.close();
    await Promise.all([pair.rw?.close(), pair.ro?.close()]);
    await pair.rsmq?.quitAsync();
    await pair.client?.quit();
  });
  beforeEach(async () => {
    pair.qname = `q${++n}`;
    await pair.rsmq.createQueueAsync({ qname: pair.qname });
  });
  return pair;
}

/** An error answer: its status, its `error` name, and a message. */
export function expectError(answer: Answer, status: number, error: string): void {
  expect([answer.status, answer.json?.error], answer.text).to.deep.equal([status, error]);
  expect(answer.json.message).to.be.a("string").and.not.equal("");
}
