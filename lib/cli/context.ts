/**
 * What every command's action gets: the server settings from the global options, the output, and
 * an error context, plus `run`, which turns whatever the action throws into a CliError.
 */
import type { Command } from "commander";
import { explain, usageError } from "./errors";
import type { ErrorContext } from "./errors";
import { redactUrl } from "./format";
import { Output } from "./output";
import { Interrupted } from "./stop-signal";
import type { ServerSettings } from "./connect";
import { describeSentinels, parseSentinels } from "./sentinel-client";
import type { SentinelSettings } from "./sentinel-client";

/** The options every command accepts (declared on the program). */
export interface GlobalOptions {
  url: string;
  ns: string;
  cluster?: boolean;
  json?: boolean;
  sentinel?: string;
  name: string;
  password?: string;
  username?: string;
  sentinelPassword?: string;
  commandTimeout?: string;
}

export interface Context {
  readonly server: ServerSettings;
  readonly out: Output;
  /** Fills in error messages; commands set `qname` to the queue they work on. */
  readonly errors: ErrorContext;
  /**
   * Whether --ns was given on the command line. RSMQ_NS does not count: it is usually the user's
   * real namespace, set for every command, and the demo must not create its queues there unasked.
   */
  readonly nsOnCommandLine: boolean;
}

export function contextOf(command: Command): Context {
  const globals = command.optsWithGlobals<GlobalOptions>();
  const source = (key: string): string | undefined => command.getOptionValueSourceWithGlobals(key);
  const sentinel = sentinelSettings(globals, source);
  return {
    server: { url: globals.url, ns: globals.ns, cluster: Boolean(globals.cluster), sentinel, commandTimeoutMs: commandTimeoutOf(globals) },
    out: new Output(Boolean(globals.json)),
    errors: { server: sentinel ? describeSentinels(sentinel) : redactUrl(globals.url), ns: globals.ns },
    nsOnCommandLine: source("ns") === "cli",
  };
}

/** --command-timeout in ms, checked before anything connects; undefined when left out (the library's default). */
function commandTimeoutOf(globals: GlobalOptions): number | undefined {
  if (globals.commandTimeout === undefined) return undefined;
  const ms = Number(globals.commandTimeout);
  if (!/^\d+$/.test(globals.commandTimeout) || !Number.isSafeInteger(ms)) {
    throw usageError(
      `--command-timeout takes whole milliseconds, got "${globals.commandTimeout}"`,
      "10000 is the default; 0 waits for ever",
    );
  }
  return ms;
}

/** --sentinel and the options that go with it, checked before anything connects; undefined without --sentinel. */
function sentinelSettings(globals: GlobalOptions, source: (key: string) => string | undefined): SentinelSettings | undefined {
  const given = (key: string): boolean => source(key) !== undefined && source(key) !== "default";
  if (globals.sentinel === undefined) {
    for (const [key, flag] of [
      ["password", "--password"],
      ["username", "--username"],
      ["sentinelPassword", "--sentinel-password"],
    ] as const) {
      if (given(key))
        throw usageError(
          `${flag} applies to --sentinel only`,
          "with --url, put the user and password in the URL: redis://user:password@host:6379",
        );
    }
    return undefined;
  }
  if (source("url") === "cli")
    throw usageError("--sentinel and --url cannot be used together", "the sentinels name the server: leave out --url");
  if (globals.cluster)
    throw usageError(
      "--sentinel and --cluster cannot be used together",
      "Sentinel watches one primary; a Redis Cluster fails over by itself",
    );
  return {
    sentinels: parseSentinels(globals.sentinel),
    name: globals.name,
    password: globals.password,
    username: globals.username,
    sentinelPassword: globals.sentinelPassword,
  };
}

/** Runs a command's body with its context; any error becomes a CliError that names the problem. */
export async function run(command: Command, body: (context: Context) => Promise<void>): Promise<void> {
  const context = contextOf(command);
  try {
    await body(context);
  } catch (error) {
    if (error instanceof Interrupted) throw error;
    throw explain(error, context.errors);
  }
}
