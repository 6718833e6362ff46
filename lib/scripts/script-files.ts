/**
 * The Lua scripts in lua/, one per operation, named `<operation>-<number of keys>.lua`, or
 * `<operation>-n.lua` for one that takes any number (the dashboard's look at many queues at once).
 * They are read once, when first needed, from the package's own lua/ folder.
 */
import { createHash } from "crypto";
import { existsSync, readdirSync, readFileSync } from "fs";
import { dirname, join } from "path";

/** One text of a script, and the SHA1 that EVALSHA names it by. */
export interface ScriptBody {
  readonly source: string;
  readonly sha1: string;
}

export interface Script extends ScriptBody {
  readonly name: string;
  /** How many keys it takes; `"any"` for a `-n` script, which says in its header how it reads them. */
  readonly numberOfKeys: number | "any";
  /** What the script does to the data, which decides its Redis 7 flags (see SCRIPT_KINDS). */
  readonly kind: ScriptKind;
  /** Whether it never writes (and so has nothing to replicate). */
  readonly readOnly: boolean;
  /**
   * The same script behind its Redis 7 shebang (`#!lua`, plus the flags of its kind). Sent first on
   * every server: Redis 7 then applies the flags (a full server still lets consumers in, a write
   * pause still lets reads through), and in Redis Cluster it refuses any key, or shard channel,
   * outside the slot of the declared keys instead of running on whatever node it was sent to.
   */
  readonly flagged: ScriptBody;
  /**
   * For a script that calls refusedCommand (lua/shared/refused-command.lua): its second text, plain
   * and flagged, in which refusedCommand does nothing (lua/shared/refused-command-granted.lua), and
   * the commands its refusedCommand calls name. The runner sends that text while its cached check
   * (lua/commandsRefused-0.lua) says the connection's user may run all of them: the ACL lookups it
   * saves cost Redis more than some of the commands they guard. Absent for a script that checks
   * nothing.
   */
  readonly granted?: { readonly plain: ScriptBody; readonly flagged: ScriptBody; readonly checks: readonly string[] };
}

/**
 * What a script does to the data:
 * - `reads`: never writes. `flags=no-writes`: Redis refuses it any write, and runs it over
 *   maxmemory and during `CLIENT PAUSE WRITE` (which FAILOVER uses).
 * - `drains`: consumes or shrinks (receive, delete, a move between queues). `flags=allow-oom`: it
 *   runs over maxmemory, so consumers can work off the backlog that filled the server.
 * - `fills`: adds data. No flags: over maxmemory Redis refuses it before it runs, so nothing is
 *   written and the caller gets `outOfMemory`.
 */
export type ScriptKind = "reads" | "drains" | "fills";

/**
 * Every script in lua/, by name; a script missing here fails to load, and test/scripts/script-files
 * checks that the names are exactly the files in lua/ (so {@link ScriptName} is too).
 */
export const SCRIPT_KINDS = {
  getQueueAttributes: "reads",
  peekDeadLetters: "reads",
  queueStates: "reads",
  // The dashboard's page by position, and peekMessages (lib/operations/message-page.ts).
  messagePage: "reads",
  readMessage: "reads",
  findMessages: "reads",
  // browseMessages' page after a cursor (lib/operations/browse-messages.ts).
  browseMessages: "reads",
  deadLetterNotes: "reads",
  nextDue: "reads",
  // The Workers' heartbeat entries, read for listConsumers (lua/listConsumers-2.lua).
  listConsumers: "reads",
  // The ScriptRunner's check of the user's rights (lib/scripts/script-runner.ts).
  commandsRefused: "reads",
  receiveMessage: "drains",
  popMessage: "drains",
  deleteMessage: "drains",
  deleteMessages: "drains",
  // A Worker's settle-and-take-the-next: it deletes, then receives (lua/deleteAndReceive-3.lua).
  deleteAndReceive: "drains",
  changeMessageVisibility: "drains",
  hideMessage: "drains",
  changeMessagesVisibility: "drains",
  // A sweep only removes (or parks) expired messages: it must run on a full server.
  sweepExpired: "drains",
  // A dead-letter move is how a Worker gets a poison message out of its way: it must not stall.
  deadLetter: "drains",
  deadLetterCopy: "drains",
  deleteQueue: "drains",
  deleteQueueKeys: "drains",
  // A purge is how an operator empties a flooded queue: it must run on a server over maxmemory.
  purgeQueue: "drains",
  sendMessage: "fills",
  sendMessageOnce: "fills",
  createQueue: "fills",
  createQueueHash: "fills",
  setQueueAttributes: "fills",
  sendMessages: "fills",
  // Redrive refills a queue from its dead letters: an operator's choice that can wait for memory.
  redrive: "fills",
  redriveClaim: "fills",
  redriveCopy: "fills",
  // The doctor (lib/doctor/): its looks only read; its repairs remove what is out of place, and
  // the settings and registry repairs add a little, so they wait for memory like createQueue.
  doctorQueue: "reads",
  doctorFields: "reads",
  doctorMembers: "reads",
  doctorRepairFields: "drains",
  doctorRepairMembers: "drains",
  doctorRepairSettings: "fills",
  doctorRepairRegistry: "fills",
  // The queue's controls (lib/operations/pause-queue.ts and the rest): each writes a field or two,
  // or moves scores it does not add, so an operator can pause, resume, limit or block a queue of
  // a server over maxmemory (the moment one most needs to stop consumers hammering a downstream).
  pauseQueue: "drains",
  resumeQueue: "drains",
  pauseScores: "drains",
  setRateLimit: "drains",
  removeRateLimit: "drains",
  rateLimitQueue: "drains",
  // A Worker's handler met a downstream rate limit: the message goes back, as a retry's hide does.
  rateLimitBounce: "drains",
  // A Worker's look with its heartbeat, and its stop: each writes only its own small entry, and
  // the look must answer on a full server as nextDue does (a Worker that cannot look cannot drain).
  lookAndBeat: "drains",
  removeConsumer: "drains",
  // Concurrency limits (lib/operations/set-concurrency.ts): one field, the leases key, a wake.
  setConcurrency: "drains",
  removeConcurrency: "drains",
  // Schedules (lib/operations/upsert-schedule.ts and the rest): a definition adds data; a fire
  // stores messages, as a send; a pause, a resume or a removal is a control an operator may need
  // on a full server; the list only reads.
  upsertSchedule: "fills",
  fireSchedule: "fills",
  pauseSchedule: "drains",
  removeSchedule: "drains",
  listSchedules: "reads",
} as const satisfies Readonly<Record<string, ScriptKind>>;

