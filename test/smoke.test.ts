import { expect } from "chai";
import RedisSMQ = require("../lib/index");
import { connectionOptions, plainClient, uniqueNs } from "./support/server";
import { snapshot } from "./support/state";
import { clientCommands, commandStatsDuring, monitor } from "./support/wire";

describe("harness", () => {
  it("runs a queue on the test server", async () => {
    const ns = uniqueNs();
    const rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    await rsmq.sendMessageAsync({ qname: "q", message: "x" });
    const client = await plainClient();
    const state = await snapshot(client, ns);
    console.log(JSON.stringify(state));
    const cmds = await monitor(() => rsmq.sendMessageAsync({ qname: "q", message: "y" }));
    console.log(cmds);
    console.log(await commandStatsDuring(() => rsmq.sendMessageAsync({ qname: "q", message: "y" })));
    expect(clientCommands(cmds)).to.deep.equal(["evalsha"]);
    await client.quit();
    await rsmq.quitAsync();
  });
});
