/**
 * What fair queues (docs/fair-queues.md) cost, side by side in one run, rounds interleaved,
 * medians of per-round ratios:
 * - a lone flood drained by 10 idle consumers (popMessage loops): its messages sent with a tenant
 *   vs without. Fair scores are all in the past (visible), so the drain must be as fast: the ratio
 *   says whether fairness is work-conserving in practice;
 * - single sends at 50 in flight with a tenant vs without: msg/s, and the send script's server
 *   time per call (INFO commandstats, evalsha's usec_per_call), what the extra HGET and
 *   ZRANGEBYSCORE cost Redis.
 * `node build/bench/run.js --only fair` runs this part alone.
 */
import { randomBytes } from "crypto";
import { loadavg } from "os";
import RedisSMQ = require("../lib/index");
import type { Target } from "./redis";
import { probeClient } from "./redis";
import { median } from "./stats";

const CONSUMERS = 10;
const IN_FLIGHT = 50;
const BATCH = 1000;

export interface FairRow {
  readonly case: string;
  /** Median msg/s without a tenant. */
  readonly plainPerSecond: number;
  /** Median msg/s with a tenant. */
  readonly tenantPerSecond: number;
  /** Median over rounds of tenant msg/s / plain msg/s in the same round. */
  readonly ratio: number;
  /** Median server µs per send script call (sends only): plain, with a tenant, with an attribute of its size and no tenant. */
  readonly plainScriptMicros?: number;
  readonly tenantScriptMicros?: number;
  readonly attributesScriptMicros?: number;
}

export interface FairResult {
  readonly messages: number;
  readonly rounds: number;
  readonly loadBefore: number[];
  readonly loadAfter: number[];
  readonly rows: FairRow[];
}

type Mode = "plain" | "tenant";
/** A send mode: `attributes` carries an attribute of the tenant's size but no tenant, so its cost beside `tenant` is fairness alone. */
type SendMode = Mode | "attributes";

/** Fills a fresh queue with `count` messages in batches, with or without a tenant; resolves its instance and name. */
async function filled(target: Target, count: number, mode: Mode): Promise<{ rsmq: RedisSMQ; qname: string; ns: string }> {
  const ns = `fair${randomBytes(3).toString("hex")}`;
  const rsmq = new RedisSMQ({ host: target.host, port: target.port, ns });
  const qname = "flood";
  await rsmq.createQueueAsync({ qname });
  for (let from = 0; from < count; from += BATCH) {
    const messages = Array.from({ length: Math.min(BATCH, count - from) }, (_, i) =>
      mode === "tenant" ? { message: `m${from + i}`, tenant: "flood" } : { message: `m${from + i}` },
    );
    await rsmq.sendMessagesAsync({ qname, messages });
  }
  return { rsmq, qname, ns };
}

