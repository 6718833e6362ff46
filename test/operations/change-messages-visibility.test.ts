/**
 * changeMessagesVisibility: up to 1000 ids of one queue re-scored in one EVALSHA, 1 or 0 per id
 * in order. A message counts only when its member and its body are both there, so nothing deleted
 * (by rsmq-next, or as rsmq 0.12.4's delete leaves it) comes back and no member is ever added. Bad
 * input is refused before any command; a missing queue rejects queueNotFound.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { internalsOf } from "../../lib/internals";
import { sendMessage } from "../../lib/operations/send-message";
import { onQueueActivity } from "../../lib/wakes/wake-hub";
import { DueWindow } from "../support/due-window";
import { serverNowMs } from "../support/inspect";
import { openOldRsmq, rejectionOf } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { connectionOptions, keysOf, onCluster, plainClient, uniqueNs } from "../support/server";
import { exactState } from "../support/state";
import { clientCommands, monitor } from "../support/wire";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const CARRIER = JSON.stringify({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" });
/** Ids of the right form that no message of this run has. */
const NEVER = "aaaaaaaaaa" + "b".repeat(22);
const MEMBER_WITHOUT_BODY = `0000000001${"a".repeat(22)}`;
const BODY_WITHOUT_MEMBER = `0000000002${"a".repeat(22)}`;

type ChangeOptions = RedisSMQ.ChangeMessagesVisibilityOptions;

