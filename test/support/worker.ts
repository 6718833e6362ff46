/**
 * Helpers for the Worker suites: wait on a condition instead of a clock, record what a worker
 * emits, and count the receive scripts one queue gets, exactly, from the MONITOR stream of the
 * server that holds the queue (so a count never includes other namespaces or other commands).
 * Every helper follows the run's target: the single server, or the cluster master that owns the
 * queue's slot.
 */
import { spawn } from "child_process";
import { join } from "path";
import { createClient } from "redis";
import RedisSMQ = require("../../lib/index");
import { script } from "../../lib/scripts/script-files";
import { serverNowMs } from "./inspect";
import { MonitorWatch } from "./monitor-socket";
import type { MonitoredLine } from "./monitor-socket";
import {
  childProcessOptions,
  connectionOptions,
  connectionOptionsWith,
  keysOf,
  onCluster,
  testCluster,
  testRedis,
  uniqueNs,
} from "./server";

type Worker = RedisSMQ.Worker;

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every 10 ms until it holds; fails naming `what` after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(10);
  }
}

/**
 * Resolves once `ms` have passed on the server's clock since `fromMs` (a server time; read now when
 * left out): what a "nothing happened meanwhile" check waits for, since a sleep of this process
 * proves nothing about time when the machine stalls.
 */
export async function serverTimePassed(client: Parameters<typeof serverNowMs>[0], ms: number, fromMs?: number): Promise<void> {
  const from = fromMs ?? (await serverNowMs(client));
  await waitFor(async () => (await serverNowMs(client)) - from >= ms, `${ms} ms on the server's clock`);
}

/** A promise with its resolve function, for handlers a test releases by hand. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

export interface RecordedEvent {
  name: "receive" | "look" | "handled" | "failed" | "sleep" | "wake" | "error" | "stopped" | "abandoned";
  args: unknown[];
  at: number;
}

/** Everything a worker emits, in order, with the local time. */
export class WorkerLog {
  readonly events: RecordedEvent[] = [];

  constructor(worker: Worker) {
    const names: Array<RecordedEvent["name"]> = ["receive", "look", "handled", "failed", "sleep", "wake", "error", "stopped", "abandoned"];
    for (const name of names) {
      (worker as unknown as NodeJS.EventEmitter).on(name, (...args: unknown[]) => this.events.push({ name, args, at: Date.now() }));
    }
  }

  named(name: RecordedEvent["name"]): RecordedEvent[] {
    return this.events.filter((event) => event.name === name);
  }

  count(name: RecordedEvent["name"]): number {
    return this.named(name).length;
  }

  /** Whether the worker's last act was to go to sleep (it is idle, waiting for a wake or its timer). */
  get asleep(): boolean {
    const last = [...this.events].reverse().find((event) => event.name !== "handled" && event.name !== "failed");
    return last?.name === "sleep";
  }

  /** The `ms` of each sleep event, in order. */
  sleeps(): number[] {
    return this.named("sleep").map((event) => event.args[0] as number);
  }

  /**
   * The events from the `from`-th on, one string each with the payload that tells the loop's
   * course: "receive 0 null", "look null", "sleep 200", "wake woken", "handled", "stopped".
   */
  outline(from = 0): string[] {
    return this.events.slice(from).map(({ name, args }) => {
      if (name === "receive") return `receive ${String(args[0])} ${String(args[1])}`;
      if (name === "look" || name === "sleep" || name === "wake") return `${name} ${String(args[0])}`;
      return name;
    });
  }
}

/**
 * Loads the poll scripts (receive, look and a Worker's deleteAndReceive, plain and flagged) into the server that holds a
 * queue, so that no first NOSCRIPT and its EVAL fall into a count of EVALSHA.
 */
export async function loadPollScripts(ns: string, qname: string): Promise<void> {
  const { host, port } = await queueServer(ns, qname);
  await loadPollScriptsAt(`redis://${host}:${port}`);
}

/**
 * Loads the receive and look scripts (plain and flagged) on the server at `url`, those of the
 * Worker's heartbeat (a look that carries it, and its removal at stop), and the read of its
 * schedules at start.
 */
export async function loadPollScriptsAt(url: string): Promise<void> {
  const client = createClient({ url });
  client.on("error", () => undefined);
  await client.connect();
  try {
    for (const name of ["receiveMessage", "nextDue", "deleteAndReceive", "lookAndBeat", "removeConsumer", "listSchedules"] as const) {
      for (const body of [script(name), script(name).flagged]) await client.sendCommand(["SCRIPT", "LOAD", body.source]);
    }
  } finally {
    await client.quit();
  }
}

/**
 * The server that holds a queue's keys: the single server, or on the cluster target the master
 * that owns the queue's slot (where its scripts run).
 */
