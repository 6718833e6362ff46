#!/usr/bin/env node
/** The `rsmq-next` executable. The exit code is set, not forced, so output is flushed first. */
import { main } from "./program";

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`rsmq-next: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
