/**
 * What one batch script call at the byte bound (MAX_BATCH_BYTES, lib/operations/batch-bytes.ts)
 * holds Redis: each batch call's script time in SLOWLOG (µs), at the bound with the longest bodies
 * the default maxsize allows (4 of 64 KiB), with 1000 bodies that together reach the bound (1000
 * of 262 bytes), with 1000 of 1,048 bytes (what a bound of 1 MiB would have let one call carry:
 * sent in 4 calls now, and received and looked at up to the bound), and with 1000 small ones (100
 * bytes: the count bound alone); and what became of the call of the issue (1000 bodies of 60 KB:
 * sent 4 to a call, received and looked at up to the bound, their ids changed and deleted 1000 at once). Medians and maxima over the rounds. `node build/bench/run.js --only batch-bound` runs it.
 */
import { randomBytes } from "crypto";
import { loadavg } from "os";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../lib/index");
import { MAX_BATCH_BYTES } from "../lib/operations/batch-bytes";
import { script } from "../lib/scripts/script-files";
import type { ScriptName } from "../lib/scripts/script-files";
import type { Target } from "./redis";
import { probeClient } from "./redis";
import { median } from "./stats";

export interface BatchBoundOptions {
  rounds: number;
}

/** One shape of batch: how many bodies of how many bytes, sent in calls the bound allows. */
interface Shape {
  label: string;
  count: number;
  bytes: number;
}

const SHAPES: readonly Shape[] = [
  { label: "4 × 64 KiB (the bound)", count: 4, bytes: 65_536 },
  { label: "1000 × 262 B (the bound)", count: 1000, bytes: 262 },
  { label: "1000 × 1,048 B (1 MiB: 4 calls)", count: 1000, bytes: 1_048 },
  { label: "1000 × 100 B", count: 1000, bytes: 100 },
  { label: "1000 × 60 KB (cut at the bound)", count: 1000, bytes: 60_000 },
];

const CALLS = ["sendMessages", "receiveMessages", "peekMessages", "changeMessagesVisibility", "deleteMessages"] as const;
type Call = (typeof CALLS)[number];
const SCRIPT_OF: Record<Call, ScriptName> = {
  sendMessages: "sendMessages",
  receiveMessages: "receiveMessage",
  peekMessages: "messagePage",
  changeMessagesVisibility: "changeMessagesVisibility",
  deleteMessages: "deleteMessages",
};

export interface BatchBoundRow {
  shape: string;
  call: Call;
  /** Messages the call handled (a receive or a look cut at the bound handles fewer than asked). */
  messages: number;
  /** Bytes of bodies it wrote or returned. */
  bodyBytes: number;
  /** The script's time in SLOWLOG, µs: median and maximum over the rounds (0: under LOGGED_FROM_MICROS, not logged). */
  medianMicros: number;
  maxMicros: number;
}

export interface BatchBoundResult {
  date: string;
  redisVersion: string;
  bound: number;
  rounds: number;
  loadBefore: number[];
  loadAfter: number[];
  rows: BatchBoundRow[];
}

type SlowlogEntry = [number, number, number, string[]];

/** SLOWLOG logs what takes this long or longer; a script call it does not hold took less. */
const LOGGED_FROM_MICROS = 100;

/** The µs of the script call `call` ran, as SLOWLOG holds it; 0 when it took less than LOGGED_FROM_MICROS. */
async function scriptMicros(probe: RedisClientType, call: Call): Promise<number> {
  const { sha1, flagged } = script(SCRIPT_OF[call]);
  const entries = await probe.sendCommand<SlowlogEntry[]>(["SLOWLOG", "GET", "1000"]);
  const entry = entries.find(([, , , args]) => /^evalsha/i.test(args[0]) && (args[1] === sha1 || args[1] === flagged.sha1));
  return entry ? entry[2] : 0;
}

