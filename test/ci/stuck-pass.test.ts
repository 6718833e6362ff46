/**
 * A pass of `npm test` that prints its summary but does not exit (a test left a client, a server
 * or a timer running) fails the run, saying so, once a grace period has passed: before, it kept
 * npm test waiting until CI's own time limit, with every result already printed and none counted.
 */
import { expect } from "chai";
import { spawn } from "child_process";
import { mkdtempSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import * as path from "path";
import { runsOn } from "../support/targets";

runsOn("single");

const root = path.resolve(__dirname, "../../..");

describe("a pass that does not exit after its summary fails npm test", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "rsmq-next-stuck-pass-"));
    // Passes, and leaves a timer that keeps the process alive for ever.
    writeFileSync(
      path.join(dir, "stuck.test.js"),
      'it("leaves a timer running on purpose", () => { setInterval(() => undefined, 1000); });\n',
    );
  });
  let running: ReturnType<typeof spawn> | undefined;
  after(() => {
    if (running?.exitCode === null) running.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("is killed after RSMQ_TEST_EXIT_GRACE_MS and named, with exit code 1", async function () {
    this.timeout(60_000);
    const runPasses = path.join(root, "build/test/support/run-passes.js");
    const args = [runPasses, "--only", "single", path.join(dir, "stuck.test.js"), "--grep", "leaves a timer running on purpose"];
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, args, {
        cwd: root,
        env: { ...process.env, RSMQ_TEST_EXIT_GRACE_MS: "500" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let text = "";
      child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.once("error", reject);
      child.once("close", (exit) => resolve({ code: exit, output: text }));
      // However this test ends, it leaves no pass behind.
      running = child;
    });
    expect(output).to.match(/1 passing/);
    expect(code, output).to.equal(1);
    expect(output).to.include(
      "npm test fails: the single-server pass printed its summary but had not exited 500 ms later: " +
        "a test left something running (a client, a server, a timer); the pass was killed",
    );
  });
});
