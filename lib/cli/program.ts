/**
 * The `rsmq-next` command line: global options, the commands, and exit codes (0 success,
 * 1 failure, 2 usage). Parsing is commander's; each command lives in commands/,
 * listed in help order in commands/index.ts.
 */
import { Command, CommanderError, Option } from "commander";
import { existsSync, readFileSync } from "fs";
import { dirname, join } from "path";
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, explain } from "./errors";
import { explainMisplacedOptions } from "./misplaced-option";
import { Output } from "./output";
import { Interrupted, exitCodeFor, stopSignalReceived } from "./stop-signal";
import { COMMANDS } from "./commands";

export const DEFAULT_URL = "redis://127.0.0.1:6379";

/** The package version, from the package.json above this file (in dist/ and in test builds alike). */
function packageVersion(): string {
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
  }
  return "unknown";
}

const EXAMPLES = `
Examples:
  $ rsmq-next queues
  $ rsmq-next create jobs --vt 60
  $ rsmq-next purge jobs --yes
  $ echo '{"to":"ada"}' | rsmq-next send jobs
  $ rsmq-next stats jobs --watch
  $ rsmq-next pause jobs --until 10m
  $ rsmq-next rate-limit jobs --limit 10/1s+5 --limit 300/1m
  $ rsmq-next schedule set reports nightly --cron "0 2 * * *" --tz Europe/Berlin --message '{}'
  $ rsmq-next worker jobs --exec './handle-job.sh' --concurrency 4
  $ rsmq-next dlq list jobs-dlq
  $ rsmq-next redrive jobs-dlq
  $ rsmq-next dashboard --port 8080
  $ rsmq-next metrics --port 9464
  $ rsmq-next doctor --fix
  $ rsmq-next --json queues | jq '.[].qname'
  $ rsmq-next --sentinel 10.0.0.1:26379,10.0.0.2:26379 --name mymaster stats jobs

Exit codes: 0 success, 1 failure (Redis unreachable, queue missing, ...), 2 bad arguments.
Ctrl-C or SIGTERM: demo, worker, dashboard, metrics and stats --watch clean up, then end by that signal (status 130 or 143).`;

export function buildProgram(): Command {
  const program = new Command("rsmq-next")
    .description("Inspect, feed and consume rsmq queues (the rsmq 0.12.4 data layout) from the shell.")
    .version(packageVersion(), "-V, --version", "print the version")
    .addOption(new Option("--url <url>", "the Redis server").env("REDIS_URL").default(DEFAULT_URL))
    .addOption(new Option("--ns <namespace>", "key prefix of the queues (rsmq's `ns`)").env("RSMQ_NS").default("rsmq"))
    .addOption(new Option("--cluster", "--url is a node of a Redis Cluster (queues as `<ns>:{<qname>}`)").env("RSMQ_CLUSTER"))
    .addOption(
      new Option("--sentinel <host:port,...>", "reach the primary these Redis Sentinels name, instead of --url (needs ioredis)").env(
        "RSMQ_SENTINELS",
      ),
    )
    .addOption(
      new Option("--name <name>", "with --sentinel: the name the sentinels monitor the primary under")
        .env("RSMQ_SENTINEL_NAME")
        .default("mymaster"),
    )
    .addOption(new Option("--password <password>", "with --sentinel: the password of the primary and replicas").env("RSMQ_PASSWORD"))
    .addOption(new Option("--username <user>", "with --sentinel: the ACL user of the primary and replicas").env("RSMQ_USERNAME"))
    .addOption(
      new Option("--sentinel-password <password>", "with --sentinel: the password of the sentinels themselves").env(
        "RSMQ_SENTINEL_PASSWORD",
      ),
    )
    .addOption(
      new Option("--command-timeout <ms>", "how long a call waits for Redis' reply before it fails (0: for ever)")
        .env("RSMQ_COMMAND_TIMEOUT_MS")
        .default(undefined, "10000"),
    )
    .option("--json", "print results as JSON, for scripts")
    .helpOption("-h, --help", "show help")
    .addHelpCommand(false)
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError("(add --help for usage)")
    .exitOverride()
    .addHelpText("after", EXAMPLES);
  for (const command of COMMANDS) command.register(program);
  return program;
}

/**
 * Runs the command line; resolves the exit code. Errors are printed here, once. After a stop
 * signal (Ctrl-C, SIGTERM) the code is 128 + its number, whatever the command did next: main.ts
 * then ends the process by that signal (see stop-signal.ts).
 */
export async function main(argv: readonly string[]): Promise<number> {
  const code = await runProgram(argv);
  const signal = stopSignalReceived();
  return signal ? exitCodeFor(signal) : code;
}

async function runProgram(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  explainMisplacedOptions(program, argv);
  try {
    await program.parseAsync([...argv]);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has printed the problem (or the help or version) already.
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (error instanceof Interrupted) return exitCodeFor(error.signal);
    const cliError = error instanceof CliError ? error : explain(error, { server: "", ns: "" });
    new Output(false).error(cliError.message, cliError.hint);
    return cliError.exitCode ?? EXIT_FAILURE;
  }
}