/** The name of a script in lua/ (its file name without `-<keys>.lua`): what an Operation runs. */
export type ScriptName = keyof typeof SCRIPT_KINDS;

const SHEBANGS: Readonly<Record<ScriptKind, string>> = {
  reads: "#!lua flags=no-writes\n",
  drains: "#!lua flags=allow-oom\n",
  fills: "#!lua\n",
};

function body(source: string): ScriptBody {
  return { source, sha1: createHash("sha1").update(source).digest("hex") };
}

const SCRIPT_FILE = /^([A-Za-z]+)-(\d+|n)\.lua$/;

/** lua/ sits at the package root; walking up keeps this true for dist/ and for test builds alike. */
function findLuaDirectory(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, "lua");
    if (existsSync(join(dir, "package.json")) && existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`rsmq-next: lua/ not found above ${__dirname}`);
  }
}

let scripts: Map<string, Script> | undefined;

/**
 * Lua shared by several scripts, in lua/shared/: put before each script that calls it, so every
 * script is still one standalone text (and file, with its own KEYS/ARGV header) that Redis runs.
 * In this order: a file may call what an earlier one defines (expiry.lua calls refusedCommand,
 * store-message.lua serverNowMs, receive-due.lua takeLiveDue, queueGate and leaseKit).
 */
