/**
 * Message attributes (docs/attributes.md): up to MAX_ATTRIBUTES typed values a send stores with
 * its message, in the message's `<id>:at` field, a field rsmq 0.12.4 never reads. That field holds
 * JSON: the attributes under `a` (`{"a":{"tenant":"acme","attempt":2}}`), binary values as
 * `{"b64":"…"}`; a schedule's fire writes `schedule` and `slot` beside them (message-reply.ts
 * scheduleOf), so neither can shadow the other.
 *
 * The `tenant` attribute is the message's tenant for fair ordering (docs/fair-queues.md): a
 * string, whose send is scored fairly among the tenants'. A send's `tenant` option is that
 * attribute.
 */
import { invalidValue } from "./invalid-value";

/** One attribute's value: a string, a finite number, a boolean, or bytes (returned as a Buffer). */
export type AttributeValue = string | number | boolean | Uint8Array;

/** A message's attributes, by name. */
export type MessageAttributes = Record<string, AttributeValue>;

/** The most attributes one message carries (SQS's limit). */
export const MAX_ATTRIBUTES = 10;
/** What an attribute's name may be: 1 to 64 of letters, digits, `_`, `.` and `-`. */
export const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** The longest string value, in characters (UTF-16 code units, as rsmq measures a body). */
export const MAX_ATTRIBUTE_STRING = 1024;
/** The most bytes a binary value holds. */
export const MAX_ATTRIBUTE_BYTES = 1024;
/** The attribute that names a message's tenant (fair ordering). */
export const TENANT_ATTRIBUTE = "tenant";
/** The longest tenant, in characters: it names a field of the queue's hash (`~fq:<tenant>`). */
export const MAX_TENANT_LENGTH = 128;

/** The stored form of one value: JSON's own types, and bytes as base64. */
type StoredValue = string | number | boolean | { b64: string };

/** Whether `text` holds a control character (U+0000 to U+001F, U+007F): not allowed in a tenant. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** A tenant: a string of 1 to MAX_TENANT_LENGTH characters without control characters; else throws naming `item`. */
export function validateTenant(value: unknown, item = "tenant"): string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_TENANT_LENGTH || hasControlCharacter(value)) {
    throw invalidValue(item, `a string of 1 to ${MAX_TENANT_LENGTH} characters without control characters`, value);
  }
  return value;
}

/** An attribute's name; else throws naming `item`. */
function validateName(name: string, item: string): void {
  if (!ATTRIBUTE_NAME.test(name)) {
    throw invalidValue(item, "a name of 1 to 64 letters, digits, `_`, `.` or `-`", name);
  }
}

/** The stored form of `value`, checked; else throws naming `item`. */
function storedValue(value: unknown, item: string): StoredValue {
  if (typeof value === "string") {
    if (value.length > MAX_ATTRIBUTE_STRING) {
      throw invalidValue(
        item,
        `a string of at most ${MAX_ATTRIBUTE_STRING} characters`,
        `${value.slice(0, 20)}… (${value.length} characters)`,
      );
    }
    return value;
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw invalidValue(item, "a finite number", value);
    return value;
  }
  if (typeof value === "boolean") return value;
  if (value instanceof Uint8Array) {
    if (value.byteLength > MAX_ATTRIBUTE_BYTES) {
      throw invalidValue(item, `at most ${MAX_ATTRIBUTE_BYTES} bytes`, `${value.byteLength} bytes`);
    }
    return { b64: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
  }
  throw invalidValue(item, "a string, a finite number, a boolean or a Uint8Array", value);
}

/** The entries of a plain object given as `item`; else throws. */
function entriesOf(value: unknown, item: string): Array<[string, unknown]> {
  if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof Uint8Array) {
    throw invalidValue(item, "an object of attribute names to values", value);
  }
  return Object.entries(value);
}

/**
 * A send's attributes (and its `tenant` option, the `tenant` attribute) checked and encoded as
 * `<id>:at` stores them, with the tenant to score fairly by; `json` undefined when there are
 * none. Throws an `invalidValue` error naming the first bad item (`<prefix>attributes.<name>`);
 * nothing is sent then.
 */
export function encodeAttributes(
  attributes: unknown,
  tenantOption: unknown,
  prefix = "",
): { json: string | undefined; tenant: string | undefined; length: number } {
  const stored: Record<string, StoredValue> = {};
  let count = 0;
  if (attributes !== undefined) {
    for (const [name, value] of entriesOf(attributes, `${prefix}attributes`)) {
      if (value === undefined) continue;
      const item = `${prefix}attributes.${name}`;
      validateName(name, `a name in ${prefix}attributes`);
      stored[name] = name === TENANT_ATTRIBUTE ? validateTenant(value, item) : storedValue(value, item);
      count += 1;
    }
  }
  let tenant = stored[TENANT_ATTRIBUTE] as string | undefined;
  if (tenantOption !== undefined) {
    const given = validateTenant(tenantOption, `${prefix}tenant`);
    if (tenant !== undefined && tenant !== given) {
      throw invalidValue(`${prefix}tenant`, `the same as ${prefix}attributes.tenant ("${tenant}"), or left out`, given);
    }
    if (tenant === undefined) {
      stored[TENANT_ATTRIBUTE] = given;
      count += 1;
    }
    tenant = given;
  }
  if (count > MAX_ATTRIBUTES) {
    throw invalidValue(`${prefix}attributes`, `at most ${MAX_ATTRIBUTES} attributes (the tenant counts as one)`, `${count} attributes`);
  }
  if (count === 0) return { json: undefined, tenant: undefined, length: 0 };
  const json = JSON.stringify({ a: stored });
  return { json, tenant, length: json.length };
}

/** A stored value as the caller sent it: bytes back as a Buffer. */
function loadedValue(value: unknown): AttributeValue | undefined {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value === "object" && value !== null && typeof (value as { b64?: unknown }).b64 === "string") {
    return Buffer.from((value as { b64: string }).b64, "base64");
  }
  return undefined;
}

/**
 * The attributes in a message's `<id>:at` JSON; undefined when it has none (absent, unreadable, or
 * only a schedule's fields).
 */
export function attributesOf(text: unknown): MessageAttributes | undefined {
  if (typeof text !== "string") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const stored = typeof parsed === "object" && parsed !== null ? (parsed as { a?: unknown }).a : undefined;
  if (typeof stored !== "object" || stored === null) return undefined;
  const attributes: MessageAttributes = {};
  let count = 0;
  for (const [name, value] of Object.entries(stored)) {
    const loaded = loadedValue(value);
    if (loaded === undefined) continue;
    attributes[name] = loaded;
    count += 1;
  }
  return count > 0 ? attributes : undefined;
}

/**
 * A browse's `where` (attribute names to the values they must equal, 1 to MAX_ATTRIBUTES of them)
 * encoded as the browse script compares it: `{ "tenant": "a" }`, bytes as `{"b64":"…"}`. Throws
 * an `invalidValue` error naming the first bad item.
 */
export function encodeWhere(where: unknown, item = "where"): string {
  const stored: Record<string, StoredValue> = {};
  const entries = entriesOf(where, item).filter(([, value]) => value !== undefined);
  if (entries.length === 0 || entries.length > MAX_ATTRIBUTES) {
    throw invalidValue(item, `1 to ${MAX_ATTRIBUTES} attribute names with the values to match`, `${entries.length} of them`);
  }
  for (const [name, value] of entries) {
    validateName(name, `a name in ${item}`);
    stored[name] = storedValue(value, `${item}.${name}`);
  }
  return JSON.stringify(stored);
}
