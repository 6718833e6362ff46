/**
 * The option keys a public method knows, declared once in its descriptor, and the check of a
 * call's options against them (run by the one call path before anything else). A key that is not
 * declared is still ignored, as rsmq 0.12.4 ignored it, but told once per process and method with
 * the closest declared key (option-warnings.ts); so is a batch entry's.
 */
import { warnUnknownOption } from "./option-warnings";
import { suggestionFor } from "./unknown-options";

/**
 * Every key of the options type `O`, each `true`, or for a list of objects (a batch's entries)
 * the keys of one entry. Declared as an object literal, so `tsc` refuses a key `O` lacks and
 * requires every key it has: the declaration cannot drift from the type.
 *
 * @example
 * const keys: OptionKeys<SendMessagesOptions> = { qname: true, messages: { message: true, delay: true, priority: true, dedupId: true }, dedupWindowMs: true };
 */
export type OptionKeys<O> = { readonly [K in keyof O]-?: KeysOfValue<NonNullable<O[K]>> };

/** `true`, or an entry's keys for a list of objects. */
type KeysOfValue<V> = V extends readonly (infer E)[] ? (E extends object ? OptionKeys<E> : true) : true;

/** A declaration as the check reads it, whatever its options type. */
type Declared = { readonly [key: string]: true | Declared };

/** Checks one level: `path` is what the warning prefixes to a key (`messages[].`). */
type LevelCheck = (options: object) => void;

/**
 * The check of `method`'s options against `declared`: it warns for each key that is not declared
 * (at the top, and in each object of a list declared with entry keys) and returns nothing; values
 * are the builder's to check. Made once per method; a call with only known keys allocates nothing.
 */
export function optionKeyCheck(method: string, declared: object): (options: unknown) => void {
  const top = levelCheck(method, declared as Declared, "");
  return (options) => {
    if (typeof options === "object" && options !== null) top(options);
  };
}

const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

function levelCheck(method: string, declared: Declared, path: string): LevelCheck {
  const names = Object.keys(declared);
  const known = names.join(", ") || "none";
  const lists: Array<[string, LevelCheck]> = names
    .filter((name) => declared[name] !== true)
    .map((name) => [name, levelCheck(method, declared[name] as Declared, `${path}${name}[].`)]);
  const warn = (key: string): void => warnUnknownOption({ of: method, key: `${path}${key}`, suggestion: suggest(key, names, path), known });
  return (options) => {
    for (const key in options) {
      if (!hasOwn(options, key)) continue;
      if (!hasOwn(declared, key)) warn(key);
    }
    for (const [name, check] of lists) {
      const entries = (options as Record<string, unknown>)[name];
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) if (typeof entry === "object" && entry !== null) check(entry as object);
    }
  };
}

function suggest(key: string, names: readonly string[], path: string): string | undefined {
  const suggestion = suggestionFor(key, { names });
  return suggestion === undefined ? undefined : `${path}${suggestion}`;
}
