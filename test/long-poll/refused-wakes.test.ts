/**
 * A waiting receive whose user may not subscribe to the queue's realtime channel: the refused
 * SUBSCRIBE does not fail the call; it waits without the channel, and its final look still gets a
 * message sent from another process during the wait. ACL users live on each server: on a cluster,
 * on every node.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, keysOf, uniqueNs } from "../support/server";
import { Cleanup, connectionOptionsAs, onEveryServer, readySender } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("long polling: a refused wake subscription", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let limited: RedisSMQ;
  let errors: Error[];

  beforeEach(async () => {
    ns = uniqueNs("lpacl");
    const user = `waiter-${ns}`;
    const setup = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    await setup.createQueueAsync({ qname: "q" });
    // Every command and key, no channel.
    await onEveryServer(["ACL", "SETUSER", user, "on", ">secret", `~${ns}:*`, "resetchannels", "+@all"]);
    limited = new RedisSMQ(connectionOptionsAs(ns, user, "secret"));
    errors = [];
    limited.on("error", (error) => errors.push(error));
    cleanup.add(async () => {
      await limited.quitAsync();
      await onEveryServer(["ACL", "DELUSER", user]);
    });
  });
  afterEach(() => cleanup.run());

  it("waits without the channel: the final look gets what another process sent meanwhile", async () => {
    // The sender is started first: its start-up, seconds on a loaded machine, is not part of the wait.
    const sender = await readySender(ns, "q", "heard at the end");
    const waiting = limited.receiveMessageAsync({ qname: "q", waitMs: 2000 });
    const id = await sender.send();
    expect(await waiting).to.include({ id, message: "heard at the end" });
    expect(await limited.receiveMessageAsync({ qname: "q", waitMs: 300 })).to.deep.equal({});
  });

  it("is not silent: the instance's `error` tells each channel's refusal once, naming the channel and the ACL rule", async () => {
    expect(await limited.receiveMessageAsync({ qname: "q", waitMs: 300 })).to.deep.equal({});
    expect(await limited.receiveMessageAsync({ qname: "q", waitMs: 300 })).to.deep.equal({});
    // The queue's wake channel and its realtime channel, each refused.
    expect(errors.map((error) => error.name)).to.deep.equal(["noPermission", "noPermission"]);
    const { wakeChannel, realtimeChannel } = keysOf(ns, "q");
    const messages = errors.map((error) => error.message).sort();
    expect(messages[0]).to.include(realtimeChannel).and.include("docs/acl.md");
    expect(messages[1]).to.include(wakeChannel).and.include("docs/acl.md");
  });
});
