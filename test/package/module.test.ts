/**
 * The package as users load it: the BUILT package root (package.json main/exports -> dist/, esm/),
 * not lib/. `require` returns the class itself, as `require("rsmq")` does; ESM default and named
 * imports give the same class; TypeScript consumers compile under the usual module settings; and
 * `npm pack` ships what the runtime needs (lua/ above all). `npm test` builds dist/ first.
 */
import { expect } from "chai";
import { execFile } from "child_process";
import { EventEmitter } from "events";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import * as path from "path";
import OldRSMQ = require("rsmq");
import { connectionOptions, testRedis, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

/** build/test/ -> the package root; `require(packageRoot)` goes through package.json like a user's require. */
const packageRoot = path.resolve(__dirname, "../../..");
const tsc = path.join(packageRoot, "node_modules/.bin/tsc");

type Package = typeof import("../../lib");
type Instance = InstanceType<Package>;

const CALLBACK_METHODS = [
  "createQueue",
  "listQueues",
  "deleteQueue",
  "getQueueAttributes",
  "setQueueAttributes",
  "sendMessage",
  "receiveMessage",
  "popMessage",
  "deleteMessage",
  "changeMessageVisibility",
  "quit",
] as const;
const NEW_METHODS = ["receiveMessageOrNextDue", "receiveMessageOrNextDueAsync"] as const;
const ALL_METHODS = [...CALLBACK_METHODS, ...CALLBACK_METHODS.map((name) => `${name}Async`), ...NEW_METHODS];
/** The methods that take an options object with a qname (so `{}` is rejected before any round trip). */
const QNAME_METHODS = ALL_METHODS.filter((name) => !/^(listQueues|quit)/.test(name));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** A scratch project whose node_modules/rsmq-next is this package, as after `npm install rsmq-next`. */
function consumerProject(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  mkdirSync(path.join(dir, "node_modules"));
  symlinkSync(packageRoot, path.join(dir, "node_modules", "rsmq-next"), "dir");
  return dir;
}

/**
 * Type-checks `file` of a consumer project under both module resolutions an app may use
 * (CommonJS' node10 and node16); resolves tsc's output of each, "" when it passed.
 */
async function typeCheckedOutputs(dir: string, file: string, extra: { esModuleInterop?: boolean } = {}): Promise<string[]> {
  const resolutions = [
    { module: "commonjs", moduleResolution: "node10" },
    { module: "node16", moduleResolution: "node16" },
  ];
  const results = await Promise.all(
    resolutions.map((options) => {
      const tsconfig = {
        compilerOptions: {
          ...options,
          target: "ES2022",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          ...extra,
          types: ["node"],
          typeRoots: [path.join(packageRoot, "node_modules/@types")],
          pretty: false,
        },
        files: [file],
      };
      const config = `tsconfig.${path.basename(file, ".ts")}.${options.moduleResolution}.json`;
      writeFileSync(path.join(dir, config), JSON.stringify(tsconfig));
      return run(tsc, ["-p", config], { cwd: dir });
    }),
  );
  return results.map((result) => result.stdout.trim());
}

/** The files `npm pack` would ship. */
async function packedFiles(): Promise<string[]> {
  const result = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: packageRoot });
  expect(result.code, result.stderr).to.equal(0);
  const [pack] = JSON.parse(result.stdout) as Array<{ files: Array<{ path: string }> }>;
  return pack.files.map((entry) => entry.path);
}

