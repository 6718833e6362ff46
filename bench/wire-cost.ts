/**
 * Wire cost per API call, exact (counted, not timed), for both libraries: the commands the client
 * sends (from MONITOR, by the client's address), its round trips (counted by a zero-delay proxy:
 * each time the client speaks after the server did), and every call the server runs, including
 * those inside scripts (INFO commandstats delta; MONITOR's `lua` lines for the split). Each call is
 * run once to warm up (scripts cached), then measured once on a fresh queue in the same state.
 */
import { randomBytes } from "crypto";
import type { RedisClientType } from "redis";
import type RedisSMQ = require("../lib/index");
import { close, open } from "./clients";
import type { Lib, QueueApi } from "./clients";
import { LatencyProxy } from "./latency-proxy";
import { Monitor } from "./monitor";
import { probeClient } from "./redis";
import type { Target } from "./redis";
import { countsBetween, readCommandStats, totalOf } from "../lib/cli/redis/command-stats";
import { PROBE_COMMANDS } from "./server-counters";
import { CHECK_RIGHTS_AFTER } from "../lib/scripts/script-runner";

export interface WireCost {
  call: string;
  lib: Lib;
  /** Client-sent commands in order, upper case (MULTI ... EXEC included). */
  clientCommands: string[];
  roundTrips: number;
  /** Commands run inside scripts. */
  inScript: number;
  /** All calls the server counted (client commands + in-script), from INFO commandstats. */
  serverCalls: number;
  /** Messages the call handles (for per-message figures of batch calls). */
  messages: number;
  note?: string;
}

interface CallCase {
  call: string;
  /** Only this library has the call. */
  only?: Lib;
  realtime?: boolean;
  messages?: number;
  note?: Partial<Record<Lib, string>>;
  /** Brings a fresh queue into the state the call needs; returns what run() needs. */
  setup?(api: QueueApi, qname: string): Promise<string[]>;
  run(api: QueueApi, qname: string, ids: string[]): Promise<unknown>;
}

const create = async (api: QueueApi, qname: string): Promise<string[]> => {
  await api.createQueueAsync({ qname });
  return [];
};
const withMessages =
  (count: number, receive: boolean) =>
  async (api: QueueApi, qname: string): Promise<string[]> => {
    await api.createQueueAsync({ qname });
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) ids.push(await api.sendMessageAsync({ qname, message: `m${i}` }));
    if (receive) for (let i = 0; i < count; i += 1) await api.receiveMessageAsync({ qname });
    return ids;
  };
const next = (api: QueueApi): RedisSMQ => api as unknown as RedisSMQ;

export const CALLS: CallCase[] = [
  { call: "createQueue", run: (api, qname) => api.createQueueAsync({ qname }) },
  { call: "listQueues", setup: create, run: (api) => api.listQueuesAsync() },
  { call: "getQueueAttributes", setup: create, run: (api, qname) => api.getQueueAttributesAsync({ qname }) },
  { call: "setQueueAttributes", setup: create, run: (api, qname) => api.setQueueAttributesAsync({ qname, vt: 60 }) },
  { call: "sendMessage", setup: create, run: (api, qname) => api.sendMessageAsync({ qname, message: "hello" }) },
  {
    call: "sendMessage (realtime)",
    realtime: true,
    setup: create,
    run: (api, qname) => api.sendMessageAsync({ qname, message: "hello" }),
    note: { rsmq: "PUBLISH sent after the reply, not awaited" },
  },
  { call: "receiveMessage", setup: withMessages(1, false), run: (api, qname) => api.receiveMessageAsync({ qname }) },
  { call: "receiveMessage (empty queue)", setup: create, run: (api, qname) => api.receiveMessageAsync({ qname }) },
  { call: "popMessage", setup: withMessages(1, false), run: (api, qname) => api.popMessageAsync({ qname }) },
  {
    call: "changeMessageVisibility",
    setup: withMessages(1, true),
    run: (api, qname, ids) => api.changeMessageVisibilityAsync({ qname, id: ids[0], vt: 60 }),
  },
  { call: "deleteMessage", setup: withMessages(1, true), run: (api, qname, ids) => api.deleteMessageAsync({ qname, id: ids[0] }) },
  { call: "deleteQueue", setup: create, run: (api, qname) => api.deleteQueueAsync({ qname }) },
  {
    call: "receiveMessageOrNextDue (empty queue)",
    only: "rsmq-next",
    setup: create,
    run: (api, qname) => next(api).receiveMessageOrNextDueAsync({ qname }),
  },
  {
    call: "receiveMessages (10 waiting, count 10)",
    only: "rsmq-next",
    messages: 10,
    setup: withMessages(10, false),
    run: (api, qname) => next(api).receiveMessagesAsync({ qname, count: 10 }),
  },
  {
    call: "deleteAndReceive (1 received, 1 waiting)",
    only: "rsmq-next",
    setup: async (api, qname) => {
      const ids = await withMessages(2, false)(api, qname);
      await api.receiveMessageAsync({ qname });
      return ids;
    },
    run: (api, qname, ids) => next(api).deleteAndReceiveAsync({ qname, id: ids[0] }),
  },
  {
    call: "deleteMessages (10 ids)",
    only: "rsmq-next",
    messages: 10,
    setup: withMessages(10, true),
    run: (api, qname, ids) => next(api).deleteMessagesAsync({ qname, ids }),
  },
];

