/**
 * Idle cost: what one consumer of an empty queue costs Redis, counted over a real window with
 * MONITOR (every command, split into client-sent and in-script), then extrapolated to an hour and
 * to 30 days. The Worker at its defaults is counted as it is. A scaled subject runs with its sleep
 * divided by `scale`, and its rate is divided by `scale` again: the Worker's whole idle traffic
 * follows its cap (the wake subscription's health PING rides its look), so all of it scales.
 */
import { randomBytes } from "crypto";
import RedisSMQ = require("../lib/index");
import { nextDue } from "../lib/operations/next-due";
import { internalsOf } from "../lib/internals";
import { close, openNext, openOld } from "./clients";
import { Monitor } from "./monitor";
import { pollEvery, rsmqWorkerLoop } from "./pollers";
import { probeClient } from "./redis";
import type { Target } from "./redis";

export interface Running {
  stop(): Promise<void>;
}

export interface IdleSubject {
  name: string;
  /** How it was run, for the results tables. */
  method: string;
  /** The subject's sleeps were divided by this; its measured rate is divided by it too. @default 1 */
  scale?: number;
  start(target: Target, ns: string): Promise<Running>;
}

export interface IdleCost {
  name: string;
  method: string;
  windowMs: number;
  scale: number;
  /** Commands counted in the window. */
  clientCommands: number;
  inScript: number;
  /** The client commands seen, by name, for the record. */
  byName: Record<string, number>;
  /** Extrapolated to the unscaled subject. */
  clientPerHour: number;
  serverCallsPerHour: number;
}

const HOUR_MS = 3_600_000;

/** rsmq 0.12.4 polled every `intervalMs`. */
export function rsmqPollSubject(intervalMs = 100): IdleSubject {
  return {
    name: `rsmq 0.12.4, polled every ${intervalMs} ms`,
    method: `receiveMessage, then sleep ${intervalMs} ms when empty`,
    async start(target, ns) {
      const rsmq = await openOld(target, { ns });
      await rsmq.createQueueAsync({ qname: "idle" });
      const poller = pollEvery(rsmq, "idle", intervalMs, () => undefined);
      return { stop: async () => (await poller.stop(), await close(rsmq)) };
    },
  };
}

/** rsmq 0.12.4 under rsmq-worker's loop, in the idle state it reaches after ~16 s without messages. */
export function rsmqWorkerSubject(intervals?: number[]): IdleSubject {
  const shown = intervals ? `[${intervals.join(", ")}] s` : "defaults [0, 1, 5, 10] s";
  return {
    name: `rsmq 0.12.4 + rsmq-worker ${shown}`,
    method: "rsmq-worker's back-off loop, started in its long-idle state (last interval between receives)",
    async start(target, ns) {
      const rsmq = await openOld(target, { ns });
      await rsmq.createQueueAsync({ qname: "idle" });
      const poller = rsmqWorkerLoop(rsmq, "idle", () => undefined, { intervals, startIdle: true });
      return { stop: async () => (await poller.stop(), await close(rsmq)) };
    },
  };
}

/** The rsmq-next Worker at its defaults, or with maxIdleSleepMs divided by `scale`. */
export function workerSubject(scale = 1): IdleSubject {
  const capMs = 30_000 / scale;
  return {
    name: scale === 1 ? "rsmq-next Worker, defaults (30 s cap)" : `rsmq-next Worker, 30 s cap (run at ${capMs} ms, rate ÷ ${scale})`,
    method:
      scale === 1
        ? "new Worker(rsmq, { qname, handler }) measured as is (its look's script loaded first)"
        : `maxIdleSleepMs ${capMs} (30 s / ${scale}), measured rate divided by ${scale} (its PINGs ride its looks)`,
    scale,
    async start(target, ns) {
      const rsmq = await openNext(target, { ns });
      await rsmq.createQueueAsync({ qname: "idle" });
      // The look's script is loaded by the first look (a NOSCRIPT, then EVAL), once per server:
      // loaded now, a window of a few caps counts what every later cap costs, not that one load.
      const internals = internalsOf(rsmq);
      await internals.run(() => nextDue(internals.layout, "idle"));
      const worker = new RedisSMQ.Worker(rsmq, {
        qname: "idle",
        handler: () => undefined,
        ...(scale === 1 ? {} : { maxIdleSleepMs: capMs }),
      }).start();
      return { stop: async () => (await worker.stop(), await close(rsmq)) };
    },
  };
}

/** Commands an hour of the unscaled subject, from `count` seen in `windowMs` of a run scaled by `scale`. */
export function perHourUnscaled(count: number, windowMs: number, scale: number): number {
  return (count / scale) * (HOUR_MS / windowMs);
}

export interface IdleWindow {
  windowMs: number;
  /** Time after start before counting, so start-up commands (connect, SCRIPT LOAD, SUBSCRIBE) are left out. */
  warmupMs: number;
}

export async function measureIdle(subject: IdleSubject, target: Target, window: IdleWindow): Promise<IdleCost> {
  const ns = `idle${randomBytes(3).toString("hex")}`;
  const probe = await probeClient(target);
  const running = await subject.start(target, ns);
  try {
    await new Promise((resolve) => setTimeout(resolve, window.warmupMs));
    const monitor = await Monitor.open(target);
    try {
      const startedAt = performance.now();
      await new Promise((resolve) => setTimeout(resolve, window.windowMs));
      await monitor.flush((marker) => probe.sendCommand(["ECHO", marker]));
      const windowMs = performance.now() - startedAt;
      const byName: Record<string, number> = {};
      let inScript = 0;
      for (const command of monitor.commands) {
        if (command.origin === "lua") inScript += 1;
        else byName[command.name] = (byName[command.name] ?? 0) + 1;
      }
      const clientCommands = monitor.commands.length - inScript;
      const scale = subject.scale ?? 1;
      const perHour = (count: number): number => perHourUnscaled(count, windowMs, scale);
      return {
        name: subject.name,
        method: subject.method,
        windowMs,
        scale,
        clientCommands,
        inScript,
        byName,
        clientPerHour: perHour(clientCommands),
        serverCallsPerHour: perHour(clientCommands + inScript),
      };
    } finally {
      monitor.close();
    }
  } finally {
    await running.stop();
    await probe.quit();
  }
}