/** msg/s of CONSUMERS popMessage loops draining the queue. */
async function drain(target: Target, count: number, mode: Mode): Promise<number> {
  const { rsmq, qname, ns } = await filled(target, count, mode);
  const consumers = Array.from({ length: CONSUMERS }, () => new RedisSMQ({ host: target.host, port: target.port, ns }));
  try {
    await Promise.all(consumers.map((consumer) => consumer.getQueueAttributesAsync({ qname })));
    let popped = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      consumers.map(async (consumer) => {
        for (;;) {
          const message = await consumer.popMessageAsync({ qname });
          if (!("id" in message)) return;
          popped += 1;
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (popped !== count) throw new Error(`bench: drained ${popped} of ${count}`);
    return count / seconds;
  } finally {
    await rsmq.deleteQueueAsync({ qname });
    await Promise.all([rsmq, ...consumers].map((instance) => instance.quitAsync()));
  }
}

/** msg/s of `count` single sends at IN_FLIGHT, and the server's µs per evalsha call meanwhile. */
async function send(target: Target, count: number, mode: SendMode): Promise<{ perSecond: number; scriptMicros: number }> {
  const extra = (i: number): Partial<RedisSMQ.SendMessageOptions> =>
    mode === "tenant" ? { tenant: `t${i % 10}` } : mode === "attributes" ? { attributes: { tenanx: `t${i % 10}` } } : {};
  const rsmq = new RedisSMQ({ host: target.host, port: target.port, ns: `fair${randomBytes(3).toString("hex")}` });
  const probe = await probeClient(target);
  const qname = "sends";
  try {
    await rsmq.createQueueAsync({ qname });
    // The script loaded, and the tenant's tag written, before the counters start.
    await rsmq.sendMessageAsync({ qname, message: "warm", ...extra(0) });
    await probe.sendCommand(["CONFIG", "RESETSTAT"]);
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < count) {
          const i = next++;
          // Ten tenants in turn: each send reads a tag and the head, as a mixed producer's do.
          await rsmq.sendMessageAsync({ qname, message: `m${i}`, ...extra(i) });
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const stats = String(await probe.sendCommand(["INFO", "commandstats"]));
    const evalsha = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(stats);
    if (!evalsha || Number(evalsha[1]) < count) throw new Error("bench: the sends' evalsha calls were not counted");
    return { perSecond: count / seconds, scriptMicros: Number(evalsha[2]) / Number(evalsha[1]) };
  } finally {
    await rsmq.deleteQueueAsync({ qname });
    await rsmq.quitAsync();
    await probe.quit();
  }
}

export async function measureFair(
  target: Target,
  options: { messages: number; rounds: number },
  log: (line: string) => void,
): Promise<FairResult> {
  const loadBefore = loadavg();
  const drains: Record<Mode, number[]> = { plain: [], tenant: [] };
  const sends: Record<Mode, number[]> = { plain: [], tenant: [] };
  const micros: Record<SendMode, number[]> = { plain: [], tenant: [], attributes: [] };
  const drainRatios: number[] = [];
  const sendRatios: number[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    // Alternate which goes first, so a warming server favours neither.
    const order: Mode[] = round % 2 === 0 ? ["plain", "tenant"] : ["tenant", "plain"];
    const drained: Partial<Record<Mode, number>> = {};
    const sent: Partial<Record<Mode, number>> = {};
    for (const mode of order) {
      drained[mode] = await drain(target, options.messages, mode);
      const sending = await send(target, options.messages, mode);
      sent[mode] = sending.perSecond;
      micros[mode].push(sending.scriptMicros);
    }
    micros.attributes.push((await send(target, options.messages, "attributes")).scriptMicros);
    for (const mode of order) {
      drains[mode].push(drained[mode]!);
      sends[mode].push(sent[mode]!);
    }
    drainRatios.push(drained.tenant! / drained.plain!);
    sendRatios.push(sent.tenant! / sent.plain!);
    log(
      `fair round ${round + 1}/${options.rounds}: drain ratio ${drainRatios[round].toFixed(3)}, send ratio ${sendRatios[round].toFixed(3)}`,
    );
  }
  return {
    messages: options.messages,
    rounds: options.rounds,
    loadBefore,
    loadAfter: loadavg(),
    rows: [
      {
        case: `drain a lone flood of ${options.messages} (${CONSUMERS} popMessage loops)`,
        plainPerSecond: median(drains.plain),
        tenantPerSecond: median(drains.tenant),
        ratio: median(drainRatios),
      },
      {
        case: `single sends, ${IN_FLIGHT} in flight (10 tenants in turn)`,
        plainPerSecond: median(sends.plain),
        tenantPerSecond: median(sends.tenant),
        ratio: median(sendRatios),
        plainScriptMicros: median(micros.plain),
        tenantScriptMicros: median(micros.tenant),
        attributesScriptMicros: median(micros.attributes),
      },
    ],
  };
}

export function fairTable(result: FairResult): string {
  const lines = [
    `Fair queues: ${result.messages} messages per case, ${result.rounds} interleaved rounds, medians (load ${result.loadBefore[0].toFixed(2)} -> ${result.loadAfter[0].toFixed(2)})`,
    "",
    "| case | without tenant msg/s | with tenant msg/s | ratio (with / without) | server µs per send script: without / with a tenant / with an attribute of its size |",
    "|---|---:|---:|---:|---:|",
  ];
  for (const row of result.rows) {
    const micros =
      row.plainScriptMicros === undefined
        ? ""
        : `${row.plainScriptMicros.toFixed(2)} / ${row.tenantScriptMicros!.toFixed(2)} / ${row.attributesScriptMicros!.toFixed(2)}`;
    lines.push(
      `| ${row.case} | ${row.plainPerSecond.toFixed(0)} | ${row.tenantPerSecond.toFixed(0)} | ${row.ratio.toFixed(3)} | ${micros} |`,
    );
  }
  return lines.join("\n");
}
