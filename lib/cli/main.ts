#!/usr/bin/env node
/** The `rsmq-next` executable. The exit code is set, not forced, so output is flushed first. */
import { main } from "./program";
import { exitBySignal, stopSignalReceived } from "./stop-signal";

// `rsmq-next stats jobs | head`: the reader has gone, which is the reader's choice, not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

main(process.argv).then(
  (code) => {
    // Stopped by Ctrl-C or SIGTERM: end by that signal, as the shell convention asks.
    const signal = stopSignalReceived();
    if (signal) exitBySignal(signal);
    else process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`rsmq-next: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
