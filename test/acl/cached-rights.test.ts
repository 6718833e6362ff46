/**
 * The runner's cached answer to "may this user run every command the scripts check before their
 * first write?" (lib/scripts/script-runner.ts): after CHECK_RIGHTS_AFTER checking scripts on a
 * connection it asks once, and then sends the texts that skip those checks. Rights cut after the
 * answer are found by the first refusal, which may have written part of its call (docs/acl.md);
 * from the next call on the connection checks again, so refusals write nothing, and restored
 * rights work at once.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { CHECK_RIGHTS_AFTER } from "../../lib/scripts/script-runner";
import { script } from "../../lib/scripts/script-files";
import { forTest, PASSWORD, documentedRules } from "../support/acl-rules";
import { connectionOptions, keysOf, onCluster, plainClient, uniqueNs } from "../support/server";
import { exactState } from "../support/state";
import { connectionOptionsAs, onEveryServer } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("ACL: the cached check of a user's rights", () => {
  let ns: string;
  let user: string;
  let setup: RedisSMQ;
  let admin: RedisClientType;
  let producer: RedisSMQ;

  beforeEach(async () => {
    ns = uniqueNs("aclc");
    user = `acl-${ns}`;
    setup = new RedisSMQ(connectionOptions(ns));
    admin = await plainClient();
    await setup.createQueueAsync({ qname: "q" });
    await onEveryServer(["ACL", "SETUSER", user, ...forTest(documentedRules(onCluster()).get("producer")!, ns)]);
    producer = new RedisSMQ(connectionOptionsAs(ns, user, PASSWORD));
  });
  afterEach(async () => {
    await producer.quitAsync().catch(() => undefined);
    await onEveryServer(["ACL", "DELUSER", user]);
    await setup.quitAsync();
    await admin.quit();
  });

  /** Whether any server has run sendMessage's text without the checks (it is cached once run). */
  async function grantedTextRan(): Promise<boolean> {
    const sha1 = script("sendMessage").granted!.flagged.sha1;
    const answers = (await onEveryServer(["SCRIPT", "EXISTS", sha1])) as number[][];
    return answers.some(([exists]) => exists === 1);
  }

  const send = (): Promise<string | Error> =>
    producer.sendMessageAsync({ qname: "q", message: "m" }).then(
      (id) => id,
      (error: Error) => error,
    );

  it("skips the checks once asked; the first refusal after a cut may write part of its call, and the connection checks from then on", async function () {
    this.timeout(20_000);
    await onEveryServer(["SCRIPT", "FLUSH"]);
    // The question goes beside the CHECK_RIGHTS_AFTER-th checking script; the one after it is the first to skip.
    for (let sent = 0; sent < CHECK_RIGHTS_AFTER; sent++) expect(await send()).to.be.a("string");
    expect(await grantedTextRan(), "before the answer").to.equal(false);
    expect(await send()).to.be.a("string");
    expect(await grantedTextRan(), "after the answer").to.equal(true);
    const { messages, hash } = keysOf(ns, "q");
    expect(await admin.zCard(messages)).to.equal(CHECK_RIGHTS_AFTER + 1);

    // Rights cut after the answer: the one call that finds it was stored up to the refused command.
    await onEveryServer(["ACL", "SETUSER", user, "-hincrby"]);
    const first = await send();
    expect(first).to.be.instanceOf(Error);
    expect((first as Error).name).to.equal("noPermission");
    expect((first as Error).message).to.match(/HINCRBY/);
    expect(await admin.zCard(messages), "the one partial send").to.equal(CHECK_RIGHTS_AFTER + 2);
    expect(await admin.hGet(hash, "totalsent")).to.equal(String(CHECK_RIGHTS_AFTER + 1));

    // Every call after it checks first again: refused before anything is written.
    const before = await exactState(admin, ns);
    for (let tries = 0; tries < 3; tries++) {
      const again = await send();
      expect((again as Error).name).to.equal("noPermission");
      expect(await exactState(admin, ns)).to.deep.equal(before);
    }

    // Restored rights: sends work at once.
    await onEveryServer(["ACL", "SETUSER", user, "+hincrby"]);
    expect(await send()).to.be.a("string");
    expect(await admin.hGet(hash, "totalsent")).to.equal(String(CHECK_RIGHTS_AFTER + 2));
  });

  it("a user refused a checked command never gets the texts that skip the checks", async function () {
    this.timeout(20_000);
    await onEveryServer(["SCRIPT", "FLUSH"]);
    await onEveryServer(["ACL", "SETUSER", user, "-hincrby"]);
    const before = await exactState(admin, ns);
    for (let sent = 0; sent < CHECK_RIGHTS_AFTER + 3; sent++) {
      const refused = await send();
      expect((refused as Error).name).to.equal("noPermission");
    }
    expect(await exactState(admin, ns)).to.deep.equal(before);
    expect(await grantedTextRan()).to.equal(false);
  });
});
