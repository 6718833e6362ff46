/**
 * Messages, differentially: sendMessage, receiveMessage, popMessage, deleteMessage and
 * changeMessageVisibility run the same steps on rsmq 0.12.4 and rsmq-next; results, errors and
 * the Redis state left behind (bodies, rc/fr fields, scores as seconds from now) must match.
 * Each scenario also pins the expected results.
 */
import { QUEUE_NOT_FOUND, expectSameAsRsmq, fails, ok, outcome, viaCallback } from "../support/differential";
import type { Api, Outcome } from "../support/differential";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const TOO_LONG = fails("messageTooLong", "Message too long");

/** A received message as the normalised results show it. */
function message(id: number, body: string, rc = 1): Outcome {
  return ok({ id: `<id${id}>`, message: body, rc, fr: "<ms>", sent: "<ms>" });
}

const create = (api: Api, options: Record<string, unknown> = {}): Promise<Outcome> =>
  outcome(api.createQueueAsync({ qname: "q", ...options }));
const send = (api: Api, body: unknown, options: Record<string, unknown> = {}): Promise<Outcome> =>
  outcome(api.sendMessageAsync({ qname: "q", message: body, ...options }));
const receive = (api: Api, options: Record<string, unknown> = {}): Promise<Outcome> =>
  outcome(api.receiveMessageAsync({ qname: "q", ...options }));
const pop = (api: Api): Promise<Outcome> => outcome(api.popMessageAsync({ qname: "q" }));

/** The value of a successful outcome (scenarios use ids from earlier steps). */
function valueOf(result: Outcome): any {
  if (!("value" in result)) throw new Error(`step failed: ${JSON.stringify(result)}`);
  return result.value;
}

/** Long bodies are compared by length and content, so a failure does not print 100 kB. */
function summarised(result: Outcome, expectedBody: string): Outcome {
  const value = valueOf(result);
  return ok({ ...value, message: { length: value.message.length, same: value.message === expectedBody } });
}

