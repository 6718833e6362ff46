/**
 * Helpers for the retry and dead-letter suites: the server's clock, a MONITOR that keeps each
 * command's arguments (so a script call can be told apart by its sha, and in a cluster by the
 * master that ran it), and a way to put a message into a dead-letter queue without running a
 * worker. Everything here works on both targets: the single server, or the test cluster, where
 * MONITOR watches every master and scripts run behind their Redis 7 shebang (another sha).
 */
import type { RedisClientType, RedisClusterType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { DeadLetterMover } from "../../lib/dead-letters/dead-letter-mover";
import type { StopRecord } from "../../lib/operations/dead-letter";
import { script } from "../../lib/scripts/script-files";
import { MonitorWatch } from "./monitor-socket";
import { openOldRsmq } from "./old-rsmq";
import type { Rsmq } from "./old-rsmq";
import { isCluster } from "./inspect";
import { keysOf, onCluster, testCluster, testRedis } from "./server";

export { serverNowMs } from "./inspect";

/** A server a test can watch: the single server, or one node of the cluster. */
export interface WatchedNode {
  readonly host: string;
  readonly port: number;
  readonly url: string;
}

/**
 * The sha EVALSHA names a lua/ script by: on Redis 7 (every test target) the library sends each
 * script behind its Redis 7 shebang (script-files.ts `flagged`).
 */
export function scriptSha(name: string): string {
  return script(name).flagged.sha1;
}

/** The text of a script as the library sends it (see scriptSha). */
function scriptSource(name: string): string {
  return script(name).flagged.source;
}

/**
 * Caches lua/ scripts on the server (every master of a cluster), so the next call of each is one
 * EVALSHA (no NOSCRIPT, no EVAL).
 */
export async function loadScripts(client: RedisClientType, names: string[]): Promise<void> {
  const anyClient = client as unknown as RedisClientType | RedisClusterType;
  const targets = isCluster(anyClient) ? await Promise.all(anyClient.masters.map((master) => anyClient.nodeClient(master))) : [client];
  for (const target of targets) {
    for (const name of names) await (target as RedisClientType).scriptLoad(scriptSource(name));
  }
}

/** The nodes a CommandWatch watches by default: the single server, or every master of the cluster. */
export async function watchedNodes(): Promise<WatchedNode[]> {
  if (onCluster()) return testCluster().masters();
  const { host, port, url } = testRedis();
  return [{ host, port, url }];
}

/**
 * The node holding a queue's keys: the single server, or the master of the queue's slot. In a
 * cluster with the default layout the slot depends on the queue name only (`<ns>:{<qname>}`).
 */
export async function nodeOfQueue(ns: string, qname: string): Promise<WatchedNode> {
  if (!onCluster()) return (await watchedNodes())[0];
  const cluster = testCluster();
  return cluster.masterOfSlot(cluster.slotOf(keysOf(ns, qname).hash));
}

/** The node holding the namespace's queue registry (`<ns>:QUEUES`). */
export async function nodeOfRegistry(ns: string): Promise<WatchedNode> {
  if (!onCluster()) return (await watchedNodes())[0];
  const cluster = testCluster();
  return cluster.masterOfSlot(cluster.slotOf(keysOf(ns, "any").registry));
}

export interface WatchedCommand {
  /** Arguments as sent, the command name lower-cased. */
  args: string[];
  /** True when a script issued it. */
  fromScript: boolean;
  /** The port of the node that ran it (the single server's port on that target). */
  node: number;
}

/**
 * A MONITOR watch left open across a test (on the single server, or one per master in a cluster):
 * `commands()` returns everything the watched nodes ran since it opened, in server-time order,
 * after making sure every command sent before the call has been seen.
 */
export class CommandWatch {
  private constructor(private readonly watch: MonitorWatch) {}

  /** Watches `nodes`, by default the single server or every master of the cluster. */
  static async open(nodes?: WatchedNode[]): Promise<CommandWatch> {
    return new CommandWatch(await MonitorWatch.open(nodes ?? (await watchedNodes())));
  }

  /** Everything seen so far (the watch's own markers excluded). */
  async commands(): Promise<WatchedCommand[]> {
    return (await this.watch.commands()).map(({ args, fromScript, port }) => ({ args, fromScript, node: port }));
  }

  /** Client-sent EVALSHA (or, for a read-only script, EVALSHA_RO) calls of one lua/ script (by its sha on the run's target). */
  async scriptCalls(name: string): Promise<WatchedCommand[]> {
    const sha1 = scriptSha(name);
    return (await this.commands()).filter(
      (command) => !command.fromScript && /^evalsha(_ro)?$/.test(command.args[0]) && command.args[1] === sha1,
    );
  }

  /**
   * What clients sent to each node (by port), each as `<command>` or `evalsha <script name>`
   * (`evalsha_ro <script name>` for a read-only script)
   * (`evalsha ?` for a sha of no script in `scriptNames`), in the node's order.
   */
  async clientCallsByNode(scriptNames: string[]): Promise<Record<number, string[]>> {
    const byNode: Record<number, string[]> = {};
    for (const call of await this.clientCalls(scriptNames)) {
      const [port, ...what] = call.split(" ");
      (byNode[Number(port)] ??= []).push(what.join(" "));
    }
    return byNode;
  }

  /**
   * What clients sent, each as `<node port> <command> [<script name>]` (a script by name, so an
   * EVALSHA of an unknown sha shows as `evalsha ?`): the sequence a test can assert exactly.
   */
  async clientCalls(scriptNames: string[]): Promise<string[]> {
    const names = new Map(scriptNames.map((name) => [scriptSha(name), name]));
    return (await this.commands())
      .filter((command) => !command.fromScript)
      .map((command) => {
        const [name, ...rest] = command.args;
        const what = name === "evalsha" || name === "evalsha_ro" ? `${name} ${names.get(rest[0]) ?? "?"}` : name;
        return `${command.node} ${what}`;
      });
  }

  close(): Promise<void> {
    return this.watch.close();
  }
}

/** Everything the watched nodes (by default all, see CommandWatch.open) ran during `action`. */
export async function watchDuring(action: () => Promise<unknown>): Promise<WatchedCommand[]> {
  const watch = await CommandWatch.open();
  try {
    await action();
    return await watch.commands();
  } finally {
    await watch.close();
  }
}

/**
 * Sends `body` to `source`, receives it (rc 1) and moves it to `dlq` as the worker would: with the
 * atomic script where the two queues share a slot (one server), with the two-step move where they
 * cannot (a cluster). Resolves the message id.
 */
export async function deadLetterOne(
  rsmq: RedisSMQ,
  source: string,
  dlq: string,
  body: string,
  why: Partial<StopRecord> = {},
): Promise<string> {
  await rsmq.sendMessageAsync({ qname: source, message: body, delay: 0 });
  const received = await rsmq.receiveMessageAsync({ qname: source });
  if (!("id" in received)) throw new Error(`nothing to receive in ${source}`);
  const record: StopRecord = { source, deliveries: received.rc, reason: "exhausted", error: "boom", ...why };
  const moved = await new DeadLetterMover(internalsOf(rsmq)).move(source, dlq, received, record);
  if (!moved) throw new Error("the dead-letter move found nothing to move");
  return received.id;
}

/**
 * The calls a test expects, given in the order they are sent, grouped by the node each goes to:
 * compares with CommandWatch.clientCallsByNode.
 */
export function callsByNode(calls: Array<[WatchedNode, string]>): Record<number, string[]> {
  const byNode: Record<number, string[]> = {};
  for (const [node, what] of calls) (byNode[node.port] ??= []).push(what);
  return byNode;
}

/**
 * A reader for the "rsmq 0.12.4 sees it as an ordinary message" steps: rsmq 0.12.4 on the single
 * server. On a cluster, where rsmq 0.12.4 cannot run (nor read cluster connection options), the
 * rsmq-next instance given does those steps instead. `close` quits only what was opened here.
 */
export function oldRsmqOr(ns: string, next: RedisSMQ): { reader: Rsmq; close: () => Promise<unknown> } {
  if (onCluster()) return { reader: next, close: () => Promise.resolve() };
  const old = openOldRsmq(ns);
  return { reader: old, close: () => old.quitAsync() };
}

/** Skips the calling test on the single-server target, saying why (what only a cluster has). */
export function clusterOnly(context: Mocha.Context, why: string): void {
  if (onCluster()) return;
  if (context.test) context.test.title += ` (cluster only: ${why})`;
  context.skip();
}

/**
 * A queue name, `<prefix>-<n>` for the smallest n, whose slot is served by another master than
 * `qname`'s (cluster target only). With the default cluster layout a queue's slot depends on its
 * name alone, so the pick is the same for any namespace.
 */
export async function queueOnAnotherMaster(ns: string, qname: string, prefix: string): Promise<string> {
  const home = await nodeOfQueue(ns, qname);
  for (let n = 0; n < 1000; n++) {
    const candidate = `${prefix}-${n}`;
    if ((await nodeOfQueue(ns, candidate)).port !== home.port) return candidate;
  }
  throw new Error(`no queue name ${prefix}-<n> on another master than ${qname}`);
}

/** Message fields (id, id:rc, id:fr, id:dl) left in a queue's hash. */
export async function messageFields(client: RedisClientType, ns: string, qname: string): Promise<string[]> {
  const fields = await client.hKeys(keysOf(ns, qname).hash);
  return fields.filter((field) => /^[a-z0-9]{10}[A-Za-z0-9]{22}/.test(field)).sort();
}