describe("changeMessagesVisibility", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let redis: RedisClientType;
  let old: Rsmq | undefined;

  beforeEach(async () => {
    ns = uniqueNs("cmv");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    redis = await plainClient();
    old = undefined;
  });
  afterEach(async () => {
    await old?.quitAsync();
    await rsmq.quitAsync();
    await redis.quit();
  });

  async function sendInOrder(bodies: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const message of bodies) ids.push(await rsmq.sendMessageAsync({ qname: "q", message }));
    return ids;
  }

  /** rsmq 0.12.4's deleteMessage (ZREM; HDEL of `<id>`, `<id>:rc`, `<id>:fr` only): itself on one server, its writes on a cluster. */
  async function deleteAsRsmq(id: string): Promise<void> {
    if (!onCluster()) {
      old ??= openOldRsmq(ns);
      expect(await old.deleteMessageAsync({ qname: "q", id })).to.equal(1);
      return;
    }
    const keys = keysOf(ns, "q");
    await redis.zRem(keys.messages, id);
    await redis.hDel(keys.hash, [id, `${id}:rc`, `${id}:fr`]);
  }

  /** Expects `action` to reject with name and message, having sent nothing to Redis. */
  async function expectInputError(action: () => Promise<unknown>, name: string, message: string): Promise<void> {
    let error: Error | undefined;
    const commands = await monitor(async () => {
      error = await rejectionOf(action());
    });
    expect([error!.name, error!.message]).to.deep.equal([name, message]);
    expect(clientCommands(commands)).to.deep.equal([]);
  }

  it("is one EVALSHA, answers per id in order, and changes only messages with member and body", async () => {
    const keys = keysOf(ns, "q");
    const [inFlight, visible, deleted] = await sendInOrder(["in flight", "visible", "deleted"]);
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.have.property("id", inFlight);
    await rsmq.deleteMessageAsync({ qname: "q", id: deleted });
    // Sent with a trace context, then deleted by rsmq 0.12.4, which leaves its `<id>:tp`.
    const internals = internalsOf(rsmq);
    const deletedByOld = (await internals.run(() => sendMessage(internals.layout, "none", { qname: "q", message: "old" }, CARRIER))).id;
    await deleteAsRsmq(deletedByOld);
    expect(await redis.hExists(keys.hash, `${deletedByOld}:tp`)).to.equal(true);
    // A member whose body is gone, hidden (rc, fr) as rsmq 0.12.4's receive leaves one, and a body whose
    // member is gone: vt 0 would make the first due, were it re-scored.
    const hiddenUntil = (await serverNowMs(redis)) + 600_000;
    await redis.zAdd(keys.messages, { score: hiddenUntil, value: MEMBER_WITHOUT_BODY });
    await redis.hSet(keys.hash, { [`${MEMBER_WITHOUT_BODY}:rc`]: "1", [`${MEMBER_WITHOUT_BODY}:fr`]: "1" });
    await redis.hSet(keys.hash, BODY_WITHOUT_MEMBER, "lost body");

    const ids = [inFlight, visible, deleted, deletedByOld, NEVER, MEMBER_WITHOUT_BODY, BODY_WITHOUT_MEMBER, visible];
    await rsmq.changeMessagesVisibilityAsync({ qname: "q", ids: [NEVER], vt: 0 }); // the server now has the script cached
    const before = await exactState(redis, ns);
    const from = await serverNowMs(redis);
    let result: Array<0 | 1> | undefined;
    const commands = await monitor(async () => {
      result = await rsmq.changeMessagesVisibilityAsync({ qname: "q", ids, vt: 0 });
    });
    expect(clientCommands(commands)).to.deep.equal(["evalsha"]);
    expect(result).to.deep.equal([1, 1, 0, 0, 0, 0, 0, 1]);

    // Only the two messages' scores moved (to now): no member added, the orphan's score kept, no field touched.
    const after = await exactState(redis, ns);
    const scores = (state: typeof before) => Object.fromEntries((state[keys.messages] as { zset: Array<[string, number]> }).zset);
    const [was, is] = [scores(before), scores(after)];
    expect(Object.keys(is).sort()).to.deep.equal(Object.keys(was).sort());
    expect(Object.keys(is).sort()).to.deep.equal([inFlight, visible, MEMBER_WITHOUT_BODY].sort());
    expect(is[MEMBER_WITHOUT_BODY]).to.equal(hiddenUntil);
    const to = await serverNowMs(redis);
    for (const id of [inFlight, visible]) expect(is[id], id).to.be.within(from, to);
    expect(after[keys.hash]).to.deep.equal(before[keys.hash]);
    // Both are receivable at once; the orphans stay where they were.
    const got = await rsmq.receiveMessagesAsync({ qname: "q", count: 10 });
    expect(got.messages.map(({ id, message }) => [id, message])).to.deep.equal([
      [inFlight, "in flight"],
      [visible, "visible"],
    ]);
  });

  it("with vt 0 makes in-flight messages receivable at once, and wakes this process's workers", async () => {
    const ids = await sendInOrder(["a", "b", "c"]);
    expect((await rsmq.receiveMessagesAsync({ qname: "q", count: 3 })).messages).to.have.length(3);
    expect((await rsmq.receiveMessagesAsync({ qname: "q", count: 3 })).messages).to.deep.equal([]);
    let wakes = 0;
    const stop = onQueueActivity(ns, "q", () => (wakes += 1));
    try {
      expect(await rsmq.changeMessagesVisibilityAsync({ qname: "q", ids, vt: 0 })).to.deep.equal([1, 1, 1]);
      expect(wakes).to.equal(1);
      // Nothing changed: nothing to wake for.
      expect(await rsmq.changeMessagesVisibilityAsync({ qname: "q", ids: [NEVER], vt: 0 })).to.deep.equal([0]);
      expect(wakes).to.equal(1);
    } finally {
      stop();
    }
    const again = await rsmq.receiveMessagesAsync({ qname: "q", count: 3 });
    expect(again.messages.map(({ id, rc }) => [id, rc])).to.deep.equal(ids.map((id) => [id, 2]));
  });

  it("with vt 30 hides visible messages: nothing is received, the next is due in about 30 s", async () => {
    const ids = await sendInOrder(["a", "b"]);
    const window = await DueWindow.open(redis);
    expect(await rsmq.changeMessagesVisibilityAsync({ qname: "q", ids, vt: 30 })).to.deep.equal([1, 1]);
    const got = await rsmq.receiveMessagesAsync({ qname: "q", count: 5 });
    expect(got.messages).to.deep.equal([]);
    expect(got.nextDueMs).to.be.within(...(await window.range(30_000)));
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).hiddenmsgs).to.equal(2);
  });

  it("accepts 1000 ids", async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `aaaaaaaaaa${String(i).padStart(22, "0")}`);
    const result = await rsmq.changeMessagesVisibilityAsync({ qname: "q", ids, vt: 5 });
    expect(result).to.have.length(1000);
    expect(result.every((changed) => changed === 0)).to.equal(true);
    expect(await redis.zCard(keysOf(ns, "q").messages)).to.equal(0);
  });

  it("rejects a missing queue with queueNotFound, writing nothing", async () => {
    const error = await rejectionOf(rsmq.changeMessagesVisibilityAsync({ qname: "nope", ids: [NEVER], vt: 0 }));
    expect([error.name, error.message]).to.deep.equal(["queueNotFound", "Queue not found"]);
    const nope = keysOf(ns, "nope");
    expect(await redis.exists([nope.messages])).to.equal(0);
    expect(await redis.exists([nope.hash])).to.equal(0);
  });

  it("resolves [] for an empty list, sending nothing, but still checks qname and vt", async () => {
    let result: unknown;
    const commands = await monitor(async () => {
      result = await rsmq.changeMessagesVisibilityAsync({ qname: "q", ids: [], vt: 10 });
    });
    expect(result).to.deep.equal([]);
    expect(clientCommands(commands)).to.deep.equal([]);
    await expectInputError(
      () => rsmq.changeMessagesVisibilityAsync({ qname: "bad name", ids: [], vt: 0 }),
      "invalidFormat",
      "Invalid qname format",
    );
    await expectInputError(
      () => rsmq.changeMessagesVisibilityAsync({ qname: "q", ids: [], vt: -1 }),
      "invalidValue",
      "vt must be between 0 and 9999999",
    );
  });

  it("refuses bad input before any round trip", async () => {
    const call = (options: unknown) => () => rsmq.changeMessagesVisibilityAsync(options as ChangeOptions);
    await expectInputError(call({ ids: [NEVER], vt: 0 }), "missingParameter", "No qname supplied");
    await expectInputError(call({ qname: "bad name", ids: [NEVER], vt: 0 }), "invalidFormat", "Invalid qname format");
    for (const ids of [undefined, null, "notanarray", {}]) {
      await expectInputError(call({ qname: "q", ids, vt: 0 }), "missingParameter", "No ids supplied");
    }
    await expectInputError(
      call({ qname: "q", ids: Array.from({ length: 1001 }, () => NEVER), vt: 0 }),
      "invalidValue",
      "ids must hold at most 1000 ids",
    );
    await expectInputError(call({ qname: "q", ids: [NEVER, "short"], vt: 0 }), "invalidFormat", "Invalid id format");
    await expectInputError(call({ qname: "q", ids: [NEVER, ""], vt: 0 }), "missingParameter", "No id supplied");
    for (const vt of [undefined, -1, 10_000_000, "abc"]) {
      await expectInputError(call({ qname: "q", ids: [NEVER], vt }), "invalidValue", "vt must be between 0 and 9999999");
    }
  });

  it("has a callback form", async () => {
    const [id] = await sendInOrder(["a"]);
    const result = await new Promise<Array<0 | 1>>((resolve, reject) =>
      rsmq.changeMessagesVisibility({ qname: "q", ids: [id, NEVER], vt: 60 }, (error, value) => (error ? reject(error) : resolve(value))),
    );
    expect(result).to.deep.equal([1, 0]);
    const error = await new Promise<Error>((resolve) =>
      rsmq.changeMessagesVisibility({ qname: "q", ids: [id], vt: -1 }, (err) => resolve(err as Error)),
    );
    expect(error.name).to.equal("invalidValue");
  });
});
