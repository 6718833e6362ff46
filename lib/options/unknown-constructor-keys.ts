/**
 * The RedisSMQ constructor keeps rsmq 0.12.4's tolerance: a key it does not know is ignored, as
 * rsmq ignored it. A typo (`realtme`) would then silently run with the default, so each unknown
 * key is reported once per process (option-warnings.ts, code RSMQ_NEXT_UNKNOWN_OPTION), with the
 * closest known key and the list of known ones.
 */
import { TRANSLATED_KEYS, V4_KEYS } from "./connection/client-options";
import { QUEUE_KEYS } from "./constructor-option-table";
import { warnUnknownOption } from "./option-warnings";
import { suggestionFor } from "./unknown-options";

const CONNECTION_KEYS = [...V4_KEYS, ...TRANSLATED_KEYS];
const TOP_LEVEL_KEYS = [...QUEUE_KEYS, ...CONNECTION_KEYS];
/** Inside `options`, the queue's own keys are not read: `options.ns` is ignored, `ns` is meant. */
const NESTED_KEYS = CONNECTION_KEYS.map((key) => `options.${key}`);

const KNOWN = `${TOP_LEVEL_KEYS.join(", ")}; inside \`options\`: ${CONNECTION_KEYS.join(", ")}`;

/** Warns once per process for each key of the constructor options (and of `options`) that is not known. */
export function warnUnknownKeys(options: Record<string, unknown>): void {
  for (const key of Object.keys(options)) {
    if (!TOP_LEVEL_KEYS.includes(key)) warnUnknownOption({ key, suggestion: suggestionFor(key, { names: TOP_LEVEL_KEYS }), known: KNOWN });
  }
  const nested = options.options;
  if (!nested || typeof nested !== "object") return;
  for (const key of Object.keys(nested)) {
    if (CONNECTION_KEYS.includes(key)) continue;
    const suggestion = QUEUE_KEYS.has(key) ? key : suggestionFor(key, { names: [], nested: NESTED_KEYS });
    warnUnknownOption({ key: `options.${key}`, suggestion, known: KNOWN });
  }
}
