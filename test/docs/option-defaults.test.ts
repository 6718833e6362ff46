/**
 * Every `@default` in the TSDoc of an options type says what the code does: the constructor's
 * (lib/types/options.ts) equal its options table, the retry policy's equal RETRY_DEFAULTS, and the
 * Worker's equal what resolveWorkerOptions gives. The TSDoc is read from the source with the
 * TypeScript parser, as TypeDoc reads it for the API reference. The option tables of docs/api.md
 * and docs/worker.md are held to the two option tables the same way.
 */
import { expect } from "chai";
import * as path from "path";
import * as ts from "typescript";
import { CONSTRUCTOR_OPTIONS } from "../../lib/options/constructor-option-table";
import { RETRY_DEFAULTS, RETRY_OPTION_NAMES } from "../../lib/retry/retry-policy";
import { resolveWorkerOptions, WORKER_OPTIONS } from "../../lib/worker/worker-option-table";
import { resolveTelemetry, TELEMETRY_OPTION_NAMES } from "../../lib/telemetry/telemetry-options";
import { readDoc, repositoryRoot, section } from "../support/markdown";
import { runsOn } from "../support/targets";

runsOn("single");

/** Interface `name` in `file`, parsed. */
function interfaceIn(file: string, name: string): ts.InterfaceDeclaration {
  const source = ts.createSourceFile(path.join(repositoryRoot, file), readDoc(file), ts.ScriptTarget.Latest, true);
  const declaration = source.statements.find(
    (node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === name,
  );
  if (declaration === undefined) throw new Error(`no interface ${name} in ${file}`);
  return declaration;
}

/** The `@default` text of each member of interface `name` in `file` (undefined for a member without one), in order. */
function documentedDefaults(file: string, name: string): Map<string, string | undefined> {
  const declaration = interfaceIn(file, name);
  const defaults = new Map<string, string | undefined>();
  for (const member of declaration.members) {
    if (member.name === undefined || !ts.isIdentifier(member.name)) continue;
    const tag = ts.getJSDocTags(member).find((candidate) => candidate.tagName.text === "default");
    defaults.set(member.name.text, tag && ts.getTextOfJSDocComment(tag.comment)?.trim());
  }
  return defaults;
}

/** What a default is written as in these tests: `30000`, `"rsmq"`, `null`, `undefined`; "no value" for prose or none. */
type Shown = string;
const NO_VALUE: Shown = "no value";

function show(value: unknown): Shown {
  return value === undefined ? "undefined" : JSON.stringify(value);
}

/**
 * The value a `@default` starts with (`30000`, `"rsmq"`, `false`, `null`, `undefined`), a note such
 * as "(off)" after it left out; NO_VALUE for prose ("the queue's vt") or no `@default` at all.
 */
function documentedValue(text: string | undefined): Shown {
  const literal = /^("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null|undefined)(?=$|[\s,;(])/.exec(text ?? "");
  return literal === null ? NO_VALUE : show(literal[1] === "undefined" ? undefined : JSON.parse(literal[1]));
}

/** `name: value` for each option, as the TSDoc documents it. */
function documented(defaults: Map<string, string | undefined>): string[] {
  return [...defaults].map(([name, text]) => `${name}: ${documentedValue(text)}`).sort();
}

describe("Documentation: every @default of an options type is the default the code applies", () => {
  it("reads a @default as the value it starts with, and prose as no value", () => {
    expect(
      ["30000", '"rsmq"', "0 (off)", "undefined (ride the Workers' polls)", "1, and more", "false", "null"].map(documentedValue),
    ).to.deep.equal(["30000", '"rsmq"', "0", "undefined", "1", "false", "null"]);
    expect(["the queue's vt", "concurrency", "Math.random", "`<qname>-dlq`", "10s", undefined].map(documentedValue)).to.deep.equal(
      Array(6).fill(NO_VALUE),
    );
  });

  it("ConstructorOptions (lib/types/options.ts): each @default is the options table's default, and an option without one has none", () => {
    const table = Object.entries(CONSTRUCTOR_OPTIONS).map(
      ([name, option]) => `${name}: ${"default" in option ? show(option.default) : NO_VALUE}`,
    );
    expect(documented(documentedDefaults("lib/types/options.ts", "ConstructorOptions"))).to.deep.equal(table.sort());
  });

  it("RetryPolicyOptions: each @default is RETRY_DEFAULTS', and an option without one has none", () => {
    const defaults: Record<string, unknown> = RETRY_DEFAULTS;
    const table = RETRY_OPTION_NAMES.map((name) => `${name}: ${name in defaults ? show(defaults[name]) : NO_VALUE}`);
    expect(documented(documentedDefaults("lib/retry/retry-policy.ts", "RetryPolicyOptions"))).to.deep.equal(table.sort());
  });

  it("TelemetryOptions (lib/types/options.ts): each value @default is what `telemetry: true` resolves to; the providers are the API's globals", () => {
    const docs = documentedDefaults("lib/types/options.ts", "TelemetryOptions");
    const resolved: Record<string, unknown> = { ...resolveTelemetry(true) };
    expect([...docs.keys()].sort()).to.deep.equal([...TELEMETRY_OPTION_NAMES].sort());
    const valued = [...docs].filter(([, text]) => documentedValue(text) !== NO_VALUE).map(([name]) => name);
    expect(valued.sort()).to.deep.equal(["carryContext", "metrics", "processContext", "queueState", "tenantLabels", "tracing"]);
    expect(documented(new Map(valued.map((name) => [name, docs.get(name)])))).to.deep.equal(
      valued.map((name) => `${name}: ${show(resolved[name])}`).sort(),
    );
    for (const name of ["tracerProvider", "meterProvider", "propagator"]) {
      expect(docs.get(name)).to.match(/^the API's global /);
      expect(resolved[name], `${name} left to the API`).to.equal(undefined);
    }
  });

  describe("WorkerOptions: each @default is what the options resolve to with only the required ones given", () => {
    const docs = documentedDefaults("lib/worker/worker-options.ts", "WorkerOptions");
    const required = { qname: "q", handler: (): void => undefined };
    const resolved: Record<string, unknown> = { ...resolveWorkerOptions(required) };

    it("a value: equal to the resolved option", () => {
      const valued = [...docs].filter(([, text]) => documentedValue(text) !== NO_VALUE).map(([name]) => name);
      expect(valued).to.include.members(["concurrency", "maxIdleSleepMs", "stopTimeoutMs", "onStop"]);
      expect(documented(new Map(valued.map((name) => [name, docs.get(name)])))).to.deep.equal(
        valued.map((name) => `${name}: ${show(resolved[name])}`).sort(),
      );
    });

    it("prose: what the resolved option follows (concurrency, the queue's vt, the policy's description, the queue name)", () => {
      expect(docs.get("batchSize")).to.equal("concurrency");
      expect(resolveWorkerOptions({ ...required, concurrency: 7 }).batchSize).to.equal(7);
      expect(docs.get("vt")).to.equal("the queue's vt");
      expect(resolved.vt, "read from the queue at each receive").to.equal(undefined);
      const retry = resolveWorkerOptions(required).retry;
      expect(docs.get("retry")).to.equal(retry.describe());
      expect(docs.get("deadLetterQueue")?.replace(/`/g, "").replace("<qname>", required.qname)).to.equal(resolved.deadLetterQueue);
    });

    it("none: only the required options and the signal", () => {
      expect([...docs].filter(([, text]) => text === undefined).map(([name]) => name)).to.deep.equal(["qname", "handler", "signal"]);
    });
  });
});

/** `name: default` for each row of the Markdown table of options in `section` of `file`, the default read as a `@default` is. */
function markdownDefaults(file: string, title: string): string[] {
  const rows = section(readDoc(file), title)
    .split("\n")
    .map((line) => /^\| `(\w+)` \| ([^|]*) \|/.exec(line))
    .filter((row): row is RegExpExecArray => row !== null);
  // A default in code (`30000`, `"rsmq"`) reads as the literal it holds.
  return rows.map(([, name, cell]) => `${name}: ${documentedValue(cell.trim().replace(/^`([^`]*)`/, "$1"))}`).sort();
}

/** `name: default` for each option of a table: a default that is a plain value, else NO_VALUE (none, or one derived). */
function tableDefaults(table: object): string[] {
  return Object.entries(table as Record<string, { readonly default?: unknown }>)
    .map(([name, option]) => {
      const value = option.default;
      const plain = value === null || ["string", "number", "boolean"].includes(typeof value);
      return `${name}: ${plain ? show(value) : NO_VALUE}`;
    })
    .sort();
}

describe("Documentation: every default in the option tables of the docs is the default the code applies", () => {
  it("reads a default in code as its literal, and prose as no value", () => {
    expect(markdownDefaults("docs/api.md", "`new RedisSMQ(options)`")).to.include.members([
      'ns: "rsmq"',
      "waitForReplicas: 0",
      `client: ${NO_VALUE}`,
    ]);
  });

  it("docs/api.md: a row per constructor option, each default the options table's", () => {
    expect(markdownDefaults("docs/api.md", "`new RedisSMQ(options)`")).to.deep.equal(tableDefaults(CONSTRUCTOR_OPTIONS));
  });

  it("docs/worker.md: a row per Worker option, each default the Worker's options table's", () => {
    expect(markdownDefaults("docs/worker.md", "Options")).to.deep.equal(tableDefaults(WORKER_OPTIONS));
  });

  it("docs/worker.md: the required options are those WorkerOptions requires; the retry default is the policy's", () => {
    const rows = section(readDoc("docs/worker.md"), "Options").split("\n");
    const cell = (name: string): string | undefined =>
      rows
        .find((line) => line.startsWith(`| \`${name}\` |`))
        ?.split("|")[2]
        .trim();
    const required = interfaceIn("lib/worker/worker-options.ts", "WorkerOptions")
      .members.filter((member) => member.questionToken === undefined)
      .map((member) => member.name?.getText());
    expect(Object.keys(WORKER_OPTIONS).filter((name) => cell(name) === "required")).to.deep.equal(required);
    const { maxDeliveries, initialDelayMs, maxDelayMs, jitter } = RETRY_DEFAULTS;
    expect(cell("retry")).to.equal(
      `at most ${maxDeliveries} deliveries, ${initialDelayMs / 1000} s doubling to ${maxDelayMs / 60_000} min, ${jitter} jitter`,
    );
  });
});
