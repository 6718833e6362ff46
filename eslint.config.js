// ESLint flat config: ESLint's and typescript-eslint's recommended rules, the type-checked ones included,
// over lib/, test/ and bench/ (the last two with the few relaxations a test or a benchmark needs, each
// with its reason, at the end), and ESLint's own over web/, the dashboard page's plain JavaScript.
// ESLint 8.57 and typescript-eslint 6.21 are the newest that install on Node 18.0.0, the oldest Node
// package.json promises (test/package/engines.test.ts).
"use strict";

const js = require("@eslint/js");
const tsPlugin = require("@typescript-eslint/eslint-plugin");
const tsParser = require("@typescript-eslint/parser");

module.exports = [
  { ignores: ["dist/", "build/", "docs/reference/", "node_modules/", "bench/results/"] },
  {
    files: ["lib/**/*.ts", "test/**/*.ts", "bench/**/*.ts"],
    languageOptions: {
      parser: tsParser,
      parserOptions: {
        project: ["./tsconfig.json", "./test/tsconfig.json"],
        tsconfigRootDir: __dirname,
        // typescript-eslint 6 names TypeScript 5.3 as its newest; the project's TypeScript parses fine.
        warnOnUnsupportedTypeScriptVersion: false,
      },
    },
    plugins: { "@typescript-eslint": tsPlugin },
    rules: {
      ...js.configs.recommended.rules,
      ...tsPlugin.configs["eslint-recommended"].overrides[0].rules,
      ...tsPlugin.configs["recommended-type-checked"].rules,
      // rsmq 0.12.4's API resolves `{}` when no message is due, and the public types say so.
      "@typescript-eslint/ban-types": ["error", { extendDefaults: true, types: { "{}": false } }],
      // `declare namespace RedisSMQ` keeps rsmq's `RedisSMQ.QueueMessage` type names compiling.
      "@typescript-eslint/no-namespace": ["error", { allowDeclarations: true }],
      // Stripping terminal escapes and control characters from output is what these patterns are for.
      "no-control-regex": "off",
      // tsc's noUnusedLocals and noUnusedParameters check lib/, and count a TSDoc {@link} as a use.
      // (test/ and bench/ compile without the two flags, and keep this rule off too, for now.)
      "@typescript-eslint/no-unused-vars": "off",
      // The emitted declarations must parse on TypeScript 4.1, the oldest that parses node-redis v4's
      // own (test/package/package-install.test.ts): `import { a, type B }` needs 4.5, `import type { B }`
      // 3.8. test/ and bench/ emit no declarations, but keep the one import style.
      "no-restricted-syntax": [
        "error",
        {
          selector: "ImportSpecifier[importKind='type'], ExportSpecifier[exportKind='type']",
          message: "Use a separate `import type { ... }` (or `export type`) statement: inline `type` specifiers need TypeScript 4.5.",
        },
      ],
    },
  },
  {
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: {
      // Stubs, hooks and handlers are async to have the shape of what they stand in for (a
      // `prepare` that returns a promise, a Worker handler that rejects rather than throws).
      "@typescript-eslint/require-await": "off",
      // Methods are taken off plain objects the helpers return (`const { api, cleanup } = ...`),
      // arrow functions or closures that use no `this`; the rule cannot tell them from class methods.
      "@typescript-eslint/unbound-method": "off",
      // require() at the point of use: a package.json's version, the built package after the test
      // built it, a module the test has just set up; an import would load it at the top.
      "@typescript-eslint/no-var-requires": "off",
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      // Tests call rsmq 0.12.4 and rsmq-next with options the types forbid, to see both refuse them,
      // and read JSON (the command line's --json, a child's stdout) whose shape the assertions check.
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  {
    // The dashboard's page: plain browser JavaScript, served as written (no build step). The browser
    // globals it uses are listed here rather than taken from a package the project does not depend on.
    files: ["web/**/*.js"],
    languageOptions: {
      ecmaVersion: 2020,
      sourceType: "module",
      globals: Object.fromEntries(
        [
          "window",
          "document",
          "location",
          "fetch",
          "EventSource",
          "FormData",
          "HTMLDialogElement",
          "Intl",
          "setTimeout",
          "setInterval",
          "clearInterval",
          "console",
        ].map((name) => [name, "readonly"]),
      ),
    },
    rules: { ...js.configs.recommended.rules, "no-restricted-properties": ["error", { property: "innerHTML" }, { property: "outerHTML" }] },
  },
  {
    files: ["lib/types/callback.ts"],
    // rsmq 0.12.4 declares a callback's `err` as `any`; the public types keep its shapes.
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["lib/typed-emitter.ts"],
    // The interface lays typed signatures over EventEmitter's own methods; nothing is added at run time.
    rules: { "@typescript-eslint/no-unsafe-declaration-merging": "off" },
  },
  {
    files: ["lib/cli/connect.ts", "lib/cli/sentinel-client.ts", "lib/telemetry/otel/load-api.ts", "lib/telemetry/otel/start-telemetry.ts"],
    // A lazy require keeps node-redis unloaded for --help and usage errors, ioredis (an optional
    // peer dependency) unloaded unless --sentinel asks for it, and @opentelemetry/api (another)
    // unless the `telemetry` option is on (and the queue-state reading unless its queueState is).
    rules: { "@typescript-eslint/no-var-requires": "off" },
  },
  {
    files: ["lib/telemetry/prometheus/options.ts"],
    // prom-client is an optional peer: required when collectMetrics is called without `promClient`, never at load time.
    rules: { "@typescript-eslint/no-var-requires": "off" },
  },
];
