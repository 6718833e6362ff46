/**
 * sendMessages: up to MAX_BATCH messages to one queue in one script call (lua/sendMessages-n.lua).
 * Every entry is checked here before any round trip, so one bad entry refuses the whole call with
 * nothing written; only what Redis alone knows (the queue's maxsize, earlier dedupIds) is decided
 * per entry by the script.
 */
import { errorForScriptCode, rsmqError } from "../errors/rsmq-errors";
import type { KeyLayout } from "../keys";
import type { SendMessagesEntry, SendMessagesOptions, SentEntry } from "../types";
import { dedupKey, validateDedupId, validateDedupWindow, unusedDedupWindow } from "./dedup-id";
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import { validatePriority } from "./priority";
import { randomIdPart } from "./random-id-part";
import { isGiven, MAX_BATCH, validateMessage, validateQname, validateSeconds } from "./rsmq-input-rules";
import { MAX_CARRIER_LENGTH } from "./send-message";
import type { SentMessage } from "./send-message";
import { defineOperation } from "./descriptor";
import { reportRefusedNotification } from "./refused-notification";
import { refuseOversizedBatch } from "./batch-bytes";
import { encodeAttributes } from "./message-attributes";
import { notificationArgs } from "./send-notification";
import type { SendNotification } from "./send-notification";

/** The entries' results, in order, and the refusal of the batch's one realtime notification if Redis refused it. */
export interface SentBatch extends Omit<SentMessage, "id"> {
  readonly entries: SentEntry[];
}

/** One entry as the script takes it (six arguments, eight with attributes; see lua/sendMessages-n.lua). */
interface CheckedEntry {
  readonly message: string;
  readonly delay: string;
  readonly priority: number;
  readonly dedupId?: string | true;
  /** Its attributes (with its tenant) as `<id>:at` stores them (encodeAttributes). */
  readonly attributes: ReturnType<typeof encodeAttributes>;
}

/** The entries, each checked as sendMessage checks its options; an error names the entry by its index. */
export function validateEntries(value: unknown): CheckedEntry[] {
  if (!isGiven(value) || (Array.isArray(value) && value.length === 0)) throw rsmqError("missingParameter", "No messages supplied");
  if (!Array.isArray(value)) throw rsmqError("invalidValue", `messages must be an array of 1 to ${MAX_BATCH} entries`);
  if (value.length > MAX_BATCH) throw rsmqError("invalidValue", `messages must hold at most ${MAX_BATCH} entries, got ${value.length}`);
  return value.map((entry: unknown, index) => {
    let checked: Omit<CheckedEntry, "attributes">;
    try {
      checked = checkEntry(entry);
    } catch (error) {
      // The validators' errors keep their name and code; the message says which entry.
      (error as Error).message = `messages[${index}]: ${(error as Error).message}`;
      throw error;
    }
    // Its errors name their item themselves (`messages[i].attributes.<name>`, `messages[i].tenant`).
    const { attributes, tenant } = entry as Partial<SendMessagesEntry>;
    return { ...checked, attributes: encodeAttributes(attributes, isGiven(tenant) ? tenant : undefined, `messages[${index}].`) };
  });
}

function checkEntry(entry: unknown): Omit<CheckedEntry, "attributes"> {
  if (typeof entry !== "object" || entry === null)
    throw rsmqError("invalidValue", "an entry must be an object { message, delay?, priority?, dedupId?, attributes?, tenant? }");
  const { message, delay, priority, dedupId } = entry as Partial<SendMessagesEntry>;
  return {
    message: validateMessage(message),
    delay: isGiven(delay) ? integerArg(validateSeconds("delay", delay)) : "",
    priority: isGiven(priority) ? validatePriority(priority) : 0,
    dedupId: isGiven(dedupId) ? validateDedupId(dedupId) : undefined,
  };
}

/**
 * The random parts of `count` ids, sorted: handed out in entry order, they make the ids of a
 * batch (which share the server's time) sort in entry order, so entries of equal score are
 * received in the order they were given. Each part stays 22 independent random characters
 * before the sort, so ids are as unlikely to collide as single sends'.
 */