export async function queueServer(ns: string, qname: string): Promise<{ host: string; port: number }> {
  if (!onCluster()) {
    const { host, port } = testRedis();
    return { host, port };
  }
  const cluster = testCluster();
  const { host, port } = await cluster.masterOfSlot(cluster.slotOf(keysOf(ns, qname).messages));
  return { host, port };
}

/**
 * Counts the receive scripts (EVALSHA or EVAL of lua/receiveMessage-3.lua, or of a Worker's
 * lua/deleteAndReceive-3.lua) run against one queue,
 * read from MONITOR on the server that holds the queue. On Redis 7 the script is sent with its
 * shebang, so it is named by the flagged text's SHA1. `count()` first makes sure the
 * monitor has seen everything sent so far.
 */
export class ReceiveCounter {
  private constructor(
    private readonly watch: MonitorWatch,
    private readonly isReceive: (command: MonitoredLine) => boolean,
  ) {}

  static async open(ns: string, qname: string): Promise<ReceiveCounter> {
    // A Worker's receive that carries deletes (lua/deleteAndReceive-3.lua) is a receive too.
    const receives = [script("receiveMessage").flagged, script("deleteAndReceive").flagged];
    const shas = receives.map((body) => body.sha1);
    const heads = ["Receives up to", "Deletes messages by id, then receives"];
    const key = keysOf(ns, qname).messages;
    // Client-issued only: a script's own calls are not receives.
    const isReceive = ({ args, fromScript }: MonitoredLine): boolean =>
      !fromScript &&
      args.includes(key) &&
      ((args[0] === "evalsha" && shas.includes(args[1])) || (args[0] === "eval" && heads.some((head) => args[1].includes(head))));
    return new ReceiveCounter(await MonitorWatch.open([await queueServer(ns, qname)]), isReceive);
  }

  /** Receives seen so far, after every command sent before this call has reached the monitor. */
  async count(): Promise<number> {
    return (await this.watch.commands()).filter(this.isReceive).length;
  }

  close(): Promise<void> {
    return this.watch.close();
  }
}

/**
 * Sends one message from a separate Node process (so this process's in-process wakes cannot carry
 * it: only the realtime publish can), connected to the run's target (the cluster's root nodes on
 * the cluster target). Resolves with the message id.
 */
export async function sendFromChildProcess(ns: string, qname: string, message: string): Promise<string> {
  // A child process cannot share this one's ioredis client: there, it connects to the same server.
  const [id] = await sendFromChild(childProcessOptions(ns), [qname], message);
  return id;
}

/**
 * Sends one message to each queue, with `realtime` on, from a separate Node process connected with
 * `options` (RedisSMQ constructor options, ns included). Resolves the ids.
 */
