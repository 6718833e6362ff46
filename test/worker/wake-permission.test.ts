/**
 * A Worker whose user may not subscribe to its queue's wake and realtime channels: it says so once
 * per channel, keeps trying with backoff, and once the channels are granted (ACL SETUSER, no
 * restart) it is woken by a send from another process without waiting for its cap. ACL users live on each server:
 * on a cluster, on every node.
 */
import { expect } from "chai";
import { createClient } from "redis";
import RedisSMQ = require("../../lib/index");
import { WAKE_RETRY_FIRST_MS } from "../../lib/worker/wake-retry";
import { connectionOptions, keysOf, onCluster, plainClient, testCluster, testRedis, uniqueNs } from "../support/server";
import { Cleanup, connectionOptionsAs, onEveryServer, sendFromChildProcess, subscribersOf, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

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

  it("is reported once per channel, retried, and once granted, a realtime send from another process wakes the worker", async function () {
    this.timeout(30_000);
    const { realtimeChannel: channel, wakeChannel } = keysOf(ns, "q");
    const handled: string[] = [];
    const errors: Error[] = [];
    const worker = cleanup.worker(
      new Worker(limited, { qname: "q", maxIdleSleepMs: CAP, handler: (message) => void handled.push(message.message) }),
    );
    worker.on("error", (error) => errors.push(error));
    worker.start();

    // Each channel refused, then refused again after the first backoff: still one report each.
    await waitFor(async () => (await refusalsOf(user)) >= 4, "a second try of each", 10 * WAKE_RETRY_FIRST_MS);
    expect(errors).to.have.length(2);
    expect(errors.map((error) => error.name)).to.deep.equal(["noPermission", "noPermission"]);
    const [realtime, wake] = errors.map((error) => error.message).sort();
    expect(realtime).to.include(channel).and.include(`&${channel}`).and.include("docs/acl.md");
    expect(wake).to.include(wakeChannel).and.include(`&${wakeChannel}`).and.include("docs/acl.md");

    await onEveryServer(["ACL", "SETUSER", user, `&${channel}`, `&${wakeChannel}`]);
    const admin = await plainClient();
    try {
      await waitFor(
        async () => (await subscribersOf(admin, channel)) === 1 && (await subscribersOf(admin, wakeChannel)) === 1,
        "the worker's subscriptions",
        20 * WAKE_RETRY_FIRST_MS,
      );
    } finally {
      await admin.quit();
    }
    // Asleep for the cap by now or soon: only the channel can bring this message in before it.
    await sendFromChildProcess(ns, "q", "woken");
    await waitFor(() => handled.includes("woken"), "the woken worker to handle the message");
    expect(errors).to.have.length(2);
  });

  it("with no `error` listener, emits one process warning", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on("warning", onWarning);
    cleanup.add(async () => void process.off("warning", onWarning));
    const worker = cleanup.worker(new Worker(limited, { qname: "q", maxIdleSleepMs: CAP, handler: () => undefined }));
    worker.start();
    await waitFor(async () => (await refusalsOf(user)) >= 4, "a second try of each", 10 * WAKE_RETRY_FIRST_MS);
    await new Promise((resolve) => setImmediate(resolve));
    const ours = warnings.filter((warning) => warning.name === "noPermission");
    // One per channel: the wake channel's and the realtime channel's.
    expect(ours).to.have.length(2);
    const [realtime, wake] = ours.map((warning) => warning.message).sort();
    expect(realtime).to.include(keysOf(ns, "q").realtimeChannel);
    expect(wake).to.include(keysOf(ns, "q").wakeChannel);
  });
});
