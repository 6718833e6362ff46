/**
 * An ioredis client passed as `client` is used as it is: recognised by its shape (before the
 * node-redis v3 shape, which it also has), with no warning and no connection of rsmq-next's own,
 * and left open by quitAsync(). Runs on the single server whatever the target.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../../lib");
import { rejectionOf } from "../../support/old-rsmq";
import { ioredisClient, singleServerClient, uniqueNs } from "../../support/server";
import { runsOn } from "../../support/targets";

runsOn("single", "client");

/** The connections the server has open now, from CLIENT LIST. */
async function connectionCount(client: RedisClientType): Promise<number> {
  const list = await client.sendCommand<string>(["CLIENT", "LIST"]);
  return list.trim().split("\n").length;
}

describe("an ioredis client as `client`", () => {
  let inspector: RedisClientType;
  const warnings: Error[] = [];
  const onWarning = (warning: Error): void => void warnings.push(warning);

  before(async () => {
    inspector = await singleServerClient();
    process.on("warning", onWarning);
  });
  after(async () => {
    process.off("warning", onWarning);
    await inspector.quit();
  });
  beforeEach(() => (warnings.length = 0));

  it("is used as it is: no warning, no connection of its own, every operation on it", async () => {
    const client = ioredisClient();
    await client.ping();
    const before = await connectionCount(inspector);
    const rsmq = new RedisSMQ({ client, ns: uniqueNs("io") } as never);
    await rsmq.createQueueAsync({ qname: "q" });
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "hello" });
    const received = await rsmq.receiveMessageAsync({ qname: "q" });
    expect(received).to.include({ id, message: "hello", rc: 1 });
    expect(await rsmq.listQueuesAsync()).to.deep.equal(["q"]);
    expect(await connectionCount(inspector)).to.equal(before);
    expect(rsmq.redis).to.equal(client);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => warning.message)).to.deep.equal([]);
    await rsmq.quitAsync();
  });

  it("is still open after quitAsync()", async () => {
    const client = ioredisClient();
    const rsmq = new RedisSMQ({ client, ns: uniqueNs("io") } as never);
    await rsmq.createQueueAsync({ qname: "q" });
    await rsmq.quitAsync();
    expect(client.status).to.equal("ready");
    expect(await client.ping()).to.equal("PONG");
  });

  it("with a keyPrefix is refused at construction, before anything is sent", async () => {
    const client = ioredisClient({ keyPrefix: "app:", lazyConnect: true });
    expect(() => new RedisSMQ({ client, ns: uniqueNs("io") } as never)).to.throw(TypeError, /keyPrefix `app:`.*`ns`/);
    // Nothing connected, let alone sent.
    expect(client.status).to.equal("wait");
  });

  it("with stringNumbers is refused at construction, before anything is sent", async () => {
    const client = ioredisClient({ stringNumbers: true, lazyConnect: true });
    expect(() => new RedisSMQ({ client, ns: uniqueNs("io") } as never)).to.throw(TypeError, /stringNumbers/);
    expect(client.status).to.equal("wait");
  });

  it("with `connections` above 1 is refused at construction, before anything is sent (its own connection carries every call)", async () => {
    const client = ioredisClient({ lazyConnect: true });
    expect(() => new RedisSMQ({ client, ns: uniqueNs("io"), connections: 2 } as never)).to.throw(TypeError, /`connections`.*ioredis/);
    expect(client.status).to.equal("wait");
  });

  it("made with lazyConnect is connected by the first call", async () => {
    const client = ioredisClient({ lazyConnect: true });
    const rsmq = new RedisSMQ({ client, ns: uniqueNs("io") } as never);
    expect(await rsmq.createQueueAsync({ qname: "q" })).to.equal(1);
    await rsmq.quitAsync();
  });

  it("answers NOSCRIPT after SCRIPT FLUSH by running the script once", async () => {
    const client = ioredisClient();
    const ns = uniqueNs("io");
    const rsmq = new RedisSMQ({ client, ns } as never);
    await rsmq.createQueueAsync({ qname: "q" });
    await rsmq.sendMessageAsync({ qname: "q", message: "one" });
    expect(await inspector.sendCommand(["SCRIPT", "FLUSH"])).to.equal("OK");
    await rsmq.sendMessageAsync({ qname: "q", message: "two" });
    expect(await inspector.zCard(`${ns}:q`)).to.equal(2);
    expect(await inspector.hGet(`${ns}:q:Q`, "totalsent")).to.equal("2");
    await rsmq.quitAsync();
  });

  it("closed by its owner makes calls fail at once with connectionClosed, also the one made before its end event", async () => {
    const client = ioredisClient();
    const rsmq = new RedisSMQ({ client, ns: uniqueNs("io") } as never);
    await rsmq.createQueueAsync({ qname: "q" });
    await client.quit();
    // ioredis emits `end` on the next tick after its status became "end": this call comes between.
    const error = await rejectionOf(rsmq.sendMessageAsync({ qname: "q", message: "late" }));
    expect(error.name).to.equal("connectionClosed");
    expect(error.message).to.match(/ioredis client passed in .* ended/);
    await new Promise((resolve) => setImmediate(resolve));
    const after = await rejectionOf(rsmq.sendMessageAsync({ qname: "q", message: "later" }));
    expect([after.name, after.message]).to.deep.equal([error.name, error.message]);
    await rsmq.quitAsync();
  });
});
