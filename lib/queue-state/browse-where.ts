/**
 * The dashboard's message browser filtered by attributes, and its tenants view: both walk the
 * queue in receive order with browseMessages' page read (lib/operations/browse-messages.ts), one
 * short script call per page, and stop after BROWSE_PER_REQUEST messages looked at, answering
 * where to go on from (a filter) or that the counts are a lower bound (the tenants). Nothing is
 * received or written.
 */
import type { KeyLayout } from "../keys";
import { BROWSE_LOOKS, browseMessages } from "../operations/browse-messages";
import type { BrowsedAfter } from "../operations/browse-messages";
import { browsed } from "../operations/message-page";
import type { BrowsedMessage } from "../operations/message-page";
import { attributesOf, TENANT_ATTRIBUTE } from "../operations/message-attributes";
import { validateQname } from "../operations/rsmq-input-rules";
import type { MessageState } from "../types";
import { stateOf } from "../operations/peek-messages";
import { visibleSince } from "../operations/visible-since";
import type { RunRead } from "./find-messages";
import { whereOf } from "./where-text";

/** Messages one request looks at, at most: a filter then answers a cursor, the tenants view "at least". */
export const BROWSE_PER_REQUEST = 10_000;
/** Matches a filtered page shows when the request names no limit. */
export const FILTER_PAGE = 50;

/** `GET api/queues/:qname/browse`: a filtered page of the message browser. */
export interface FilteredResponse {
  now: number;
  qname: string;
  /** Messages in the queue. */
  total: number;
  /** Messages this request looked at (matching or not). */
  looked: number;
  /** Where the next page goes on from (`cursor=`); null once the whole queue was looked at. */
  cursor: string | null;
  bounds: { perRequest: number; perCall: number };
  /** In receive order, bodies cut to the preview, each with its attributes. */
  messages: BrowsedMessage[];
}

/** What a filter request asks: `where` items (`name=value`, `name:=<json>`), a state, a cursor, a limit. */
export interface FilterQuery {
  where: readonly string[];
  state?: string;
  cursor?: string;
  limit?: string;
}

/** A whole number from the query, or the default when absent; the browse op checks the range. */
function numberOf(text: string | undefined, fallback: number): unknown {
  if (text === undefined || text === "") return fallback;
  return /^\d+$/.test(text) ? Number(text) : text;
}

/**
 * A page of `qname`'s messages matching `query`; bad input rejects (invalidValue) before any round
 * trip, a missing queue with queueNotFound.
 */
export async function browseFiltered(
  run: RunRead,
  layout: KeyLayout,
  qname: string,
  query: FilterQuery,
  previewChars: number,
): Promise<FilteredResponse> {
  const name = validateQname(qname);
  const where = query.where.length > 0 ? whereOf(query.where) : undefined;
  const limit = numberOf(query.limit, FILTER_PAGE);
  const state = query.state === "" ? undefined : query.state;
  // Checked here, before the first call: a bad state, cursor or limit sends nothing.
  browseMessages(layout, name, { where, state, cursor: query.cursor || null, limit });
  const messages: BrowsedMessage[] = [];
  let cursor: string | null = query.cursor || null;
  let looked = 0;
  let last: BrowsedAfter;
  do {
    const want = (limit as number) - messages.length;
    const at = cursor;
    last = await run(() => browseMessages(layout, name, { where, state, cursor: at, limit: want }, previewChars * 4));
    looked += last.looked;
    cursor = last.cursor;
    for (const entry of last.entries) messages.push(browsed(entry, last.now, previewChars));
  } while (cursor !== null && messages.length < (limit as number) && looked < BROWSE_PER_REQUEST);
  return {
    now: last.now,
    qname: name,
    total: last.total,
    looked,
    cursor,
    bounds: { perRequest: BROWSE_PER_REQUEST, perCall: BROWSE_LOOKS },
    messages,
  };
}

/** One tenant's messages by state. */
export interface TenantCount {
  tenant: string;
  visible: number;
  inFlight: number;
  delayed: number;
  total: number;
}

/** `GET api/queues/:qname/tenants`: the tenants with messages in the queue, by count. */
export interface TenantsResponse {
  now: number;
  qname: string;
  /** Messages in the queue. */
  total: number;
  /** Messages looked at. */
  looked: number;
  /** Whether every message was looked at; false: the counts are lower bounds ("at least"). */
  complete: boolean;
  /** Messages looked at without a tenant. */
  withoutTenant: number;
  bounds: { perRequest: number; perCall: number };
  /** Most messages first, then by name. */
  tenants: TenantCount[];
}

/** The tenants of `qname`'s first BROWSE_PER_REQUEST messages, counted by state. */
export async function readTenants(run: RunRead, layout: KeyLayout, qname: string): Promise<TenantsResponse> {
  const name = validateQname(qname);
  const counts = new Map<string, TenantCount>();
  let withoutTenant = 0;
  let cursor: string | null = null;
  let looked = 0;
  let last: BrowsedAfter;
  do {
    const at = cursor;
    // Bodies cut to one byte: the count needs only each message's score, rc and attributes.
    last = await run(() => browseMessages(layout, name, { cursor: at, limit: BROWSE_LOOKS }, 1));
    looked += last.looked;
    cursor = last.cursor;
    for (const [id, , , score, rc, , , at_] of last.entries) {
      const tenant = attributesOf(at_)?.[TENANT_ATTRIBUTE];
      if (typeof tenant !== "string") {
        withoutTenant += 1;
        continue;
      }
      const state: MessageState = stateOf(visibleSince(String(id), Number(score)), parseInt(String(rc), 10) || 0, last.now);
      const count = counts.get(tenant) ?? { tenant, visible: 0, inFlight: 0, delayed: 0, total: 0 };
      count[state] += 1;
      count.total += 1;
      counts.set(tenant, count);
    }
  } while (cursor !== null && looked < BROWSE_PER_REQUEST);
  const tenants = [...counts.values()].sort((a, b) => b.total - a.total || (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0));
  return {
    now: last.now,
    qname: name,
    total: last.total,
    looked,
    complete: cursor === null,
    withoutTenant,
    bounds: { perRequest: BROWSE_PER_REQUEST, perCall: BROWSE_LOOKS },
    tenants,
  };
}
