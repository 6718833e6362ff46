/**
 * What `worker` reports while it runs: a line per handled, retried or dead-lettered message for
 * people (on stderr, so the commands' own output keeps stdout), or one JSON event per line with --json.
 */
import type { Context } from "./context";
import { duration, preview } from "./format";
import type { Worker } from "../worker/worker";
import type { RedisSMQ } from "../redis-smq";
import type { QueueMessage } from "../types";

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `started` holds when each message's command started, for "handled in". */
export function reportWorkerEvents(worker: Worker, rsmq: RedisSMQ, { out }: Context, started: Map<string, number>): void {
  const c = out.errColor;
  const took = (message: QueueMessage): number => Date.now() - (started.get(message.id) ?? Date.now());
  const say = (line: string): void => void out.streams.err.write(`${line}\n`);
  worker.on("handled", (message) => {
    const ms = took(message);
    started.delete(message.id);
    if (out.json) out.event({ event: "handled", id: message.id, rc: message.rc, ms });
    else say(`${c.green("✓")} ${message.id} handled in ${duration(ms)}`);
  });
  worker.on("retry", (message, { delayMs, error }) => {
    started.delete(message.id);
    if (out.json) out.event({ event: "retry", id: message.id, rc: message.rc, delayMs, error: errorText(error) });
    else
      say(
        `${c.yellow("↻")} ${message.id} failed (delivery ${message.rc}): ${preview(errorText(error), 200)}; retry in ${duration(delayMs)}`,
      );
  });
  // The command always dead-letters (no onStop: "delete"), so `dropped` never comes.
  worker.on("deadLettered", (message, { reason, error }) => {
    started.delete(message.id);
    if (out.json) out.event({ event: "deadLettered", id: message.id, rc: message.rc, reason, error: errorText(error) });
    else say(`${c.red("✗")} ${message.id} failed (delivery ${message.rc}): ${preview(errorText(error), 200)}; ${reason}, dead-lettered`);
  });
  // Told once when the queue starts holding the worker back, and again only once it has taken a
  // message since: a limited worker is held back at every token, which would be a line per poll.
  let heldBy: string | undefined;
  worker.on("heldBack", (block) => {
    if (block.reason === heldBy) return;
    heldBy = block.reason;
    if (out.json) out.event({ event: "heldBack", reason: block.reason, retryMs: block.retryMs });
    else if (block.reason === "paused")
      say(c.yellow(`the queue is paused: waiting for a resume${block.retryMs === null ? "" : ` (ends in ${duration(block.retryMs)})`}`));
    else say(c.yellow("the queue's rate limit holds receives back: taking messages as it allows"));
  });
  worker.on("receive", (count) => {
    if (count > 0) heldBy = undefined;
  });
  worker.on("error", (error) => {
    if (out.json) out.event({ event: "error", error: error.message });
    else say(`${c.yellow("warning:")} ${error.message}`);
  });
  // Until the worker stops: after that the connection closes on purpose.
  const onDisconnect = (): void =>
    out.json ? out.event({ event: "disconnected" }) : say(c.yellow("lost the connection to Redis; reconnecting..."));
  const onConnect = (): void => (out.json ? out.event({ event: "reconnected" }) : say(c.green("reconnected to Redis")));
  rsmq.on("disconnect", onDisconnect);
  rsmq.on("connect", onConnect);
  worker.once("stopped", () => {
    rsmq.off("disconnect", onDisconnect);
    rsmq.off("connect", onConnect);
  });
}
