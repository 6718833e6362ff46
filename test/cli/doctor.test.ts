/**
 * `rsmq-next doctor` against the test server: one line per kind found with its counts and
 * examples, the --json report, --fix, and the exit code (1 while anything is out of place).
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { at, json, runCli } from "../support/cli";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("CLI: doctor", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let redis: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs("clidoc");
    rsmq = new RedisSMQ(connectionOptions(ns));
    redis = await plainClient();
  });
  afterEach(async () => {
    await rsmq.quitAsync();
    await redis.quit();
  });

  const cli = (...args: string[]) => runCli([...at(ns), ...args]);
  const orphan = (n: number) => `0000000001${String(n).padStart(22, "x")}:tp`;

  /** Two orphaned fields in q, a listed name with no queue, and a vt rsmq 0.12.4 cannot read in bad. */
  async function plant(): Promise<void> {
    await rsmq.createQueueAsync({ qname: "q" });
    await rsmq.createQueueAsync({ qname: "bad" });
    await rsmq.sendMessageAsync({ qname: "q", message: "live" });
    await redis.hSet(keysOf(ns, "q").hash, { [orphan(1)]: "{}", [orphan(2)]: "{}" });
    await redis.sAdd(keysOf(ns, "q").registry, "ghost");
    await redis.hSet(keysOf(ns, "bad").hash, "vt", "1e3");
  }

  it("one line per kind with counts and examples, exit 1 and a hint; --fix repairs, then only what needs a person is left; all in place: exit 0", async () => {
    await plant();
    const found = await cli("doctor");
    expect(found.code).to.equal(1);
    const lines = found.stdout.trimEnd().split("\n");
    expect(lines).to.deep.equal([
      `fieldWithoutMessage: 2 found: message fields whose message is gone; e.g. q ${orphan(1)}, q ${orphan(2)}`,
      "registryWithoutQueue: 1 found: names in the queue list with no queue; e.g. ghost ghost",
      'invalidSetting: 1 found: settings rsmq 0.12.4 would refuse or misread (fix by hand: rsmq-next set); e.g. bad vt ("1e3", expected an integer from 0 to 9999999)',
      `namespace ${ns}: 2 queues looked at, 4 things still out of place`,
    ]);
    expect(found.stderr).to.include(`error: 4 things out of place in namespace ${ns}`).and.include("rsmq-next doctor --fix");

    const fixed = await cli("doctor", "--fix");
    expect(fixed.code).to.equal(1);
    expect(fixed.stdout.trimEnd().split("\n")).to.deep.equal([
      `fieldWithoutMessage: 2 found, 2 fixed: message fields whose message is gone; e.g. q ${orphan(1)}, q ${orphan(2)}`,
      "registryWithoutQueue: 1 found, 1 fixed: names in the queue list with no queue; e.g. ghost ghost",
      'invalidSetting: 1 found, not repairable, 1 left: settings rsmq 0.12.4 would refuse or misread (fix by hand: rsmq-next set); e.g. bad vt ("1e3", expected an integer from 0 to 9999999)',
      `namespace ${ns}: 2 queues looked at, 1 thing still out of place`,
    ]);
    await redis.hSet(keysOf(ns, "bad").hash, "vt", "1000");
    const clean = await cli("doctor", "--fix");
    expect(clean.stdout).to.equal(`namespace ${ns}: 2 queues looked at, all in place\n`);
    expect(clean.code).to.equal(0);
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.have.property("message", "live");
  });

  it("--json: the report, as doctorAsync gives it (with --json after the command too)", async () => {
    await plant();
    const before = await cli("--json", "doctor", "--queue", "q");
    expect(before.code).to.equal(1);
    expect(json(before)).to.deep.equal({
      ns,
      fix: false,
      queues: 1,
      findings: [
        {
          kind: "fieldWithoutMessage",
          found: 2,
          fixed: 0,
          left: 2,
          repairable: true,
          examples: [
            { qname: "q", item: orphan(1) },
            { qname: "q", item: orphan(2) },
          ],
        },
      ],
      left: 2,
    });
    const fixed = await cli("doctor", "--fix", "--json", "--chunk", "1");
    expect(json(fixed)).to.deep.include({ fix: true, queues: 2, left: 1 });
    expect(json<RedisSMQ.DoctorReport>(fixed).findings.map(({ kind, found, fixed, left }) => [kind, found, fixed, left])).to.deep.equal([
      ["fieldWithoutMessage", 2, 2, 0],
      ["registryWithoutQueue", 1, 1, 0],
      ["invalidSetting", 1, 0, 1],
    ]);
  });

  it("a bad --chunk is a usage error (exit 2) before anything connects", async () => {
    const result = await cli("doctor", "--chunk", "0");
    expect(result.code).to.equal(2);
    expect(result.stderr).to.include("Expected an integer from 1 to 1000");
  });
});
