/**
 * The command line with priorities (docs/priorities.md): `peek` lists the higher level first, due
 * since its send time (not decades ago); `stats` says how long the oldest visible message has
 * waited, in seconds, not years.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, uniqueNs } from "../support/server";
import { at, json, runCli } from "../support/cli";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("Priorities: the command line's peek and stats", () => {
  let ns: string;
  let rsmq: RedisSMQ;

  beforeEach(async () => {
    ns = uniqueNs("prio");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => rsmq.quitAsync());

  const cli = (...args: string[]) => runCli([...at(ns), ...args]);

  it("peek: the higher level first, visible, due when it was sent; stats: waiting seconds, not years", async () => {
    const plain = await rsmq.sendMessageAsync({ qname: "q", message: "plain" });
    const urgent = await rsmq.sendMessageAsync({ qname: "q", message: "urgent", priority: 9 });
    const [human, machineResult, stats] = await Promise.all([cli("peek", "q"), cli("--json", "peek", "q"), cli("--json", "stats", "q")]);
    expect(human.code, human.stderr).to.equal(0);
    const lines = human.stdout.trimEnd().split("\n");
    const row = new RegExp(`^${urgent}  visible +(\\S+ ago) +(\\S+ ago)  urgent$`).exec(lines[1]);
    expect(row, lines[1]).to.not.equal(null);
    // DUE is the send time (whole ms) as SENT is: ms or seconds ago, not years.
    expect(row![1]).to.match(/^[\d.]+(ms|s) ago$/);
    expect(row![2]).to.match(/^[\d.]+(ms|s) ago$/);
    expect(lines[2]).to.match(new RegExp(`^${plain}  visible +`));
    const machine = json(machineResult);
    expect(machine.messages.map((m: { id: string; state: string }) => [m.id, m.state])).to.deep.equal([
      [urgent, "visible"],
      [plain, "visible"],
    ]);
    const [urgentDue] = machine.messages.map((m: { dueAt: number }) => machine.now - m.dueAt);
    expect(urgentDue).to.be.within(0, 60_000);
    const { waitingMs, visible } = json(stats);
    expect(visible).to.equal(2);
    expect(waitingMs).to.be.within(0, 60_000);
  });
});
