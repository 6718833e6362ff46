/**
 * changeMessagesVisibility against rsmq 0.12.4's changeMessageVisibility called once per id: the
 * same steps on both, the batch on rsmq-next, one call per id on rsmq, must give the same
 * per-id results (or the same error) and leave the same Redis state. Every call runs inside the
 * WriteWatch (written-data.ts), so each score is checked against the server's TIME around it and
 * compared as whole seconds after the call (`+100s`), the tolerance of the other differential tests.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib");
import { dataClient, idTokens, namespacedSnapshot, ok, open, outcome, QUEUE_NOT_FOUND, watched } from "../support/differential";
import type { Api, Library, Outcome, Run } from "../support/differential";
import { WriteWatch } from "../support/written-data";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

type ChangeMany = (options: { qname: string; ids: string[]; vt: number }) => Promise<Outcome>;
type Scenario = (api: Api, changeMany: ChangeMany) => Promise<unknown[]>;

/** rsmq 0.12.4 has no batch: its changeMessageVisibility once per id, the results in order. */
async function perId(api: Api, { qname, ids, vt }: { qname: string; ids: string[]; vt: number }): Promise<unknown[]> {
  const results: unknown[] = [];
  for (const id of ids) results.push(await api.changeMessageVisibilityAsync({ qname, id, vt }));
  return results;
}

async function runOn(library: Library, scenario: Scenario): Promise<Run> {
  const instance = await open(library);
  const client = await dataClient(library);
  try {
    const watch = new WriteWatch(client, instance.ns);
    const changeMany: ChangeMany = (options) =>
      outcome(
        watch.around(
          () =>
            library === "rsmq"
              ? perId(instance.api, options)
              : (instance.api as unknown as RedisSMQ).changeMessagesVisibilityAsync(options),
          "change",
        ),
      );
    let results: unknown[];
    try {
      results = idTokens()(await scenario(watched(instance.api, watch), changeMany)) as unknown[];
    } finally {
      await instance.close();
    }
    watch.assertClean(library === "rsmq" ? "rsmq 0.12.4" : "rsmq-next");
    return { results, state: sameSecondByName(await namespacedSnapshot(client, instance.ns, watch)) };
  } finally {
    await client.quit();
  }
}

/**
 * The batch changes every id at one TIME, rsmq once per call, a ms or so apart: members whose
 * scores compare equal (the same whole second) are ordered by the batch's ids on one side and by
 * call order on the other. Within such a run the order says nothing, so it is compared by name.
 */
function sameSecondByName(state: Run["state"]): Run["state"] {
  const sorted: Run["state"] = {};
  for (const [key, value] of Object.entries(state)) {
    const entry = value as { zset?: Array<[string, unknown]> };
    if (!entry.zset) {
      sorted[key] = value;
      continue;
    }
    const runs: Array<Array<[string, unknown]>> = [];
    for (const member of entry.zset) {
      const last = runs[runs.length - 1];
      if (last && JSON.stringify(last[0][1]) === JSON.stringify(member[1])) last.push(member);
      else runs.push([member]);
    }
    sorted[key] = { zset: runs.flatMap((run) => [...run].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
  }
  return sorted;
}

async function expectSameAsRsmq(scenario: Scenario, expected: unknown[]): Promise<void> {
  const old = await runOn("rsmq", scenario);
  const next = await runOn("next", scenario);
  expect(next.results, "results (rsmq-next vs rsmq)").to.deep.equal(old.results);
  expect(next.state, "Redis state (rsmq-next vs rsmq)").to.deep.equal(old.state);
  expect(next.results, "results").to.deep.equal(expected);
}

const NEVER = "0123456789abcdefghijABCDEFGHIJ01";

function valueOf(result: unknown): string {
  if (!(result && typeof result === "object" && "value" in result)) throw new Error(`step failed: ${JSON.stringify(result)}`);
  return (result as { value: string }).value;
}

/** Sends a..e, receives a (in flight for 30 s), pops b (deleted): the ids a, b (gone), c, d, e. */
async function fiveSent(api: Api): Promise<{ steps: unknown[]; ids: string[] }> {
  const steps: unknown[] = [await outcome(api.createQueueAsync({ qname: "q" }))];
  for (const message of ["a", "b", "c", "d", "e"]) steps.push(await outcome(api.sendMessageAsync({ qname: "q", message })));
  steps.push(await outcome(api.receiveMessageAsync({ qname: "q" })), await outcome(api.popMessageAsync({ qname: "q" })));
  return { steps, ids: steps.slice(1, 6).map(valueOf) };
}

const receive = (api: Api, vt?: number): Promise<Outcome> => outcome(api.receiveMessageAsync({ qname: "q", vt }));

describe("differential: changeMessagesVisibility against rsmq 0.12.4's changeMessageVisibility per id", () => {
  it("vt 100: existing ones (in flight, visible, the same twice) 1, deleted and unknown 0, all hidden", () =>
    expectSameAsRsmq(
      async (api, changeMany) => {
        const { steps, ids } = await fiveSent(api);
        const [a, b, c, d] = ids;
        return [...steps, await changeMany({ qname: "q", ids: [a, b, NEVER, c, d, c], vt: 100 }), await receive(api)];
      },
      [
        ok(1),
        ...[1, 2, 3, 4, 5].map((n) => ok(`<id${n}>`)),
        ok({ id: "<id1>", message: "a", rc: 1, fr: "<ms>", sent: "<ms>" }),
        ok({ id: "<id2>", message: "b", rc: 1, fr: "<ms>", sent: "<ms>" }),
        ok([1, 0, 0, 1, 1, 1]),
        ok({ id: "<id5>", message: "e", rc: 1, fr: "<ms>", sent: "<ms>" }),
      ],
    ));

  it("vt 0: an in-flight message and a delayed one are received at once", () =>
    expectSameAsRsmq(
      async (api, changeMany) => {
        const { steps, ids } = await fiveSent(api);
        const delayed = valueOf(await outcome(api.sendMessageAsync({ qname: "q", message: "later", delay: 60 })));
        const [a, , c, d, e] = ids;
        // c, d and e are hidden first, so only the change brings them back.
        const hidden = await changeMany({ qname: "q", ids: [c, d, e], vt: 50 });
        const shown = await changeMany({ qname: "q", ids: [a, delayed], vt: 0 });
        return [...steps, hidden, shown, await receive(api, 20), await receive(api, 20), await receive(api)];
      },
      [
        ok(1),
        ...[1, 2, 3, 4, 5].map((n) => ok(`<id${n}>`)),
        ok({ id: "<id1>", message: "a", rc: 1, fr: "<ms>", sent: "<ms>" }),
        ok({ id: "<id2>", message: "b", rc: 1, fr: "<ms>", sent: "<ms>" }),
        ok([1, 1, 1]),
        ok([1, 1]),
        ok({ id: "<id1>", message: "a", rc: 2, fr: "<ms>", sent: "<ms>" }),
        ok({ id: "<id6>", message: "later", rc: 1, fr: "<ms>", sent: "<ms>" }),
        ok({}),
      ],
    ));

  it("on a missing queue: queueNotFound, nothing written", () =>
    expectSameAsRsmq(async (_api, changeMany) => [await changeMany({ qname: "nope", ids: [NEVER, NEVER], vt: 10 })], [QUEUE_NOT_FOUND]));
});
