/**
 * A pass of `npm test` that prints its summary but does not exit (a test left a client, a server
 * or a timer running) fails the run, saying so, once a grace period has passed: before, it kept
 * npm test waiting until CI's own time limit, with every result already printed and none counted.
 * So does a pass that never reaches its summary (a wait that mocha's timeouts do not end), once it
 * has run RSMQ_TEST_PASS_LIMIT_MS, naming the test it was in and what it was waiting on.
 */
import { expect } from "chai";
import { spawn } from "child_process";
import { mkdtempSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import * as path from "path";
import { runsOn } from "../support/targets";

runsOn("single");

const root = path.resolve(__dirname, "../../..");

describe("a pass that does not end fails npm test", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "rsmq-next-stuck-pass-"));
    // Passes, and leaves a timer that keeps the process alive for ever.
    writeFileSync(
      path.join(dir, "stuck.test.js"),
      'it("leaves a timer running on purpose", () => { setInterval(() => undefined, 1000); });\n',
    );
    // Never ends: no mocha timeout, a promise nothing settles, a server listening meanwhile.
    writeFileSync(
      path.join(dir, "endless.test.js"),
      'it("waits for ever on purpose", function () { this.timeout(0); require("net").createServer().listen(0, "127.0.0.1"); ' +
        "return new Promise(() => undefined); });\n",
    );
  });
  let running: ReturnType<typeof spawn> | undefined;
  after(() => {
    if (running?.exitCode === null) running.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the single-server pass on one file of `dir`, with `env`; resolves its exit code and output. */
  function runPass(file: string, grep: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
    const runPasses = path.join(root, "build/test/support/run-passes.js");
    const args = [runPasses, "--only", "single", path.join(dir, file), "--grep", grep];
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
      let text = "";
      child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.once("error", reject);
      child.once("close", (exit) => resolve({ code: exit, output: text }));
      // However this test ends, it leaves no pass behind.
      running = child;
    });
  }

  it("after its summary: is killed after RSMQ_TEST_EXIT_GRACE_MS and named, with exit code 1", async function () {
    this.timeout(60_000);
    const { code, output } = await runPass("stuck.test.js", "leaves a timer running on purpose", { RSMQ_TEST_EXIT_GRACE_MS: "500" });
    expect(output).to.match(/1 passing/);
    expect(code, output).to.equal(1);
    expect(output).to.include(
      "npm test fails: the single-server pass printed its summary but had not exited 500 ms later: " +
        "a test left something running (a client, a server, a timer); the pass was killed",
    );
  });

  it("before its summary: is killed after RSMQ_TEST_PASS_LIMIT_MS with exit code 1, naming its test and what it waited on", async function () {
    this.timeout(60_000);
    const { code, output } = await runPass("endless.test.js", "waits for ever on purpose", { RSMQ_TEST_PASS_LIMIT_MS: "15000" });
    expect(output).to.not.match(/passing/);
    expect(code, output).to.equal(1);
    expect(output).to.include(
      "npm test fails: the single-server pass was still running 15000 ms after it started (RSMQ_TEST_PASS_LIMIT_MS): " +
        "a wait with no end; the pass was killed.",
    );
    expect(output).to.include("The test it was in: waits for ever on purpose");
    expect(output).to.match(/socket listening on \{"address":"127\.0\.0\.1","family":"IPv4","port":\d+\}/);
  });
});
