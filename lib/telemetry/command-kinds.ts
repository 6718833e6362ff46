/**
 * What each script is for, as `rsmq.redis.commands` counts it: sends, receives (a pop too),
 * settlements (deletes, visibility changes, the dead-letter moves), a Worker's idle look, and
 * housekeeping for everything else (queue administration, redrive, the dashboard's reads).
 */
import type { ScriptName } from "../scripts/script-files";
import type { CommandKind } from "./recorder";

const KINDS: Partial<Record<ScriptName, CommandKind>> = {
  sendMessage: "send",
  receiveMessage: "receive",
  popMessage: "receive",
  deleteMessage: "settle",
  deleteMessages: "settle",
  changeMessageVisibility: "settle",
  changeMessagesVisibility: "settle",
  hideMessage: "settle",
  deadLetter: "settle",
  deadLetterCopy: "settle",
  nextDue: "look",
};

export function commandKindOf(script: ScriptName): CommandKind {
  return KINDS[script] ?? "housekeeping";
}
