/**
 * deleteAndReceive, differentially: a queue consumed by a loop of rsmq-next's deleteAndReceive
 * (and deleteAndReceiveMessages) and an identical queue consumed by rsmq 0.12.4's receiveMessage
 * then deleteMessage (the real `rsmq` package) receive the same bodies with the same rc, and end in
 * the same Redis state: keys, hash fields (ids and clock readings normalised, each checked by the
 * WriteWatch), counters and scores.
 */
import { expect } from "chai";
import { dataClient, idTokens, namespacedSnapshot, open } from "../support/differential";
import type { Library, Run } from "../support/differential";
import { WriteWatch } from "../support/written-data";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

interface Message {
  id: string;
  message: string;
  rc: number;
}

/** What a consumer needs of either library, every call inside the watch's TIME window. */
interface Consumer {
  send(message: string, delay?: number): Promise<unknown>;
  receive(vt?: number): Promise<Message | undefined>;
  /** The next `count` messages after deleting `ids`: rsmq 0.12.4's deletes then receives, or one deleteAndReceive call. */
  settleAndTake(ids: string[], count: number): Promise<Message[]>;
}

type Scenario = (consumer: Consumer) => Promise<unknown[]>;

/* eslint-disable @typescript-eslint/no-explicit-any -- both libraries, typed loosely as in support/differential.ts */
function consumerOf(library: Library, api: any, watch: WriteWatch): Consumer {
  const around = <T>(call: () => Promise<T>): Promise<T> => watch.around(call);
  const asMessage = (value: any): Message | undefined =>
    value && value.id ? { id: value.id, message: value.message, rc: value.rc } : undefined;
  return {
    send: (message, delay) => around(() => api.sendMessageAsync({ qname: "q", message, ...(delay === undefined ? {} : { delay }) })),
    receive: async (vt) => asMessage(await around(() => api.receiveMessageAsync({ qname: "q", ...(vt === undefined ? {} : { vt }) }))),
    async settleAndTake(ids, count) {
      if (library === "rsmq") {
        for (const id of ids) await around(() => api.deleteMessageAsync({ qname: "q", id }));
        const taken: Message[] = [];
        while (taken.length < count) {
          const next = asMessage(await around(() => api.receiveMessageAsync({ qname: "q" })));
          if (!next) break;
          taken.push(next);
        }
        return taken;
      }
      if (count === 1 && ids.length === 1) {
        const { deleted, message } = await around<any>(() => api.deleteAndReceiveAsync({ qname: "q", id: ids[0] }));
        expect(deleted).to.equal(1);
        const next = asMessage(message);
        return next ? [next] : [];
      }
      const { deleted, messages } = await around<any>(() => api.deleteAndReceiveMessagesAsync({ qname: "q", ids, count }));
      expect(deleted).to.deep.equal(ids.map(() => 1));
      return (messages as unknown[]).map((message) => asMessage(message)!);
    },
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any */

async function runOn(library: Library, scenario: Scenario): Promise<Run> {
  const instance = await open(library);
  const client = await dataClient(library);
  try {
    const watch = new WriteWatch(client, instance.ns);
    let results: unknown[];
    try {
      await watch.around(() => instance.api.createQueueAsync({ qname: "q" }));
      results = idTokens()(await scenario(consumerOf(library, instance.api, watch))) as unknown[];
    } finally {
      await instance.close();
    }
    watch.assertClean(library === "rsmq" ? "rsmq 0.12.4" : "rsmq-next");
    return { results, state: await namespacedSnapshot(client, instance.ns, watch) };
  } finally {
    await client.quit();
  }
}

async function expectSameAsRsmq(scenario: Scenario): Promise<Run> {
  const old = await runOn("rsmq", scenario);
  const next = await runOn("next", scenario);
  expect(next.results, "bodies and rc received (rsmq-next vs rsmq)").to.deep.equal(old.results);
  expect(next.state, "Redis state (rsmq-next vs rsmq)").to.deep.equal(old.state);
  return next;
}

/**
 * Six messages, one delayed beyond the run, and the first received once before the loop with vt 0:
 * it comes back last (visible from that receive on), with rc 2 and its first `fr` kept.
 */
async function fill(consumer: Consumer): Promise<void> {
  for (const body of ["a", "b", "c", "d", "e", "f"]) await consumer.send(body);
  await consumer.send("later", 100);
  await consumer.receive(0);
}

describe("differential: deleteAndReceive against rsmq 0.12.4's receive then delete", () => {
  it("one message at a time: the same bodies and rc, the same state", async () => {
    const next = await expectSameAsRsmq(async (consumer) => {
      await fill(consumer);
      const seen: unknown[] = [];
      let message = await consumer.receive();
      while (message) {
        seen.push([message.message, message.rc]);
        [message] = await consumer.settleAndTake([message.id], 1);
      }
      return seen;
    });
    expect(next.results).to.deep.equal([
      ["b", 1],
      ["c", 1],
      ["d", 1],
      ["e", 1],
      ["f", 1],
      ["a", 2],
    ]);
  });

  it("batches of 4: the same bodies and rc, the same state", async () => {
    const next = await expectSameAsRsmq(async (consumer) => {
      await fill(consumer);
      const seen: unknown[] = [];
      let batch = await consumer.settleAndTake([], 4);
      while (batch.length > 0) {
        seen.push(batch.map(({ message, rc }) => [message, rc]));
        batch = await consumer.settleAndTake(
          batch.map(({ id }) => id),
          4,
        );
      }
      return seen;
    });
    expect(next.results).to.deep.equal([
      [
        ["b", 1],
        ["c", 1],
        ["d", 1],
        ["e", 1],
      ],
      [
        ["f", 1],
        ["a", 2],
      ],
    ]);
  });
});