const SHARED = [
  { file: "now.lua", calledAs: /\bserverNowMs\(/ },
  { file: "refused-command.lua", calledAs: /\brefusedCommand\(/ },
  { file: "pause.lua", calledAs: /\b(pauseKind|pauseOffset|moveScores|publishControl)\(|\bPAUSE_CHUNK\b/ },
  { file: "expiry.lua", calledAs: /\b(isExpired|expireMessages|takeLiveDue)\(/ },
  { file: "dead-letter-expiry.lua", calledAs: /\bexpiredHead\(/ },
  { file: "queue-hash.lua", calledAs: /\bnewQueueHash\(/ },
  { file: "message-score.lua", calledAs: /\bmessageScore\(|\bPRIORITY_STEP_MS\b/ },
  { file: "rate-limits.lua", calledAs: /\brateLimits\(/ },
  { file: "queue-gate.lua", calledAs: /\bqueueGate\(/ },
  // nextDue's look, for nextDue and lookAndBeat: calls serverNowMs and queueGate.
  { file: "next-due.lua", calledAs: /\bnextDueReply\(/ },
  { file: "leases.lua", calledAs: /\bleaseKit\(/ },
  { file: "free-slot.lua", calledAs: /\bannounceFree\(/ },
  { file: "send-gate.lua", calledAs: /\bsendGate\(/ },
  // Reads PRIORITY_STEP_MS (message-score.lua).
  { file: "fair-score.lua", calledAs: /\bfairScore\(/ },
  // The doctor's look at fair tags: calls serverNowMs, reads PRIORITY_STEP_MS.
  { file: "fair-stale.lua", calledAs: /\bfairStaleBelow\(/ },
  { file: "store-message.lua", calledAs: /\b(sendDelay|newMessageId|storeMessage|notifySent|notifyMode|wakeWanted|notifyWake)\(/ },
  { file: "schedule-names.lua", calledAs: /\b(scheduleNames|scheduleIndexText)\(/ },
  // Calls refusedCommand.
  { file: "schedule-next.lua", calledAs: /\bwriteScheduleNext\(/ },
  { file: "browsed-message.lua", calledAs: /\b(messageFields|appendMessage)\(/ },
  { file: "receive-due.lua", calledAs: /\breceiveDue\b/ },
  { file: "delete-one.lua", calledAs: /\bdeleteOne\(/ },
  { file: "delete-ids.lua", calledAs: /\bdeleteIds\(/ },
];

/** Put in place of refused-command.lua in a script's second text (Script.granted). */
const GRANTED_REFUSED_COMMAND = "refused-command-granted.lua";

/**
 * `source` with the shared Lua it calls put before it, as Redis runs it (and the key check reads
 * it); with `granted`, its second text, in which refusedCommand does nothing (Script.granted).
 */
export function withShared(directory: string, source: string, granted = false): string {
  const texts = new Map(SHARED.map(({ file }) => [file, readFileSync(join(directory, "shared", file), "utf8")]));
  if (granted) texts.set("refused-command.lua", readFileSync(join(directory, "shared", GRANTED_REFUSED_COMMAND), "utf8"));
  // What a used file calls counts too: walk the list from its end, so a file's callees come first.
  const used = new Set<string>();
  let calling = source;
  for (const { file, calledAs } of [...SHARED].reverse()) {
    if (!calledAs.test(calling)) continue;
    used.add(file);
    calling += texts.get(file);
  }
  return [...SHARED.filter(({ file }) => used.has(file)).map(({ file }) => texts.get(file)), source].join("");
}

const REFUSED_COMMAND_CALL = /\brefusedCommand\(([^)]*)\)/g;

/** The command names of the refusedCommand calls in `source` (string literals only, as the scripts write them). */
function refusedCommandNames(source: string): string[] {
  const code = source.replace(/--\[(=*)\[[\s\S]*?\]\1\]/g, "").replace(/--.*$/gm, "");
  return [...code.matchAll(REFUSED_COMMAND_CALL)].flatMap(([, args]) => [...args.matchAll(/"([^"]+)"/g)].map(([, name]) => name));
}

function loadAll(): Map<string, Script> {
  const directory = findLuaDirectory();
  const loaded = new Map<string, Script>();
  const checked = new Set<string>();
  for (const file of readdirSync(directory)) {
    const match = SCRIPT_FILE.exec(file);
    if (!match) continue;
    const own = readFileSync(join(directory, file), "utf8");
    const source = withShared(directory, own, false);
    const kind = kindOf(match[1]);
    const names = [...new Set(refusedCommandNames(source).map((name) => name.toLowerCase()))];
    for (const name of names) checked.add(name);
    const grantedSource = names.length > 0 ? withShared(directory, own, true) : undefined;
    loaded.set(match[1], {
      name: match[1],
      ...body(source),
      numberOfKeys: match[2] === "n" ? "any" : Number(match[2]),
      kind,
      readOnly: kind === "reads",
      flagged: body(SHEBANGS[kind] + source),
      granted:
        grantedSource === undefined
          ? undefined
          : { plain: body(grantedSource), flagged: body(SHEBANGS[kind] + grantedSource), checks: names },
    });
  }
  preChecked = [...checked].sort();
  return loaded;
}

let preChecked: readonly string[] | undefined;

/**
 * Every command that a refusedCommand call of any script names: what lua/commandsRefused-0.lua asks
 * the user's rights for before the runner sends the scripts' second texts (Script.granted).
 */
export function preCheckedCommands(): readonly string[] {
  scripts ??= loadAll();
  return preChecked ?? [];
}

function kindOf(name: string): ScriptKind {
  const kind = isScriptName(name) ? SCRIPT_KINDS[name] : undefined;
  if (!kind) throw new Error(`rsmq-next: lua/${name}-<keys>.lua has no entry in SCRIPT_KINDS (reads, drains or fills)`);
  return kind;
}

function isScriptName(name: string): name is ScriptName {
  return Object.prototype.hasOwnProperty.call(SCRIPT_KINDS, name);
}

/**
 * The script for an operation, by name (the file name without `-<keys>.lua`). Operations name theirs as a
 * {@link ScriptName}; tests may look up a name they read from lua/ itself.
 */
export function script(name: string): Script {
  scripts ??= loadAll();
  const found = scripts.get(name);
  if (!found) throw new Error(`rsmq-next: no script lua/${name}-<keys>.lua`);
  return found;
}
