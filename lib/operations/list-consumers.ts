/**
 * listConsumersAsync: the Workers consuming a queue, from their heartbeat entries
 * (lua/listConsumers-2.lua; consumer-beat.ts writes them). One read-only script call.
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { ConsumerInfo, ListConsumersOptions } from "../types";
import { defineOperation } from "./descriptor";

const ENTRY = /^(\d+):(\d+):(.*)$/s;

function numberIn(described: Record<string, unknown>, key: string): number {
  const value = described[key];
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * One entry `<expiresAtMs>:<lastSeenMs>:<json>`. Only Workers write them; a description that does
 * not read (written by hand) still lists the Worker, with an empty host and zeros, rather than
 * hiding it or failing the whole list.
 */
export function parseConsumer(id: string, entry: string): ConsumerInfo {
  const [, expiresAt, lastSeenAt, json] = ENTRY.exec(entry) ?? ["", "0", "0", ""];
  let described: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed === "object" && parsed !== null) described = parsed as Record<string, unknown>;
  } catch {
    // Listed with what the entry's times say (above).
  }
  return {
    id,
    host: typeof described.host === "string" ? described.host : "",
    pid: numberIn(described, "pid"),
    concurrency: numberIn(described, "concurrency"),
    startedAt: numberIn(described, "startedAt"),
    lastSeenAt: Number(lastSeenAt),
    expiresAt: Number(expiresAt),
  };
}

/** The live entries, sorted by when their Worker started, then by id. */
export function listConsumers(layout: KeyLayout, options: Partial<ListConsumersOptions>): Operation<ConsumerInfo[]> {
  const keys = layout.queue(validateQname(options.qname));
  return {
    script: "listConsumers",
    keys: [keys.messages, keys.hash],
    args: [],
    parse(reply) {
      failIfCode(reply);
      const fields = (reply as unknown[]).slice(1).map(String);
      const consumers: ConsumerInfo[] = [];
      for (let i = 0; i + 1 < fields.length; i += 2) consumers.push(parseConsumer(fields[i], fields[i + 1]));
      return consumers.sort((a, b) => a.startedAt - b.startedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
  };
}

/** listConsumersAsync: resolves the live consumers; rejects `queueNotFound` for a missing queue. */
export const listConsumersOperation = defineOperation<ListConsumersOptions, ConsumerInfo[]>({
  optionKeys: { qname: true },
  build: ({ layout }, options) => listConsumers(layout, options),
});