export function sendFromChild(options: object, qnames: string[], message: string): Promise<string[]> {
  const entry = join(__dirname, "..", "..", "lib", "index.js");
  const program = `
    const RedisSMQ = require(${JSON.stringify(entry)});
    const rsmq = new RedisSMQ(${JSON.stringify({ ...options, realtime: true })});
    (async () => {
      const ids = [];
      for (const qname of ${JSON.stringify(qnames)}) ids.push(await rsmq.sendMessageAsync({ qname, message: ${JSON.stringify(message)} }));
      process.stdout.write(JSON.stringify(ids));
      await rsmq.quitAsync();
    })().catch((error) => { console.error(error); process.exit(1); });
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", program], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`child sender exited with ${code}: ${err}`)),
    );
  });
}

/** A sender in a separate Node process, connected and waiting: `send()` makes it send, at once. */
export interface ReadySender {
  /** Sends the message from the child; resolves its id once the child has it. */
  send(): Promise<string>;
}

/**
 * Starts a Node process that connects to the run's target (ns `ns`, `realtime` on), and resolves
 * once it is connected and waiting: a test that must send from another process while one of its
 * own calls waits starts that call only then, so the child's start-up (seconds on a loaded
 * machine) is never part of the wait.
 */
export function readySender(ns: string, qname: string, message: string): Promise<ReadySender> {
  const entry = join(__dirname, "..", "..", "lib", "index.js");
  const options = { ...childProcessOptions(ns), realtime: true };
  const program = `
    const RedisSMQ = require(${JSON.stringify(entry)});
    const rsmq = new RedisSMQ(${JSON.stringify(options)});
    (async () => {
      await rsmq.listQueuesAsync();
      process.stdout.write("ready\\n");
      process.stdin.once("data", async () => {
        try {
          process.stdout.write(await rsmq.sendMessageAsync({ qname: ${JSON.stringify(qname)}, message: ${JSON.stringify(message)} }) + "\\n");
          await rsmq.quitAsync();
          process.exit(0);
        } catch (error) { console.error(error); process.exit(1); }
      });
    })().catch((error) => { console.error(error); process.exit(1); });
  `;
  const child = spawn(process.execPath, ["-e", program], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    const parts = out.split("\n");
    out = parts.pop()!;
    lines.push(...parts);
    for (const waiter of waiters.splice(0)) waiter();
  });
  const line = (index: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (lines.length > index) return resolve(lines[index]);
        if (child.exitCode !== null) return reject(new Error(`child sender exited with ${child.exitCode}: ${err}`));
        waiters.push(check);
      };
      child.once("exit", () => waiters.forEach((waiter) => waiter()));
      check();
    });
  return line(0).then(() => ({
    send: () => {
      child.stdin.end("go\n");
      return line(1);
    },
  }));
}

/**
 * Runs one command on every server of the run's target, for what each server keeps to itself (ACL
 * users): the single server, or every live node of the cluster, replicas included.
 */
export async function onEveryServer(args: string[]): Promise<unknown[]> {
  const urls = onCluster()
    ? testCluster()
        .rootNodes()
        .map((node) => node.url)
    : [testRedis().url];
  return Promise.all(
    urls.map(async (url) => {
      const client = createClient({ url });
      client.on("error", () => undefined);
      await client.connect();
      try {
        return await client.sendCommand(args);
      } finally {
        await client.quit();
      }
    }),
  );
}

/** connectionOptions(ns) logged in as `username`, with the credentials at the top level, on either target. */
export function connectionOptionsAs(ns: string, username: string, password: string): ReturnType<typeof connectionOptions> {
  // Top-level credentials, as rsmq users pass them: on a cluster they reach every node's connection.
  return connectionOptionsWith(ns, { username, password });
}

/** Subscribers on a channel, as the server counts them. */
export { subscribersOf } from "./inspect";

/**
 * Workers and connections a test opened, closed in afterEach whatever happened: workers are
 * stopped first (a short stop timeout), then connections quit.
 */
export class Cleanup {
  private workers: Worker[] = [];
  private instances: RedisSMQ[] = [];
  private others: Array<() => Promise<unknown>> = [];

  worker(worker: Worker): Worker {
    this.workers.push(worker);
    return worker;
  }

  rsmq(instance: RedisSMQ): RedisSMQ {
    this.instances.push(instance);
    return instance;
  }

  add(close: () => Promise<unknown>): void {
    this.others.push(close);
  }

  async run(): Promise<void> {
    const workers = this.workers.splice(0);
    await Promise.all(workers.map((worker) => worker.stop()));
    for (const close of this.others.splice(0)) await close().catch(() => undefined);
    for (const instance of this.instances.splice(0)) await instance.quitAsync().catch(() => undefined);
  }
}

/** What `freshQueue` opens for one test. */
export interface FreshQueue {
  /** A namespace no other test uses. */
  ns: string;
  /** The instance the test's Workers consume with. */
  rsmq: RedisSMQ;
  /** A second instance on the same namespace, with a connection of its own: a producer as another client would be. */
  sender: RedisSMQ;
}

/**
 * The usual beforeEach of a Worker suite: a fresh namespace, two instances on it (closed by
 * `cleanup.run()`), and the queue `qname` ("q" by default) created.
 */
export async function freshQueue(cleanup: Cleanup, qname = "q"): Promise<FreshQueue> {
  const ns = uniqueNs();
  const rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
  const sender = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
  await rsmq.createQueueAsync({ qname });
  return { ns, rsmq, sender };
}

/** What {@link freshQueueEachTest} gives a suite: the running test's {@link FreshQueue}, and the suite's cleanup. */
export interface FreshQueueEachTest extends FreshQueue {
  /** Closes what a test opened; run after each test. */
  readonly cleanup: Cleanup;
}

/**
 * The usual setup of a Worker suite, called at the top of its `describe`: `freshQueue` before each
 * test and `cleanup.run()` after it. `ns`, `rsmq` and `sender` read the running test's, so read
 * them inside a test or hook, never when the suite is declared.
 */
export function freshQueueEachTest(qname = "q"): FreshQueueEachTest {
  const cleanup = new Cleanup();
  let current: FreshQueue | undefined;
  beforeEach(async () => {
    current = await freshQueue(cleanup, qname);
  });
  afterEach(() => cleanup.run());
  const now = (): FreshQueue => {
    if (!current) throw new Error("freshQueueEachTest(): ns, rsmq and sender exist once a test's beforeEach ran");
    return current;
  };
  return {
    cleanup,
    get ns() {
      return now().ns;
    },
    get rsmq() {
      return now().rsmq;
    },
    get sender() {
      return now().sender;
    },
  };
}
