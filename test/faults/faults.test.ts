/**
 * The fault suite: each scenario injects one real fault (a killed server or process, SCRIPT FLUSH,
 * CLIENT KILL, CLIENT PAUSE, DEBUG SLEEP, a full server, two libraries side by side) on a
 * redis-server of its own, under load, and asserts from the Ledger that nothing acknowledged was
 * lost, that every duplicate is one an expired visibility timeout explains, and that nothing hung
 * (every wait is bounded). Each prints its figures; the table at the end goes into docs/reliability.md.
 *
 * Rerun: npm run test:faults
 */
import { spawnSync } from "child_process";
import { assertHeld } from "./support/ledger";
import type { Verdict } from "./support/ledger";
import { printTable, record } from "./support/results";
import { clientKillStorm, clientPause, debugSleep, killAndRestartWithAof, scriptFlushStorm } from "./scenarios/server-faults";
import { fullServer } from "./scenarios/full-server";
import { workerKilledMidHandler } from "./scenarios/worker-killed";
import { mixedFleet } from "./scenarios/mixed-fleet";
import { runsOn } from "../support/targets";

runsOn("single");

const scenarios: Array<[title: string, run: () => Promise<Verdict>, timeoutMs?: number]> = [
  ["kill -9 of the server and a restart from its AOF, under a producer and a Worker", killAndRestartWithAof],
  ["SCRIPT FLUSH every 50-100 ms under a producer and a Worker: NOSCRIPT is transparent, nothing runs twice", scriptFlushStorm],
  ["CLIENT KILL storm (normal and pubsub) under a producer process and a Worker: the wake subscription comes back", clientKillStorm],
  ["CLIENT PAUSE ALL then WRITE, 2 s each, under load", clientPause],
  ["DEBUG SLEEP 2 s with vt 1 s: duplicates only where the vt expired", debugSleep],
  ["a full server (maxmemory, noeviction): producers get outOfMemory, nothing half-written, a Worker drains it", fullServer],
  ["a Worker process SIGKILLed mid-handler: another Worker process handles its message after vt", workerKilledMidHandler],
  ["a mixed fleet for 20 s: rsmq 0.12.4 and rsmq-next producers and consumers on one queue", mixedFleet, 60_000],
];

describe("Fault suite: 0 lost under real faults", () => {
  before(function () {
    // Every scenario starts (and kills) a redis-server of its own: REDIS_URL or a container cannot stand in.
    if (spawnSync("redis-server", ["--version"]).status !== 0) {
      console.log("\n  Skipping the fault suite: it needs redis-server on PATH\n");
      this.skip();
    }
  });
  after(printTable);

  for (const [title, run, timeoutMs = 40_000] of scenarios) {
    it(title, async function () {
      this.timeout(timeoutMs);
      assertHeld(record(await run()));
    });
  }
});
