/**
 * The fixture of the CLI's command tests: for each test a new namespace with a queue `q`, an
 * instance and a plain client on it, and `cli(...)` running `rsmq-next` against that namespace.
 * Call it inside a `describe`: it registers that describe's hooks.
 */
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, plainClient, uniqueNs } from "./server";
import { at, runCli } from "./cli";
import type { CliResult } from "./cli";

/** What the hooks set up: read it inside tests and hooks, not when the describe is declared. */
export interface CliQueue {
  ns: string;
  rsmq: RedisSMQ;
  client: RedisClientType;
  /** Runs the command with `--ns` (and the server) of this test's namespace before `args`. */
  cli(...args: string[]): Promise<CliResult>;
}

/** Registers the hooks (namespaces `<nsPrefix>-...`) and returns the object they fill. */
export function cliQueue(nsPrefix: string): CliQueue {
  const fixture = {
    cli: (...args: string[]) => runCli([...at(fixture.ns), ...args]),
  } as CliQueue;
  beforeEach(async () => {
    fixture.ns = uniqueNs(nsPrefix);
    fixture.rsmq = new RedisSMQ(connectionOptions(fixture.ns));
    fixture.client = await plainClient();
    await fixture.rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(async () => {
    await fixture.rsmq?.quitAsync();
    await fixture.client?.quit();
  });
  return fixture;
}
