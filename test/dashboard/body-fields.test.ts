/**
 * The JSON API's bodies (docs/dashboard.md, JSON API): a field the route does not take is refused
 * with 400 `unknownField`, naming it and the closest field the route takes, before anything is
 * sent to Redis, on each of the three mounts. The library's methods only warn of such a key; the
 * API refuses it, so that `{ "prio": 3 }` is never a message sent as if it had not been given.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { createDashboard } from "../../lib/dashboard";
import type { DashboardHandler } from "../../lib/dashboard";
import { connectionOptions, uniqueNs } from "../support/server";
import { MOUNTS, post } from "../support/dashboard";
import type { Answer, Mounted } from "../support/dashboard";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

/** What a POST could have changed: each queue's settings, counters and messages. */
async function namespaceState(rsmq: RedisSMQ): Promise<unknown> {
  const state: Record<string, unknown> = {};
  for (const qname of (await rsmq.listQueuesAsync()).sort()) {
    const { vt, delay, maxsize, modified, totalsent, msgs, hiddenmsgs } = await rsmq.getQueueAttributesAsync({ qname });
    const messages = (await rsmq.peekMessagesAsync({ qname, count: 1000 })).map(({ id, dueAt }) => [id, dueAt]);
    state[qname] = { vt, delay, maxsize, modified, totalsent, msgs, hiddenmsgs, messages };
  }
  return state;
}

function expectUnknownField(answer: Answer, field: string): void {
  expect([answer.status, answer.json?.error], answer.text).to.deep.equal([400, "unknownField"]);
  expect(answer.json.message).to.include(`\`${field}\``);
}

for (const { name, mount } of MOUNTS) {
  describe(`dashboard JSON API: a body field the route does not take is a 400 (${name})`, function () {
    let rsmq: RedisSMQ;
    let handler: DashboardHandler;
    let rw: Mounted;
    let qname: string;
    let id: string;
    let n = 0;

    before(async () => {
      rsmq = new RedisSMQ(connectionOptions(uniqueNs("fields")));
      handler = createDashboard({ rsmq, readOnly: false });
      rw = await mount(handler);
    });
    after(async () => {
      handler.close();
      await rw?.close();
      await rsmq.quitAsync();
    });
    beforeEach(async () => {
      qname = `q${++n}`;
      await rsmq.createQueueAsync({ qname });
      await rsmq.createQueueAsync({ qname: `${qname}-dlq` });
      id = await rsmq.sendMessageAsync({ qname, message: "kept", delay: 60 });
    });

    const at = (route: string): string => rw.base + route;

    it('POST .../messages { "prio": 3 }: 400 naming `prio` and the fields it takes, and nothing sent', async () => {
      const before = await namespaceState(rsmq);
      const answer = await post(at(`api/queues/${qname}/messages`), { message: "hello", prio: 3 });
      expectUnknownField(answer, "prio");
      expect(answer.json.message).to.match(/This request takes: message, delay\b/);
      expect(await namespaceState(rsmq)).to.deep.equal(before);
      // As the page sends it, an undefined field left out by JSON.stringify: taken.
      const sent = await post(at(`api/queues/${qname}/messages`), { message: "hello", delay: undefined });
      expect(sent.status, sent.text).to.equal(201);
    });

    it("a misspelt field is answered with the one meant", async () => {
      const answer = await post(at(`api/queues/${qname}/messages`), { message: "hello", delya: 5 });
      expectUnknownField(answer, "delya");
      expect(answer.json.message).to.equal(
        "The body's field `delya` is not known. Did you mean `delay`? This request takes: message, delay, priority.",
      );
      const redrive = await post(at(`api/queues/${qname}-dlq/redrive`), { too: qname });
      expectUnknownField(redrive, "too");
      expect(redrive.json.message).to.include("Did you mean `to`?");
    });

    it("every write route refuses a field it does not take, before anything is written", async () => {
      const before = await namespaceState(rsmq);
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ["api/queues", { qname: `${qname}new`, vt: 10, retension: 5 }, "retension"],
        [`api/queues/${qname}/attributes`, { vt: 10, vtt: 5 }, "vtt"],
        [`api/queues/${qname}/messages`, { message: "hello", delay: 0, colour: "red" }, "colour"],
        [`api/queues/${qname}/messages/${id}/visible`, { vt: 30 }, "vt"],
        [`api/queues/${qname}/messages/${id}/delete`, { force: true }, "force"],
        [`api/queues/${qname}-dlq/redrive`, { to: qname, reasn: "exhausted" }, "reasn"],
        [`api/queues/${qname}/delete`, { confirm: qname, force: true }, "force"],
      ];
      for (const [route, body, field] of cases) expectUnknownField(await post(at(route), body), field);
      expect(await namespaceState(rsmq)).to.deep.equal(before);
      const visible = await post(at(`api/queues/${qname}/messages/${id}/visible`), {});
      expect(visible.status, visible.text).to.equal(200);
    });
  });
}
