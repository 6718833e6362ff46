/**
 * One run of compare-builds.ts: `node compare-builds-child.js <dist/index.js> <redis url> <kind>
 * <concurrency> <messages>` loads that build, runs the case on a queue of its own, and prints
 * `{ perSecond, clientMicros, serverMicros }` as JSON, or `{ skipped }` for the combined call's case
 * on a build without the call.
 */
import type { RunFigures, Skipped } from "./compare-builds";
import { combinedCallOf } from "./combined-call";

type Package = typeof import("../lib/index");

const [entry, url, kind, concurrencyText, messagesText] = process.argv.slice(2);
const concurrency = Number(concurrencyText);
const messages = Number(messagesText);
const body = "x".repeat(100);

async function main(): Promise<RunFigures | Skipped> {
  // The build under test, not this checkout's: loaded by path.
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const RedisSMQ = require(entry) as Package;
  const { hostname, port } = new URL(url);
  const rsmq = new RedisSMQ({ host: hostname, port: Number(port), ns: `compare${process.pid}` });
  try {
    if (kind === "combined" && typeof (rsmq as { deleteAndReceiveAsync?: unknown }).deleteAndReceiveAsync !== "function")
      return { skipped: "this build has no deleteAndReceiveAsync" };
    await rsmq.createQueueAsync({ qname: "q" });
    if (kind !== "send") {
      for (let left = messages; left > 0; left -= 1000) {
        await rsmq.sendMessagesAsync({ qname: "q", messages: Array.from({ length: Math.min(1000, left) }, () => ({ message: body })) });
      }
    }
    const serverBefore = await serverCpuMicros(rsmq);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await measure(rsmq, RedisSMQ);
    const elapsedMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const serverMicros = ((await serverCpuMicros(rsmq)) - serverBefore) / messages;
    await rsmq.deleteQueueAsync({ qname: "q" });
    return { perSecond: (messages / elapsedMs) * 1000, clientMicros: (cpu.user + cpu.system) / messages, serverMicros };
  } finally {
    await rsmq.quitAsync();
  }
}

async function measure(rsmq: InstanceType<Package>, RedisSMQ: Package): Promise<void> {
  let claimed = 0;
  const lanes = (lane: () => Promise<void>) => Promise.all(Array.from({ length: concurrency }, lane));
  if (kind === "send") {
    await lanes(async () => {
      while (claimed++ < messages) await rsmq.sendMessageAsync({ qname: "q", message: body });
    });
  } else if (kind === "combined") {
    const combined = combinedCallOf(rsmq);
    await lanes(async () => {
      if (claimed++ >= messages) return;
      let message = await rsmq.receiveMessageAsync({ qname: "q" });
      while ("id" in message) {
        if (claimed++ >= messages) return void (await rsmq.deleteMessageAsync({ qname: "q", id: message.id }));
        message = (await combined.deleteAndReceiveAsync({ qname: "q", id: message.id })).message;
      }
    });
  } else if (kind === "receive+delete") {
    await lanes(async () => {
      while (claimed++ < messages) {
        const message = await rsmq.receiveMessageAsync({ qname: "q" });
        if ("id" in message) await rsmq.deleteMessageAsync({ qname: "q", id: message.id });
      }
    });
  } else {
    await new Promise<void>((done) => {
      let handled = 0;
      const worker = new RedisSMQ.Worker(rsmq, { qname: "q", concurrency, handler: () => undefined });
      worker.on("handled", () => {
        handled += 1;
        if (handled === messages) void worker.stop().then(done);
      });
      worker.start();
    });
  }
}

/** The server's CPU so far (user + system), in µs. */
async function serverCpuMicros(rsmq: InstanceType<Package>): Promise<number> {
  const info = await rsmq.redis.sendCommand<string>(["INFO", "cpu"]);
  const seconds = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
  return (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1e6;
}

main().then(
  (figures) => process.stdout.write(JSON.stringify(figures)),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
