/**
 * Queue management, differentially: createQueue, listQueues, deleteQueue, getQueueAttributes,
 * setQueueAttributes and quit run the same steps on rsmq 0.12.4 and rsmq-next; results, errors and
 * the Redis state left behind must match. Each scenario also pins the expected results, so a
 * behaviour both got wrong alike still fails.
 *
 * getQueueAttributes is only called when every message is hidden or gone: for a visible message
 * sent within the current second rsmq counts it in hiddenmsgs (intentional difference 4).
 */
import { QUEUE_NOT_FOUND, expectSameAsRsmq, fails, ok, outcome, viaCallback } from "../support/differential";
import type { Api, Outcome } from "../support/differential";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

interface Counts {
  vt?: number;
  delay?: number;
  maxsize?: number;
  totalrecv?: number;
  totalsent?: number;
  msgs?: number;
  hiddenmsgs?: number;
}

/** The expected (normalised) attributes: defaults unless given; times are near now. */
function attributes(counts: Counts = {}): Outcome {
  return ok({
    vt: 30,
    delay: 0,
    maxsize: 65536,
    totalrecv: 0,
    totalsent: 0,
    msgs: 0,
    hiddenmsgs: 0,
    ...counts,
    created: "<s>",
    modified: "<s>",
  });
}

const sortedQueues = (api: Api): Promise<Outcome> => outcome(api.listQueuesAsync().then((names) => [...names].sort()));
const attributesOf = (api: Api, qname: unknown = "q"): Promise<Outcome> => outcome(api.getQueueAttributesAsync({ qname }));

