/**
 * Helpers for the retry and dead-letter suites: the server's clock, a MONITOR that keeps each
 * command's arguments (so a script call can be told apart by its sha), and a way to put a message
 * into a dead-letter queue without running a worker.
 */
import { randomBytes } from "crypto";
import type { Socket } from "net";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/redis-smq";
import { DeadLetterMover } from "../../lib/dead-letters/dead-letter-mover";
import type { StopRecord } from "../../lib/commands/dead-letters";
import { script } from "../../lib/scripts/script-files";
import { openMonitor } from "./monitor-socket";
import { plainClient, testRedis } from "./server";
import { snapshot, type Snapshot } from "./state";

/** The server's clock, epoch ms (the clock every score is written with). */
export async function serverNowMs(client: RedisClientType): Promise<number> {
  const [seconds, micros] = (await client.sendCommand(["TIME"])) as [string, string];
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** Caches lua/ scripts on the server, so the next call of each is one EVALSHA (no NOSCRIPT, no EVAL). */
export async function loadScripts(client: RedisClientType, names: string[]): Promise<void> {
  for (const name of names) await client.scriptLoad(script(name).source);
}

/**
 * state.ts's snapshot, with -0 read as 0: a score equal to the clock rounds to 0 or -0 depending
 * on the millisecond it is read in, which deep.equal would tell apart.
 */
export async function picture(client: RedisClientType, ns: string): Promise<Snapshot> {
  return JSON.parse(JSON.stringify(await snapshot(client, ns))) as Snapshot;
}

export interface WatchedCommand {
  /** Arguments as sent, the command name lower-cased. */
  args: string[];
  /** True when a script issued it. */
  fromScript: boolean;
}

/** Splits a MONITOR line into its quoted arguments (backslash escapes kept as they are). */
function parseMonitorLine(line: string): WatchedCommand | undefined {
  const head = /^\d+\.\d+ \[\d+ ([^\]]+)\] /.exec(line);
  if (!head) return undefined;
  const args = [...line.slice(head[0].length).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]);
  if (args.length === 0) return undefined;
  args[0] = args[0].toLowerCase();
  return { args, fromScript: head[1] === "lua" };
}

/**
 * A MONITOR connection left open across a test: `commands()` returns everything the server ran
 * since it opened, after making sure every command sent before the call has been seen.
 */
export class CommandWatch {
  private readonly seen: WatchedCommand[] = [];
  private readonly markers = new Map<string, () => void>();

  private constructor(
    private readonly socket: Socket,
    private readonly marker: RedisClientType,
  ) {}

  static async open(): Promise<CommandWatch> {
    const { host, port } = testRedis();
    let watch: CommandWatch | undefined;
    const pending: string[] = [];
    const socket = await openMonitor(host, port, (line) => (watch ? watch.record(line) : pending.push(line)));
    watch = new CommandWatch(socket, await plainClient());
    for (const line of pending) watch.record(line);
    return watch;
  }

  private record(line: string): void {
    const marker = [...this.markers.keys()].find((token) => line.includes(token));
    if (marker) return this.markers.get(marker)!();
    const command = parseMonitorLine(line);
    if (command) this.seen.push(command);
  }

  /** Everything seen so far (the watch's own markers excluded). */
  async commands(): Promise<WatchedCommand[]> {
    const token = `retry-watch-${randomBytes(6).toString("hex")}`;
    const seen = new Promise<void>((resolve) => this.markers.set(token, resolve));
    await this.marker.sendCommand(["ECHO", token]);
    await seen;
    this.markers.delete(token);
    return [...this.seen];
  }

  /** Client-sent EVALSHA calls of one lua/ script. */
  async scriptCalls(name: string): Promise<WatchedCommand[]> {
    const { sha1 } = script(name);
    return (await this.commands()).filter((command) => !command.fromScript && command.args[0] === "evalsha" && command.args[1] === sha1);
  }

  async close(): Promise<void> {
    this.socket.destroy();
    await this.marker.quit();
  }
}

/** Everything the server ran during `action`. */
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
 * Sends `body` to `source`, receives it (rc 1) and moves it to `dlq` as the worker would, with the
 * atomic script. Resolves the message id.
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

/** Message fields (id, id:rc, id:fr, id:dl) left in a queue's hash. */
export async function messageFields(client: RedisClientType, ns: string, qname: string): Promise<string[]> {
  const fields = await client.hKeys(`${ns}:${qname}:Q`);
  return fields.filter((field) => /^[a-z0-9]{10}[A-Za-z0-9]{22}/.test(field)).sort();
}
