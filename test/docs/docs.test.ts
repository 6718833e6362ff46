/**
 * The API reference (`npm run docs`, TypeDoc over lib/index.ts, see typedoc.json) is built from
 * the TSDoc: a public class, method, property, interface or type without a doc comment, a doc
 * link that points nowhere, or a public signature that names a type the package does not export
 * is a TypeDoc warning, and typedoc.json turns warnings into a failed run. This runs the same
 * check without writing any files (`--emit none`).
 */
import { expect } from "chai";
import { execFile } from "child_process";
import * as path from "path";
import { runsOn } from "../support/targets";

runsOn("single");

const packageRoot = path.resolve(__dirname, "../../..");
const typedoc = path.join(packageRoot, "node_modules/typedoc/bin/typedoc");

describe("API reference (TypeDoc)", function () {
  this.timeout(60_000);

  it("documents every public symbol: typedoc --emit none exits 0 with no warning", async () => {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(process.execPath, [typedoc, "--emit", "none"], { cwd: packageRoot }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: stdout + stderr });
      });
    });
    const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
    const problems = plain.split("\n").filter((line) => /^\[(warning|error)\]/.test(line));
    expect(problems, plain).to.deep.equal([]);
    expect(code, plain).to.equal(0);
  });
});
