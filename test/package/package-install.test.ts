/**
 * From a fresh clone to a running app, as a new user gets the package: the committed HEAD is
 * cloned, `npm pack` there builds dist/ through `prepack` and packs it, and the tarball is installed
 * into a new empty app, which then loads it by `require`, by `import` (default and named) and through
 * the `rsmq-next` bin, each doing real work on the test server. It packs what is committed, so
 * commit before running it. (test/package/module.test.ts covers the module shape on the checkout itself.)
 *
 * `npm install git+file://<clone>` would check the git install path too, but it runs a full
 * development install in its own copy of the clone (over a minute here), so it is left out.
 */
import { expect } from "chai";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import * as path from "path";
import { cloneAt, headCommit, installIntoNewApp, pack, provideDependencies, run } from "../support/fresh-package";
import type { Packed, Run } from "../support/fresh-package";
import { testRedis, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

/** build/test/ -> the checkout. */
const checkout = path.resolve(__dirname, "../../..");

/**
 * The oldest TypeScript the published declarations are kept compiling with: node-redis v4's own
 * declarations need 4.1 (key remapping in mapped types), so older ones fail on those whatever
 * rsmq-next writes. The lint rule against inline `type` specifiers keeps rsmq-next's own below 4.5.
 */
const OLDEST_TYPESCRIPT = "4.1";
const OLD_TOOLCHAIN = ["typescript@4.1.6", "@types/node@14.18.63"];

/** An rsmq 0.12.4-style app: callbacks, the promise API, its type names and a Worker. */
const OLD_TYPESCRIPT_CONSUMER = `
import RedisSMQ = require("rsmq-next");
// The prometheus subpath compiles without prom-client installed (its types are structural).
import { collectMetrics } from "rsmq-next/prometheus";
import type { PromRegistry } from "rsmq-next/prometheus";
export function metricsOf(rsmq: RedisSMQ, registry: PromRegistry): () => void {
  return collectMetrics(rsmq, { registry, queueState: ["jobs"] }).stop;
}
const rsmq = new RedisSMQ({ host: "127.0.0.1", port: 6379, ns: "rsmq" });
rsmq.sendMessage({ qname: "jobs", message: "hello" }, (err: any, id: string) => console.log(err, id));
rsmq.receiveMessage({ qname: "jobs" }, (err: any, message: RedisSMQ.QueueMessage | {}) => {
  if ("id" in message) console.log(message.id, message.rc);
});
async function consume(): Promise<RedisSMQ.QueueAttributes> {
  const worker = new RedisSMQ.Worker(rsmq, { qname: "jobs", handler: async (message) => console.log(message.message) });
  worker.on("error", (error: Error) => console.error(error));
  worker.start();
  await worker.stop();
  return rsmq.getQueueAttributesAsync({ qname: "jobs" });
}
rsmq.on("error", (error: Error) => console.error(error));
// Proof that the package's own declarations were read (an untyped import would accept this):
// @ts-expect-error a Worker needs a handler
new RedisSMQ.Worker(rsmq, { qname: "jobs" });
void consume().then(() => rsmq.quitAsync());
`;

/** A child program gets at most this long; it is killed after that and the test fails, naming it. */
const CHILD_TIMEOUT_MS = 20_000;

describe("a fresh clone, packed and installed into a new app", function () {
  let scratch: string;
  let packed: Packed;
  let app: string;
  let installed: Run;

  before(async function () {
    // Clone, build and pack (~20 s here), install (~5 s); a changed lock adds an npm ci.
    this.timeout(400_000);
    scratch = mkdtempSync(path.join(tmpdir(), "rsmq-next-pack-"));
    const clone = path.join(scratch, "clone");
    await cloneAt(checkout, await headCommit(checkout), clone);
    await provideDependencies(checkout, clone);
    packed = await pack(clone, scratch);
    app = path.join(scratch, "app");
    installed = await installIntoNewApp(packed.tarball, app);
  });

  after(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** Runs `node <file>` in the app with the test server's address and a fresh namespace. */
  async function runInApp(file: string, source: string): Promise<unknown> {
    writeFileSync(path.join(app, file), source);
    const { host, port } = testRedis();
    const env = { ...process.env, RSMQ_HOST: host, RSMQ_PORT: String(port), RSMQ_NS: uniqueNs() };
    const { stdout } = await run(`node ${file} in the app`, process.execPath, [file], { cwd: app, env, timeoutMs: CHILD_TIMEOUT_MS });
    return JSON.parse(stdout);
  }

  it("the tarball has LICENSE, lua/, dist/, esm/ and the README's charts, and no tests, sources, bench code or build files", () => {
    const scripts = readdirSync(path.join(checkout, "lua")).filter((name) => name.endsWith(".lua"));
    expect(scripts).to.not.be.empty;
    expect(packed.files).to.include.members([
      "package.json",
      "LICENSE",
      "README.md",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/cli/main.js",
      "esm/index.mjs",
      "dist/dashboard/index.js",
      "dist/dashboard/index.d.ts",
      "esm/dashboard.mjs",
      "dist/telemetry/prometheus/index.js",
      "dist/telemetry/prometheus/index.d.ts",
      "esm/prometheus.mjs",
      // The dashboard's page, served from the package.
      "web/index.html",
      "web/app.js",
      "web/app.css",
      "web/icon.svg",
      ...scripts.map((name) => `lua/${name}`),
      // What the README links to (test/docs/links.test.ts checks every link inside the package).
      "bench/README.md",
      "bench/results/idle.svg",
      "bench/results/delivery.svg",
    ]);
    const unwanted =
      /^(test|build|lib|node_modules|\.ci|\.github)\/|^bench\/(?!README\.md$|results\/[^/]+\.svg$)|^(tsconfig.*\.json|\.mocharc.*|\.gitignore|package-lock\.json)$/;
    expect(packed.files.filter((file) => unwanted.test(file))).to.deep.equal([]);
    expect(
      packed.files.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts")),
      "TypeScript sources",
    ).to.deep.equal([]);
  });

  it("installs without a warning (no install script of its own: it builds at pack time)", () => {
    const warnings = `${installed.stdout}\n${installed.stderr}`.split("\n").filter((line) => /\bwarn/i.test(line));
    expect(warnings, "what npm install printed").to.deep.equal([]);
  });

  it(`its declarations compile in a TypeScript ${OLDEST_TYPESCRIPT} app with @types/node 14 and skipLibCheck off`, async function () {
    // Installed beside the package, exact versions, as an app on that toolchain has them.
    this.timeout(180_000);
    await run(
      "npm install of the old compiler and types",
      "npm",
      ["install", ...OLD_TOOLCHAIN, "--prefer-offline", "--no-audit", "--no-fund"],
      {
        cwd: app,
        timeoutMs: 170_000,
      },
    );
    writeFileSync(
      path.join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2018",
          module: "commonjs",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ["consumer.ts"],
      }),
    );
    writeFileSync(path.join(app, "consumer.ts"), OLD_TYPESCRIPT_CONSUMER);
    const tsc = path.join(app, "node_modules/typescript/bin/tsc");
    await run(`tsc ${OLDEST_TYPESCRIPT} -p . in the app`, process.execPath, [tsc, "-p", "."], {
      cwd: app,
      timeoutMs: 60_000,
    });
  });

  it("rsmq-next/dashboard by require and import: one createDashboard, serving its page and the API", async () => {
    writeFileSync(path.join(app, "dashboard-cjs.cjs"), 'module.exports = require("rsmq-next/dashboard");');
    const result = await runInApp(
      "use-dashboard.mjs",
      `
      import { createServer } from "http";
      import { createRequire } from "module";
      import RedisSMQ from "rsmq-next";
      import { createDashboard } from "rsmq-next/dashboard";
      const require = createRequire(import.meta.url);
      const cjs = require("./dashboard-cjs.cjs");
      const rsmq = new RedisSMQ({ host: process.env.RSMQ_HOST, port: Number(process.env.RSMQ_PORT), ns: process.env.RSMQ_NS });
      const dashboard = createDashboard({ rsmq });
      const server = createServer((req, res) => dashboard(req, res));
      try {
        await rsmq.createQueueAsync({ qname: "jobs" });
        await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
        const base = "http://127.0.0.1:" + server.address().port + "/";
        const page = await fetch(base);
        const queues = await (await fetch(base + "api/queues")).json();
        console.log(JSON.stringify({
          same: cjs.createDashboard === createDashboard,
          resolved: require.resolve("rsmq-next/dashboard"),
          page: [page.status, page.headers.get("content-type")],
          queues: queues.queues.map((queue) => queue.qname),
        }));
      } finally {
        dashboard.close();
        server.close();
        await rsmq.quitAsync();
      }
      `,
    );
    expect(result).to.deep.equal({
      same: true,
      resolved: path.join(app, "node_modules/rsmq-next/dist/dashboard/index.js"),
      page: [200, "text/html; charset=utf-8"],
      queues: ["jobs"],
    });
  });

  it('require("rsmq-next") loads the installed copy, which creates a queue, sends and receives', async () => {
    const result = await runInApp(
      "use-require.js",
      `
      const RedisSMQ = require("rsmq-next");
      (async () => {
        const rsmq = new RedisSMQ({ host: process.env.RSMQ_HOST, port: Number(process.env.RSMQ_PORT), ns: process.env.RSMQ_NS });
        try {
          await rsmq.createQueueAsync({ qname: "jobs" });
          const id = await rsmq.sendMessageAsync({ qname: "jobs", message: "by require" });
          const received = await rsmq.receiveMessageAsync({ qname: "jobs" });
          console.log(JSON.stringify({ resolved: require.resolve("rsmq-next"), sameId: received.id === id, message: received.message }));
        } finally {
          await rsmq.quitAsync();
        }
      })().catch((error) => { console.error(error); process.exitCode = 1; });
      `,
    );
    expect(result).to.deep.equal({
      resolved: path.join(app, "node_modules/rsmq-next/dist/index.js"),
      sameId: true,
      message: "by require",
    });
  });

  it('import RedisSMQ, { Worker } from "rsmq-next" (ESM): a Worker handles a message sent through the default export', async () => {
    const result = await runInApp(
      "use-import.mjs",
      `
      import RedisSMQ, { Worker } from "rsmq-next";
      const rsmq = new RedisSMQ({ host: process.env.RSMQ_HOST, port: Number(process.env.RSMQ_PORT), ns: process.env.RSMQ_NS });
      let worker;
      try {
        await rsmq.createQueueAsync({ qname: "jobs" });
        await rsmq.sendMessageAsync({ qname: "jobs", message: "by import" });
        const handled = await new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("the Worker handled nothing within 10 s")), 10_000);
          worker = new Worker(rsmq, { qname: "jobs", handler: async (message) => { clearTimeout(timer); resolve(message.message); } });
          worker.on("error", reject);
          worker.start();
        });
        await worker.stop();
        const { msgs } = await rsmq.getQueueAttributesAsync({ qname: "jobs" });
        console.log(JSON.stringify({ handled, left: msgs, workerIsNamedExport: Worker === RedisSMQ.Worker }));
      } finally {
        await worker?.stop();
        await rsmq.quitAsync();
      }
      `,
    );
    expect(result).to.deep.equal({ handled: "by import", left: 0, workerIsNamedExport: true });
  });

  describe("the rsmq-next bin in node_modules/.bin", () => {
    const bin = (): string => path.join(app, "node_modules/.bin/rsmq-next");
    /** The bin as a user's shell runs it (through its #! line), without the caller's REDIS_URL or RSMQ_NS. */
    const runBin = (args: string[]) => {
      const env = { ...process.env };
      delete env.REDIS_URL;
      delete env.RSMQ_NS;
      return run(`rsmq-next ${args.join(" ")}`, bin(), args, { cwd: app, env, timeoutMs: CHILD_TIMEOUT_MS });
    };

    it("--help prints the usage", async () => {
      const { stdout } = await runBin(["--help"]);
      expect(stdout).to.match(/^Usage: rsmq-next /);
      expect(stdout).to.include("queues");
    });

    it("creates a queue, sends to it and lists it with its message count on the test server", async () => {
      const connection = ["--url", testRedis().url, "--ns", uniqueNs()];
      await runBin([...connection, "create", "jobs"]);
      await runBin([...connection, "send", "jobs", "by the bin"]);
      const { stdout } = await runBin([...connection, "--json", "queues"]);
      const queues = JSON.parse(stdout) as Array<{ qname: string; msgs: number }>;
      expect(queues.map(({ qname, msgs }) => ({ qname, msgs }))).to.deep.equal([{ qname: "jobs", msgs: 1 }]);
    });
  });
});
