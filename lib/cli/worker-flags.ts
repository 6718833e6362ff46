/**
 * The `worker` command's flags that set Worker options, made from the Worker's option table
 * (worker/worker-option-table.ts), and the options their values give the Worker.
 */
import { Option } from "commander";
import type { Command } from "commander";
import { integer } from "./arguments";
import { WORKER_OPTIONS } from "../worker/worker-option-table";
import type { WorkerFlag, WorkerFlags } from "../worker/worker-option-table";

type Table = typeof WORKER_OPTIONS;

/** The Worker options the `worker` command sets by flag. */
export type FlaggedOption = { [K in keyof Table]: Table[K] extends { readonly cli: unknown } ? K : never }[keyof Table];

/** What a flag (or flags) gives its option: an integer, a string, or what several flags make; undefined when left out without a default. */
type FlagValue<Cli> = Cli extends { readonly option: (values: never) => infer T }
  ? T
  : (Cli extends { readonly integer: unknown } ? number : string) | (Cli extends { readonly default: number } ? never : undefined);

/** The Worker options the flags give. */
export type FlagOptions = { [K in FlaggedOption]: FlagValue<Table[K]["cli"]> };

const FLAGGED = Object.entries(WORKER_OPTIONS).flatMap(([name, option]) =>
  "cli" in option ? [[name as FlaggedOption, option.cli as WorkerFlag | WorkerFlags<unknown>] as const] : [],
);

function flagsOf(cli: WorkerFlag | WorkerFlags<unknown>): readonly WorkerFlag[] {
  return "flags" in cli ? cli.flags : [cli];
}

/** Adds the flags of Worker options `names` to `command`, in that order. */
export function addWorkerFlags(command: Command, names: readonly FlaggedOption[]): void {
  for (const name of names) {
    const cli: WorkerFlag | WorkerFlags<unknown> = WORKER_OPTIONS[name].cli;
    for (const { flag, description, integer: range, default: fallback } of flagsOf(cli)) {
      if (range === undefined) command.option(flag, description);
      else command.option(flag, description, integer(...range), fallback);
    }
  }
}

/** The Worker options the parsed flags give (commander's `opts()`), each undefined when left out without a default. */
export function workerFlagOptions(parsed: Readonly<Record<string, unknown>>): FlagOptions {
  return Object.fromEntries(
    FLAGGED.map(([name, cli]) => {
      const values = flagsOf(cli).map(({ flag }) => parsed[new Option(flag).attributeName()] as number | string | undefined);
      return [name, "option" in cli ? cli.option(values) : values[0]];
    }),
  ) as FlagOptions;
}
