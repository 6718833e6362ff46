/** A queue's settings on the command line: the options that take them and how they print, the same in create and set. */
import type { Command } from "commander";
import { maxsize, retention, seconds } from "./arguments";
import type { QueueAttributes } from "../types";

/** The settings as commander parses them from {@link addSettingOptions}'s options. */
export interface SettingOptions {
  vt?: number;
  delay?: number;
  maxsize?: number;
  retention?: number;
  expireTo?: string;
}

/** Adds --vt, --delay, --maxsize, --retention and --expire-to; `defaults` says rsmq's in each help line (for create). */
export function addSettingOptions(command: Command, defaults: boolean): Command {
  const orDefault = (text: string, value: string): string => (defaults ? `${text} (default ${value})` : text);
  return command
    .option("--vt <seconds>", orDefault("how long a received message stays hidden", "30"), seconds)
    .option("--delay <seconds>", orDefault("delay for every new message", "0"), seconds)
    .option("--maxsize <chars>", orDefault("longest message, 1024 to 65536, or -1 for unlimited", "65536"), maxsize)
    .option("--retention <seconds>", orDefault("delete (or move) messages this long after they were sent; 0 keeps them", "0"), retention)
    .option(
      "--expire-to <qname>",
      defaults
        ? "move expired messages to this queue instead of deleting them"
        : 'move expired messages to this queue; "" deletes them again',
    );
}

/** The settings for `--json`: rsmq's three, the retention (0: none) and, when set, where expired messages go. */
export function settingsOf(attributes: QueueAttributes): Record<string, number | string> {
  const { vt, delay, maxsize: size, retention: keep = 0, expireTo } = attributes;
  const settings = { vt, delay, maxsize: size, retention: keep };
  return expireTo === undefined ? settings : { ...settings, expireTo };
}

/** `vt 30s, delay 0s, maxsize 65536`, then `retention 3600s` and `expired to <qname>` when the queue has them. */
export function settingsLine(attributes: Pick<QueueAttributes, "vt" | "delay" | "maxsize" | "retention" | "expireTo">): string {
  const { vt, delay, maxsize: size, retention: keep, expireTo } = attributes;
  const parts = [`vt ${vt}s`, `delay ${delay}s`, `maxsize ${size === -1 ? "unlimited" : size}`];
  if (keep !== undefined) parts.push(`retention ${keep}s`);
  if (expireTo !== undefined) parts.push(`expired to ${expireTo}`);
  return parts.join(", ");
}
