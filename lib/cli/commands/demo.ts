/** `demo` (also `npm start`): the whole story in about 50 s. */
import { Option } from "commander";
import type { Command } from "commander";
import { positiveNumber } from "../arguments";
import { run } from "../context";
import { checkUrl } from "../connect";
import { renderSummary } from "../demo/summary";
import type { DemoRedis } from "../demo/find-redis";
import { Interrupted, exitBySignal, stopOnSignals } from "../stop-signal";

interface DemoCommandOptions {
  scale: number;
}

export function register(program: Command): void {
  program
    .command("demo")
    .description(
      "a tour of about 50 s: a Worker with retries and a dead-letter queue, then its idle cost next to a 100 ms rsmq 0.12.4 poll, " +
        "measured on the server (uses --url / REDIS_URL, or starts a throwaway redis-server)",
    )
    .addOption(
      new Option("--scale <factor>", "stretch or shrink the timeline (tests)")
        .argParser(positiveNumber)
        .env("RSMQ_NEXT_DEMO_SCALE")
        .default(1)
        .hideHelp(),
    )
    .action((options: DemoCommandOptions, command: Command) =>
      run(command, async ({ server, out, nsOnCommandLine }) => {
        checkUrl(server.url);
        let redis: DemoRedis | undefined;
        const stop = stopOnSignals((signal) => {
          // A second Ctrl-C: leave now, but never leave a throwaway server running.
          redis?.kill();
          exitBySignal(signal);
        });
        try {
          const { runDemo } = await import("../demo/run-demo");
          const summary = await runDemo(
            out,
            { url: server.url, ns: nsOnCommandLine ? server.ns : undefined, scale: options.scale },
            stop.signal,
            (found) => (redis = found),
          );
          if (out.json) out.data(summary);
          else renderSummary(out, summary);
        } catch (error) {
          // Stopped by Ctrl-C or SIGTERM: no error, the process ends by the signal (see stop-signal.ts).
          if (!(error instanceof Interrupted)) throw error;
          out.note(`demo interrupted: its queues were deleted${redis?.throwaway ? " and the throwaway redis-server stopped" : ""}`);
        } finally {
          stop.dispose();
        }
      }),
    );
}
