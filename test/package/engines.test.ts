/**
 * package.json promises a Node range in `engines`; the promise holds only if every installed
 * package accepts its oldest version. package-lock.json records each package's own `engines`, so a
 * dependency upgrade that needs a newer Node (an undici for Node 22, a mocha for Node 18.18) fails
 * here instead of printing EBADENGINE on a user's or contributor's install.
 */
import { expect } from "chai";
import { readFileSync } from "fs";
import * as path from "path";
import * as semver from "semver";
import { runsOn } from "../support/targets";

runsOn("single");

const packageRoot = path.resolve(__dirname, "../../..");

/**
 * The newer client majors the tests pass in as `client` (npm aliases in devDependencies): each
 * needs a newer Node than the package promises, which its own users already run. They are held to
 * the Node running the tests instead, and the package never loads them.
 */
const CLIENTS_UNDER_TEST = ["redis5", "redis6", "ioredis6"];

/** Whether a package-lock.json path is one of CLIENTS_UNDER_TEST or inside one. */
function isClientUnderTest(where: string): boolean {
  return CLIENTS_UNDER_TEST.some((name) => where === `node_modules/${name}` || where.startsWith(`node_modules/${name}/`));
}

interface LockEntry {
  version?: string;
  dev?: boolean;
  engines?: unknown;
}

interface Manifest {
  engines?: { node?: string };
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(path.join(packageRoot, file), "utf8")) as T;
}

/** The Node range an `engines` value declares, or undefined when it names none. */
function nodeRange(where: string, engines: unknown): string | undefined {
  if (engines === undefined) return undefined;
  if (typeof engines === "object" && engines !== null && !Array.isArray(engines)) {
    const node = (engines as Record<string, unknown>).node;
    if (node === undefined) return undefined;
    if (typeof node === "string") return node;
  }
  // An old array or string form: read it by hand rather than pass it unchecked.
  throw new Error(`${where}: engines in a form this check does not read: ${JSON.stringify(engines)}`);
}

describe("engines: the Node versions package.json promises", () => {
  const manifest = readJson<Manifest>("package.json");
  const lock = readJson<{ lockfileVersion: number; packages: Record<string, LockEntry> }>("package-lock.json");
  const promised = manifest.engines?.node;

  it("promises a Node range, and package-lock.json is of this package.json", () => {
    expect(promised, "package.json engines.node").to.be.a("string");
    expect(semver.validRange(promised), `engines.node ${promised}`).to.not.equal(null);
    expect(lock.lockfileVersion).to.be.at.least(2);
    expect(lock.packages[""].engines, "engines in package-lock.json: run npm install").to.deep.equal(manifest.engines);
  });

  it("every package in package-lock.json (runtime and dev) accepts the oldest promised Node", () => {
    const oldest = semver.minVersion(promised!)!.version;
    const refusing = Object.entries(lock.packages)
      .filter(([where]) => where !== "" && !isClientUnderTest(where))
      .map(([where, entry]) => ({ where, entry, range: nodeRange(where, entry.engines) }))
      .filter(({ range }) => range !== undefined && !semver.satisfies(oldest, range))
      .map(({ where, entry, range }) => `${where}@${entry.version} (${entry.dev ? "dev" : "runtime"}) needs node ${range}`);
    expect(refusing, `packages that refuse Node ${oldest}`).to.deep.equal([]);
  });

  it("the client majors under test are dev dependencies only, and accept the Node running the tests", () => {
    const entries = Object.entries(lock.packages).filter(([where]) => isClientUnderTest(where));
    expect(entries.map(([where]) => where)).to.include.members(CLIENTS_UNDER_TEST.map((name) => `node_modules/${name}`));
    const wrong = entries
      .map(([where, entry]) => ({ where, entry, range: nodeRange(where, entry.engines) }))
      .filter(({ entry, range }) => entry.dev !== true || (range !== undefined && !semver.satisfies(process.version, range)))
      .map(({ where, entry, range }) => `${where}@${entry.version} (${entry.dev ? "dev" : "runtime"}) needs node ${range}`);
    expect(wrong, `client packages that are runtime dependencies or refuse Node ${process.version}`).to.deep.equal([]);
  });
});