export function sortedIdParts(count: number): string[] {
  const parts = Array.from({ length: count }, randomIdPart);
  // Code-unit order, which for [A-Za-z0-9] is the byte order Redis sorts members by.
  return parts.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Sends the entries of `options.messages`; with `carrier` (telemetry's trace context) each stored message carries it. */
export function sendMessages(
  layout: KeyLayout,
  notify: SendNotification,
  options: Partial<SendMessagesOptions>,
  carrier?: string,
): Operation<SentBatch> {
  const qname = validateQname(options.qname);
  const entries = validateEntries(options.messages);
  // Attributes travel with their bodies: they count towards the call's bytes too.
  refuseOversizedBatch(
    entries.flatMap((entry) => (entry.attributes.json === undefined ? [entry.message] : [entry.message, entry.attributes.json])),
  );
  const window = isGiven(options.dedupWindowMs) ? String(validateDedupWindow(options.dedupWindowMs)) : "";
  const keys = layout.queue(qname);
  const [channel, kind] = notificationArgs(keys, notify, layout.cluster);
  const carried = carrier !== undefined && carrier.length <= MAX_CARRIER_LENGTH ? carrier : "";
  const dedupKeys: string[] = [];
  const args = [String(entries.length), channel, kind, carried, window];
  const parts = sortedIdParts(entries.length);
  // Eight arguments per entry when any has attributes, else six: a plain batch passes no more.
  const attributed = entries.some((entry) => entry.attributes.json !== undefined);
  entries.forEach((entry, index) => {
    const deduped = entry.dedupId !== undefined;
    if (deduped) dedupKeys.push(dedupKey(keys, entry.dedupId, entry.message));
    const length = String(entry.message.length + entry.attributes.length);
    args.push(parts[index], entry.delay, entry.message, length, String(entry.priority), deduped ? "1" : "");
    if (attributed) args.push(entry.attributes.json ?? "", entry.attributes.tenant ?? "");
  });
  return {
    script: "sendMessages",
    keys: [keys.messages, keys.hash, ...dedupKeys],
    args,
    parse(reply) {
      failIfCode(reply);
      const [results, refusal, command] = reply as [unknown[], unknown?, unknown?];
      const sent: SentBatch = { entries: results.map(entryResult), channel };
      if (refusal === undefined || refusal === null) return sent;
      return { ...sent, notificationRefused: new Error(String(refusal)), refusedCommand: String(command), wake: notify === "wake" };
    },
  };
}

/** One item of the script's results: -3 (too long), or [id, duplicate 0|1]. */
function entryResult(item: unknown): SentEntry {
  if (typeof item === "number") return { error: errorForScriptCode(item) };
  const [id, duplicate] = item as [unknown, unknown];
  return { id: String(id), duplicate: Number(duplicate) === 1 };
}

/** sendMessagesAsync: one result per entry, in order; one `send` span for the batch, its context carried by every stored message. */
export const sendMessagesOperation = defineOperation<SendMessagesOptions, SentBatch, SentEntry[]>({
  optionKeys: {
    qname: true,
    messages: { message: true, delay: true, priority: true, dedupId: true, attributes: true, tenant: true },
    dedupWindowMs: true,
  },
  unusedOption: unusedDedupWindow,
  build: ({ layout, notify, carrier }, options) => sendMessages(layout, notify, options, carrier),
  observe: {
    operation: "send",
    attributes: ({ messages }) => ({ "messaging.batch.message_count": Array.isArray(messages) ? messages.length : undefined }),
    done: (sent, _span, recording, queue) => {
      // Duplicates stored nothing: counted apart, one each, not as messages sent.
      for (const entry of sent.entries) if (entry.duplicate) recording?.deduplicated(queue);
      recording?.sent(queue, sent.entries.filter((entry) => entry.id && !entry.duplicate).length);
    },
    failed: (errorType, recording, queue, { messages }) => recording?.sent(queue, Array.isArray(messages) ? messages.length : 0, errorType),
  },
  events: (sent, options, outlets) => {
    if (sent.notificationRefused) reportRefusedNotification(sent, "sendMessages stored the messages", outlets);
    sent.entries.forEach((entry, i) => {
      if (entry.duplicate)
        outlets.emit("duplicate", { qname: String(options.qname), id: entry.id, dedupId: options.messages![i].dedupId! });
    });
  },
  // Only what was stored can be received sooner.
  // The first stored id: the one the batch's wake publish carried, if it made one.
  wakes: (sent) => sent.entries.find((entry) => entry.id !== undefined && !entry.duplicate)?.id ?? false,
  result: (sent) => sent.entries,
});
