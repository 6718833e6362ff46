/**
 * `peek --where` (docs/cli.md): `name=value` matches the string `value`; `name:=<json>` a typed
 * value (queue-state/where-text.ts, which the dashboard's filter reads too). Repeatable: all must
 * match. A bad item is a usage error (exit 2) before anything connects.
 */
import { InvalidArgumentError } from "commander";
import type { MessageAttributes } from "../types";
import { encodeWhere } from "../operations/message-attributes";
import { whereItem } from "../queue-state/where-text";

/** Collects repeated `--where` items into one `where`, checked as browseMessages checks it. */
export function collectWhere(text: string, previous: MessageAttributes | undefined): MessageAttributes {
  try {
    const [name, value] = whereItem(text);
    const where = { ...previous, [name]: value };
    encodeWhere(where);
    return where;
  } catch (error) {
    throw new InvalidArgumentError(`${(error as Error).message}.`);
  }
}

export { printableAttributes } from "../operations/message-page";
