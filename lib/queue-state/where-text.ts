/**
 * A `where` written as text, as the command line's `peek --where` and the dashboard's filter take
 * it: items `name=value` (the string `value`) or `name:=<json>` (a typed value: `attempt:=2`,
 * `urgent:=true`, `key:={"b64":"AP8="}` for bytes); all must match. Throws an `invalidValue`
 * error naming the bad item; the names and values are then checked as browseMessages checks them.
 */
import { invalidValue } from "../operations/invalid-value";
import { encodeWhere } from "../operations/message-attributes";
import type { AttributeValue, MessageAttributes } from "../operations/message-attributes";

const EXPECTED = 'name=value (a string) or name:=<json> (a number, true, false, a string or {"b64":"..."})';

/** One item as a name and its value. */
export function whereItem(text: string): [string, AttributeValue] {
  const equals = text.indexOf("=");
  if (equals <= 0) throw invalidValue("where", EXPECTED, text);
  const typed = text[equals - 1] === ":";
  const name = text.slice(0, typed ? equals - 1 : equals);
  const raw = text.slice(equals + 1);
  if (!typed) return [name, raw];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalidValue("where", EXPECTED, text);
  }
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return [name, value];
  const b64 = typeof value === "object" && value !== null ? (value as { b64?: unknown }).b64 : undefined;
  if (typeof b64 === "string" && /^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return [name, Buffer.from(b64, "base64")];
  throw invalidValue("where", EXPECTED, text);
}

/** Items into one `where`, checked (1 to 10 names, each name and value as browseMessages takes them). */
export function whereOf(items: readonly string[]): MessageAttributes {
  const where: MessageAttributes = {};
  for (const item of items) {
    const [name, value] = whereItem(item);
    where[name] = value;
  }
  encodeWhere(where);
  return where;
}
