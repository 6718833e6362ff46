/**
 * The command line's dead-letter commands against the test server: `dlq list` (why each message
 * stopped) and `redrive` (back to the source queue, or --to, at most --limit, only --reason and
 * --error), human and --json.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, plainClient, uniqueNs } from "../support/server";
import { plantMessages } from "../support/retention";
import { at, json, runCli } from "../support/cli";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const { Worker, PoisonError } = RedisSMQ;

describe("CLI: dlq list, redrive", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let ids: { poison: string; failing: string };

  /** Two dead letters in src-dlq, put there by a Worker: one poison, one out of deliveries. */
  beforeEach(async () => {
    ns = uniqueNs("cli");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "src" });
    ids = {
      poison: await rsmq.sendMessageAsync({ qname: "src", message: "poison" }),
      failing: await rsmq.sendMessageAsync({ qname: "src", message: "failing" }),
    };
    const worker = new Worker(rsmq, {
      qname: "src",
      retry: { maxDeliveries: 1 },
      handler: (message) => {
        if (message.message === "poison") throw new PoisonError("bad payload");
        throw new Error("the API said no");
      },
    });
    worker.start();
    await waitFor(() => worker.counters.deadLettered === 2, "two dead letters");
    await worker.stop();
  });
  afterEach(() => rsmq.quitAsync());

  const cli = (...args: string[]) => runCli([...at(ns), ...args]);

  describe("dlq list", () => {
    it("--json: each message with where it came from, why it stopped and the last error", async () => {
      const result = await cli("--json", "dlq", "list", "src-dlq");
      expect(result.code).to.equal(0);
      const listed = json(result);
      expect(listed.qname).to.equal("src-dlq");
      expect(listed.total).to.equal(2);
      const byId = new Map(listed.messages.map((m: { id: string }) => [m.id, m]));
      expect(byId.get(ids.poison)).to.deep.include({ message: "poison" });
      expect((byId.get(ids.poison) as { deadLetter: object }).deadLetter).to.include({
        source: "src",
        deliveries: 1,
        reason: "poison",
        error: "bad payload",
      });
      expect((byId.get(ids.failing) as { deadLetter: object }).deadLetter).to.include({
        source: "src",
        deliveries: 1,
        reason: "exhausted",
        error: "the API said no",
      });
    });

    it("human: a table of id, reason, deliveries, source, when, error and message", async () => {
      const result = await cli("dlq", "list", "src-dlq");
      expect(result.code).to.equal(0);
      const lines = result.stdout.trimEnd().split("\n");
      expect(lines[0]).to.match(/^ID +REASON +DELIVERIES +FROM +WHEN +ERROR +MESSAGE$/);
      expect(lines).to.have.length(3);
      const poisonLine = lines.find((line) => line.startsWith(ids.poison));
      expect(poisonLine).to.match(/ poison +1 +src +.+ ago +bad payload +poison$/);
      const failingLine = lines.find((line) => line.startsWith(ids.failing));
      expect(failingLine).to.match(/ exhausted +1 +src +.+ ago +the API said no +failing$/);
    });

    it("points from a source queue to its dead-letter queue", async () => {
      const result = await cli("dlq", "list", "src");
      expect(result.code).to.equal(0);
      expect(result.stdout).to.equal("no dead letters in src\n");
      expect(result.stderr).to.include("its dead-letter queue may be src-dlq: rsmq-next dlq list src-dlq");
    });

    it("fails with exit code 1 for a missing queue", async () => {
      const result = await cli("dlq", "list", "nope-dlq");
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include('queue "nope-dlq" does not exist');
    });
  });

  describe("redrive", () => {
    it("moves every dead letter back to its source queue (human)", async () => {
      const result = await cli("redrive", "src-dlq");
      expect(result.code).to.equal(0);
      expect(result.stdout).to.equal("moved 2 messages from src-dlq to the queues they came from\n");
      expect(result.stderr).to.equal("");
      const [src, dlq] = await Promise.all([
        rsmq.getQueueAttributesAsync({ qname: "src" }),
        rsmq.getQueueAttributesAsync({ qname: "src-dlq" }),
      ]);
      expect([src.msgs, src.hiddenmsgs, dlq.msgs]).to.deep.equal([2, 0, 0]);
      const peeked = await rsmq.peekDeadLettersAsync({ qname: "src" });
      expect(peeked.map((m) => m.message).sort()).to.deep.equal(["failing", "poison"]);
    });

    it("--to and --limit: moves that many to that queue (--json)", async () => {
      await rsmq.createQueueAsync({ qname: "elsewhere" });
      const result = await cli("--json", "redrive", "src-dlq", "--to", "elsewhere", "--limit", "1");
      expect(result.code).to.equal(0);
      expect(json(result)).to.deep.equal({ from: "src-dlq", to: "elsewhere", reason: null, error: null, moved: 1, left: 1 });
      expect((await rsmq.getQueueAttributesAsync({ qname: "elsewhere" })).msgs).to.equal(1);
      expect((await rsmq.getQueueAttributesAsync({ qname: "src" })).msgs).to.equal(0);
    });

    it("leaves messages without a recorded source where they are, and says how to move them", async () => {
      await rsmq.sendMessageAsync({ qname: "src-dlq", message: "put there by hand" });
      const result = await cli("redrive", "src-dlq");
      expect(result.code).to.equal(0);
      expect(result.stdout).to.equal("moved 2 messages from src-dlq to the queues they came from\n");
      expect(result.stderr).to.include("1 message stayed in src-dlq: no source queue recorded");
      expect(result.stderr).to.include("--to <qname>");
      expect((await rsmq.getQueueAttributesAsync({ qname: "src-dlq" })).msgs).to.equal(1);
    });

    it("--reason and --error: moves only the dead letters matching both, says why the rest stayed", async () => {
      const byReason = await cli("redrive", "src-dlq", "--reason", "poison");
      expect(byReason.code).to.equal(0);
      expect(byReason.stdout).to.equal("moved 1 message from src-dlq to the queues they came from\n");
      expect(byReason.stderr).to.include("1 message stayed in src-dlq: not matching --reason poison");
      expect((await rsmq.peekMessagesAsync({ qname: "src" })).map((m) => m.id)).to.deep.equal([ids.poison]);
      const [left] = await rsmq.peekMessagesAsync({ qname: "src-dlq" });
      expect(left.id).to.equal(ids.failing);
      expect(left.deadLetter).to.include({ reason: "exhausted", error: "the API said no" });

      // Not matching both: nothing moves.
      const neither = await cli("--json", "redrive", "src-dlq", "--reason", "exhausted", "--error", "bad payload");
      expect(neither.code).to.equal(0);
      expect(json(neither)).to.deep.equal({ from: "src-dlq", to: null, reason: "exhausted", error: "bad payload", moved: 0, left: 1 });

      const byError = await cli("--json", "redrive", "src-dlq", "--error", "the API said no");
      expect(byError.code).to.equal(0);
      expect(json(byError)).to.deep.equal({ from: "src-dlq", to: null, reason: null, error: "the API said no", moved: 1, left: 0 });
      expect((await rsmq.getQueueAttributesAsync({ qname: "src" })).msgs).to.equal(2);
    });

    it("--reason expired: moves only the messages a queue's retention sent there", async () => {
      await rsmq.createQueueAsync({ qname: "aging", retention: 3600, expireTo: "src-dlq" });
      const redis = await plainClient();
      try {
        const [old] = await plantMessages(redis, ns, "aging", { count: 1, ageSeconds: 7200 });
        // The receive meets the expired message and moves it to src-dlq with reason "expired".
        expect(await rsmq.receiveMessageAsync({ qname: "aging" })).to.deep.equal({});
        await waitFor(async () => (await rsmq.getQueueAttributesAsync({ qname: "src-dlq" })).msgs === 3, "the expired dead letter");
        const result = await cli("--json", "redrive", "src-dlq", "--reason", "expired");
        expect(json(result)).to.deep.equal({ from: "src-dlq", to: null, reason: "expired", error: null, moved: 1, left: 2 });
        expect((await rsmq.peekMessagesAsync({ qname: "aging" })).map((m) => m.id)).to.deep.equal([old.id]);
      } finally {
        await redis.quit();
      }
    });

    it("--id: moves that one message only; says so when it did not move", async () => {
      const result = await cli("redrive", "src-dlq", "--id", ids.poison);
      expect(result.code).to.equal(0);
      expect(result.stdout).to.equal(`moved message ${ids.poison} from src-dlq to the queue it came from\n`);
      expect((await rsmq.peekMessagesAsync({ qname: "src" })).map((m) => m.id)).to.deep.equal([ids.poison]);
      expect((await rsmq.peekMessagesAsync({ qname: "src-dlq" })).map((m) => m.id)).to.deep.equal([ids.failing]);

      const again = await cli("--json", "redrive", "src-dlq", "--id", ids.poison);
      expect(again.code).to.equal(0);
      expect(json(again)).to.deep.equal({ from: "src-dlq", to: null, reason: null, error: null, id: ids.poison, moved: 0, left: 1 });
      const human = await cli("redrive", "src-dlq", "--id", ids.poison);
      expect(human.stdout).to.equal("moved 0 messages from src-dlq to the queues they came from\n");
      expect(human.stderr).to.include(`message ${ids.poison} did not move: not in src-dlq, held by a consumer, no source queue recorded`);

      const bad = await cli("redrive", "src-dlq", "--id", "not an id");
      expect(bad.code).to.equal(2);
      expect((await rsmq.getQueueAttributesAsync({ qname: "src-dlq" })).msgs).to.equal(1);
    });

    it("exits 2 for a --reason other than poison, exhausted or expired, moving nothing", async () => {
      const result = await cli("redrive", "src-dlq", "--reason", "failed");
      expect(result.code).to.equal(2);
      expect(result.stderr).to.include("poison, exhausted, expired");
      expect((await rsmq.getQueueAttributesAsync({ qname: "src-dlq" })).msgs).to.equal(2);
    });

    it("exits 1 for a missing dead-letter queue and 2 for a bad --limit", async () => {
      const [missing, bad] = await Promise.all([cli("redrive", "nope"), cli("redrive", "src-dlq", "--limit", "0")]);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.include('queue "nope" does not exist');
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.include("Expected an integer 1 or more");
      expect((await rsmq.getQueueAttributesAsync({ qname: "src-dlq" })).msgs).to.equal(2);
    });
  });
});
