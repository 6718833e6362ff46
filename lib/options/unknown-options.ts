/**
 * Options objects with a fixed set of names: a name that is not one of them (a typo, or an option
 * one level off, such as a retry setting given to the Worker itself) is a TypeError that names it
 * and, where one is close, the right one. Silently ignoring it would run with a default the user
 * did not want.
 */
import { closestName } from "./did-you-mean";

export interface KnownOptions {
  /** What the options configure, for the message: "worker", "retry policy". */
  readonly what: string;
  /** The names taken at this level. */
  readonly names: readonly string[];
  /** Names that belong one level down, written with their path (`retry.maxDeliveries`). */
  readonly nested?: readonly string[];
}

const lastPart = (path: string): string => path.slice(path.lastIndexOf(".") + 1);

/** The right name for `name`: its nested place when it belongs there, else the closest known one. */
export function suggestionFor(name: string, known: Pick<KnownOptions, "names" | "nested">): string | undefined {
  const nested = known.nested ?? [];
  return nested.find((path) => lastPart(path) === name) ?? closestName(name, [...known.names, ...nested], lastPart);
}

/** Throws a TypeError for the first own key of `options` that is not a known name. */
export function rejectUnknownOptions(options: object, known: KnownOptions): void {
  for (const key of Object.keys(options)) {
    if (known.names.includes(key)) continue;
    const suggestion = suggestionFor(key, known);
    throw new TypeError(
      suggestion === undefined
        ? `Unknown ${known.what} option \`${key}\`; known options: ${known.names.join(", ")}`
        : `Unknown ${known.what} option \`${key}\`: did you mean \`${suggestion}\`?`,
    );
  }
}
