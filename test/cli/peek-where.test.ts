/**
 * `rsmq-next peek <qname> --where`: string and typed items (repeatable, all must match), --state,
 * --limit with paging through the cursor, --cursor to go on, attributes in the table and in
 * --json (bytes as {"b64":...}), and bad items refused as usage errors (exit 2) before connecting.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, uniqueNs } from "../support/server";
import { at, json, runCli } from "../support/cli";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("CLI: peek --where", () => {
  let ns: string;
  let rsmq: RedisSMQ;

  beforeEach(async () => {
    ns = uniqueNs("cli");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => rsmq.quitAsync());

  const cli = (...args: string[]) => runCli([...at(ns), ...args]);

  it("keeps the messages whose attributes match every item, by string and by typed value", async () => {
    const one = await rsmq.sendMessageAsync({ qname: "q", message: "one", attributes: { tenant: "a", attempt: 2, urgent: true } });
    const two = await rsmq.sendMessageAsync({ qname: "q", message: "two", attributes: { tenant: "a", attempt: "2" } });
    const three = await rsmq.sendMessageAsync({ qname: "q", message: "three", attributes: { tenant: "b", key: Buffer.from([0, 255]) } });
    await rsmq.sendMessageAsync({ qname: "q", message: "none" });
    const [byTenant, typed, both, text, bytes, human] = await Promise.all([
      cli("--json", "peek", "q", "--where", "tenant=a"),
      cli("--json", "peek", "q", "--where", "attempt:=2"),
      cli("--json", "peek", "q", "--where", "tenant=a", "--where", "urgent:=true"),
      cli("--json", "peek", "q", "--where", "attempt=2"),
      cli("--json", "peek", "q", "--where", 'key:={"b64":"AP8="}'),
      cli("peek", "q", "--where", "tenant=b"),
    ]);
    const ids = (result: Awaited<ReturnType<typeof cli>>): string[] => json(result).messages.map((m: { id: string }) => m.id);
    expect(byTenant.code, byTenant.stderr).to.equal(0);
    expect(ids(byTenant)).to.deep.equal([one, two]);
    expect(ids(typed)).to.deep.equal([one]);
    expect(ids(both)).to.deep.equal([one]);
    expect(ids(text)).to.deep.equal([two]);
    expect(ids(bytes)).to.deep.equal([three]);
    const machine = json(byTenant);
    expect(machine.cursor).to.equal(null);
    expect(machine.now).to.be.a("number");
    expect(machine.messages[0]).to.include({ id: one, message: "one", state: "visible", receiveCount: 0, firstReceived: null });
    expect(machine.messages[0].attributes).to.deep.equal({ tenant: "a", attempt: 2, urgent: true });
    expect(json(bytes).messages[0].attributes).to.deep.equal({ tenant: "b", key: { b64: "AP8=" } });

    expect(human.code, human.stderr).to.equal(0);
    const lines = human.stdout.trimEnd().split("\n");
    expect(lines[0]).to.match(/^ID {32}STATE +DUE +ATTRIBUTES +MESSAGE$/);
    expect(lines[1]).to.match(new RegExp(`^${three}  visible +.+ ago +\\{"tenant":"b","key":\\{"b64":"AP8="\\}\\}  three$`));
    expect(lines).to.have.length(2);
  });

  it("pages until --limit matches, prints the cursor to go on from, and --cursor goes on", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await rsmq.sendMessageAsync({ qname: "q", message: `m${i}`, attributes: { tenant: "a" } }));
    const first = await cli("peek", "q", "--where", "tenant=a", "--limit", "3");
    expect(first.code, first.stderr).to.equal(0);
    expect(
      first.stdout
        .trimEnd()
        .split("\n")
        .slice(1)
        .map((line) => line.slice(0, 32)),
    ).to.deep.equal(ids.slice(0, 3));
    const cursor = /more: go on with --cursor (\S+)/.exec(first.stderr)?.[1];
    expect(cursor, first.stderr).to.be.a("string");
    const rest = await cli("--json", "peek", "q", "--where", "tenant=a", "--limit", "10", "--cursor", cursor!);
    expect(json(rest).messages.map((m: { id: string }) => m.id)).to.deep.equal(ids.slice(3));
    expect(json(rest).cursor).to.equal(null);
  });

  it("--state keeps one state; no match says so", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "now", attributes: { tenant: "a" } });
    const later = await rsmq.sendMessageAsync({ qname: "q", message: "later", delay: 60, attributes: { tenant: "a" } });
    const [delayed, none] = await Promise.all([
      cli("--json", "peek", "q", "--where", "tenant=a", "--state", "delayed"),
      cli("peek", "q", "--where", "tenant=zz"),
    ]);
    expect(json(delayed).messages.map((m: { id: string; state: string }) => [m.id, m.state])).to.deep.equal([[later, "delayed"]]);
    expect([none.code, none.stdout]).to.deep.equal([0, "no message of queue q matches\n"]);
  });

  it("refuses bad items before connecting (exit 2)", async () => {
    const results = await Promise.all([
      cli("peek", "q", "--where", "tenant"),
      cli("peek", "q", "--where", "=a"),
      cli("peek", "q", "--where", "n:=[1]"),
      cli("peek", "q", "--where", "n:=nope"),
      cli("peek", "q", "--where", "bad name=a"),
      cli("peek", "q", "--state", "hidden"),
      cli("peek", "q", "--where", "tenant=a", "--limit", "0"),
      cli("peek", "q", "--cursor", "not-a-cursor"),
    ]);
    expect(results.map((result) => result.code)).to.deep.equal([2, 2, 2, 2, 2, 2, 2, 2]);
    // A bad cursor is the invalidValue browseMessages refuses before any round trip: a usage error too.
    expect(results[7].stderr).to.include("`cursor`");
  });
});
