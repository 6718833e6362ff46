/**
 * The node-redis v4 shapes lib/transports/node-redis/private-shapes.ts reads, each against a real
 * client on the test server: what a node-redis 4.x upgrade must keep (the cluster accessors are
 * tested on the cluster target, in test/transports/cluster/node-redis-private-shapes.test.ts).
 */
import { expect } from "chai";
import { createClient, createCluster } from "redis";
import type { RedisClientType } from "redis";
import {
  duplicateClient,
  isClusterClient,
  promiseApiOf,
  serverAddressOf,
  socketOptionsOf,
} from "../../../lib/transports/node-redis/private-shapes";
import { testRedis } from "../../support/server";
import { runsOn } from "../../support/targets";

runsOn("single");

describe("node-redis private shapes: a client's undocumented shape", () => {
  const opened: RedisClientType[] = [];

  /** A client on the test server, closed after the test. */
  function client(options: Parameters<typeof createClient>[0] = {}): RedisClientType {
    const made = createClient(options) as RedisClientType;
    made.on("error", () => undefined);
    opened.push(made);
    return made;
  }

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((made) => (made.isOpen ? made.disconnect().catch(() => undefined) : undefined)));
  });

  it("socketOptionsOf: the socket options the client was made with", () => {
    const { host, port } = testRedis();
    const socket = socketOptionsOf(client({ socket: { host, port, connectTimeout: 1_234 } })) as Record<string, unknown>;
    expect(socket).to.include({ host, port, connectTimeout: 1_234 });
  });

  it("socketOptionsOf: a url is parsed into host and port", () => {
    const { port } = testRedis();
    expect(socketOptionsOf(client({ url: `redis://127.0.0.1:${port}` }))).to.include({ host: "127.0.0.1", port });
  });

  it("serverAddressOf: host:port, the socket path, or node-redis' default", () => {
    const { host, port } = testRedis();
    expect(serverAddressOf(client({ socket: { host, port } }))).to.equal(`${host}:${port}`);
    expect(serverAddressOf(client({ url: `redis://127.0.0.1:${port}` }))).to.equal(`127.0.0.1:${port}`);
    expect(serverAddressOf(client({ socket: { path: "/tmp/rsmq-next-none.sock" } }))).to.equal("/tmp/rsmq-next-none.sock");
    expect(serverAddressOf(client())).to.equal("localhost:6379");
  });

  it("promiseApiOf: the client itself, or its v4 face in legacyMode, which resolves replies", async () => {
    const { url } = testRedis();
    const plain = client({ url });
    expect(promiseApiOf(plain)).to.equal(plain);
    const legacy = client({ url, legacyMode: true });
    const api = promiseApiOf(legacy);
    expect(api).to.not.equal(legacy);
    await legacy.connect();
    expect(await api.sendCommand(["PING"])).to.equal("PONG");
  });

  it("duplicateClient: a copy with the overrides on top, that reaches the same server", async () => {
    const { url } = testRedis();
    const legacy = client({ url, legacyMode: true, name: "private-shapes-test" });
    const copy = duplicateClient(legacy, { legacyMode: false, socket: socketOptionsOf(legacy) });
    opened.push(copy);
    copy.on("error", () => undefined);
    expect(promiseApiOf(copy)).to.equal(copy);
    await copy.connect();
    expect(await copy.sendCommand(["CLIENT", "GETNAME"])).to.equal("private-shapes-test");
  });

  it("isClusterClient: a createCluster client, and nothing else", () => {
    const { url } = testRedis();
    expect(isClusterClient(createCluster({ rootNodes: [{ url }] }))).to.equal(true);
    expect(isClusterClient(client({ url }))).to.equal(false);
    expect(isClusterClient({ sendCommand: () => undefined })).to.equal(false);
    expect(isClusterClient(null)).to.equal(false);
  });
});
