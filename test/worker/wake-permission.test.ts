/**
 * A Worker whose user may not subscribe to its queue's realtime channel: it says so once, keeps
 * trying with backoff, and once the channel is granted (ACL SETUSER, no restart) it is woken by a
 * realtime send from another process without waiting for its cap. ACL users live on each server:
 * on a cluster, on every node.
 */
import { expect } from "chai";
import { createClient } from "redis";
import RedisSMQ = require("../../lib/index");
import { WAKE_RETRY_FIRST_MS } from "../../lib/worker/wake-retry";
import { connectionOptions, keysOf, onCluster, plainClient, testCluster, testRedis, uniqueNs } from "../support/server";
import { Cleanup, connectionOptionsAs, onEveryServer, sendFromChildProcess, subscribersOf, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "ioredis");

const { Worker } = RedisSMQ;

/** Far longer than the test: a message handled before it can only have been woken for. */
const CAP = 120_000;

/** Refusals of `user` in the ACL LOG of every server of the target (each refused try adds one, or bumps its count). */
async function refusalsOf(user: string): Promise<number> {
  const urls = onCluster()
    ? testCluster()
        .rootNodes()
        .map((node) => node.url)
    : [testRedis().url];
  let total = 0;
  for (const url of urls) {
    const client = createClient({ url });
    client.on("error", () => undefined);
    await client.connect();
    try {
      const entries = await client.sendCommand<unknown[][]>(["ACL", "LOG"]);
      for (const entry of entries) {
        const fields = new Map<string, unknown>();
        for (let i = 0; i + 1 < entry.length; i += 2) fields.set(String(entry[i]), entry[i + 1]);
        if (fields.get("username") === user) total += Number(fields.get("count"));
      }
    } finally {
      await client.quit();
    }
  }
  return total;
}

describe("Worker: a refused wake subscription", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let user: string;
  let limited: RedisSMQ;

  beforeEach(async () => {
    ns = uniqueNs("wakeacl");
    user = `worker-${ns}`;
    const setup = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    await setup.createQueueAsync({ qname: "q" });
    // Every command and key, no channel: what Redis 7 gives a new user (resetchannels).
    await onEveryServer(["ACL", "SETUSER", user, "on", ">secret", `~${ns}:*`, "resetchannels", "+@all"]);
    limited = new RedisSMQ(connectionOptionsAs(ns, user, "secret"));
    limited.on("error", () => undefined);
    // The instance quits before its user goes (DELUSER drops the user's connections).
    cleanup.add(async () => {
      await limited.quitAsync();
      await onEveryServer(["ACL", "DELUSER", user]);
    });
  });
  afterEach(() => cleanup.run());

  it("is reported once, retried, and once granted, a realtime send from another process wakes the worker", async function () {
    this.timeout(30_000);
    const channel = keysOf(ns, "q").realtimeChannel;
    const handled: string[] = [];
    const errors: Error[] = [];
    const worker = cleanup.worker(
      new Worker(limited, { qname: "q", maxIdleSleepMs: CAP, handler: (message) => void handled.push(message.message) }),
    );
    worker.on("error", (error) => errors.push(error));
    worker.start();

    // Refused, then refused again after the first backoff: still one report.
    await waitFor(async () => (await refusalsOf(user)) >= 2, "a second try", 10 * WAKE_RETRY_FIRST_MS);
    expect(errors).to.have.length(1);
    expect(errors[0].name).to.equal("noPermission");
    expect(errors[0].message).to.include(channel).and.include(`&${channel}`).and.include("docs/acl.md");

    await onEveryServer(["ACL", "SETUSER", user, `&${channel}`]);
    const admin = await plainClient();
    try {
      await waitFor(async () => (await subscribersOf(admin, channel)) === 1, "the worker's subscription", 20 * WAKE_RETRY_FIRST_MS);
    } finally {
      await admin.quit();
    }
    // Asleep for the cap by now or soon: only the channel can bring this message in before it.
    await sendFromChildProcess(ns, "q", "woken");
    await waitFor(() => handled.includes("woken"), "the woken worker to handle the message");
    expect(errors).to.have.length(1);
  });

  it("with no `error` listener, emits one process warning", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on("warning", onWarning);
    cleanup.add(async () => void process.off("warning", onWarning));
    const worker = cleanup.worker(new Worker(limited, { qname: "q", maxIdleSleepMs: CAP, handler: () => undefined }));
    worker.start();
    await waitFor(async () => (await refusalsOf(user)) >= 2, "a second try", 10 * WAKE_RETRY_FIRST_MS);
    await new Promise((resolve) => setImmediate(resolve));
    const ours = warnings.filter((warning) => warning.name === "noPermission");
    expect(ours).to.have.length(1);
    expect(ours[0].message).to.include(keysOf(ns, "q").realtimeChannel);
  });
});
