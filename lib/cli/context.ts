/**
 * What every command's action gets: the server settings from the global options, the output, and
 * an error context, plus `run`, which turns whatever the action throws into a CliError.
 */
import type { Command } from "commander";
import { explain, type ErrorContext } from "./errors";
import { redactUrl } from "./format";
import { Output } from "./output";
import { Interrupted } from "./stop-signal";
import type { ServerSettings } from "./connect";

/** The options every command accepts (declared on the program). */
export interface GlobalOptions {
  url: string;
  ns: string;
  cluster?: boolean;
  json?: boolean;
}

export interface Context {
  readonly server: ServerSettings;
  readonly out: Output;
  /** Fills in error messages; commands set `qname` to the queue they work on. */
  readonly errors: ErrorContext;
  /** Whether --ns (or RSMQ_NS) was given rather than defaulted. */
  readonly nsGiven: boolean;
}

export function contextOf(command: Command): Context {
  const globals = command.optsWithGlobals<GlobalOptions>();
  const source = (key: string): string | undefined => command.getOptionValueSourceWithGlobals(key);
  return {
    server: { url: globals.url, ns: globals.ns, cluster: Boolean(globals.cluster) },
    out: new Output(Boolean(globals.json)),
    errors: { server: redactUrl(globals.url), ns: globals.ns },
    nsGiven: source("ns") !== "default",
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
