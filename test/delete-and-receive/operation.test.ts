/**
 * deleteAndReceiveMessages (lib/operations/delete-and-receive.ts), the operation the Worker runs:
 * the deletes and the next batch in one script call, each part answering exactly what
 * deleteMessages and receiveMessages answer, and a receive part that fails (a real ACL user)
 * coming back beside deletes that were done.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib");
import { internalsOf } from "../../lib/internals";
import { deleteAndReceiveMessages } from "../../lib/operations/delete-and-receive";
import type { DeletedAndReceived } from "../../lib/operations/delete-and-receive";
import { rejectionOf } from "../support/old-rsmq";
import { connectionOptions, uniqueNs } from "../support/server";
import { connectionOptionsAs, onEveryServer } from "../support/worker";
import { PASSWORD } from "../support/acl-rules";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("deleteAndReceiveMessages: the operation", () => {
  let ns: string;
  let rsmq: RedisSMQ;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => rsmq.quitAsync());

  function run(instance: RedisSMQ, options: { qname?: unknown; ids?: unknown; vt?: unknown }, count: unknown, details = false) {
    const internals = internalsOf(instance);
    return internals.run(() => deleteAndReceiveMessages(internals.layout, options, count, details));
  }

  async function sendAll(bodies: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const message of bodies) ids.push(await rsmq.sendMessageAsync({ qname: "q", message }));
    return ids;
  }

  it("deletes the given ids, then receives the next messages, as deleteMessages then receiveMessages", async () => {
    const [a, b, c] = await sendAll(["a", "b", "c"]);
    const first = (await rsmq.receiveMessageAsync({ qname: "q" })) as RedisSMQ.QueueMessage;
    expect(first.id).to.equal(a);
    const result = await run(rsmq, { qname: "q", ids: [a, a.replace(/.$/, "0")] }, 2);
    expect(result.deleted).to.deep.equal([1, 0]);
    expect(result.receiveError).to.equal(undefined);
    expect(result.batch.messages.map(({ id, message, rc }) => [id, message, rc])).to.deep.equal([
      [b, "b", 1],
      [c, "c", 1],
    ]);
    expect(result.batch.nextDueMs).to.equal(undefined);
    expect(result.batch.vt).to.equal(30);
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect([attributes.msgs, attributes.hiddenmsgs, attributes.totalrecv]).to.deep.equal([2, 2, 3]);
  });

  it("receives only, for no ids, and answers when the next is due when fewer were due", async () => {
    const result = await run(rsmq, { qname: "q", ids: [] }, 1);
    expect(result).to.deep.equal({ deleted: [], batch: { messages: [], nextDueMs: null, vt: 30 } } satisfies DeletedAndReceived);
  });

  it("rejects a missing queue with queueNotFound, as a receive alone, when nothing was deleted", async () => {
    const error = await rejectionOf(run(rsmq, { qname: "nope", ids: ["a".repeat(32)] }, 1));
    expect([error.name, error.message]).to.deep.equal(["queueNotFound", "Queue not found"]);
  });

  it("checks the queue, the ids, vt and count before any round trip", async () => {
    const bad: Array<[{ qname?: unknown; ids?: unknown; vt?: unknown }, unknown, string]> = [
      [{ ids: [] }, 1, "missingParameter"],
      [{ qname: "bad name", ids: [] }, 1, "invalidFormat"],
      [{ qname: "q", ids: "x" }, 1, "missingParameter"],
      [{ qname: "q", ids: ["short"] }, 1, "invalidFormat"],
      [{ qname: "q", ids: [], vt: -1 }, 1, "invalidValue"],
      [{ qname: "q", ids: [] }, 0, "invalidValue"],
    ];
    for (const [options, count, name] of bad) {
      let built: unknown;
      const internals = internalsOf(rsmq);
      try {
        built = deleteAndReceiveMessages(internals.layout, options, count);
      } catch (error) {
        expect((error as Error).name, JSON.stringify(options)).to.equal(name);
        continue;
      }
      expect.fail(`built ${JSON.stringify(built)} for ${JSON.stringify(options)}`);
    }
  });

  describe("a user allowed to delete but not to receive (a real ACL user)", () => {
    let user: string;
    let limited: RedisSMQ;

    beforeEach(async () => {
      user = `dar-${ns}`;
      // Everything a worker needs but what a receive writes after its deletes: HINCRBY.
      await onEveryServer(["ACL", "SETUSER", user, "on", `>${PASSWORD}`, `~${ns}:*`, "+@all", "-hincrby"]);
      limited = new RedisSMQ(connectionOptionsAs(ns, user, PASSWORD));
    });
    afterEach(async () => {
      await limited.quitAsync();
      await onEveryServer(["ACL", "DELUSER", user]);
    });

    it("deletes, and answers the refusal beside the deletes: noPermission, nothing of the receive written", async () => {
      const [a, b] = await sendAll(["a", "b"]);
      const result = await run(limited, { qname: "q", ids: [a] }, 1);
      expect(result.deleted).to.deep.equal([1]);
      expect(result.batch.messages).to.deep.equal([]);
      expect(result.receiveError?.name).to.equal("noPermission");
      expect((result.receiveError as Error & { code?: string }).code).to.equal("ERR_RSMQ_NEXT_NO_PERMISSION");
      expect(result.receiveError?.message).to.match(/HINCRBY/);
      // The delete is done; b was not received (still visible, never counted).
      const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
      expect([attributes.msgs, attributes.hiddenmsgs, attributes.totalrecv]).to.deep.equal([1, 0, 0]);
      const next = (await rsmq.receiveMessageAsync({ qname: "q" })) as RedisSMQ.QueueMessage;
      expect([next.id, next.rc]).to.deep.equal([b, 1]);
    });

    it("answers a read the ACL refuses, where the script has no check (a raised error), beside the deletes", async () => {
      await onEveryServer(["ACL", "SETUSER", user, "+hincrby", "-zrangebyscore"]);
      const [a] = await sendAll(["a", "b"]);
      const result = await run(limited, { qname: "q", ids: [a] }, 1);
      expect(result.deleted).to.deep.equal([1]);
      expect(result.batch.messages).to.deep.equal([]);
      expect(result.receiveError?.name).to.equal("noPermission");
      const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
      expect([attributes.msgs, attributes.hiddenmsgs, attributes.totalrecv]).to.deep.equal([1, 0, 0]);
    });
  });
});