describe("differential: messages", () => {
  describe("sendMessage", () => {
    it("with the queue's default delay (0): visible at once", () =>
      expectSameAsRsmq(
        async (api) => [await create(api), await send(api, "hello"), await receive(api)],
        [ok(1), ok("<id1>"), message(1, "hello")],
      ));

    it("with the queue's default delay (20 s): hidden for 20 s", () =>
      expectSameAsRsmq(
        async (api) => [await create(api, { delay: 20 }), await send(api, "later"), await receive(api)],
        [ok(1), ok("<id1>"), ok({})],
      ));

    it("with an explicit delay, delay 0 overriding the queue's, and null meaning the default", () =>
      expectSameAsRsmq(
        async (api) => [
          await create(api, { delay: 20 }),
          await send(api, "five", { delay: 5 }),
          await send(api, "now", { delay: 0 }),
          await send(api, "default", { delay: null }),
          await send(api, "max", { delay: 9999999 }),
          await receive(api),
          await receive(api),
        ],
        [ok(1), ok("<id1>"), ok("<id2>"), ok("<id3>"), ok("<id4>"), message(2, "now"), ok({})],
      ));

    it("with delays rsmq's parseInt accepts: '5abc', 30.9, '0x10', -0.5", () =>
      expectSameAsRsmq(
        async (api) => [
          await create(api),
          await send(api, "a", { delay: "5abc" }),
          await send(api, "b", { delay: 30.9 }),
          await send(api, "c", { delay: "0x10" }),
          await send(api, "d", { delay: -0.5 }),
          await receive(api),
          await receive(api),
          await receive(api),
        ],
        [ok(1), ok("<id1>"), ok("<id2>"), ok("<id3>"), ok("<id4>"), message(3, "c"), message(4, "d"), ok({})],
      ));

    it("measures maxsize in UTF-16 code units: exactly maxsize fits, maxsize + 1 does not", () =>
      expectSameAsRsmq(
        async (api) => [
          await create(api, { maxsize: 1024 }),
          await send(api, "x".repeat(1024)),
          await send(api, "x".repeat(1025)),
          // 2 bytes in UTF-8 but 1 code unit each: 1024 of them fit.
          await send(api, "é".repeat(1024)),
          await send(api, "é".repeat(1025)),
          // 4 bytes in UTF-8 and 2 code units each: 512 fit.
          await send(api, "😀".repeat(512)),
          await send(api, "😀".repeat(512) + "x"),
          summarised(await pop(api), "x".repeat(1024)),
          summarised(await pop(api), "é".repeat(1024)),
          summarised(await pop(api), "😀".repeat(512)),
        ],
        [
          ok(1),
          ok("<id1>"),
          TOO_LONG,
          ok("<id2>"),
          TOO_LONG,
          ok("<id3>"),
          TOO_LONG,
          ok({ id: "<id1>", message: { length: 1024, same: true }, rc: 1, fr: "<ms>", sent: "<ms>" }),
          ok({ id: "<id2>", message: { length: 1024, same: true }, rc: 1, fr: "<ms>", sent: "<ms>" }),
          ok({ id: "<id3>", message: { length: 1024, same: true }, rc: 1, fr: "<ms>", sent: "<ms>" }),
        ],
      ));

    it("with the default maxsize 65536: 65536 fits, 65537 does not", () =>
      expectSameAsRsmq(
        async (api) => [
          await create(api),
          await send(api, "y".repeat(65536)),
          await send(api, "y".repeat(65537)),
          summarised(await pop(api), "y".repeat(65536)),
        ],
        [ok(1), ok("<id1>"), TOO_LONG, ok({ id: "<id1>", message: { length: 65536, same: true }, rc: 1, fr: "<ms>", sent: "<ms>" })],
      ));

    it("with maxsize -1: a 200 000-character message is accepted", () => {
      const big = "z".repeat(150_000) + "é".repeat(50_000);
      return expectSameAsRsmq(
        async (api) => [await create(api, { maxsize: -1 }), await send(api, big), summarised(await receive(api), big)],
        [ok(1), ok("<id1>"), ok({ id: "<id1>", message: { length: 200_000, same: true }, rc: 1, fr: "<ms>", sent: "<ms>" })],
      );
    });

    it("keeps bodies byte for byte: empty, whitespace, newlines, quotes, non-ASCII", () => {
      const bodies = ["", " ", "a\nb\r\n", '{"json":[1,2]}', "'\"\\", "日本語 ✓ 😀", "\u0000nul"];
      return expectSameAsRsmq(
        async (api) => {
          const steps: unknown[] = [await create(api)];
          for (const body of bodies) steps.push(await send(api, body));
          for (const _ of bodies) steps.push(await pop(api));
          return steps;
        },
        [ok(1), ...bodies.map((_, i) => ok(`<id${i + 1}>`)), ...bodies.map((body, i) => message(i + 1, body))],
      );
    });

    it("to a missing queue: queueNotFound", () =>
      expectSameAsRsmq(async (api) => [await send(api, "m"), await send(api, "m", { delay: 3 })], [QUEUE_NOT_FOUND, QUEUE_NOT_FOUND]));
  });

  describe("receiveMessage", () => {
    it("hides the message for the queue's vt by default, then finds nothing", () =>
      expectSameAsRsmq(
        async (api) => [await create(api), await send(api, "m"), await receive(api), await receive(api)],
        [ok(1), ok("<id1>"), message(1, "m"), ok({})],
      ));

    it("with an explicit vt, and null meaning the queue's vt", () =>
      expectSameAsRsmq(
        async (api) => [
          await create(api, { vt: 40 }),
          await send(api, "a"),
          await send(api, "b"),
          await send(api, "c"),
          await receive(api, { vt: 10 }),
          await receive(api, { vt: null }),
          await receive(api, { vt: 9999999 }),
        ],
        [ok(1), ok("<id1>"), ok("<id2>"), ok("<id3>"), message(1, "a"), message(2, "b"), message(3, "c")],
      ));

    it("with vt rsmq's parseInt accepts: '5abc', 1.9", () =>
      expectSameAsRsmq(
        async (api) => [
          await create(api),
          await send(api, "a"),
          await send(api, "b"),
          await receive(api, { vt: "5abc" }),
          await receive(api, { vt: 1.9 }),
        ],
        [ok(1), ok("<id1>"), ok("<id2>"), message(1, "a"), message(2, "b")],
      ));

    it("with vt 0 leaves it visible; the next receive counts rc 2 and keeps fr", () =>
      expectSameAsRsmq(
        async (api) => {
          const steps = [await create(api), await send(api, "m")];
          const first = await receive(api, { vt: 0 });
          const second = await receive(api, { vt: 0 });
          const third = await receive(api);
          const fr = (result: Outcome) => valueOf(result).fr;
          return [...steps, first, second, third, fr(second) === fr(first), fr(third) === fr(first)];
        },
        [ok(1), ok("<id1>"), message(1, "m", 1), message(1, "m", 2), message(1, "m", 3), true, true],
      ));

    it("from an empty queue: {}", () =>
      expectSameAsRsmq(async (api) => [await create(api), await receive(api), await receive(api, { vt: 5 })], [ok(1), ok({}), ok({})]));

    it("in FIFO order for messages sent in a row", () =>
      expectSameAsRsmq(
        async (api) => {
          const steps: unknown[] = [await create(api)];
          for (let i = 1; i <= 6; i++) steps.push(await send(api, `m${i}`));
          for (let i = 1; i <= 7; i++) steps.push(await receive(api));
          return steps;
        },
        [ok(1), ...[1, 2, 3, 4, 5, 6].map((i) => ok(`<id${i}>`)), ...[1, 2, 3, 4, 5, 6].map((i) => message(i, `m${i}`)), ok({})],
      ));

    it("in FIFO order for messages sent at once (concurrently)", () =>
      expectSameAsRsmq(
        async (api) => {
          await create(api);
          // Sent without waiting: the ids (send times) decide the order, and receive follows it.
          const ids = (await Promise.all([1, 2, 3, 4].map((i) => api.sendMessageAsync({ qname: "q", message: `m${i}` })))) as string[];
          const sorted = [...ids].sort();
          const received: unknown[] = [];
          for (let i = 0; i < 4; i++) received.push(valueOf(await receive(api)).id);
          return [received.map((id) => sorted.indexOf(id as string))];
        },
        [[0, 1, 2, 3]],
      ));

    it("from a missing queue: queueNotFound", () =>
      expectSameAsRsmq(async (api) => [await receive(api), await receive(api, { vt: 5 })], [QUEUE_NOT_FOUND, QUEUE_NOT_FOUND]));
  });

  describe("popMessage", () => {
    it("returns the next message and deletes it; {} when none is visible", () =>
      expectSameAsRsmq(
        async (api) => [
          await create(api),
          await pop(api),
          await send(api, "a"),
          await send(api, "b"),
          await send(api, "c", { delay: 30 }),
          await pop(api),
          await pop(api),
          await pop(api),
        ],
        [ok(1), ok({}), ok("<id1>"), ok("<id2>"), ok("<id3>"), message(1, "a"), message(2, "b"), ok({})],
      ));

    it("of a message received before: rc counts on, fr is kept, all its fields go", () =>
      expectSameAsRsmq(
        async (api) => {
          const steps = [await create(api), await send(api, "m")];
          const received = await receive(api, { vt: 0 });
          const popped = await pop(api);
          return [...steps, received, popped, valueOf(popped).fr === valueOf(received).fr, await receive(api)];
        },
        [ok(1), ok("<id1>"), message(1, "m", 1), message(1, "m", 2), true, ok({})],
      ));

    it("from a missing queue: queueNotFound", () => expectSameAsRsmq(async (api) => [await pop(api)], [QUEUE_NOT_FOUND]));
  });

  describe("deleteMessage", () => {
    it("deletes a message: 1, then 0", () =>
      expectSameAsRsmq(
        async (api) => {
          const steps = [await create(api), await send(api, "a"), await send(api, "b")];
          const id = valueOf(steps[1]);
          return [
            ...steps,
            await outcome(api.deleteMessageAsync({ qname: "q", id })),
            await outcome(api.deleteMessageAsync({ qname: "q", id })),
            await receive(api),
            await receive(api),
          ];
        },
        [ok(1), ok("<id1>"), ok("<id2>"), ok(1), ok(0), message(2, "b"), ok({})],
      ));

    it("deletes a received message with its rc and fr fields", () =>
      expectSameAsRsmq(
        async (api) => {
          const steps = [await create(api), await send(api, "a"), await receive(api)];
          return [...steps, await outcome(api.deleteMessageAsync({ qname: "q", id: valueOf(steps[1]) }))];
        },
        [ok(1), ok("<id1>"), message(1, "a"), ok(1)],
      ));

    it("of an unknown id, an id with ':' and a message of another queue: 0", () =>
      expectSameAsRsmq(
        async (api) => {
          const steps = [await create(api), await outcome(api.createQueueAsync({ qname: "other" })), await send(api, "a")];
          const id = valueOf(steps[2]);
          return [
            ...steps,
            await outcome(api.deleteMessageAsync({ qname: "q", id: "0123456789abcdefghijABCDEFGHIJ01" })),
            await outcome(api.deleteMessageAsync({ qname: "q", id: "a".repeat(31) + ":" })),
            await outcome(api.deleteMessageAsync({ qname: "other", id })),
          ];
        },
        [ok(1), ok(1), ok("<id1>"), ok(0), ok(0), ok(0)],
      ));

    it("of a message whose body is gone (only its score is left): 0, and the score is removed", () =>
      expectSameAsRsmq(
        async (api, raw) => {
          const steps = [await create(api), await send(api, "a")];
          const id = valueOf(steps[1]);
          await raw.client.hDel(raw.key("q:Q"), id);
          return [...steps, await outcome(api.deleteMessageAsync({ qname: "q", id }))];
        },
        [ok(1), ok("<id1>"), ok(0)],
      ));

    it("on a missing queue: 0, as rsmq (no existence check)", () =>
      expectSameAsRsmq(
        async (api) => [await outcome(api.deleteMessageAsync({ qname: "nope", id: "0123456789abcdefghijABCDEFGHIJ01" }))],
        [ok(0)],
      ));
  });

  describe("changeMessageVisibility", () => {
    const change = (api: Api, id: unknown, vt: unknown, qname = "q"): Promise<Outcome> =>
      outcome(api.changeMessageVisibilityAsync({ qname, id, vt }));

    it("of an existing message: 1, and it is hidden for vt seconds", () =>
      expectSameAsRsmq(
        async (api) => {
          const steps = [await create(api), await send(api, "a")];
          return [...steps, await change(api, valueOf(steps[1]), 100), await receive(api)];
        },
        [ok(1), ok("<id1>"), ok(1), ok({})],
      ));

    it("with vt 0 makes a hidden message visible again", () =>
      expectSameAsRsmq(
        async (api) => {
          const steps = [await create(api), await send(api, "a"), await receive(api), await receive(api)];
          const id = valueOf(steps[1]);
          return [...steps, await change(api, id, 0), await receive(api, { vt: 15 })];
        },
        [ok(1), ok("<id1>"), message(1, "a"), ok({}), ok(1), message(1, "a", 2)],
      ));

    it("makes a delayed message visible, and accepts vt '5abc' and 20.9", () =>
      expectSameAsRsmq(
        async (api) => {
          const steps = [await create(api), await send(api, "a", { delay: 60 }), await send(api, "b"), await send(api, "c")];
          return [
            ...steps,
            await change(api, valueOf(steps[1]), 0),
            await change(api, valueOf(steps[2]), "5abc"),
            await change(api, valueOf(steps[3]), 20.9),
            await receive(api),
            await receive(api),
          ];
        },
        [ok(1), ok("<id1>"), ok("<id2>"), ok("<id3>"), ok(1), ok(1), ok(1), message(1, "a"), ok({})],
      ));

    it("of an unknown id: 0, and nothing is added", () =>
      expectSameAsRsmq(
        async (api) => [await create(api), await change(api, "0123456789abcdefghijABCDEFGHIJ01", 10), await receive(api)],
        [ok(1), ok(0), ok({})],
      ));

    it("of a deleted message: 0", () =>
      expectSameAsRsmq(
        async (api) => {
          const steps = [await create(api), await send(api, "a"), await pop(api)];
          return [...steps, await change(api, valueOf(steps[1]), 10)];
        },
        [ok(1), ok("<id1>"), message(1, "a"), ok(0)],
      ));

    it("on a missing queue: queueNotFound", () =>
      expectSameAsRsmq(async (api) => [await change(api, "0123456789abcdefghijABCDEFGHIJ01", 10, "nope")], [QUEUE_NOT_FOUND]));
  });

  describe("callback API", () => {
    it("every method answers through its callback as rsmq does, errors included", () =>
      expectSameAsRsmq(
        async (api) => {
          const steps: unknown[] = [
            await viaCallback(api.createQueue, { qname: "q" }),
            await viaCallback(api.createQueue, { qname: "q" }),
            await viaCallback(api.createQueue, { qname: "bad name" }),
            await viaCallback(api.getQueueAttributes, { qname: "q" }),
            await viaCallback(api.setQueueAttributes, { qname: "q", vt: 3 }),
            await viaCallback(api.setQueueAttributes, { qname: "q" }),
          ];
          const sent = await viaCallback(api.sendMessage, { qname: "q", message: "a" });
          steps.push(
            sent,
            await viaCallback(api.sendMessage, { qname: "q", message: 5 }),
            await viaCallback(api.receiveMessage, { qname: "q", vt: 0 }),
            await viaCallback(api.receiveMessage, { qname: "q", vt: -1 }),
            await viaCallback(api.changeMessageVisibility, { qname: "q", id: valueOf(sent), vt: 0 }),
            await viaCallback(api.changeMessageVisibility, { qname: "q", id: "bad", vt: 0 }),
            await viaCallback(api.popMessage, { qname: "q" }),
            await viaCallback(api.popMessage, { qname: "" }),
            await viaCallback(api.deleteMessage, { qname: "q", id: valueOf(sent) }),
            await viaCallback(api.deleteMessage, { qname: "q" }),
            await viaCallback(api.deleteQueue, { qname: "q" }),
            await viaCallback(api.deleteQueue, { qname: "q" }),
          );
          return steps;
        },
        [
          ok(1),
          fails("queueExists", "Queue exists"),
          fails("invalidFormat", "Invalid qname format"),
          ok({ vt: 30, delay: 0, maxsize: 65536, totalrecv: 0, totalsent: 0, created: "<s>", modified: "<s>", msgs: 0, hiddenmsgs: 0 }),
          ok({ vt: 3, delay: 0, maxsize: 65536, totalrecv: 0, totalsent: 0, created: "<s>", modified: "<s>", msgs: 0, hiddenmsgs: 0 }),
          fails("noAttributeSupplied", "No attribute was supplied"),
          ok("<id1>"),
          fails("messageNotString", "Message must be a string"),
          message(1, "a"),
          fails("invalidValue", "vt must be between 0 and 9999999"),
          ok(1),
          fails("invalidFormat", "Invalid id format"),
          message(1, "a", 2),
          fails("missingParameter", "No qname supplied"),
          ok(0),
          fails("missingParameter", "No id supplied"),
          ok(1),
          QUEUE_NOT_FOUND,
        ],
      ));
  });
});
