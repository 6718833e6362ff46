/**
 * An error nobody listens to is still seen once. A Worker on a queue that does not exist, or a
 * RedisSMQ instance whose server is unreachable, with no `error` listener, used to retry in
 * silence for ever; each now emits one process warning per error name, at once, and carries on.
 */
import { expect } from "chai";
import { createServer } from "net";
import type { AddressInfo } from "net";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, onCluster, uniqueNs } from "../support/server";
import { Cleanup, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;

/** Collects the process warnings with `code` from now until stop(). */
function warningsWithCode(code: string): { list: Error[]; stop(): void } {
  const list: Error[] = [];
  const listener = (warning: Error & { code?: string }): void => {
    if (warning.code === code) list.push(warning);
  };
  process.on("warning", listener);
  return { list, stop: () => process.off("warning", listener) };
}

async function unusedPort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe("errors nobody listens to", () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  describe("a Worker on a queue that does not exist", () => {
    let ns: string;
    let rsmq: RedisSMQ;
    beforeEach(() => {
      ns = uniqueNs();
      rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    });

    it("warns at once, once, keeps retrying, and consumes the queue once it is created", async () => {
      const warnings = warningsWithCode("RSMQ_NEXT_WORKER_ERROR");
      cleanup.add(async () => warnings.stop());
      const handled: string[] = [];
      const worker = cleanup.worker(new Worker(rsmq, { qname: "later", handler: (message) => void handled.push(message.message) }));
      worker.start();
      await waitFor(() => warnings.list.length > 0, "a warning about the missing queue", 5_000);
      await waitFor(() => worker.counters.errors >= 3, "three failed receives");
      expect(warnings.list).to.have.length(1);
      expect(warnings.list[0].message).to.match(/queue "later".*queueNotFound: Queue not found/);
      expect(warnings.list[0].message).to.match(/carries on \(a failed receive is retried/);
      expect(warnings.list[0].message).to.match(/"error" event/);

      await rsmq.createQueueAsync({ qname: "later" });
      await rsmq.sendMessageAsync({ qname: "later", message: "hello" });
      await waitFor(() => handled.length === 1, "the message sent once the queue exists", 20_000);
      expect(handled).to.deep.equal(["hello"]);
      expect(warnings.list).to.have.length(1);
    });

    it("warns nothing when someone listens for `error`: the listener gets each error", async () => {
      const warnings = warningsWithCode("RSMQ_NEXT_WORKER_ERROR");
      cleanup.add(async () => warnings.stop());
      const heard: Error[] = [];
      const worker = cleanup.worker(new Worker(rsmq, { qname: "nope", handler: () => undefined }));
      worker.on("error", (error) => heard.push(error));
      worker.start();
      await waitFor(() => heard.length >= 2, "two errors heard");
      expect(heard.map((error) => error.name)).to.include("queueNotFound");
      expect(warnings.list).to.deep.equal([]);
    });
  });

  describe("a RedisSMQ instance whose server is unreachable", function () {
    before(function () {
      if (onCluster()) this.skip();
    });

    it("warns once per error, not on every reconnect attempt", async () => {
      const warnings = warningsWithCode("RSMQ_NEXT_CONNECTION_ERROR");
      cleanup.add(async () => warnings.stop());
      const rsmq = cleanup.rsmq(new RedisSMQ({ host: "127.0.0.1", port: await unusedPort(), ns: uniqueNs() }));
      let attempts = 0;
      rsmq.redis.on("error", () => attempts++);
      await waitFor(() => attempts >= 3, "three failed connection attempts");
      await waitFor(() => warnings.list.length > 0, "the warning");
      expect(warnings.list).to.have.length(1);
      expect(warnings.list[0].message).to.match(/ECONNREFUSED/);
      expect(warnings.list[0].message).to.match(/"error" event/);
    });

    it("warns nothing when someone listens for `error`", async () => {
      const warnings = warningsWithCode("RSMQ_NEXT_CONNECTION_ERROR");
      cleanup.add(async () => warnings.stop());
      const rsmq = cleanup.rsmq(new RedisSMQ({ host: "127.0.0.1", port: await unusedPort(), ns: uniqueNs() }));
      const heard: Error[] = [];
      rsmq.on("error", (error) => heard.push(error));
      await waitFor(() => heard.length >= 2, "two errors heard");
      expect(warnings.list).to.deep.equal([]);
    });
  });
});
