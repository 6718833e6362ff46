/**
 * The read-only dashboard user of docs/acl.md: with its line (read from the file) every read of the
 * dashboard succeeds, and without any one of its commands some read fails with a noPermission
 * error (the least it needs). As that user, an action is refused and writes nothing.
 */
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";
import RedisSMQ = require("../../lib");
import { CostMeter } from "../../lib/queue-state/cost-meter";
import { QueueBoard } from "../../lib/queue-state/queue-board";
import { internalsOf } from "../../lib/internals";
import { commandsOf, forTest, PASSWORD } from "../support/acl-rules";
import { connectionOptions, onCluster, plainClient, testCluster, testRedis, uniqueNs } from "../support/server";
import { connectionOptionsAs, onEveryServer, waitFor } from "../support/worker";
import { startCli } from "../support/cli";
import { send } from "../support/dashboard";
import { deadLetterOne } from "../support/retry";
import { exactState } from "../support/state";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

/** The `ACL SETUSER rsmq-dashboard` line of docs/acl.md for the run's target. */
function dashboardLine(): string[] {
  const doc = readFileSync(join(__dirname, "..", "..", "..", "docs", "acl.md"), "utf8");
  const lines = [...doc.slice(doc.indexOf("\n## A read-only dashboard\n")).matchAll(/^ACL SETUSER rsmq-dashboard (.+)$/gm)].map((match) =>
    match[1].trim().split(/\s+/),
  );
  expect(lines, "docs/acl.md: a dashboard line for one server and one for Redis Cluster").to.have.length(2);
  return onCluster() ? lines[1] : lines[0];
}

describe("ACL: the read-only dashboard user of docs/acl.md", function () {
  this.timeout(60_000);
  let ns: string;
  let user: string;
  let setup: RedisSMQ;
  let asUser: RedisSMQ | undefined;

  beforeEach(async () => {
    ns = uniqueNs("acldash");
    user = `acl-${ns}`;
    setup = new RedisSMQ(connectionOptions(ns));
    await setup.createQueueAsync({ qname: "q" });
    await setup.sendMessageAsync({ qname: "q", message: "visible" });
    await setup.sendMessageAsync({ qname: "q", message: "later", delay: 60 });
    await deadLetterOne(setup, "q", "q-dlq", "dead");
    await setup.upsertScheduleAsync({ qname: "q", name: "ping", every: 60_000, message: "ping" });
  });
  afterEach(async () => {
    await asUser?.quitAsync().catch(() => undefined);
    await onEveryServer(["ACL", "DELUSER", user]);
    await setup.quitAsync();
  });

  /**
   * Every read the dashboard makes, as the user, until one fails; the errors so far. A connection
   * refused as it opens (no CLUSTER SLOTS) is reported as an error event, and the read waiting
   * for it fails after offlineTimeoutMs.
   */
  async function readEverything(): Promise<Error[]> {
    await asUser?.quitAsync().catch(() => undefined);
    asUser = new RedisSMQ({ ...connectionOptionsAs(ns, user, PASSWORD), offlineTimeoutMs: 1_000 });
    const errors: Error[] = [];
    asUser.on("error", (error) => errors.push(error));
    const board = new QueueBoard(asUser, internalsOf(asUser), { cost: new CostMeter() });
    const reads: Array<() => Promise<unknown>> = [
      () => board.readQueues(),
      () => board.readQueues(),
      () => board.readQueue("q"),
      async () => {
        const page = await board.readMessages("q", { offset: 0, limit: 10 });
        for (const message of page.messages) await board.readMessage("q", message.id);
      },
      () => board.readDeadLetters("q-dlq"),
      () => board.readSchedules("q"),
      // browseMessages (the message browser's filter and the command line's `peek --where`) runs as this user too.
      () => asUser!.browseMessagesAsync({ qname: "q", where: { tenant: "a" }, state: "delayed" }),
      () => board.browseFiltered("q", { where: ["tenant=a"] }),
      () => board.readTenants("q"),
    ];
    for (const read of reads) {
      await read().catch((error: Error) => void errors.push(error));
      if (errors.length > 0) break;
    }
    return errors;
  }

  it("reads everything with its line, and each command fewer fails with noPermission", async () => {
    const rules = dashboardLine();
    await onEveryServer(["ACL", "SETUSER", user, ...forTest(rules, ns)]);
    await onEveryServer(["SCRIPT", "FLUSH"]);
    expect((await readEverything()).map(String), "errors with the whole line").to.deep.equal([]);
    for (const command of commandsOf(rules)) {
      await onEveryServer(["ACL", "SETUSER", user, `-${command}`]);
      await onEveryServer(["SCRIPT", "FLUSH"]);
      const errors = await readEverything();
      expect(
        errors.some((error) => error.name === "noPermission"),
        `a noPermission error without +${command}; got ${JSON.stringify(errors.map(String))}`,
      ).to.equal(true);
      await onEveryServer(["ACL", "SETUSER", user, `+${command}`]);
    }
  });

  it("`rsmq-next metrics` (the exporter) scrapes as this user: read-only scripts are all it runs", async () => {
    await onEveryServer(["ACL", "SETUSER", user, ...forTest(dashboardLine(), ns)]);
    const url = new URL(onCluster() ? testCluster().rootNodes()[0].url : testRedis().url);
    url.username = user;
    url.password = PASSWORD;
    const running = startCli([...(onCluster() ? ["--cluster"] : []), "--url", url.href, "--ns", ns, "metrics", "--port", "0"], {
      timeoutMs: 30_000,
    });
    try {
      const address = /^metrics: (http:\S+)$/m;
      await waitFor(() => address.test(running.output().stdout) || running.child.exitCode !== null, "the exporter's address");
      const scrape = await send(address.exec(running.output().stdout)![1]);
      expect(scrape.status, scrape.text).to.equal(200);
      expect(scrape.text).to.include('rsmq_queue_messages{queue="q",state="visible"} 1');
      expect(scrape.text).to.include('rsmq_queue_messages{queue="q-dlq",state="visible"} 1');
      expect(scrape.text).to.include('rsmq_schedule_sent_total{queue="q",schedule="ping"} 0');
    } finally {
      running.child.kill("SIGKILL");
      await running.finished;
    }
  });

  it("is refused an action, which writes nothing", async () => {
    await onEveryServer(["ACL", "SETUSER", user, ...forTest(dashboardLine(), ns)]);
    asUser = new RedisSMQ(connectionOptionsAs(ns, user, PASSWORD));
    const client = await plainClient();
    try {
      const before = await exactState(client, ns);
      const error = await asUser.sendMessageAsync({ qname: "q", message: "from the dashboard" }).then(
        () => undefined,
        (failure: Error) => failure,
      );
      expect(error?.name).to.equal("noPermission");
      expect(await exactState(client, ns)).to.deep.equal(before);
    } finally {
      await client.quit();
    }
  });
});
