/**
 * What a purge costs the server, beside a plain DEL of the same queue: a queue of each size is
 * seeded in rsmq's layout, then emptied once by `purgeQueueAsync` (its UNLINKs hand the old sorted
 * set and hash to Redis' background thread) and once by `DEL <queue> <queue>:Q` (freed by the main
 * thread there and then). For each: the command's own time in SLOWLOG (µs, everything logged),
 * the longest a PING from another connection waited meanwhile (a client's view of the stall), and
 * how long the background free took after the purge answered. Purge and DEL alternate which goes
 * first; medians over the rounds. `node build/bench/run.js --only purge` runs this part alone.
 */
import { randomBytes } from "crypto";
import { loadavg } from "os";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../lib/index");
import { KeyLayout } from "../lib/keys";
import { script } from "../lib/scripts/script-files";
import { seedMessages } from "../test/support/seed-queue";
import type { Target } from "./redis";
import { probeClient } from "./redis";
import { median } from "./stats";

export interface PurgeOptions {
  /** Queue sizes, in messages. */
  sizes: number[];
  /** Rounds per size (purge and DEL each once per round). */
  rounds: number;
}

export interface PurgeRow {
  messages: number;
  /** The purge script's time in SLOWLOG, µs (median). */
  purgeMicros: number;
  /** DEL's time in SLOWLOG, µs (median). */
  delMicros: number;
  /** The longest PING round trip from another connection while the purge ran and its data was freed, ms (median). */
  purgePingMs: number;
  /** The same while the DEL ran, ms (median). */
  delPingMs: number;
  /** From the purge's reply until the background thread had freed everything, ms (median). */
  backgroundFreeMs: number;
}

export interface PurgeResult {
  date: string;
  redisVersion: string;
  rounds: number;
  loadBefore: number[];
  loadAfter: number[];
  rows: PurgeRow[];
}

/** A PING loop on its own connection: the longest round trip between start and stop. */
class Pinger {
  private running = true;
  private longest = 0;
  private readonly loop: Promise<void>;

  constructor(private readonly client: RedisClientType) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const started = process.hrtime.bigint();
      await this.client.ping();
      this.longest = Math.max(this.longest, Number(process.hrtime.bigint() - started) / 1e6);
    }
  }

  async stop(): Promise<number> {
    this.running = false;
    await this.loop;
    return this.longest;
  }
}

type SlowlogEntry = [number, number, number, string[]];

/** The µs SLOWLOG gives the first entry `matches` picks (everything is logged while this runs). */
async function slowlogMicros(probe: RedisClientType, matches: (args: string[]) => boolean): Promise<number> {
  const entries = await probe.sendCommand<SlowlogEntry[]>(["SLOWLOG", "GET", "1000"]);
  const entry = entries.find(([, , , args]) => matches(args));
  if (!entry) throw new Error("bench purge: the command is not in SLOWLOG");
  return entry[2];
}

async function pendingFrees(probe: RedisClientType): Promise<number> {
  return Number(/^lazyfree_pending_objects:(\d+)/m.exec(await probe.info("memory"))?.[1] ?? 0);
}

interface Sample {
  micros: number;
  pingMs: number;
  freeMs: number;
}

async function purgeOnce(target: Target, probe: RedisClientType, pinging: RedisClientType, messages: number): Promise<Sample> {
  const ns = `bp${randomBytes(3).toString("hex")}`;
  const rsmq = new RedisSMQ({ host: target.host, port: target.port, ns });
  try {
    await rsmq.createQueueAsync({ qname: "q" });
    await seedMessages(probe, KeyLayout.for(ns, false).queue("q"), messages);
    await probe.sendCommand(["SLOWLOG", "RESET"]);
    const pinger = new Pinger(pinging);
    await rsmq.purgeQueueAsync({ qname: "q" });
    const answered = Date.now();
    // Read before the pings of the free push the purge out of the slow log.
    const shas = new Set([script("purgeQueue").sha1, script("purgeQueue").flagged.sha1]);
    const micros = await slowlogMicros(probe, (args) => /^evalsha$/i.test(args[0]) && shas.has(args[1]));
    while ((await pendingFrees(probe)) > 0) await new Promise((resolve) => setTimeout(resolve, 1));
    const freeMs = Date.now() - answered;
    const pingMs = await pinger.stop();
    await rsmq.deleteQueueAsync({ qname: "q" });
    return { micros, pingMs, freeMs };
  } finally {
    await rsmq.quitAsync();
  }
}

