/**
 * The intentional differences from rsmq 0.12.4 (1-6 of the list in docs/differences.md): each test asserts
 * rsmq-next's documented behaviour and, beside it, what rsmq 0.12.4 does instead, so the test
 * itself documents the difference.
 */
import { expect } from "chai";
import { singleServerOnly } from "../support/server";
import { clientCommands, monitor } from "../support/wire";
import { exactState, fails, ok, open, outcome } from "../support/differential";
import type { Api, Callback, Instance, Outcome } from "../support/differential";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const QUEUE_NOT_FOUND = fails("queueNotFound", "Queue not found");
const UNKNOWN_ID = "0123456789abcdefghijABCDEFGHIJ01";

/** Resolves once `condition` holds, checking after each turn of the event loop (no timers). */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 10_000 && !condition(); turn++) await new Promise((resolve) => setImmediate(resolve));
  expect(condition(), "condition reached").to.equal(true);
}

/** rsmq-next's outcome of `step`, the commands it sent, and whether it changed the namespace. */
async function observeNext(
  next: Instance,
  step: (api: Api) => Promise<unknown>,
): Promise<{ result: Outcome; commands: string[]; scriptCommands: string[]; unchanged: boolean }> {
  const before = await exactState(next.data, next.ns);
  let result: Outcome | undefined;
  const seen = await monitor(async () => {
    result = await outcome(step(next.api));
  });
  const after = await exactState(next.data, next.ns);
  return {
    result: result as Outcome,
    // A node-redis 5/6 cluster client passed in opens its connection to a node at its first
    // command there, starting with HELLO: the client's handshake, not a command of the step.
    commands: clientCommands(seen).filter((name) => name !== "hello"),
    scriptCommands: seen.filter((command) => command.fromScript).map((command) => command.name),
    unchanged: JSON.stringify(after) === JSON.stringify(before),
  };
}

