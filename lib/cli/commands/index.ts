/**
 * Every command, in the order `--help` lists them (commander lists them as registered). A new
 * command is a module in this folder exporting `register(program)`, and one entry here.
 */
import type { Command } from "commander";
import * as queues from "./queues";
import * as create from "./create";
import * as set from "./set";
import * as deleteQueue from "./delete-queue";
import * as purge from "./purge";
import * as stats from "./stats";
import * as pause from "./pause";
import * as rateLimit from "./rate-limit";
import * as concurrency from "./concurrency";
import * as consumers from "./consumers";
import * as schedule from "./schedule";
import * as send from "./send";
import * as receive from "./receive";
import * as deleteMessages from "./delete";
import * as peek from "./peek";
import * as dlq from "./dlq";
import * as redrive from "./redrive";
import * as worker from "./worker";
import * as dashboard from "./dashboard";
import * as metrics from "./metrics";
import * as doctor from "./doctor";
import * as demo from "./demo";

/** A command module: adds its command, options and action to the program. */
export interface CommandModule {
  register(program: Command): void;
}

export const COMMANDS: readonly CommandModule[] = [
  queues,
  create,
  set,
  deleteQueue,
  purge,
  stats,
  pause,
  rateLimit,
  concurrency,
  consumers,
  schedule,
  send,
  receive,
  deleteMessages,
  peek,
  dlq,
  redrive,
  worker,
  dashboard,
  metrics,
  doctor,
  demo,
];