/** Runs enough checking scripts on a fresh instance that its one rights question is behind it. */
async function passRightsQuestion(rsmq: RedisSMQ): Promise<void> {
  const qname = `r${randomBytes(4).toString("hex")}`;
  await rsmq.createQueueAsync({ qname });
  for (let sent = 0; sent <= CHECK_RIGHTS_AFTER; sent++) await rsmq.sendMessageAsync({ qname, message: "warm" });
  await rsmq.deleteQueueAsync({ qname });
}

/** One call, measured. */
async function measureCall(target: Target, probe: RedisClientType, lib: Lib, callCase: CallCase): Promise<WireCost> {
  const proxy = await LatencyProxy.start(target, 0);
  const ns = `wire${randomBytes(3).toString("hex")}`;
  const api = await open(lib, proxy.endpoint, { ns, realtime: callCase.realtime });
  try {
    // Warm up: the same call once (rsmq-next's first EVALSHA on a fresh server falls back to EVAL).
    // rsmq-next asks each connection once which commands its user may run (lib/scripts/script-runner.ts),
    // with the script call after the first CHECK_RIGHTS_AFTER, and then sends each script's text without
    // the ACL pre-checks: asked before the warm-up, neither is counted as the call's.
    if (lib === "rsmq-next") await passRightsQuestion(next(api));
    const warm = `w${randomBytes(4).toString("hex")}`;
    await callCase.run(api, warm, (await callCase.setup?.(api, warm)) ?? []);

    const qname = `q${randomBytes(4).toString("hex")}`;
    const ids = (await callCase.setup?.(api, qname)) ?? [];
    const monitor = await Monitor.open(target);
    try {
      const before = await readCommandStats(probe);
      proxy.resetCount();
      await callCase.run(api, qname, ids);
      // rsmq's realtime PUBLISH follows the reply; give such trailing commands time to arrive.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const roundTrips = proxy.roundTrips;
      await monitor.flush((marker) => probe.sendCommand(["ECHO", marker]));
      const calls = countsBetween(before, await readCommandStats(probe), PROBE_COMMANDS);
      const clientCommands = monitor.commands
        .filter((command) => proxy.upstreamAddresses.has(command.origin))
        .map((command) => command.name.toUpperCase());
      const inScript = monitor.commands.filter((command) => command.origin === "lua").length;
      return {
        call: callCase.call,
        lib,
        clientCommands,
        roundTrips,
        inScript,
        serverCalls: totalOf(calls),
        messages: callCase.messages ?? 1,
        note: callCase.note?.[lib],
      };
    } finally {
      monitor.close();
    }
  } finally {
    await close(api);
    await proxy.close();
  }
}

/** Every call of both libraries (rsmq-next-only calls once), in CALLS order. */
export async function measureWireCost(target: Target): Promise<WireCost[]> {
  const probe = await probeClient(target);
  try {
    const results: WireCost[] = [];
    for (const callCase of CALLS) {
      for (const lib of ["rsmq", "rsmq-next"] as const) {
        if (callCase.only && callCase.only !== lib) continue;
        results.push(await measureCall(target, probe, lib, callCase));
      }
    }
    return results;
  } finally {
    await probe.quit();
  }
}
