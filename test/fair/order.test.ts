/**
 * Fair queues (docs/fair-queues.md): a tenant's message sent without delay is scored by start-time
 * fair queuing (lua/shared/fair-score.lua), so among the messages waiting at one priority a
 * flooding tenant is interleaved with the others, and every consumer that takes the lowest score,
 * rsmq 0.12.4's included, delivers that order. Positions are counted by receives, never by time.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { asMessage, openNextBesideOld, openOldRsmq } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { connectionOptions, uniqueNs } from "../support/server";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const FLOOD = 10_000;
const QUIET_TENANTS = 10;
const QUIET_EACH = 10;
const CONSUMERS = 10;
/**
 * The bound when everything is sent before anyone receives: F's flood is scored head, head+1, ...
 * and each quiet tenant's j-th message (j from 0) head+j, after F's j-th (equal scores go by id,
 * F's first): rounds of F_j and the ten quiet j-th messages, so the first 10 rounds, 110
 * receives, hold all 100 quiet messages and 10 of F's.
 */
const FIRST_RECEIVES = (QUIET_TENANTS + 1) * QUIET_EACH;

/** F's flood: 500 single sends, then batches of 1000, then 500 single sends, 50 in flight. */
async function sendFlood(rsmq: RedisSMQ, qname: string): Promise<void> {
  const singles = async (from: number, count: number): Promise<void> => {
    for (let i = from; i < from + count; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, from + count - i) }, (_, k) =>
          rsmq.sendMessageAsync({ qname, message: `F-${i + k}`, tenant: "F" }),
        ),
      );
    }
  };
  await singles(0, 500);
  for (let from = 500; from < FLOOD - 500; from += 1000) {
    const messages = Array.from({ length: 1000 }, (_, k) => ({ message: `F-${from + k}`, tenant: "F" }));
    await rsmq.sendMessagesAsync({ qname, messages });
  }
  await singles(FLOOD - 500, 500);
}

/** Each quiet tenant Q<t> sends its QUIET_EACH messages one after the other, the tenants side by side. */
async function sendQuiet(rsmq: RedisSMQ, qname: string, onSend?: (message: string) => void): Promise<string[]> {
  const sent: string[] = [];
  await Promise.all(
    Array.from({ length: QUIET_TENANTS }, async (_, t) => {
      for (let j = 0; j < QUIET_EACH; j += 1) {
        const message = `Q${t}-${j}`;
        onSend?.(message);
        await rsmq.sendMessageAsync({ qname, message, tenant: `Q${t}` });
        sent.push(message);
      }
    }),
  );
  return sent;
}

/** `consumers` loops that make exactly `total` receives in all (none is issued after the total). */
async function receiveExactly(consumers: Rsmq[], qname: string, total: number): Promise<string[]> {
  const got: string[] = [];
  let issued = 0;
  await Promise.all(
    consumers.map(async (consumer) => {
      while (issued < total) {
        issued += 1;
        got.push(asMessage(await consumer.receiveMessageAsync({ qname })).message);
      }
    }),
  );
  return got;
}

describe("Fair queues: the order by receive position", function () {
  this.timeout(120_000);
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  function quietIn(received: string[]): string[] {
    return received.filter((message) => message.startsWith("Q"));
  }

  it(`rsmq-next consumers: the first ${FIRST_RECEIVES} receives after a flood of ${FLOOD} hold all ${QUIET_TENANTS * QUIET_EACH} quiet messages`, async () => {
    const ns = uniqueNs("fair");
    const rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    await rsmq.createQueueAsync({ qname: "q", vt: 3600 });
    await sendFlood(rsmq, "q");
    const quiet = await sendQuiet(rsmq, "q");
    const consumers = Array.from({ length: CONSUMERS }, () => cleanup.rsmq(new RedisSMQ(connectionOptions(ns))) as unknown as Rsmq);
    const received = await receiveExactly(consumers, "q", FIRST_RECEIVES);
    expect(received).to.have.length(FIRST_RECEIVES);
    expect(quietIn(received).sort()).to.deep.equal([...quiet].sort());
    // And F's ten first-scored (which ten by number depends on how the 50 sends in flight met the
    // instance's second connection, so only the count is certain).
    expect(received.filter((message) => message.startsWith("F"))).to.have.length(QUIET_EACH);
  });

  it(`rsmq 0.12.4 consumers only: the same ${FIRST_RECEIVES} receives hold all quiet messages`, async () => {
    const ns = uniqueNs("fairold");
    const rsmq = cleanup.rsmq(openNextBesideOld(ns));
    await rsmq.createQueueAsync({ qname: "q", vt: 3600 });
    await sendFlood(rsmq, "q");
    const quiet = await sendQuiet(rsmq, "q");
    const consumers = Array.from({ length: CONSUMERS }, () => openOldRsmq(ns));
    cleanup.add(() => Promise.all(consumers.map((consumer) => consumer.quitAsync())));
    const received = await receiveExactly(consumers, "q", FIRST_RECEIVES);
    expect(quietIn(received).sort()).to.deep.equal([...quiet].sort());
  });

  /**
   * Quiet tenants send while 10 consumers drain the flood. The rule (docs/fair-queues.md): each
   * tenant's tags rise by at least 1 per message and start no lower than the lowest score waiting
   * (head), and a tenant with w messages waiting gets at most head + w; so at most w + 1 <= 11
   * messages of each of the 10 other tenants (later sends included) and its own w - 1 <= 9 go
   * before it: it is among the first 120 receives the server runs after its send. Counted by
   * replies on the client: up to 10 receives were in flight when the send was issued, and the
   * replies of 10 concurrent receives may be read in another order than the server ran them:
   * 120 + 10 + 10.
   */
  const DRAIN_BOUND = 11 * QUIET_TENANTS + (QUIET_EACH - 1) + 1 + CONSUMERS + CONSUMERS;

  it(`quiet tenants sending during the drain: each message received within ${DRAIN_BOUND} receives of its send`, async () => {
    const ns = uniqueNs("fairlive");
    const rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    await rsmq.createQueueAsync({ qname: "q", vt: 3600 });
    await sendFlood(rsmq, "q");
    const consumer = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    const position = new Map<string, number>();
    const sentAt = new Map<string, number>();
    let received = 0;
    let quietLeft = QUIET_TENANTS * QUIET_EACH;
    let quietSending: Promise<string[]> | undefined;
    await Promise.all(
      Array.from({ length: CONSUMERS }, async () => {
        while (quietLeft > 0) {
          const message = asMessage(await consumer.receiveMessageAsync({ qname: "q" })).message;
          received += 1;
          if (message.startsWith("Q")) {
            position.set(message, received);
            quietLeft -= 1;
          }
          // The quiet tenants start once the drain is well under way.
          if (received === 500) quietSending = sendQuiet(rsmq, "q", (sent) => sentAt.set(sent, received));
        }
      }),
    );
    await quietSending;
    expect(position.size).to.equal(QUIET_TENANTS * QUIET_EACH);
    const distances = [...position].map(([message, at]) => at - sentAt.get(message)!);
    console.log(`      the farthest quiet message was received ${Math.max(...distances)} receives after its send`);
    expect(Math.max(...distances)).to.be.at.most(DRAIN_BOUND);
    // The flood had thousands waiting: without fairness a quiet message would wait behind them.
    expect(received).to.be.below(FLOOD);
  });
});