/** One round of one shape: every call once, on a fresh queue; µs, messages and bytes per call. */
async function roundOf(target: Target, probe: RedisClientType, shape: Shape): Promise<Map<Call, [number, number, number]>> {
  const ns = `bb${randomBytes(3).toString("hex")}`;
  const rsmq = new RedisSMQ({ host: target.host, port: target.port, ns });
  const seen = new Map<Call, [number, number, number]>();
  const timed = async (call: Call, run: () => Promise<[number, number]>): Promise<void> => {
    await probe.sendCommand(["SLOWLOG", "RESET"]);
    const [messages, bytes] = await run();
    seen.set(call, [await scriptMicros(probe, call), messages, bytes]);
  };
  try {
    await rsmq.createQueueAsync({ qname: "q", maxsize: -1 });
    // Warm: every script cached before a call is timed.
    await rsmq.sendMessagesAsync({ qname: "q", messages: [{ message: "w" }] });
    const { messages: warm } = await rsmq.receiveMessagesAsync({ qname: "q", count: 2 });
    await rsmq.changeMessagesVisibilityAsync({ qname: "q", ids: warm.map(({ id }) => id), vt: 0 });
    await rsmq.peekMessagesAsync({ qname: "q", count: 2 });
    await rsmq.deleteMessagesAsync({ qname: "q", ids: warm.map(({ id }) => id) });

    const body = "x".repeat(shape.bytes);
    const perCall = Math.max(1, Math.floor(MAX_BATCH_BYTES / shape.bytes));
    for (let sent = 0; sent < shape.count; sent += perCall) {
      const size = Math.min(perCall, shape.count - sent);
      const messages = Array.from({ length: size }, () => ({ message: body }));
      if (sent === 0)
        await timed("sendMessages", async () => [(await rsmq.sendMessagesAsync({ qname: "q", messages })).length, size * shape.bytes]);
      else await rsmq.sendMessagesAsync({ qname: "q", messages });
    }
    await timed("peekMessages", async () => {
      const peeked = await rsmq.peekMessagesAsync({ qname: "q", count: 1000 });
      return [peeked.length, peeked.length * shape.bytes];
    });
    await timed("receiveMessages", async () => {
      const { messages } = await rsmq.receiveMessagesAsync({ qname: "q", count: 1000 });
      return [messages.length, messages.length * shape.bytes];
    });
    // The ids of every message, received or not: the count bound alone limits these two.
    const all = (await probe.zRange(`${ns}:q`, 0, -1)).slice(0, 1000);
    await timed("changeMessagesVisibility", async () => [
      (await rsmq.changeMessagesVisibilityAsync({ qname: "q", ids: all, vt: 60 })).length,
      0,
    ]);
    await timed("deleteMessages", async () => [(await rsmq.deleteMessagesAsync({ qname: "q", ids: all })).length, 0]);
    await rsmq.deleteQueueAsync({ qname: "q" });
    return seen;
  } finally {
    await rsmq.quitAsync();
  }
}

/** Every shape, `rounds` times; SLOWLOG logs calls of LOGGED_FROM_MICROS and more meanwhile (its settings restored after). */
export async function measureBatchBound(
  target: Target,
  options: BatchBoundOptions,
  log: (line: string) => void,
): Promise<BatchBoundResult> {
  const probe = await probeClient(target);
  const loadBefore = loadavg();
  const settings = await probe.configGet("slowlog-*");
  try {
    // Not 0: a script's own commands would each be logged too, inside the time being measured.
    await probe.sendCommand(["CONFIG", "SET", "slowlog-log-slower-than", String(LOGGED_FROM_MICROS), "slowlog-max-len", "1000"]);
    const redisVersion = /^redis_version:(\S+)/m.exec(await probe.info("server"))?.[1] ?? "unknown";
    const rows: BatchBoundRow[] = [];
    for (const shape of SHAPES) {
      const samples = new Map<Call, Array<[number, number, number]>>();
      for (let round = 0; round < options.rounds; round++) {
        for (const [call, sample] of await roundOf(target, probe, shape)) samples.set(call, [...(samples.get(call) ?? []), sample]);
      }
      for (const call of CALLS) {
        const taken = samples.get(call) ?? [];
        const micros = taken.map(([us]) => us);
        rows.push({
          shape: shape.label,
          call,
          messages: taken[0]?.[1] ?? 0,
          bodyBytes: taken[0]?.[2] ?? 0,
          medianMicros: median(micros),
          maxMicros: Math.max(...micros),
        });
      }
      log(`batch-bound: ${shape.label} done`);
    }
    return {
      date: new Date().toISOString(),
      redisVersion,
      bound: MAX_BATCH_BYTES,
      rounds: options.rounds,
      loadBefore,
      loadAfter: loadavg(),
      rows,
    };
  } finally {
    await probe.sendCommand(["CONFIG", "SET", ...Object.entries(settings).flat()]);
    await probe.quit();
  }
}

const load = (figures: number[]): string => figures.map((figure) => figure.toFixed(2)).join(", ");
const number = (value: number): string => Math.round(value).toLocaleString("en-US");
const micros = (value: number): string => (value === 0 ? `< ${LOGGED_FROM_MICROS}` : number(value));

/** The result as a Markdown table. */
export function batchBoundTable(result: BatchBoundResult): string {
  const lines = [
    `One batch script call at the byte bound (${number(result.bound)} bytes of bodies), Redis ${result.redisVersion}, ` +
      `${result.rounds} rounds; load average ${load(result.loadBefore)} before, ${load(result.loadAfter)} after. ` +
      "µs: the script's own time in SLOWLOG (median, max). A receive or look stops at the bound; " +
      "changeMessagesVisibility and deleteMessages move ids only, 1000 at most.",
    "",
    "| bodies | call | messages | body bytes | median µs | max µs |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
  ];
  for (const row of result.rows) {
    lines.push(
      `| ${row.shape} | ${row.call} | ${number(row.messages)} | ${number(row.bodyBytes)} | ${micros(row.medianMicros)} | ${micros(row.maxMicros)} |`,
    );
  }
  return lines.join("\n");
}
