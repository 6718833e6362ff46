/**
 * The process warnings for options that are taken but do nothing. rsmq 0.12.4 ignored every key it
 * did not read, and code written for it passes such keys, so rsmq-next ignores them too (the
 * drop-in) but tells each once per process, for each thing that takes options and each key:
 * - a key that is not known (a typo: `prioritty`), code RSMQ_NEXT_UNKNOWN_OPTION, with the closest
 *   known key and the list of known ones;
 * - a known key that the call's other options make pointless (a `dedupWindowMs` without a
 *   `dedupId`), code RSMQ_NEXT_UNUSED_OPTION, with why.
 */

const warned = new Set<string>();

/** An option key that is not known, as the warning names it. */
export interface UnknownOption {
  /** What takes the options, for the message (`sendMessage`); left out for the constructor. */
  readonly of?: string;
  /** The key as the caller wrote it, with its path where it is nested (`options.databse`, `messages[].prio`). */
  readonly key: string;
  /** The known key the caller probably meant. */
  readonly suggestion: string | undefined;
  /** The known keys, as the message lists them (`qname, message, delay`). */
  readonly known: string;
}

/** Warns once per process for `key` of `of`. */
export function warnUnknownOption({ of, key, suggestion, known }: UnknownOption): void {
  if (!firstTime("unknown", of, key)) return;
  const where = of === undefined ? "" : ` of ${of}`;
  const hint = suggestion === undefined ? "." : `: did you mean \`${suggestion}\`?`;
  process.emitWarning(`rsmq-next: the option \`${key}\`${where} is not known and is ignored${hint} Known options${where}: ${known}.`, {
    code: "RSMQ_NEXT_UNKNOWN_OPTION",
  });
}

/** Warns once per process that `key` of `of` has no effect, and `because` says why (a sentence without its full stop). */
export function warnUnusedOption(of: string, key: string, because: string): void {
  if (!firstTime("unused", of, key)) return;
  process.emitWarning(`rsmq-next: the option \`${key}\` of ${of} has no effect here: ${because}.`, { code: "RSMQ_NEXT_UNUSED_OPTION" });
}

function firstTime(kind: string, of: string | undefined, key: string): boolean {
  const id = `${kind}\0${of ?? ""}\0${key}`;
  if (warned.has(id)) return false;
  warned.add(id);
  return true;
}