function newestMtime(dir: string, ext: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full, ext));
    else if (entry.name.endsWith(ext)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

// ---------------------------------------------------------------------------------------------
// TypeScript consumer sources. Each exports `imported` (the value its import form yields, checked
// at run time) and a never-called `use` that exercises the public types.

const PUBLIC_TYPES = [
  "Callback",
  "ConstructorOptions",
  "TelemetryOptions",
  "CreateQueueOptions",
  "DeleteQueueOptions",
  "PurgeQueueOptions",
  "GetQueueAttributesOptions",
  "SetQueueAttributesOptions",
  "SendMessageOptions",
  "ReceiveMessageOptions",
  "PopMessageOptions",
  "DeleteMessageOptions",
  "ChangeMessageVisibilityOptions",
  "QueueMessage",
  "QueueAttributes",
  "ReceiveOrNextDue",
  "RedisSMQEvents",
  "RsmqErrorName",
  "RsmqErrorCode",
];

/**
 * Code using the class `RedisSMQ`, its instance type `instance`, and public type `X` as `type("X")`.
 */
function usage(instance: string, type: (name: string) => string): string {
  return `
export async function use(existing: ${instance}): Promise<${type("QueueMessage")} | undefined> {
  const options: ${type("ConstructorOptions")} = { host: "127.0.0.1", port: 6379, ns: "rsmq", realtime: false, options: { db: 1 } };
  const rsmq: ${instance} = new RedisSMQ(options);
  const created: 1 = await rsmq.createQueueAsync({ qname: "q", vt: 30 } as ${type("CreateQueueOptions")});
  const id: string = await existing.sendMessageAsync({ qname: "q", message: "m" } as ${type("SendMessageOptions")});
  const attributes: ${type("QueueAttributes")} = await rsmq.getQueueAttributesAsync({ qname: "q" });
  const next: ${type("ReceiveOrNextDue")} = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
  if (next.status === "waiting") { const ms: number = next.nextDueMs; void ms; }
  const callback: ${type("Callback")}<string> = (err, response) => { void err; void response; };
  rsmq.sendMessage({ qname: "q", message: "m" }, callback);
  rsmq.receiveMessage({ qname: "q" }, (err, message) => { void err; void message; });
  rsmq.on("error", (error) => { const e: Error = error; void e; });
  const name: ${type("RsmqErrorName")} = "queueNotFound";
  void created; void id; void attributes; void name;
  const received = await rsmq.receiveMessageAsync({ qname: "q" });
  await rsmq.quitAsync();
  return "id" in received ? (received as ${type("QueueMessage")}) : undefined;
}
`;
}

const namespaced = (name: string): string => `RedisSMQ.${name}`;
const bare = (name: string): string => name;
const typeImportList = PUBLIC_TYPES.join(", ");

const CONSUMER_FILES: Record<string, string> = {
  "require-import.ts": `import RedisSMQ = require("rsmq-next");
export const imported: unknown = RedisSMQ;
${usage("RedisSMQ", namespaced)}`,

  "default-import.ts": `import RedisSMQ from "rsmq-next";
export const imported: unknown = RedisSMQ;
${usage("RedisSMQ", namespaced)}`,

  // Without esModuleInterop a default import of an \`export =\` module is a value only (TypeScript
  // cannot give a \`default\` member a type meaning), so types come from named type imports.
  "default-import-value.ts": `import RedisSMQ from "rsmq-next";
import type { ${typeImportList} } from "rsmq-next";
export const imported: unknown = RedisSMQ;
${usage("InstanceType<typeof RedisSMQ>", bare)}`,

  "named-import.ts": `import { RedisSMQ, type QueueMessage, type ConstructorOptions, type CreateQueueOptions, type SendMessageOptions, type QueueAttributes, type ReceiveOrNextDue, type Callback, type RsmqErrorName } from "rsmq-next";
export const imported: unknown = RedisSMQ;
${usage("RedisSMQ", bare)}`,

  "type-imports.ts": `import type { ${typeImportList} } from "rsmq-next";
${PUBLIC_TYPES.map((name) => `export type Uses${name} = ${name}${name === "Callback" ? "<string>" : ""};`).join("\n")}
export const message: QueueMessage = { id: "x", message: "m", rc: 1, fr: 0, sent: 0 };
export const attributes: Partial<QueueAttributes> = { vt: 30, hiddenmsgs: 0 };
export const options: ConstructorOptions = { host: "h", port: 1, ns: "n", options: { database: 2 } };
`,

  "esm-default.mts": `import RedisSMQ from "rsmq-next";
export const imported: unknown = RedisSMQ;
${usage("RedisSMQ", namespaced)}`,

  "esm-named.mts": `import { RedisSMQ, type QueueMessage, type ConstructorOptions, type CreateQueueOptions, type SendMessageOptions, type QueueAttributes, type ReceiveOrNextDue, type Callback, type RsmqErrorName } from "rsmq-next";
export const imported: unknown = RedisSMQ;
${usage("RedisSMQ", bare)}`,

  "esm-type-imports.mts": `import type { ${typeImportList} } from "rsmq-next";
${PUBLIC_TYPES.map((name) => `export type Uses${name} = ${name}${name === "Callback" ? "<string>" : ""};`).join("\n")}
export const message: QueueMessage = { id: "x", message: "m", rc: 1, fr: 0, sent: 0 };
`,
};

const CONSUMER_FORMS: Record<string, string> = {
  "require-import.ts": 'import RedisSMQ = require("rsmq-next"), RedisSMQ.QueueMessage',
  "default-import.ts": 'import RedisSMQ from "rsmq-next" as value and type, RedisSMQ.QueueMessage',
  "default-import-value.ts": 'import RedisSMQ from "rsmq-next" as a value, types imported by name',
  "named-import.ts": 'import { RedisSMQ, type QueueMessage } from "rsmq-next", RedisSMQ as value and type',
  "type-imports.ts": 'import type { QueueMessage, ... every public type } from "rsmq-next"',
  "esm-default.mts": 'ESM: import RedisSMQ from "rsmq-next" as value and type, RedisSMQ.QueueMessage',
  "esm-named.mts": 'ESM: import { RedisSMQ, type QueueMessage } from "rsmq-next", RedisSMQ as value and type',
  "esm-type-imports.mts": 'ESM: import type { ...every public type } from "rsmq-next"',
};

interface TsConfig {
  name: string;
  compilerOptions: Record<string, unknown>;
  files: string[];
}

const CJS_COMMON = ["require-import.ts", "named-import.ts", "type-imports.ts"];
const ESM_FILES = ["esm-default.mts", "esm-named.mts", "esm-type-imports.mts"];

const TS_CONFIGS: TsConfig[] = [
  {
    name: "commonjs+esModuleInterop",
    compilerOptions: { module: "commonjs", moduleResolution: "node10", target: "ES2020", esModuleInterop: true, skipLibCheck: true },
    files: [...CJS_COMMON, "default-import.ts"],
  },
  {
    name: "commonjs",
    compilerOptions: { module: "commonjs", moduleResolution: "node10", target: "ES2020", esModuleInterop: false, skipLibCheck: true },
    files: [...CJS_COMMON, "default-import-value.ts"],
  },
  {
    name: "node16",
    compilerOptions: { module: "node16", moduleResolution: "node16", target: "ES2022", esModuleInterop: false, skipLibCheck: true },
    files: [...CJS_COMMON, "default-import-value.ts", ...ESM_FILES],
  },
  {
    name: "nodenext+esModuleInterop",
    compilerOptions: { module: "nodenext", moduleResolution: "nodenext", target: "ES2022", esModuleInterop: true, skipLibCheck: true },
    files: [...CJS_COMMON, "default-import.ts", ...ESM_FILES],
  },
];

describe("module shape (built package)", () => {
  let RedisSMQ: Package;

  before(function () {
    // A stale dist/ would make every test below check old code.
    const lib = newestMtime(path.join(packageRoot, "lib"), ".ts");
    const dist = statSync(path.join(packageRoot, "dist/index.js")).mtimeMs;
    if (dist < lib) throw new Error("dist/ is older than lib/: run `npm run build` first");
    RedisSMQ = require(packageRoot) as Package;
  });

  describe("require", () => {
    it("returns the class itself, with default and RedisSMQ pointing back at it", () => {
      expect(RedisSMQ).to.be.a("function");
      expect(RedisSMQ.name).to.equal("RedisSMQ");
      expect(RedisSMQ.default).to.equal(RedisSMQ);
      expect(RedisSMQ.RedisSMQ).to.equal(RedisSMQ);
      // The same object whichever way it is reached.
      expect(require(path.join(packageRoot, "dist/index.js"))).to.equal(RedisSMQ);
    });

    it("constructs an EventEmitter with every rsmq method, each *Async twin and receiveMessageOrNextDue", async () => {
      const rsmq: Instance = new RedisSMQ(connectionOptions(uniqueNs()));
      try {
        expect(rsmq).to.be.instanceOf(RedisSMQ);
        expect(rsmq).to.be.instanceOf(EventEmitter);
        const record = rsmq as unknown as Record<string, unknown>;
        const missing = ALL_METHODS.filter((name) => typeof record[name] !== "function");
        expect(missing, "methods missing").to.deep.equal([]);
        expect(ALL_METHODS).to.have.length(24);
      } finally {
        await rsmq.quitAsync();
      }
    });

    it("has every public method an rsmq 0.12.4 instance has", async () => {
      const ns = uniqueNs();
      const old = new OldRSMQ(connectionOptions(ns));
      const rsmq: Instance = new RedisSMQ(connectionOptions(ns));
      // Quitting rsmq before its connection is up makes its pending SCRIPT LOADs fail loudly.
      await new Promise((resolve) => old.listQueues(resolve));
      try {
        const oldRecord = old as unknown as Record<string, unknown>;
        const record = rsmq as unknown as Record<string, unknown>;
        // rsmq's methods are own, bound function properties; `_`-prefixed ones, asyncify and
        // initScript are its internals, undocumented.
        const internal = new Set(["asyncify", "initScript"]);
        const oldMethods = Object.keys(oldRecord).filter(
          (k) => typeof oldRecord[k] === "function" && !k.startsWith("_") && !internal.has(k),
        );
        expect(oldMethods).to.include.members([...CALLBACK_METHODS]);
        expect(oldMethods.filter((name) => typeof record[name] !== "function")).to.deep.equal([]);
        // The data properties rsmq users read.
        expect(rsmq.redisns)
          .to.equal((old as unknown as { redisns: string }).redisns)
          .and.to.equal(`${ns}:`);
        expect(rsmq.realtime).to.equal(false);
        expect(rsmq.connected).to.be.a("boolean");
        expect(rsmq.redis).to.be.an("object");
      } finally {
        await rsmq.quitAsync();
        await new Promise((resolve) => old.quit(resolve));
      }
    });

    it("binds every method to the instance (destructured and unbound calls work)", async () => {
      const rsmq: Instance = new RedisSMQ(connectionOptions(uniqueNs()));
      const record = rsmq as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      try {
        // Without a qname every option-taking method rejects before any round trip; an unbound
        // method that used `this` would throw a TypeError instead.
        for (const name of QNAME_METHODS) {
          const unbound = record[name];
          const error = await unbound.call(undefined, {}).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error, name).to.be.instanceOf(Error);
          // setQueueAttributes checks for an attribute before the qname, as rsmq does.
          expect((error as Error).name, name).to.be.oneOf(["missingParameter", "noAttributeSupplied"]);
        }
        const { createQueueAsync, sendMessageAsync, listQueuesAsync, receiveMessageOrNextDueAsync } = rsmq;
        expect(await createQueueAsync({ qname: "q" })).to.equal(1);
        // rsmq's documented `array.map(rsmq.sendMessage)`: map's index lands in the callback slot.
        const ids = await Promise.all(
          [
            { qname: "q", message: "a" },
            { qname: "q", message: "b" },
          ].map(rsmq.sendMessage as (o: unknown) => Promise<string>),
        );
        expect(ids).to.have.length(2);
        expect(await sendMessageAsync({ qname: "q", message: "c" })).to.have.length(32);
        expect(await listQueuesAsync()).to.deep.equal(["q"]);
        const next = await receiveMessageOrNextDueAsync({ qname: "q" });
        expect(next.status).to.equal("received");
      } finally {
        const { quitAsync } = rsmq;
        expect(await quitAsync()).to.equal("OK");
      }
    });
  });

  describe("ESM", () => {
    let dir: string;
    before(() => {
      dir = consumerProject("rsmq-next-esm-");
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('`import RedisSMQ, { RedisSMQ } from "rsmq-next"` (through the exports map) is the CommonJS class', async () => {
      const { host, port } = testRedis();
      const source = `
        import RedisSMQ, { RedisSMQ as Named } from "rsmq-next";
        import pkg from "rsmq-next/package.json" with { type: "json" };
        import { createRequire } from "module";
        const cjs = createRequire(import.meta.url)("rsmq-next");
        const rsmq = new RedisSMQ({ host: process.env.HOST, port: Number(process.env.PORT), ns: process.env.NS });
        await rsmq.createQueueAsync({ qname: "q" });
        await rsmq.sendMessageAsync({ qname: "q", message: "hello" });
        const received = await rsmq.receiveMessageAsync({ qname: "q" });
        await rsmq.quitAsync();
        console.log(JSON.stringify({
          type: typeof RedisSMQ,
          defaultIsCjs: RedisSMQ === cjs,
          namedIsCjs: Named === cjs,
          name: pkg.name,
          message: received.message,
        }));
      `;
      writeFileSync(path.join(dir, "main.mjs"), source);
      const result = await run(process.execPath, ["main.mjs"], {
        cwd: dir,
        env: { ...process.env, HOST: host, PORT: String(port), NS: uniqueNs() },
      });
      expect(result.code, result.stderr).to.equal(0);
      expect(JSON.parse(result.stdout)).to.deep.equal({
        type: "function",
        defaultIsCjs: true,
        namedIsCjs: true,
        name: "rsmq-next",
        message: "hello",
      });
    });
  });

  describe("TypeScript consumers", () => {
    /** Type-checks and emits each configuration's consumer files in one scratch project. */
    let dir: string;
    const results = new Map<string, Run>();

    before(async function () {
      this.timeout(120_000);
      dir = consumerProject("rsmq-next-ts-");
      for (const [file, source] of Object.entries(CONSUMER_FILES)) writeFileSync(path.join(dir, file), source);
      for (const config of TS_CONFIGS) {
        const tsconfig = {
          compilerOptions: {
            ...config.compilerOptions,
            strict: true,
            typeRoots: [path.join(packageRoot, "node_modules/@types")],
            types: ["node"],
            rootDir: ".",
            outDir: `out-${config.name}`,
            pretty: false,
          },
          files: config.files,
        };
        writeFileSync(path.join(dir, `tsconfig.${config.name}.json`), JSON.stringify(tsconfig, null, 2));
      }
      // In parallel: each tsc run takes seconds.
      await Promise.all(
        TS_CONFIGS.map(async (config) => {
          results.set(config.name, await run(tsc, ["-p", `tsconfig.${config.name}.json`], { cwd: dir }));
        }),
      );
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    /** Errors tsc printed for `file` (or, for "", anywhere else: the package's declarations, the options). */
    function diagnostics(configName: string, file: string): string[] {
      const output = results
        .get(configName)!
        .stdout.split("\n")
        .filter((line) => /error TS\d+/.test(line));
      const own = (line: string) => Object.keys(CONSUMER_FILES).some((name) => line.startsWith(`${name}(`));
      return output.filter((line) => (file ? line.startsWith(`${file}(`) : !own(line)));
    }

    for (const config of TS_CONFIGS) {
      describe(config.name, () => {
        for (const file of config.files) {
          it(`${file} type-checks (${CONSUMER_FORMS[file]})`, () => {
            expect(diagnostics(config.name, file)).to.deep.equal([]);
          });
        }

        it("raises no error outside the consumer files (package declarations, compiler options)", () => {
          expect(diagnostics(config.name, "")).to.deep.equal([]);
        });

        it("the compiled consumers load the class itself under every import form", async () => {
          const outDir = `out-${config.name}`;
          const checks = config.files
            .filter((file) => !file.includes("type-imports"))
            .map((file) => {
              const compiled = `./${outDir}/${file.replace(/\.ts$/, ".js").replace(/\.mts$/, ".mjs")}`;
              return `${JSON.stringify(file)}: (await import(${JSON.stringify(compiled)})).imported === cjs`;
            });
          const driver = `
            import { createRequire } from "module";
            const cjs = createRequire(import.meta.url)("rsmq-next");
            console.log(JSON.stringify({ ${checks.join(", ")} }));
          `;
          writeFileSync(path.join(dir, `check-${config.name}.mjs`), driver);
          const result = await run(process.execPath, [`check-${config.name}.mjs`], { cwd: dir });
          expect(result.code, result.stderr).to.equal(0);
          const loaded = JSON.parse(result.stdout) as Record<string, boolean>;
          expect(
            Object.keys(loaded).filter((file) => !loaded[file]),
            "files whose import is not the class",
          ).to.deep.equal([]);
          expect(Object.keys(loaded)).to.have.length(checks.length);
        });
      });
    }
  });

  describe("npm pack", () => {
    it("ships dist/, esm/ and every lua/ script, and no tests or sources", async function () {
      this.timeout(60_000);
      // Lists this checkout's dist/ as `npm test` built it; without --ignore-scripts, `prepare`
      // would build it again here. test/package/package-install.test.ts packs a fresh clone, prepare and all.
      const result = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: packageRoot });
      expect(result.code, result.stderr).to.equal(0);
      const [pack] = JSON.parse(result.stdout) as Array<{ files: Array<{ path: string }> }>;
      const files = pack.files.map((file) => file.path);
      const scripts = readdirSync(path.join(packageRoot, "lua")).filter((name) => name.endsWith(".lua"));
      expect(scripts).to.not.be.empty;
      expect(files).to.include.members([
        "package.json",
        "dist/index.js",
        "dist/index.d.ts",
        "esm/index.mjs",
        ...scripts.map((name) => `lua/${name}`),
        // Put before the scripts that call it, at load time.
        "lua/shared/refused-command.lua",
        // Named by the noPermission error, so it must be in the installed package.
        "docs/acl.md",
      ]);
      // Every module dist/index.js loads at run time is shipped.
      const distJs = [...listFiles(path.join(packageRoot, "dist"))].filter((file) => file.endsWith(".js"));
      expect(distJs.map((file) => path.relative(packageRoot, file)).filter((file) => !files.includes(file))).to.deep.equal([]);
      expect(files.filter((file) => /^(test|build|lib|bench|node_modules)\//.test(file))).to.deep.equal(
        // What the README links to from the package page: the bench write-up and its charts, no bench code.
        files.filter((file) => file === "bench/README.md" || /^bench\/results\/[^/]+\.svg$/.test(file)),
      );
      expect(files).to.include("bench/README.md");
    });
  });
});

function* listFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* listFiles(full);
    else yield full;
  }
}

describe("the rsmq-next/dashboard subpath (built package)", () => {
  let dir: string;
  before(() => {
    dir = consumerProject("rsmq-next-dashboard-");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `source` as a file of the consumer project; resolves what it printed, as JSON. */
  async function runIn(file: string, source: string): Promise<any> {
    writeFileSync(path.join(dir, file), source);
    const result = await run(process.execPath, [file], { cwd: dir });
    expect(result.code, result.stderr).to.equal(0);
    return JSON.parse(result.stdout);
  }

  it("require and import both give createDashboard, the same function", async () => {
    writeFileSync(path.join(dir, "cjs.cjs"), 'module.exports = require("rsmq-next/dashboard");');
    const loaded = await runIn(
      "load.mjs",
      `import { createDashboard } from "rsmq-next/dashboard";
       import { createRequire } from "module";
       const cjs = createRequire(import.meta.url)("./cjs.cjs");
       console.log(JSON.stringify({ type: typeof createDashboard, same: cjs.createDashboard === createDashboard }));`,
    );
    expect(loaded).to.deep.equal({ type: "function", same: true });
  });

  it("the main entry, by require or import, loads no dashboard code", async () => {
    const dashboardModules = `Object.keys(require.cache).filter((file) => file.includes("${path.sep}dashboard${path.sep}"))`;
    expect(await runIn("main.cjs", `require("rsmq-next"); console.log(JSON.stringify(${dashboardModules}));`)).to.deep.equal([]);
    const esm = await runIn(
      "main.mjs",
      `import "rsmq-next";
       import { createRequire } from "module";
       const require = createRequire(import.meta.url);
       console.log(JSON.stringify(${dashboardModules}));`,
    );
    expect(esm).to.deep.equal([]);
  });

  it("TypeScript finds its declarations under node10 and node16 resolution", async function () {
    this.timeout(60_000);
    const source = `import { createDashboard } from "rsmq-next/dashboard";
import type { DashboardHandler, DashboardOptions, QueuesResponse } from "rsmq-next/dashboard";
export function make(options: DashboardOptions): DashboardHandler {
  const handler = createDashboard(options);
  handler.close();
  return handler;
}
export const readOnly = (answer: QueuesResponse): boolean => answer.readOnly;
// @ts-expect-error intervalMs is a number (proof the declarations were read)
export const wrong: DashboardOptions = { rsmq: undefined as never, intervalMs: "2000" };
`;
    writeFileSync(path.join(dir, "dashboard.ts"), source);
    expect(await typeCheckedOutputs(dir, "dashboard.ts")).to.deep.equal(["", ""]);
  });

  it("npm pack ships the subpath: dist/dashboard/, esm/dashboard.mjs and the page's files", async function () {
    this.timeout(60_000);
    const files = await packedFiles();
    expect(files).to.include.members(["dist/dashboard/index.js", "dist/dashboard/index.d.ts", "esm/dashboard.mjs"]);
    const page = ["index.html", "app.js", "app.css", "icon.svg"].filter((name) => existsSync(path.join(packageRoot, "web", name)));
    expect(files).to.include.members(page.map((name) => `web/${name}`));
  });
});

describe("the rsmq-next/prometheus subpath (built package)", () => {
  let dir: string;
  before(() => {
    dir = consumerProject("rsmq-next-prometheus-");
    // The app's own prom-client, as after `npm install prom-client`.
    symlinkSync(path.join(packageRoot, "node_modules", "prom-client"), path.join(dir, "node_modules", "prom-client"), "dir");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function runIn(file: string, source: string): Promise<any> {
    writeFileSync(path.join(dir, file), source);
    const { host, port } = testRedis();
    const env = { ...process.env, RSMQ_HOST: host, RSMQ_PORT: String(port), RSMQ_NS: uniqueNs() };
    const result = await run(process.execPath, [file], { cwd: dir, env });
    expect(result.code, result.stderr).to.equal(0);
    return JSON.parse(result.stdout);
  }

  it("require and import both give collectMetrics, the same function, which registers into the app's prom-client registry", async () => {
    writeFileSync(path.join(dir, "cjs.cjs"), 'module.exports = require("rsmq-next/prometheus");');
    const loaded = await runIn(
      "load.mjs",
      `import { collectMetrics } from "rsmq-next/prometheus";
       import RedisSMQ from "rsmq-next";
       import client from "prom-client";
       import { createRequire } from "module";
       const cjs = createRequire(import.meta.url)("./cjs.cjs");
       const rsmq = new RedisSMQ({ host: process.env.RSMQ_HOST, port: Number(process.env.RSMQ_PORT), ns: process.env.RSMQ_NS });
       await rsmq.createQueueAsync({ qname: "jobs" });
       const registry = new client.Registry();
       const metrics = collectMetrics(rsmq, { registry, queueState: true });
       const text = await registry.metrics();
       metrics.stop();
       await rsmq.quitAsync();
       console.log(JSON.stringify({
         type: typeof collectMetrics,
         same: cjs.collectMetrics === collectMetrics,
         depth: text.split("\\n").filter((line) => line.startsWith('rsmq_queue_messages{queue="jobs"')),
         left: registry.getMetricsAsArray().length,
       }));`,
    );
    expect(loaded).to.deep.equal({
      type: "function",
      same: true,
      depth: [
        'rsmq_queue_messages{queue="jobs",state="visible"} 0',
        'rsmq_queue_messages{queue="jobs",state="in_flight"} 0',
        'rsmq_queue_messages{queue="jobs",state="delayed"} 0',
      ],
      left: 0,
    });
  });

  it("the main entry, by require or import, loads neither the prometheus subpath nor prom-client", async () => {
    const loaded = `Object.keys(require.cache).filter((file) => /[\\\\/](prometheus|exposition|queue-state|prom-client)[\\\\/]/.test(file))`;
    expect(await runIn("main.cjs", `require("rsmq-next"); console.log(JSON.stringify(${loaded}));`)).to.deep.equal([]);
  });

  it("TypeScript finds its declarations under node10 and node16 resolution, and prom-client's module fits `promClient`", async function () {
    this.timeout(60_000);
    const source = `import { collectMetrics } from "rsmq-next/prometheus";
import type { CollectMetricsOptions, MetricsHandle } from "rsmq-next/prometheus";
import RedisSMQ from "rsmq-next";
import * as client from "prom-client";
export function make(rsmq: RedisSMQ): MetricsHandle {
  const options: CollectMetricsOptions = { registry: client.register, queueState: ["jobs"], prefix: "app_", promClient: client };
  return collectMetrics(rsmq, options);
}
// @ts-expect-error queueState is a boolean or a list (proof the declarations were read)
export const wrong: CollectMetricsOptions = { registry: client.register, queueState: "yes" };
`;
    writeFileSync(path.join(dir, "prometheus.ts"), source);
    expect(await typeCheckedOutputs(dir, "prometheus.ts", { esModuleInterop: true })).to.deep.equal(["", ""]);
  });

  it("npm pack ships the subpath: dist/telemetry/prometheus/, dist/telemetry/exposition/ and esm/prometheus.mjs", async function () {
    this.timeout(60_000);
    const files = await packedFiles();
    expect(files).to.include.members([
      "dist/telemetry/prometheus/index.js",
      "dist/telemetry/prometheus/index.d.ts",
      "dist/telemetry/exposition/exposition.js",
      "esm/prometheus.mjs",
    ]);
  });
});