describe("differential: queues", () => {
  describe("createQueue", () => {
    it("with defaults: vt 30, delay 0, maxsize 65536", () =>
      expectSameAsRsmq(
        async (api) => [await outcome(api.createQueueAsync({ qname: "q" })), await attributesOf(api), await sortedQueues(api)],
        [ok(1), attributes(), ok(["q"])],
      ));

    it("with vt, delay, maxsize given one at a time", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "v", vt: 45 })),
          await outcome(api.createQueueAsync({ qname: "d", delay: 7 })),
          await outcome(api.createQueueAsync({ qname: "m", maxsize: 2048 })),
          await attributesOf(api, "v"),
          await attributesOf(api, "d"),
          await attributesOf(api, "m"),
        ],
        [ok(1), ok(1), ok(1), attributes({ vt: 45 }), attributes({ delay: 7 }), attributes({ maxsize: 2048 })],
      ));

    it("with all three given, and at the bounds", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "all", vt: 1, delay: 2, maxsize: 3000 })),
          await outcome(api.createQueueAsync({ qname: "low", vt: 0, delay: 0, maxsize: 1024 })),
          await outcome(api.createQueueAsync({ qname: "high", vt: 9999999, delay: 9999999, maxsize: 65536 })),
          await attributesOf(api, "all"),
          await attributesOf(api, "low"),
          await attributesOf(api, "high"),
        ],
        [
          ok(1),
          ok(1),
          ok(1),
          attributes({ vt: 1, delay: 2, maxsize: 3000 }),
          attributes({ vt: 0, delay: 0, maxsize: 1024 }),
          attributes({ vt: 9999999, delay: 9999999, maxsize: 65536 }),
        ],
      ));

    it("with maxsize -1 (unlimited), as a number and as a string", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "n", maxsize: -1 })),
          await outcome(api.createQueueAsync({ qname: "s", maxsize: "-1" })),
          await attributesOf(api, "n"),
          await attributesOf(api, "s"),
        ],
        [ok(1), ok(1), attributes({ maxsize: -1 }), attributes({ maxsize: -1 })],
      ));

    it("with values rsmq's parseInt accepts: '5abc', 1.9, ' 12', '2048.7', 1e21, -0.5, '0x10'", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "a", vt: "5abc", delay: 1.9, maxsize: "2048.7" })),
          // parseInt(1e21) reads "1e+21" as 1; parseInt(-0.5) is -0, which is not below 0.
          await outcome(api.createQueueAsync({ qname: "b", vt: " 12", delay: 1e21, maxsize: "1024abc" })),
          await outcome(api.createQueueAsync({ qname: "c", vt: -0.5, delay: "0x10", maxsize: 65536.9 })),
          await attributesOf(api, "a"),
          await attributesOf(api, "b"),
          await attributesOf(api, "c"),
        ],
        [
          ok(1),
          ok(1),
          ok(1),
          attributes({ vt: 5, delay: 1, maxsize: 2048 }),
          attributes({ vt: 12, delay: 1, maxsize: 1024 }),
          attributes({ vt: 0, delay: 0, maxsize: 65536 }),
        ],
      ));

    it("treats null and undefined options as absent (defaults)", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "q", vt: null, delay: undefined, maxsize: null })),
          await attributesOf(api),
        ],
        [ok(1), attributes()],
      ));

    it("fails queueExists on an existing queue and keeps its settings", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "q", vt: 10 })),
          await outcome(api.createQueueAsync({ qname: "q", vt: 20, delay: 5, maxsize: 2000 })),
          await outcome(api.createQueueAsync({ qname: "q" })),
          await attributesOf(api),
          await sortedQueues(api),
        ],
        [ok(1), fails("queueExists", "Queue exists"), fails("queueExists", "Queue exists"), attributes({ vt: 10 }), ok(["q"])],
      ));

    it("accepts a numeric qname (123 becomes '123') everywhere", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: 123 })),
          await outcome(api.createQueueAsync({ qname: "123" })),
          await outcome(api.sendMessageAsync({ qname: 123, message: "m", delay: 60 })),
          await attributesOf(api, 123),
          await outcome(api.setQueueAttributesAsync({ qname: 123, vt: 4 })),
          await sortedQueues(api),
          await outcome(api.deleteQueueAsync({ qname: 123 })),
          await sortedQueues(api),
        ],
        [
          ok(1),
          fails("queueExists", "Queue exists"),
          ok("<id1>"),
          attributes({ totalsent: 1, msgs: 1, hiddenmsgs: 1 }),
          attributes({ vt: 4, totalsent: 1, msgs: 1, hiddenmsgs: 1 }),
          ok(["123"]),
          ok(1),
          ok([]),
        ],
      ));

    it("accepts names of 1 and 160 characters of [a-zA-Z0-9_-]", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "x" })),
          await outcome(api.createQueueAsync({ qname: "A-b_9".repeat(32) })),
          await outcome(api.createQueueAsync({ qname: "-" })),
          await outcome(api.createQueueAsync({ qname: "_" })),
          await sortedQueues(api),
        ],
        [ok(1), ok(1), ok(1), ok(1), ok(["-", "A-b_9".repeat(32), "_", "x"].sort())],
      ));
  });

  describe("listQueues", () => {
    it("is empty before any queue, then lists every queue", () =>
      expectSameAsRsmq(
        async (api) => [
          await sortedQueues(api),
          await outcome(api.createQueueAsync({ qname: "b" })),
          await outcome(api.createQueueAsync({ qname: "a" })),
          await outcome(api.createQueueAsync({ qname: "c" })),
          await sortedQueues(api),
          await outcome(api.deleteQueueAsync({ qname: "a" })),
          await sortedQueues(api),
        ],
        [ok([]), ok(1), ok(1), ok(1), ok(["a", "b", "c"]), ok(1), ok(["b", "c"])],
      ));

    it("answers the callback form too", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "q" })),
          await outcome(new Promise((resolve, reject) => api.listQueues((err, names) => (err ? reject(err) : resolve(names))))),
        ],
        [ok(1), ok(["q"])],
      ));
  });

  describe("deleteQueue", () => {
    it("deletes the queue with its messages, then reports queueNotFound", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "q" })),
          await outcome(api.createQueueAsync({ qname: "keep" })),
          await outcome(api.sendMessageAsync({ qname: "q", message: "a" })),
          await outcome(api.sendMessageAsync({ qname: "q", message: "b", delay: 100 })),
          await outcome(api.receiveMessageAsync({ qname: "q" })),
          await outcome(api.deleteQueueAsync({ qname: "q" })),
          await attributesOf(api),
          await outcome(api.receiveMessageAsync({ qname: "q" })),
          await outcome(api.sendMessageAsync({ qname: "q", message: "c" })),
          await outcome(api.deleteQueueAsync({ qname: "q" })),
          await sortedQueues(api),
        ],
        [
          ok(1),
          ok(1),
          ok("<id1>"),
          ok("<id2>"),
          ok({ id: "<id1>", message: "a", rc: 1, fr: "<ms>", sent: "<ms>" }),
          ok(1),
          QUEUE_NOT_FOUND,
          QUEUE_NOT_FOUND,
          QUEUE_NOT_FOUND,
          QUEUE_NOT_FOUND,
          ok(["keep"]),
        ],
      ));

    it("of a queue that never existed (and is not listed): queueNotFound", () =>
      expectSameAsRsmq(
        async (api) => [await outcome(api.deleteQueueAsync({ qname: "nope" })), await sortedQueues(api)],
        [QUEUE_NOT_FOUND, ok([])],
      ));

    it("then createQueue again starts from fresh settings and counters", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "q", vt: 5 })),
          await outcome(api.sendMessageAsync({ qname: "q", message: "a", delay: 10 })),
          await outcome(api.deleteQueueAsync({ qname: "q" })),
          await outcome(api.createQueueAsync({ qname: "q" })),
          await attributesOf(api),
        ],
        [ok(1), ok("<id1>"), ok(1), ok(1), attributes()],
      ));
  });

  describe("getQueueAttributes", () => {
    it("counts totalsent, totalrecv, msgs and hiddenmsgs", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "q" })),
          await attributesOf(api),
          await outcome(api.sendMessageAsync({ qname: "q", message: "1" })),
          await outcome(api.sendMessageAsync({ qname: "q", message: "2" })),
          await outcome(api.sendMessageAsync({ qname: "q", message: "3" })),
          await outcome(api.receiveMessageAsync({ qname: "q" })),
          await outcome(api.receiveMessageAsync({ qname: "q", vt: 50 })),
          await outcome(api.popMessageAsync({ qname: "q" })),
          // Every remaining message is hidden now: two in flight.
          await attributesOf(api),
          await outcome(api.sendMessageAsync({ qname: "q", message: "4", delay: 60 })),
          await attributesOf(api),
          await outcome(api.receiveMessageAsync({ qname: "q" })),
          await attributesOf(api),
        ],
        [
          ok(1),
          attributes(),
          ok("<id1>"),
          ok("<id2>"),
          ok("<id3>"),
          ok({ id: "<id1>", message: "1", rc: 1, fr: "<ms>", sent: "<ms>" }),
          ok({ id: "<id2>", message: "2", rc: 1, fr: "<ms>", sent: "<ms>" }),
          ok({ id: "<id3>", message: "3", rc: 1, fr: "<ms>", sent: "<ms>" }),
          attributes({ totalsent: 3, totalrecv: 3, msgs: 2, hiddenmsgs: 2 }),
          ok("<id4>"),
          attributes({ totalsent: 4, totalrecv: 3, msgs: 3, hiddenmsgs: 3 }),
          ok({}),
          attributes({ totalsent: 4, totalrecv: 3, msgs: 3, hiddenmsgs: 3 }),
        ],
      ));

    it("keeps the counters when messages are deleted", () =>
      expectSameAsRsmq(
        async (api) => {
          await api.createQueueAsync({ qname: "q", delay: 30 });
          const first = await api.sendMessageAsync({ qname: "q", message: "1" });
          await api.sendMessageAsync({ qname: "q", message: "2" });
          return [await outcome(api.deleteMessageAsync({ qname: "q", id: first })), await attributesOf(api)];
        },
        [ok(1), attributes({ delay: 30, totalsent: 2, msgs: 1, hiddenmsgs: 1 })],
      ));

    it("of a missing queue: queueNotFound", () => expectSameAsRsmq(async (api) => [await attributesOf(api, "nope")], [QUEUE_NOT_FOUND]));
  });

  describe("setQueueAttributes", () => {
    it("sets each attribute alone and returns the new attributes", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "q" })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", vt: 12 })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", delay: 3 })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", maxsize: 1024 })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", maxsize: -1 })),
          await attributesOf(api),
        ],
        [
          ok(1),
          attributes({ vt: 12 }),
          attributes({ vt: 12, delay: 3 }),
          attributes({ vt: 12, delay: 3, maxsize: 1024 }),
          attributes({ vt: 12, delay: 3, maxsize: -1 }),
          attributes({ vt: 12, delay: 3, maxsize: -1 }),
        ],
      ));

    it("sets several at once, at the bounds, from numeric strings, ignoring null ones", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "q" })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", vt: 0, delay: 9999999, maxsize: 65536 })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", vt: "7abc", delay: 2.9, maxsize: "1500.5" })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", vt: null, delay: 4, maxsize: undefined })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", vt: 9999999, maxsize: "-1" })),
        ],
        [
          ok(1),
          attributes({ vt: 0, delay: 9999999, maxsize: 65536 }),
          attributes({ vt: 7, delay: 2, maxsize: 1500 }),
          attributes({ vt: 7, delay: 4, maxsize: 1500 }),
          attributes({ vt: 9999999, delay: 4, maxsize: -1 }),
        ],
      ));

    it("stamps modified with the server's time and leaves created alone", () =>
      expectSameAsRsmq(
        async (api, raw) => {
          const steps = [await outcome(api.createQueueAsync({ qname: "q" }))];
          // Back-date both, so "changed" and "unchanged" are told apart within the same second.
          await raw.client.hSet(raw.key("q:Q"), { created: "1000000000", modified: "1000000001" });
          return [...steps, await attributesOf(api), await outcome(api.setQueueAttributesAsync({ qname: "q", vt: 9 }))];
        },
        [
          ok(1),
          ok({
            vt: 30,
            delay: 0,
            maxsize: 65536,
            totalrecv: 0,
            totalsent: 0,
            msgs: 0,
            hiddenmsgs: 0,
            created: 1000000000,
            modified: 1000000001,
          }),
          ok({ vt: 9, delay: 0, maxsize: 65536, totalrecv: 0, totalsent: 0, msgs: 0, hiddenmsgs: 0, created: 1000000000, modified: "<s>" }),
        ],
      ));

    it("reports counters and hidden messages in its result", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "q" })),
          await outcome(api.sendMessageAsync({ qname: "q", message: "a", delay: 20 })),
          await outcome(api.sendMessageAsync({ qname: "q", message: "b" })),
          await outcome(api.receiveMessageAsync({ qname: "q" })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", delay: 1 })),
        ],
        [
          ok(1),
          ok("<id1>"),
          ok("<id2>"),
          ok({ id: "<id2>", message: "b", rc: 1, fr: "<ms>", sent: "<ms>" }),
          attributes({ delay: 1, totalsent: 2, totalrecv: 1, msgs: 2, hiddenmsgs: 2 }),
        ],
      ));

    it("changes how later messages are sent and received", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "q" })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", vt: 5, maxsize: 1024 })),
          await outcome(api.sendMessageAsync({ qname: "q", message: "x".repeat(1025) })),
          await outcome(api.sendMessageAsync({ qname: "q", message: "fits" })),
          // Received with the new default vt: the snapshot shows it hidden for 5 s.
          await outcome(api.receiveMessageAsync({ qname: "q" })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", delay: 40 })),
          // Sent with the new default delay: hidden for 40 s.
          await outcome(api.sendMessageAsync({ qname: "q", message: "later" })),
          await outcome(api.receiveMessageAsync({ qname: "q" })),
        ],
        [
          ok(1),
          attributes({ vt: 5, maxsize: 1024 }),
          fails("messageTooLong", "Message too long"),
          ok("<id1>"),
          ok({ id: "<id1>", message: "fits", rc: 1, fr: "<ms>", sent: "<ms>" }),
          attributes({ vt: 5, delay: 40, maxsize: 1024, totalsent: 1, totalrecv: 1, msgs: 1, hiddenmsgs: 1 }),
          ok("<id2>"),
          ok({}),
        ],
      ));

    it("without an attribute: noAttributeSupplied; invalid values: rsmq's errors", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.createQueueAsync({ qname: "q" })),
          await outcome(api.setQueueAttributesAsync({ qname: "q" })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", vt: -1 })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", delay: "abc" })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", maxsize: 1023 })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", maxsize: 65537 })),
          await outcome(api.setQueueAttributesAsync({ qname: "q", vt: 10000000 })),
          await attributesOf(api),
        ],
        [
          ok(1),
          fails("noAttributeSupplied", "No attribute was supplied"),
          fails("invalidValue", "vt must be between 0 and 9999999"),
          fails("invalidValue", "delay must be between 0 and 9999999"),
          fails("invalidValue", "maxsize must be between 1024 and 65536"),
          fails("invalidValue", "maxsize must be between 1024 and 65536"),
          fails("invalidValue", "vt must be between 0 and 9999999"),
          attributes(),
        ],
      ));

    it("of a missing queue: queueNotFound and nothing written", () =>
      expectSameAsRsmq(
        async (api) => [
          await outcome(api.setQueueAttributesAsync({ qname: "nope", vt: 5 })),
          await outcome(api.setQueueAttributesAsync({ qname: "nope", vt: 5, delay: 5, maxsize: 2000 })),
          await sortedQueues(api),
        ],
        [QUEUE_NOT_FOUND, QUEUE_NOT_FOUND, ok([])],
      ));
  });

  describe("quit", () => {
    it("resolves 'OK' (promise form)", () =>
      expectSameAsRsmq(
        async (api) => [await outcome(api.createQueueAsync({ qname: "q" })), await outcome(api.quitAsync())],
        [ok(1), ok("OK")],
      ));

    it("calls back with 'OK' (callback form)", () =>
      expectSameAsRsmq(
        async (api) => [await outcome(api.createQueueAsync({ qname: "q" })), await viaCallback((_, cb) => api.quit(cb), undefined)],
        [ok(1), ok("OK")],
      ));
  });
});
