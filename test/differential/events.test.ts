/**
 * The events of an instance, against rsmq 0.12.4's: `connect`, then `scriptload:popMessage`,
 * `scriptload:receiveMessage` and `scriptload:changeMessageVisibility` once after each connect
 * (rsmq loads its three scripts then; rsmq-next needs no loading and emits them right after
 * `connect`), so code that waits for one before it consumes (`rsmq.once("scriptload:receiveMessage",
 * start)`) starts on both, and hears them again after a reconnect the same number of times.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import OldRSMQ = require("rsmq");
import RedisSMQ = require("../../lib/index");
import { optionsFor } from "../support/differential";
import type { Library } from "../support/differential";
import { onIoredis, singleServerClient, singleServerOnly, uniqueNs } from "../support/server";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const SCRIPT_LOADS = ["scriptload:popMessage", "scriptload:receiveMessage", "scriptload:changeMessageVisibility"] as const;
const EVENTS = ["connect", ...SCRIPT_LOADS] as const;

interface Emitter {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  once(event: string, listener: (...args: unknown[]) => void): unknown;
  listQueuesAsync(): Promise<string[]>;
  quitAsync(): Promise<unknown>;
}

/** A new instance of `library` with `extra` options, every event it emits recorded from construction on. */
function recorded(library: Library, extra: Record<string, unknown> = {}): { rsmq: Emitter; events: string[]; ns: string } {
  const ns = uniqueNs(library === "rsmq" ? "old" : "new");
  const options = { ...optionsFor(library, ns), ...extra };
  const rsmq = (library === "rsmq" ? new OldRSMQ(options) : new RedisSMQ(options)) as unknown as Emitter;
  const events: string[] = [];
  for (const event of EVENTS) rsmq.on(event, () => events.push(event));
  // rsmq 0.12.4 reports a killed connection as `disconnect`; either way it must not crash the test.
  rsmq.on("error", () => undefined);
  return { rsmq, events, ns };
}

const count = (events: string[]): Record<string, number> =>
  Object.fromEntries(EVENTS.map((event) => [event, events.filter((seen) => seen === event).length]));

/** `promise`, or a rejection naming `what` after `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)),
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The ids of the normal client connections on the single server. */
async function clientIds(admin: RedisClientType): Promise<Set<string>> {
  const list = await admin.sendCommand<string>(["CLIENT", "LIST", "TYPE", "normal"]);
  return new Set([...list.matchAll(/^id=(\d+) /gm)].map((match) => match[1]));
}

describe("differential: connect and scriptload events", () => {
  const opened: Emitter[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((rsmq) => rsmq.quitAsync().catch(() => undefined)));
  });

  function open(library: Library, extra: Record<string, unknown> = {}): ReturnType<typeof recorded> {
    const instance = recorded(library, extra);
    opened.push(instance.rsmq);
    return instance;
  }

  it("a listener added after the constructor hears connect, then each scriptload once, in rsmq's order", async () => {
    const seen: Record<Library, string[]> = { rsmq: [], next: [] };
    for (const library of ["rsmq", "next"] as const) {
      const { rsmq, events } = open(library);
      await waitFor(() => events.includes("scriptload:changeMessageVisibility"), `${library}'s scriptload:changeMessageVisibility`);
      await rsmq.listQueuesAsync();
      seen[library] = events;
    }
    expect(seen.next).to.deep.equal(seen.rsmq);
    expect(seen.next).to.deep.equal([
      "connect",
      "scriptload:popMessage",
      "scriptload:receiveMessage",
      "scriptload:changeMessageVisibility",
    ]);
  });

  it('starts a consumer that waits for it: rsmq.once("scriptload:receiveMessage", start)', async () => {
    const received: Record<Library, unknown> = { rsmq: undefined, next: undefined };
    for (const library of ["rsmq", "next"] as const) {
      const ns = uniqueNs();
      const rsmq = (library === "rsmq" ? new OldRSMQ(optionsFor(library, ns)) : new RedisSMQ(optionsFor(library, ns))) as RedisSMQ;
      opened.push(rsmq as unknown as Emitter);
      // Typed: "scriptload:receiveMessage" is one of RedisSMQEvents.
      const consumed = new Promise((resolve, reject) => {
        const start = (): void => {
          rsmq.createQueue({ qname: "jobs" }, (createError) => {
            if (createError) return reject(createError);
            rsmq.sendMessage({ qname: "jobs", message: "hello" }, (sendError) => {
              if (sendError) return reject(sendError);
              rsmq.receiveMessage({ qname: "jobs" }, (error, message) =>
                error ? reject(error) : resolve((message as { message: string }).message),
              );
            });
          });
        };
        rsmq.once("scriptload:receiveMessage", start);
      });
      received[library] = await within(10_000, `${library}'s scriptload:receiveMessage and the consumer it starts`, consumed);
    }
    expect(received).to.deep.equal({ rsmq: "hello", next: "hello" });
  });

  describe("across a reconnect (every connection of the instance killed by the server)", function () {
    beforeEach(function () {
      singleServerOnly(this, "it kills the instance's connections on the one server");
    });

    for (const extra of [{}, { connections: 2 }, { connections: 1 }]) {
      const label = "connections" in extra ? `connections: ${extra.connections}` : "the default connections";
      it(`connect and each scriptload come once more, as with rsmq 0.12.4 (rsmq-next at ${label})`, async function () {
        // An ioredis client is one connection: `connections` is refused with it.
        if (onIoredis() && "connections" in extra) this.skip();
        const admin = await singleServerClient();
        try {
          const counts: Record<Library, Record<string, number>> = { rsmq: {}, next: {} };
          for (const library of ["rsmq", "next"] as const) {
            const before = await clientIds(admin);
            const { rsmq, events } = open(library, library === "next" ? extra : {});
            await waitFor(() => events.includes("scriptload:changeMessageVisibility"), `${library}'s first scriptloads`);
            await rsmq.listQueuesAsync();
            const own = [...(await clientIds(admin))].filter((id) => !before.has(id));
            expect(own, `${library}'s connections`).to.not.be.empty;
            // All at once (one pipeline), so none reconnects before the last is killed.
            await Promise.all(own.map((id) => admin.sendCommand(["CLIENT", "KILL", "ID", id])));
            await waitFor(
              () => events.filter((event) => event === "scriptload:changeMessageVisibility").length >= 2,
              `${library}'s scriptloads after the reconnect`,
            );
            // A call answered after the reconnect: anything emitted for it has been emitted by now.
            await rsmq.listQueuesAsync();
            counts[library] = count(events);
          }
          expect(counts.next).to.deep.equal(counts.rsmq);
          expect(counts.next).to.deep.equal({
            connect: 2,
            "scriptload:popMessage": 2,
            "scriptload:receiveMessage": 2,
            "scriptload:changeMessageVisibility": 2,
          });
        } finally {
          await admin.quit();
        }
      });
    }
  });
});
