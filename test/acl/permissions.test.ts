/**
 * What a user without some Redis permission sees, against real ACL users on the run's target (on
 * a cluster, created on every node): a send that stored its message resolves with its id even
 * when its realtime notification is refused (that refusal is reported once, never as a failed
 * send), and a refused command, key or script surfaces as `noPermission`, naming the operation and
 * what the user lacks.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { at, runCli } from "../support/cli";
import { rejectionOf } from "../support/old-rsmq";
import { connectionOptions, keysOf, onCluster, plainClient, uniqueNs } from "../support/server";
import { connectionOptionsAs, onEveryServer, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const PASSWORD = "secret";

describe("ACL permissions", () => {
  let ns: string;
  let user: string;
  let admin: RedisClientType;
  let setup: RedisSMQ;
  const opened: RedisSMQ[] = [];

  /** Creates (or resets) the test's user with these rules, on every server of the target. */
  const grant = (...rules: string[]): Promise<void> =>
    onEveryServer(["ACL", "SETUSER", user, "reset", "on", `>${PASSWORD}`, ...rules]).then(() => undefined);
  const openAsUser = (extra: { realtime?: boolean } = {}): RedisSMQ => {
    const instance = new RedisSMQ({ ...connectionOptionsAs(ns, user, PASSWORD), ...extra });
    opened.push(instance);
    return instance;
  };

  beforeEach(async () => {
    ns = uniqueNs("acl");
    user = `user-${ns}`;
    admin = await plainClient();
    setup = new RedisSMQ(connectionOptions(ns));
    await setup.createQueueAsync({ qname: "q" });
  });
  afterEach(async () => {
    // Instances quit before their user goes (DELUSER drops the user's connections).
    for (const instance of opened.splice(0)) await instance.quitAsync().catch(() => undefined);
    await setup.quitAsync();
    await onEveryServer(["ACL", "DELUSER", user]);
    await admin.quit();
  });

  describe("a realtime send whose notification is refused", () => {
    // Every command and key, no channel: what Redis 7 gives a new user (resetchannels).
    const allButChannels = (): Promise<void> => grant(`~${ns}:*`, "resetchannels", "+@all");
    const channel = (): string => keysOf(ns, "q").realtimeChannel;

    it("resolves with the id of the message it stored, and tells the `error` listeners once, naming the channel", async () => {
      await allButChannels();
      const producer = openAsUser({ realtime: true });
      const errors: Error[] = [];
      producer.on("error", (error) => errors.push(error));

      const first = await producer.sendMessageAsync({ qname: "q", message: "one" });
      const second = await producer.sendMessageAsync({ qname: "q", message: "two" });

      expect(first).to.match(/^[0-9a-z]{10}[A-Za-z0-9]{22}$/);
      expect(second).to.match(/^[0-9a-z]{10}[A-Za-z0-9]{22}$/);
      expect(await admin.zRange(keysOf(ns, "q").messages, 0, -1)).to.have.members([first, second]);
      expect((await setup.getQueueAttributesAsync({ qname: "q" })).totalsent).to.equal(2);
      expect(errors, "one report for two refused notifications").to.have.length(1);
      expect(errors[0].name).to.equal("noPermission");
      expect(errors[0].message).to.include(channel()).and.include(`&${channel()}`).and.include("docs/acl.md");
    });

    it("sendMessages: stores the batch and answers per entry, the refusal reported once", async () => {
      await allButChannels();
      const producer = openAsUser({ realtime: true });
      const errors: Error[] = [];
      producer.on("error", (error) => errors.push(error));

      const results = await producer.sendMessagesAsync({ qname: "q", messages: [{ message: "one" }, { message: "two" }] });

      expect(results.map((result) => result.duplicate)).to.deep.equal([false, false]);
      expect(await admin.zRange(keysOf(ns, "q").messages, 0, -1)).to.have.members(results.map((result) => result.id!));
      expect((await setup.getQueueAttributesAsync({ qname: "q" })).totalsent).to.equal(2);
      expect(errors).to.have.length(1);
      expect(errors[0].name).to.equal("noPermission");
      expect(errors[0].message).to.include(channel()).and.include("sendMessages stored the messages");
    });

    it("without an `error` listener, emits one process warning instead", async () => {
      await allButChannels();
      const producer = openAsUser({ realtime: true });
      const warnings: Error[] = [];
      const onWarning = (warning: Error): void => void warnings.push(warning);
      process.on("warning", onWarning);
      try {
        await producer.sendMessageAsync({ qname: "q", message: "one" });
        await producer.sendMessageAsync({ qname: "q", message: "two" });
        // Warnings are emitted on the next tick.
        await waitFor(() => warnings.some((warning) => warning.name === "noPermission"), "the warning");
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.off("warning", onWarning);
      }
      const ours = warnings.filter((warning) => warning.name === "noPermission");
      expect(ours).to.have.length(1);
      expect(ours[0].message).to.include(channel());
      expect(await admin.zCard(keysOf(ns, "q").messages)).to.equal(2);
    });

    it("with the channel granted, publishes and reports nothing", async () => {
      await grant(`~${ns}:*`, "resetchannels", `&${channel()}`, "+@all");
      const producer = openAsUser({ realtime: true });
      const errors: Error[] = [];
      producer.on("error", (error) => errors.push(error));
      const listener = await plainClient();
      const subscriber = listener.duplicate();
      await subscriber.connect();
      const heard: string[] = [];
      try {
        if (onCluster()) await subscriber.sSubscribe(channel(), (count) => heard.push(count));
        else await subscriber.subscribe(channel(), (count) => heard.push(count));
        await producer.sendMessageAsync({ qname: "q", message: "one" });
        await waitFor(() => heard.length === 1, "the notification");
      } finally {
        await subscriber.disconnect();
        await listener.quit();
      }
      expect(heard).to.deep.equal(["1"]);
      expect(errors).to.deep.equal([]);
    });
  });

  describe("a send at the defaults whose wake is refused (a line written with `&<ns>:rt:*` alone)", () => {
    it("stores the message, and tells once that the wake notification on the wake channel was refused", async () => {
      await grant(`~${ns}:*`, "resetchannels", `&${ns}:rt:*`, "+@all");
      const producer = openAsUser();
      const errors: Error[] = [];
      producer.on("error", (error) => errors.push(error));

      // The queue is idle: the first send wants a wake; the second finds the first visible and wants none.
      const first = await producer.sendMessageAsync({ qname: "q", message: "one" });
      const [{ id: second }] = await producer.sendMessagesAsync({ qname: "q", messages: [{ message: "two" }] });

      expect(await admin.zRange(keysOf(ns, "q").messages, 0, -1)).to.have.members([first, second!]);
      expect(errors, "one report for the channel").to.have.length(1);
      const { wakeChannel } = keysOf(ns, "q");
      expect(errors[0].name).to.equal("noPermission");
      expect(errors[0].message)
        .to.include("sendMessage stored the message, but its wake notification for consumers in other processes")
        .and.include(`&${wakeChannel}`);
    });
  });

  describe("a refused command is a `noPermission` error", () => {
    it("inside a script: names the operation and the command the user lacks", async () => {
      await grant(`~${ns}:*`, "+@all", "-hincrby");
      const producer = openAsUser();
      const error = await rejectionOf(producer.sendMessageAsync({ qname: "q", message: "x" }));
      expect(error.name).to.equal("noPermission");
      expect(error.message).to.include("sendMessage").and.include("HINCRBY").and.include("+hincrby").and.include("docs/acl.md");
    });

    it("EVALSHA itself: names it", async () => {
      await grant(`~${ns}:*`, "+@all", "-evalsha");
      const consumer = openAsUser();
      const error = await rejectionOf(consumer.receiveMessageAsync({ qname: "q" }));
      expect(error.name).to.equal("noPermission");
      expect(error.message).to.include("receiveMessage").and.include("+evalsha");
    });

    it("a plain command (listQueues' SMEMBERS): names it", async () => {
      await grant(`~${ns}:*`, "+@all", "-smembers");
      const error = await rejectionOf(openAsUser().listQueuesAsync());
      expect(error.name).to.equal("noPermission");
      expect(error.message).to.include("listQueues").and.include("+smembers");
    });

    it("a key outside the user's patterns: names the keys", async () => {
      await grant("~other:*", "+@all");
      const error = await rejectionOf(openAsUser().getQueueAttributesAsync({ qname: "q" }));
      expect(error.name).to.equal("noPermission");
      expect(error.message).to.include("getQueueAttributes").and.include(keysOf(ns, "q").hash);
    });

    it("the command line names it and gives the ACL hint", async () => {
      await grant(`~${ns}:*`, "+@all", "-smembers");
      // The run's --url, logged in as the user.
      const args = at(ns).map((arg) => arg.replace("redis://", `redis://${user}:${PASSWORD}@`));
      const result = await runCli([...args, "queues"]);
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include("listQueues").and.include("+smembers").and.include("ACL SETUSER").and.include("docs/acl.md");
      expect(result.stderr).not.to.include(PASSWORD);
    });

    it("leaves every other error as it was", async () => {
      await grant(`~${ns}:*`, "+@all");
      const error = await rejectionOf(openAsUser().getQueueAttributesAsync({ qname: "missing" }));
      expect(error.name).to.equal("queueNotFound");
    });
  });
});