async function delOnce(probe: RedisClientType, pinging: RedisClientType, messages: number): Promise<Sample> {
  const keys = KeyLayout.for(`bd${randomBytes(3).toString("hex")}`, false).queue("q");
  await probe.hSet(keys.hash, { vt: "30", delay: "0", maxsize: "65536" });
  await seedMessages(probe, keys, messages);
  await probe.sendCommand(["SLOWLOG", "RESET"]);
  const pinger = new Pinger(pinging);
  await probe.sendCommand(["DEL", keys.messages, keys.hash]);
  const pingMs = await pinger.stop();
  const micros = await slowlogMicros(probe, (args) => /^del$/i.test(args[0]) && args[1] === keys.messages);
  return { micros, pingMs, freeMs: 0 };
}

/** Measures every size, purge and DEL alternating which goes first. */
export async function measurePurge(target: Target, options: PurgeOptions, log: (line: string) => void): Promise<PurgeResult> {
  const probe = await probeClient(target);
  const pinging = await probeClient(target);
  const loadBefore = loadavg();
  const settings = await probe.configGet("slowlog-*");
  try {
    await probe.sendCommand(["CONFIG", "SET", "slowlog-log-slower-than", "0", "slowlog-max-len", "10000"]);
    const redisVersion = /^redis_version:(\S+)/m.exec(await probe.info("server"))?.[1] ?? "unknown";
    const rows: PurgeRow[] = [];
    for (const messages of options.sizes) {
      const purges: Sample[] = [];
      const dels: Sample[] = [];
      for (let round = 0; round < options.rounds; round += 1) {
        if (round % 2 === 0) {
          purges.push(await purgeOnce(target, probe, pinging, messages));
          dels.push(await delOnce(probe, pinging, messages));
        } else {
          dels.push(await delOnce(probe, pinging, messages));
          purges.push(await purgeOnce(target, probe, pinging, messages));
        }
      }
      const row: PurgeRow = {
        messages,
        purgeMicros: median(purges.map((sample) => sample.micros)),
        delMicros: median(dels.map((sample) => sample.micros)),
        purgePingMs: median(purges.map((sample) => sample.pingMs)),
        delPingMs: median(dels.map((sample) => sample.pingMs)),
        backgroundFreeMs: median(purges.map((sample) => sample.freeMs)),
      };
      log(`purge ${messages.toLocaleString("en-US")} messages: ${row.purgeMicros} µs, DEL ${row.delMicros} µs`);
      rows.push(row);
    }
    return { date: new Date().toISOString(), redisVersion, rounds: options.rounds, loadBefore, loadAfter: loadavg(), rows };
  } finally {
    for (const [name, value] of Object.entries(settings)) await probe.configSet(name, value);
    await Promise.all([probe.quit(), pinging.quit()]);
  }
}

/** The part's table, for stdout and purge.md. */
export function purgeTable(result: PurgeResult): string {
  const load = (values: number[]): string => values.map((value) => value.toFixed(2)).join(", ");
  const ms = (value: number): string => value.toFixed(1);
  const lines = [
    `Emptying a queue: purgeQueue (UNLINK inside its script) beside a plain DEL of the same queue, Redis ${result.redisVersion}, ` +
      `medians of ${result.rounds} rounds; load average ${load(result.loadBefore)} before, ${load(result.loadAfter)} after. ` +
      "µs: the command's own time in SLOWLOG; PING: the longest another connection waited meanwhile; " +
      "background free: from the purge's reply until Redis had freed the old data.",
    "",
    "| messages | purgeQueue µs | DEL µs | longest PING, purge (ms) | longest PING, DEL (ms) | background free (ms) |",
    "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ...result.rows.map(
      (row) =>
        `| ${row.messages.toLocaleString("en-US")} | ${row.purgeMicros.toLocaleString("en-US")} | ${row.delMicros.toLocaleString("en-US")} | ` +
        `${ms(row.purgePingMs)} | ${ms(row.delPingMs)} | ${row.backgroundFreeMs.toLocaleString("en-US")} |`,
    ),
  ];
  return lines.join("\n");
}