describe("differential: intentional differences from rsmq 0.12.4", () => {
  let old: Instance;
  let next: Instance;

  beforeEach(async () => {
    [old, next] = await Promise.all([open("rsmq"), open("next")]);
  });

  afterEach(async () => {
    await Promise.all([old?.close(), next?.close()]);
  });

  describe("1. all input is validated before any round trip", () => {
    const cases: Array<[string, (api: Api) => Promise<unknown>, Outcome]> = [
      [
        "receiveMessage vt -1",
        (api) => api.receiveMessageAsync({ qname: "nope", vt: -1 }),
        fails("invalidValue", "vt must be between 0 and 9999999"),
      ],
      [
        "receiveMessage vt 'abc'",
        (api) => api.receiveMessageAsync({ qname: "nope", vt: "abc" }),
        fails("invalidValue", "vt must be between 0 and 9999999"),
      ],
      [
        "sendMessage delay -1",
        (api) => api.sendMessageAsync({ qname: "nope", message: "m", delay: -1 }),
        fails("invalidValue", "delay must be between 0 and 9999999"),
      ],
      [
        "sendMessage delay 10000000",
        (api) => api.sendMessageAsync({ qname: "nope", message: "m", delay: 10000000 }),
        fails("invalidValue", "delay must be between 0 and 9999999"),
      ],
      [
        "sendMessage message 42",
        (api) => api.sendMessageAsync({ qname: "nope", message: 42 }),
        fails("messageNotString", "Message must be a string"),
      ],
      [
        "sendMessage without message",
        (api) => api.sendMessageAsync({ qname: "nope" }),
        fails("messageNotString", "Message must be a string"),
      ],
    ];
    for (const [title, step, expected] of cases) {
      it(`missing queue + ${title}: the input error, no command (rsmq: queueNotFound)`, async () => {
        expect(await outcome(step(old.api)), "rsmq").to.deep.equal(QUEUE_NOT_FOUND);
        const { result, commands, unchanged } = await observeNext(next, step);
        expect(result).to.deep.equal(expected);
        expect(commands).to.deep.equal([]);
        expect(unchanged).to.equal(true);
      });
    }

    it("where rsmq also validates first (setQueueAttributes, changeMessageVisibility), both agree", async () => {
      const steps = [
        (api: Api) => api.setQueueAttributesAsync({ qname: "nope", vt: -1 }),
        (api: Api) => api.changeMessageVisibilityAsync({ qname: "nope", id: UNKNOWN_ID, vt: -1 }),
      ];
      for (const step of steps) {
        const theirs = await outcome(step(old.api));
        expect(theirs).to.deep.equal(fails("invalidValue", "vt must be between 0 and 9999999"));
        expect((await observeNext(next, step)).result).to.deep.equal(theirs);
      }
    });
  });

  describe('2. qname "QUEUES" is rejected everywhere', () => {
    const reserved = fails("invalidFormat", 'Invalid qname format: "QUEUES" is reserved for the queue list');
    const calls: Array<[string, (api: Api) => Promise<unknown>]> = [
      ["createQueue", (api) => api.createQueueAsync({ qname: "QUEUES" })],
      ["deleteQueue", (api) => api.deleteQueueAsync({ qname: "QUEUES" })],
      ["getQueueAttributes", (api) => api.getQueueAttributesAsync({ qname: "QUEUES" })],
      ["setQueueAttributes", (api) => api.setQueueAttributesAsync({ qname: "QUEUES", vt: 5 })],
      ["sendMessage", (api) => api.sendMessageAsync({ qname: "QUEUES", message: "m" })],
      ["receiveMessage", (api) => api.receiveMessageAsync({ qname: "QUEUES" })],
      [
        "receiveMessageOrNextDue",
        (api) =>
          (api as unknown as { receiveMessageOrNextDueAsync: Api["receiveMessageAsync"] }).receiveMessageOrNextDueAsync({
            qname: "QUEUES",
          }),
      ],
      ["popMessage", (api) => api.popMessageAsync({ qname: "QUEUES" })],
      ["deleteMessage", (api) => api.deleteMessageAsync({ qname: "QUEUES", id: UNKNOWN_ID })],
      ["changeMessageVisibility", (api) => api.changeMessageVisibilityAsync({ qname: "QUEUES", id: UNKNOWN_ID, vt: 5 })],
    ];
    for (const [method, call] of calls) {
      it(`${method}: invalidFormat, no command, nothing written`, async () => {
        // A real queue beside it: the registry must stay exactly as it is.
        await next.api.createQueueAsync({ qname: "other" });
        const { result, commands, unchanged } = await observeNext(next, call);
        expect(result).to.deep.equal(reserved);
        expect(commands).to.deep.equal([]);
        expect(unchanged).to.equal(true);
      });
    }

    it("rsmq instead creates it and then accepts messages it cannot store", async () => {
      expect(await outcome(old.api.createQueueAsync({ qname: "QUEUES" }))).to.deep.equal(ok(1));
      const sent = await outcome(old.api.sendMessageAsync({ qname: "QUEUES", message: "lost" }));
      expect((sent as { value: string }).value)
        .to.be.a("string")
        .with.lengthOf(32);
      // The registry is still a set (the message's ZADD failed inside rsmq's MULTI), so the
      // "sent" message is in no sorted set and can never be received.
      expect(await old.data.type(old.key("QUEUES"))).to.equal("set");
      expect(await old.api.listQueuesAsync()).to.deep.equal(["QUEUES"]);
    });
  });

  describe("3. deleteQueue of a missing queue writes nothing", () => {
    it("keeps a registry entry without queue keys (rsmq removes it)", async () => {
      // In Redis Cluster the registry is in another slot than the queue, so deleteQueue is the
      // queue's script and then an SREM of the name, always (lib/operations/delete-queue.ts): a
      // listed name without a queue is removed there, as rsmq does. Asserted below on a cluster.
      // A name in the registry whose queue keys are gone (e.g. deleted by hand, or expired).
      for (const { data, key } of [old, next]) await data.sAdd(key("QUEUES"), ["ghost", "real"]);

      expect(await outcome(old.api.deleteQueueAsync({ qname: "ghost" })), "rsmq").to.deep.equal(QUEUE_NOT_FOUND);
      expect((await old.api.listQueuesAsync()).sort(), "rsmq's registry").to.deep.equal(["real"]);

      const { result, commands, scriptCommands, unchanged } = await observeNext(next, (api) => api.deleteQueueAsync({ qname: "ghost" }));
      expect(result).to.deep.equal(QUEUE_NOT_FOUND);
      expect(scriptCommands).to.not.include("srem");
      // One script call (EVAL follows only if the server had not cached the script yet); the
      // script's DEL finds nothing and it stops there: no SREM (on a cluster, no SREM command).
      expect(commands.filter((name) => name !== "eval")).to.deep.equal(["evalsha"]);
      expect(unchanged).to.equal(true);
      expect((await next.api.listQueuesAsync()).sort()).to.deep.equal(["ghost", "real"]);
    });
  });

  describe("4. hiddenmsgs counts scores later than now in milliseconds", () => {
    it("a visible message sent this second is not hidden (rsmq counts it, comparing with <sec>000)", async function () {
      singleServerOnly(this, "rsmq 0.12.4 reads rsmq-next's queue");
      // Both libraries read the same queue: rsmq-next's data is rsmq's.
      const shared = await open("rsmq", next.ns);
      try {
        await next.api.createQueueAsync({ qname: "q" });
        const serverSecond = async (): Promise<string> => (await next.data.sendCommand<string[]>(["TIME"]))[0];
        let compared = false;
        for (let attempt = 0; attempt < 5 && !compared; attempt++) {
          const start = await serverSecond();
          await next.api.sendMessageAsync({ qname: "q", message: "due now" });
          const ours = (await next.api.getQueueAttributesAsync({ qname: "q" })) as { msgs: number; hiddenmsgs: number };
          const theirs = (await shared.api.getQueueAttributesAsync({ qname: "q" })) as { msgs: number; hiddenmsgs: number };
          expect([ours.msgs, ours.hiddenmsgs], "rsmq-next: msgs, hiddenmsgs").to.deep.equal([1, 0]);
          // rsmq's answer depends on the clock: only within the same second does it count the message.
          if ((await serverSecond()) === start) {
            expect([theirs.msgs, theirs.hiddenmsgs], "rsmq: msgs, hiddenmsgs").to.deep.equal([1, 1]);
            compared = true;
          }
          // The message really is visible: a receive gets it.
          const received = (await next.api.popMessageAsync({ qname: "q" })) as { message?: string };
          expect(received.message).to.equal("due now");
        }
        expect(compared, "one attempt stayed within a second").to.equal(true);
      } finally {
        await shared.close();
      }
    });

    it("a message hidden for a second or more counts for both", async function () {
      singleServerOnly(this, "rsmq 0.12.4 reads rsmq-next's queue");
      const shared = await open("rsmq", next.ns);
      try {
        await next.api.createQueueAsync({ qname: "q" });
        await next.api.sendMessageAsync({ qname: "q", message: "later", delay: 1 });
        const ours = (await next.api.getQueueAttributesAsync({ qname: "q" })) as { hiddenmsgs: number };
        const theirs = (await shared.api.getQueueAttributesAsync({ qname: "q" })) as { hiddenmsgs: number };
        expect([ours.hiddenmsgs, theirs.hiddenmsgs]).to.deep.equal([1, 1]);
      } finally {
        await shared.close();
      }
    });
  });

  describe("5. the caller's options objects are never mutated", () => {
    const calls: Array<[string, (api: Api, options: any) => Promise<unknown>, Record<string, unknown>]> = [
      ["createQueue (defaults)", (api, o) => api.createQueueAsync(o), { qname: "q2" }],
      ["createQueue (numeric strings)", (api, o) => api.createQueueAsync(o), { qname: 123, vt: "5abc", delay: 1.9, maxsize: "2048" }],
      ["getQueueAttributes", (api, o) => api.getQueueAttributesAsync(o), { qname: "q" }],
      ["setQueueAttributes", (api, o) => api.setQueueAttributesAsync(o), { qname: "q", vt: "7", maxsize: -1 }],
      ["sendMessage (default delay)", (api, o) => api.sendMessageAsync(o), { qname: "q", message: "m" }],
      ["sendMessage (string delay)", (api, o) => api.sendMessageAsync(o), { qname: "q", message: "m", delay: "0abc" }],
      ["receiveMessage (default vt)", (api, o) => api.receiveMessageAsync(o), { qname: "q" }],
      ["receiveMessage (string vt)", (api, o) => api.receiveMessageAsync(o), { qname: "q", vt: "0" }],
      ["popMessage", (api, o) => api.popMessageAsync(o), { qname: "q" }],
      ["changeMessageVisibility", (api, o) => api.changeMessageVisibilityAsync(o), { qname: "q", id: UNKNOWN_ID, vt: "5" }],
      ["deleteMessage", (api, o) => api.deleteMessageAsync(o), { qname: "q", id: UNKNOWN_ID }],
      ["deleteQueue", (api, o) => api.deleteQueueAsync(o), { qname: "q2" }],
      ["sendMessage (invalid message)", (api, o) => api.sendMessageAsync(o), { qname: "q", message: 5, delay: "1" }],
      ["receiveMessage (invalid vt)", (api, o) => api.receiveMessageAsync(o), { qname: 1, vt: "x" }],
    ];

    it("by any method, on success or error", async () => {
      await next.api.createQueueAsync({ qname: "q" });
      for (const [title, call, options] of calls) {
        const copy = structuredClone(options);
        await outcome(call(next.api, options));
        expect(options, title).to.deep.equal(copy);
      }
    });

    it("rsmq writes defaults and parsed values into them", async () => {
      const create: Record<string, unknown> = { qname: "q" };
      await old.api.createQueueAsync(create);
      expect(create).to.deep.equal({ qname: "q", vt: 30, delay: 0, maxsize: 65536 });
      const send: Record<string, unknown> = { qname: "q", message: "m" };
      await old.api.sendMessageAsync(send);
      expect(send).to.deep.equal({ qname: "q", message: "m", delay: 0 });
      const receive: Record<string, unknown> = { qname: "q", vt: "5abc" };
      await old.api.receiveMessageAsync(receive);
      expect(receive).to.deep.equal({ qname: "q", vt: 5 });
      const numeric: Record<string, unknown> = { qname: 123 };
      await old.api.getQueueAttributesAsync(numeric).catch(() => undefined);
      expect(numeric).to.deep.equal({ qname: "123" });
    });
  });

  describe("6. callbacks are always called asynchronously", () => {
    const invalidCalls: Array<[keyof Api, Record<string, unknown>, string]> = [
      ["createQueue", { qname: "" }, "missingParameter"],
      ["deleteQueue", { qname: "" }, "missingParameter"],
      ["getQueueAttributes", { qname: "" }, "missingParameter"],
      ["setQueueAttributes", { qname: "q" }, "noAttributeSupplied"],
      ["sendMessage", { qname: "" }, "missingParameter"],
      ["receiveMessage", { qname: "" }, "missingParameter"],
      ["popMessage", { qname: "" }, "missingParameter"],
      ["deleteMessage", { qname: "q", id: "x" }, "invalidFormat"],
      ["changeMessageVisibility", { qname: "q", id: UNKNOWN_ID, vt: -1 }, "invalidValue"],
    ];

    /** Calls `method` with a callback; reports whether it ran before the call returned, and its calls. */
    function callWithCallback(api: Api, method: keyof Api, options: unknown): { synchronous: boolean; calls: unknown[][] } {
      const calls: unknown[][] = [];
      const callback: Callback = (...args) => calls.push(args);
      (api[method] as (options: unknown, cb: Callback) => void)({ ...(options as object) }, callback);
      return { synchronous: calls.length > 0, calls };
    }

    for (const [method, options, name] of invalidCalls) {
      it(`${method} with invalid input: called back once, later (rsmq: before returning)`, async () => {
        const ours = callWithCallback(next.api, method, options);
        expect(ours.synchronous, "rsmq-next called back synchronously").to.equal(false);
        await until(() => ours.calls.length > 0);
        await new Promise((resolve) => setImmediate(resolve));
        expect(ours.calls).to.have.lengthOf(1);
        const [error] = ours.calls[0] as [Error];
        expect(error).to.be.instanceOf(Error);
        expect(error.name).to.equal(name);

        const theirs = callWithCallback(old.api, method, options);
        expect(theirs.synchronous, "rsmq called back synchronously").to.equal(true);
        expect((theirs.calls[0][0] as Error).name).to.equal(name);
      });
    }

    it("and on success", async () => {
      const ours = callWithCallback(next.api, "createQueue", { qname: "q" });
      expect(ours.synchronous).to.equal(false);
      await until(() => ours.calls.length > 0);
      expect(ours.calls).to.deep.equal([[null, 1]]);
    });
  });
});
