/**
 * What a send with attributes refuses, and what it then leaves: bad attributes (eleven, a bad
 * name, a string or bytes over the bound, a number that is not finite, a value of another type, a
 * value that is not an object of attributes, a bad tenant) are refused before any round trip with
 * nothing sent; a body whose length plus the attributes' JSON length passes the queue's maxsize is
 * refused by the script (`messageTooLong`) with nothing stored, and one exactly at it is stored.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { asMessage, rejectionOf } from "../support/old-rsmq";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { clientCommands, monitor } from "../support/wire";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";
import { everyKind } from "../support/attribute-values";

runsOn("single", "cluster", "client");

describe("message attributes: what a send refuses", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let redis: RedisClientType;
  const cleanup = new Cleanup();

  beforeEach(async () => {
    ns = uniqueNs("attrs");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    redis = await plainClient();
    cleanup.add(() => redis.quit());
    await rsmq.createQueueAsync({ qname: "q", maxsize: 1024 });
  });
  afterEach(() => cleanup.run());

  /** The queue's hash fields and messages: what a refused send must leave as it found them. */
  async function stored(): Promise<{ fields: string[]; messages: number }> {
    const { hash, messages } = keysOf(ns, "q");
    return { fields: (await redis.hKeys(hash)).sort(), messages: await redis.zCard(messages) };
  }

  it("refuses bad attributes and tenants before any round trip: nothing sent, nothing stored", async () => {
    const eleven = { ...everyKind(), one: "more" };
    const send = (options: Partial<RedisSMQ.SendMessageOptions>) =>
      rsmq.sendMessageAsync({ qname: "q", message: "m", ...options } as RedisSMQ.SendMessageOptions);
    const cases: Array<[string, () => Promise<unknown>]> = [
      ["eleven attributes", () => send({ attributes: eleven })],
      ["ten attributes and a tenant", () => send({ attributes: everyKind(), tenant: "acme" })],
      ["a name with a space", () => send({ attributes: { "a b": 1 } })],
      ["an empty name", () => send({ attributes: { "": 1 } })],
      ["a name of 65 characters", () => send({ attributes: { ["n".repeat(65)]: 1 } })],
      ["a string of 1025 characters", () => send({ attributes: { s: "x".repeat(1025) } })],
      ["1025 bytes", () => send({ attributes: { b: new Uint8Array(1025) } })],
      ["NaN", () => send({ attributes: { n: NaN } })],
      ["Infinity", () => send({ attributes: { n: -Infinity } })],
      ["an object value", () => send({ attributes: { o: { x: 1 } } as never })],
      ["a bigint value", () => send({ attributes: { o: BigInt(1) } as never })],
      ["null as the attributes", () => send({ attributes: null as never })],
      ["a string as the attributes", () => send({ attributes: "tenant=a" as never })],
      ["an array as the attributes", () => send({ attributes: [1, 2] as never })],
      ["bytes as the attributes", () => send({ attributes: Buffer.from("ab") as never })],
      ["an empty tenant", () => send({ tenant: "" })],
      ["a tenant of 129 characters", () => send({ tenant: "t".repeat(129) })],
      ["a tenant with a control character", () => send({ tenant: "a\nb" })],
      ["a tenant that is not a string", () => send({ tenant: 7 as never })],
      ["a tenant attribute that is not a string", () => send({ attributes: { tenant: 7 } })],
      ["a tenant option other than the tenant attribute", () => send({ tenant: "a", attributes: { tenant: "b" } })],
    ];
    const before = await stored();
    const names: string[] = [];
    const commands = await monitor(async () => {
      for (const [, call] of cases) names.push((await rejectionOf(call())).name);
    });
    expect(names).to.deep.equal(cases.map(() => "invalidValue"));
    expect(clientCommands(commands)).to.deep.equal([]);
    expect(await stored()).to.deep.equal(before);
  });

  it("names the attribute it refused", async () => {
    const error = await rejectionOf(rsmq.sendMessageAsync({ qname: "q", message: "m", attributes: { ok: 1, bad: NaN } }));
    expect(error.message).to.include("attributes.bad");
  });

  it("counts the attributes' JSON against maxsize with the body: one over is messageTooLong with nothing stored; at it, stored", async () => {
    const attributes = { tenant: "acme", note: "é".repeat(100), n: 2 };
    // What the send stores as `<id>:at` (docs/attributes.md), counted in UTF-16 units as a body is.
    const jsonLength = JSON.stringify({ a: attributes }).length;
    const before = await stored();
    const error = await rejectionOf(rsmq.sendMessageAsync({ qname: "q", message: "b".repeat(1024 - jsonLength + 1), attributes }));
    expect(error.name).to.equal("messageTooLong");
    expect(await stored()).to.deep.equal(before);

    const id = await rsmq.sendMessageAsync({ qname: "q", message: "b".repeat(1024 - jsonLength), attributes });
    const message = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    expect(message.id).to.equal(id);
    expect(message.message).to.have.length(1024 - jsonLength);
    expect(message.attributes).to.deep.equal(attributes);
  });

  it("the same body without attributes fits where it did: only the attributes' length is added", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "b".repeat(1024) });
    const error = await rejectionOf(rsmq.sendMessageAsync({ qname: "q", message: "b".repeat(1024), attributes: { n: 1 } }));
    expect(error.name).to.equal("messageTooLong");
    expect((await stored()).messages).to.equal(1);
  });
});
