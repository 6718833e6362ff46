/**
 * `peek --where` (docs/cli.md): `name=value` matches the string `value`; `name:=<json>` a typed
 * value (`attempt:=2`, `urgent:=true`, `key:={"b64":"AAE="}` for bytes). Repeatable: all must
 * match. A bad item is a usage error (exit 2) before anything connects; the names and values are
 * then checked as browseMessages checks them (message-attributes.ts encodeWhere).
 */
import { InvalidArgumentError } from "commander";
import type { AttributeValue, MessageAttributes } from "../types";
import { encodeWhere } from "../operations/message-attributes";

/** One `--where` item as a name and its value. */
export function whereItem(text: string): [string, AttributeValue] {
  const equals = text.indexOf("=");
  if (equals <= 0)
    throw new InvalidArgumentError('Expected name=value (a string) or name:=<json> (a number, true, false, a string or {"b64":...}).');
  const typed = text[equals - 1] === ":";
  const name = text.slice(0, typed ? equals - 1 : equals);
  const raw = text.slice(equals + 1);
  if (!typed) return [name, raw];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new InvalidArgumentError(`Expected JSON after ${name}:= (2, true, "text" or {"b64":"..."}), got ${raw}.`);
  }
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return [name, value];
  const b64 = typeof value === "object" && value !== null ? (value as { b64?: unknown }).b64 : undefined;
  if (typeof b64 === "string" && /^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return [name, Buffer.from(b64, "base64")];
  throw new InvalidArgumentError(`Expected a number, true, false, a string or {"b64":"..."} after ${name}:=, got ${raw}.`);
}

/** Collects repeated `--where` items into one `where`, checked as browseMessages checks it. */
export function collectWhere(text: string, previous: MessageAttributes | undefined): MessageAttributes {
  const [name, value] = whereItem(text);
  const where = { ...previous, [name]: value };
  try {
    encodeWhere(where);
  } catch (error) {
    throw new InvalidArgumentError(`${(error as Error).message}.`);
  }
  return where;
}

/** Attributes as text for people and JSON for scripts: bytes as `{"b64":"..."}`, as `--where` takes them. */
export function printableAttributes(
  attributes: MessageAttributes | undefined,
): Record<string, string | number | boolean | { b64: string }> | undefined {
  if (!attributes) return undefined;
  const printable: Record<string, string | number | boolean | { b64: string }> = {};
  for (const [name, value] of Object.entries(attributes)) {
    printable[name] = value instanceof Uint8Array ? { b64: Buffer.from(value).toString("base64") } : value;
  }
  return printable;
}
