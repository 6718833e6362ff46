/**
 * deleteAndReceiveAsync and deleteAndReceiveMessagesAsync, as users call them: one EVALSHA per call
 * (MONITOR, exact), each answer the delete's and the receive's, retention and priorities as a
 * receive holds them, bad input refused with nothing sent, a receive part the ACL refuses answered
 * beside a delete that was done (and reported once), and the callback twins.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { asMessage, rejectionOf } from "../support/old-rsmq";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { plantMessages } from "../support/retention";
import { clientCommands, monitor } from "../support/wire";
import { connectionOptionsAs, onEveryServer } from "../support/worker";
import { PASSWORD } from "../support/acl-rules";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("deleteAndReceiveAsync and deleteAndReceiveMessagesAsync", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    client = await plainClient();
  });
  afterEach(async () => {
    await rsmq.quitAsync();
    await client.quit();
  });

  async function sendAll(bodies: string[], extra: { priority?: number } = {}): Promise<string[]> {
    const ids: string[] = [];
    for (const message of bodies) ids.push(await rsmq.sendMessageAsync({ qname: "q", message, ...extra }));
    return ids;
  }

  it("drains a queue in a steady stream with exactly one EVALSHA per call", async () => {
    await sendAll(["a", "b", "c", "d"]);
    const bodies: string[] = [];
    const deleted: number[] = [];
    let message = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    bodies.push(message.message);
    const commands = await monitor(async () => {
      for (;;) {
        const result = await rsmq.deleteAndReceiveAsync({ qname: "q", id: message.id });
        deleted.push(result.deleted);
        if (!("id" in result.message)) break;
        message = result.message;
        bodies.push(message.message);
      }
    });
    expect(bodies).to.deep.equal(["a", "b", "c", "d"]);
    expect(deleted).to.deep.equal([1, 1, 1, 1]);
    expect(clientCommands(commands)).to.deep.equal(["evalsha", "evalsha", "evalsha", "evalsha"]);
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect([attributes.msgs, attributes.totalrecv, attributes.totalsent]).to.deep.equal([0, 4, 4]);
  });

  it("answers a message with receiveMessage's fields, and `{}` with deleted 0 for an unknown id on an empty queue", async () => {
    const [id] = await sendAll(["only"]);
    const first = await rsmq.deleteAndReceiveAsync({ qname: "q", id: "x".repeat(32), vt: 5 });
    expect(first.deleted).to.equal(0);
    const message = asMessage(first.message);
    expect(Object.keys(message).sort()).to.deep.equal(["fr", "id", "message", "rc", "sent"]);
    expect([message.id, message.message, message.rc]).to.deep.equal([id, "only", 1]);
    expect(first).to.not.have.property("receiveError");
    expect(await rsmq.deleteAndReceiveAsync({ qname: "q", id })).to.deep.equal({ deleted: 1, message: {} });
  });

  it("batches: deletes every id given and receives up to count, with nextDueMs as receiveMessages", async () => {
    const ids = await sendAll(["a", "b", "c", "d", "e"]);
    const { messages } = await rsmq.receiveMessagesAsync({ qname: "q", count: 2 });
    const next = await rsmq.deleteAndReceiveMessagesAsync({ qname: "q", ids: messages.map(({ id }) => id), count: 2 });
    expect(next.deleted).to.deep.equal([1, 1]);
    expect(next.messages.map(({ message }) => message)).to.deep.equal(["c", "d"]);
    expect(next).to.not.have.property("nextDueMs");
    const last = await rsmq.deleteAndReceiveMessagesAsync({ qname: "q", ids: [ids[2], ids[3], ids[0]], count: 5, vt: 0 });
    expect(last.deleted).to.deep.equal([1, 1, 0]);
    expect(last.messages.map(({ message }) => message)).to.deep.equal(["e"]);
    // e is visible again at once (vt 0): it is the earliest.
    expect(last.nextDueMs).to.equal(0);
    const empty = await rsmq.deleteAndReceiveMessagesAsync({ qname: "q", ids: [ids[4]], count: 5 });
    expect(empty).to.deep.equal({ deleted: [1], messages: [], nextDueMs: null });
    // An empty ids list only receives.
    expect(await rsmq.deleteAndReceiveMessagesAsync({ qname: "q", ids: [], count: 1 })).to.deep.equal({
      deleted: [],
      messages: [],
      nextDueMs: null,
    });
  });

  it("receives by priority, as receiveMessage does", async () => {
    const [low] = await sendAll(["low"]);
    await sendAll(["high"], { priority: 9 });
    await sendAll(["mid"], { priority: 5 });
    const first = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    expect(first.message).to.equal("high");
    const second = await rsmq.deleteAndReceiveAsync({ qname: "q", id: first.id });
    expect(asMessage(second.message).message).to.equal("mid");
    const third = await rsmq.deleteAndReceiveAsync({ qname: "q", id: asMessage(second.message).id });
    expect(asMessage(third.message).id).to.equal(low);
  });

  it("never answers an expired message: the receive part expires what it meets, counted in totalexpired", async () => {
    await rsmq.setQueueAttributesAsync({ qname: "q", retention: 60 });
    const old = await plantMessages(client, ns, "q", { count: 3, ageSeconds: 120 });
    const [fresh] = await sendAll(["fresh"]);
    const result = await rsmq.deleteAndReceiveAsync({ qname: "q", id: "x".repeat(32) });
    expect(asMessage(result.message).id).to.equal(fresh);
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect([attributes.msgs, attributes.totalexpired]).to.deep.equal([1, 3]);
    const { hash } = keysOf(ns, "q");
    for (const { id } of old) expect(await client.hExists(hash, id)).to.equal(false);
  });

  it("moves the expired messages it parks to the queue's expireTo before it answers", async () => {
    await rsmq.createQueueAsync({ qname: "q-expired" });
    await rsmq.setQueueAttributesAsync({ qname: "q", retention: 60, expireTo: "q-expired" });
    const old = await plantMessages(client, ns, "q", { count: 2, ageSeconds: 120 });
    const result = await rsmq.deleteAndReceiveMessagesAsync({ qname: "q", ids: [], count: 5 });
    expect(result.messages).to.deep.equal([]);
    const moved = await rsmq.peekMessagesAsync({ qname: "q-expired" });
    expect(moved.map(({ id }) => id).sort()).to.deep.equal(old.map(({ id }) => id).sort());
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).totalexpired).to.equal(2);
  });

  it("refuses bad input before any round trip: nothing is sent", async () => {
    const good = "x".repeat(32);
    const cases: Array<[() => Promise<unknown>, string]> = [
      [() => rsmq.deleteAndReceiveAsync({ id: good } as RedisSMQ.DeleteAndReceiveOptions), "missingParameter"],
      [() => rsmq.deleteAndReceiveAsync({ qname: "q" } as RedisSMQ.DeleteAndReceiveOptions), "missingParameter"],
      [() => rsmq.deleteAndReceiveAsync({ qname: "q", id: "short" }), "invalidFormat"],
      [() => rsmq.deleteAndReceiveAsync({ qname: "q", id: good, vt: -1 }), "invalidValue"],
      [() => rsmq.deleteAndReceiveAsync({ qname: "bad name", id: good }), "invalidFormat"],
      [() => rsmq.deleteAndReceiveMessagesAsync({ qname: "q", ids: [good], count: 0 }), "invalidValue"],
      [() => rsmq.deleteAndReceiveMessagesAsync({ qname: "q", ids: [good], count: 1001 }), "invalidValue"],
      [() => rsmq.deleteAndReceiveMessagesAsync({ qname: "q", ids: ["short"], count: 1 }), "invalidFormat"],
      [() => rsmq.deleteAndReceiveMessagesAsync({ qname: "q", count: 1 } as RedisSMQ.DeleteAndReceiveMessagesOptions), "missingParameter"],
      [() => rsmq.deleteAndReceiveMessagesAsync({ qname: "q", ids: Array<string>(1001).fill(good), count: 1 }), "invalidValue"],
    ];
    const names: string[] = [];
    const commands = await monitor(async () => {
      for (const [call] of cases) names.push((await rejectionOf(call())).name);
    });
    expect(names).to.deep.equal(cases.map(([, name]) => name));
    expect(clientCommands(commands)).to.deep.equal([]);
  });

  it("rejects a missing queue with queueNotFound, as receiveMessage", async () => {
    const error = await rejectionOf(rsmq.deleteAndReceiveAsync({ qname: "nope", id: "x".repeat(32) }));
    expect([error.name, error.message]).to.deep.equal(["queueNotFound", "Queue not found"]);
  });

  it("has callback twins, which return the promise without a callback", async () => {
    const [a, b] = await sendAll(["a", "b"]);
    await rsmq.receiveMessageAsync({ qname: "q" });
    const single = await new Promise<RedisSMQ.DeletedAndReceivedMessage>((resolve, reject) =>
      rsmq.deleteAndReceive({ qname: "q", id: a }, (error, result) => (error ? reject(error) : resolve(result))),
    );
    expect([single.deleted, asMessage(single.message).id]).to.deep.equal([1, b]);
    const batch = await new Promise<RedisSMQ.DeletedAndReceivedMessages>((resolve, reject) =>
      rsmq.deleteAndReceiveMessages({ qname: "q", ids: [b], count: 3 }, (error, result) => (error ? reject(error) : resolve(result))),
    );
    expect(batch).to.deep.equal({ deleted: [1], messages: [], nextDueMs: null });
    const refused = await new Promise<Error | null>((resolve) =>
      rsmq.deleteAndReceive({ qname: "q", id: "short" }, (error) => resolve(error as Error | null)),
    );
    expect(refused?.name).to.equal("invalidFormat");
    expect(await rsmq.deleteAndReceive({ qname: "q", id: b })).to.deep.equal({ deleted: 0, message: {} });
  });

  describe("a user the ACL lets delete but not receive", () => {
    let user: string;
    let limited: RedisSMQ;

    beforeEach(async () => {
      user = `dar-${ns}`;
      // A receive's writes after its reads: ZADD (the hide), HINCRBY, HSET. The delete needs ZREM and HDEL.
      await onEveryServer(["ACL", "SETUSER", user, "on", `>${PASSWORD}`, `~${ns}:*`, "+@all", "-hset", "-hincrby"]);
      limited = new RedisSMQ(connectionOptionsAs(ns, user, PASSWORD));
    });
    afterEach(async () => {
      await limited.quitAsync();
      await onEveryServer(["ACL", "DELUSER", user]);
    });

    it("resolves with the delete done and receiveError, and reports the refusal once through `error`", async () => {
      const [a, b, c] = await sendAll(["a", "b", "c"]);
      const errors: Error[] = [];
      limited.on("error", (error: Error) => errors.push(error));
      const first = await limited.deleteAndReceiveAsync({ qname: "q", id: a });
      expect(first.deleted).to.equal(1);
      expect(first.message).to.deep.equal({});
      expect(first.receiveError?.name).to.equal("noPermission");
      const second = await limited.deleteAndReceiveMessagesAsync({ qname: "q", ids: [b], count: 2 });
      expect(second.deleted).to.deep.equal([1]);
      expect(second.messages).to.deep.equal([]);
      expect(second.receiveError?.name).to.equal("noPermission");
      expect(errors.map(({ name }) => name)).to.deep.equal(["noPermission"]);
      // Both deletes are done, and c was neither hidden nor counted.
      const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
      expect([attributes.msgs, attributes.hiddenmsgs, attributes.totalrecv]).to.deep.equal([1, 0, 0]);
      expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" }))).to.include({ id: c, rc: 1 });
    });

    it("a user that may not delete (no HDEL) is refused the whole call, with nothing written", async () => {
      await onEveryServer(["ACL", "SETUSER", user, "-hdel"]);
      const [a] = await sendAll(["a"]);
      const error = await rejectionOf(limited.deleteAndReceiveAsync({ qname: "q", id: a }));
      expect(error.name).to.equal("noPermission");
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(1);
    });
  });
});
