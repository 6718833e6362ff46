/**
 * A Worker killed with SIGKILL between a handler's end and the call that carries its delete (held
 * at the server by CLIENT PAUSE WRITE, so it never runs) loses nothing and delivers nothing twice
 * that a separate delete would not have: the handled message comes back once after its vt, and the
 * messages the call would have received are delivered once, to the next consumer.
 */
import { expect } from "chai";
import { spawn } from "child_process";
import { join } from "path";
import RedisSMQ = require("../../lib/index");
import { plainClient, singleServerOptions } from "../support/server";
import { freshQueueEachTest, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

// CLIENT PAUSE holds one server's clients.
runsOn("single");

const { Worker } = RedisSMQ;

describe("Worker: a crash between a handler's end and its combined call", function () {
  this.timeout(30_000);
  const fresh = freshQueueEachTest();
  const { cleanup } = fresh;

  it("SIGKILL while the call is held at the server: nothing lost, only the handled message delivered again, after its vt", async () => {
    const sent = await fresh.sender.sendMessagesAsync({ qname: "q", messages: [{ message: "a" }, { message: "b" }, { message: "c" }] });
    const ids = sent.map((entry) => entry.id);
    const options = singleServerOptions(fresh.ns);
    const entry = join(__dirname, "..", "..", "lib", "index.js");
    // A Worker whose handler of the first message reports its end only when told (a line on
    // stdin), so the test can pause writes at the server before the combined call is sent.
    const program = `
      const RedisSMQ = require(${JSON.stringify(entry)});
      const rsmq = new RedisSMQ(${JSON.stringify(options)});
      const print = (line) => process.stdout.write(JSON.stringify(line) + "\\n");
      let go;
      const told = new Promise((resolve) => (go = resolve));
      process.stdin.on("data", () => go());
      const worker = new RedisSMQ.Worker(rsmq, {
        qname: "q", vt: 1, realtimeWakes: false, maxIdleSleepMs: 60000,
        handler: async (message) => {
          print({ handling: message.id, rc: message.rc });
          await told;
          print({ ended: message.id });
        },
      });
      worker.on("handled", (message) => print({ handled: message.id }));
      worker.start();
    `;
    const child = spawn(process.execPath, ["-e", program], { stdio: ["pipe", "pipe", "inherit"] });
    const exited = new Promise((resolve) => child.once("close", resolve));
    cleanup.add(async () => {
      child.kill("SIGKILL");
      await exited;
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    const lines = (): Array<Record<string, unknown>> =>
      out
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>);

    const client = await plainClient();
    cleanup.add(async () => {
      await client.sendCommand(["CLIENT", "UNPAUSE"]);
      await client.quit();
    });
    await waitFor(() => lines().some((line) => line.handling === ids[0]), "the first message in its handler");
    await client.sendCommand(["CLIENT", "PAUSE", "20000", "WRITE"]);
    child.stdin.write("go\n");
    // The combined call (deletes ids[0], receives the next) waits at the server, its client blocked.
    await waitFor(async () => {
      const list = String(await client.sendCommand(["CLIENT", "LIST"]));
      return list.split("\n").some((entry) => / flags=b /.test(entry) && / cmd=evalsha /.test(entry));
    }, "the combined call held at the server");
    expect(lines().some((line) => line.ended === ids[0])).to.equal(true);
    expect(lines().some((line) => line.handled !== undefined)).to.equal(false);
    child.kill("SIGKILL");
    await exited;
    await client.sendCommand(["CLIENT", "UNPAUSE"]);

    // Nothing was deleted and nothing else received: a drain after the first message's vt gets
    // all three, the handled one once more (rc 2), the others for the first time.
    const delivered: Array<[string, number]> = [];
    const drain = cleanup.worker(
      new Worker(fresh.rsmq, { qname: "q", realtimeWakes: false, handler: (message) => void delivered.push([message.id, message.rc]) }),
    );
    drain.start();
    await waitFor(() => drain.counters.handled === 3, "all three delivered", 15_000);
    expect([...delivered].sort()).to.deep.equal(
      [
        [ids[0], 2],
        [ids[1], 1],
        [ids[2], 1],
      ].sort(),
    );
    expect((await fresh.sender.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
  });
});
