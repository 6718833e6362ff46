/**
 * The read-only looks `stats` and `peek` take, in the shape the command line shows: with the
 * server's time and the queue's size, which the public methods leave out. Each is one script call
 * on the instance's connection (EVALSHA, EVAL on NOSCRIPT).
 */
import { internalsOf } from "../internals";
import type { RedisSMQ } from "../redis-smq";
import { peekMessages } from "../operations/peek-messages";
import type { PeekResult } from "../operations/peek-messages";
import { queueStats } from "../operations/queue-stats";
import type { QueueStats } from "../operations/queue-stats";
import { browseMessages, browsedQueueMessage } from "../operations/browse-messages";
import type { BrowseQuery } from "../operations/browse-messages";
import type { BrowseMessagesPage } from "../types";

/** A queue's settings, counters and messages by state (lua/queueStates-n.lua, for one queue). */
export async function readQueueStats(rsmq: RedisSMQ, qname: string): Promise<QueueStats> {
  const queue = internalsOf(rsmq);
  return queue.run(() => queueStats(queue.layout, qname));
}

/** The first `count` messages with their states (lua/messagePage-2.lua). */
export async function readPeek(rsmq: RedisSMQ, qname: string, count: number): Promise<PeekResult> {
  const queue = internalsOf(rsmq);
  return queue.run(() => peekMessages(queue.layout, { qname, count }));
}

/** One page of browseMessages with the server's time of the look (lua/browseMessages-2.lua). */
export async function readBrowsePage(rsmq: RedisSMQ, qname: string, query: BrowseQuery): Promise<BrowsedPageAt> {
  const queue = internalsOf(rsmq);
  const { now, cursor, entries } = await queue.run(() => browseMessages(queue.layout, qname, query));
  return { now, cursor, messages: entries.map((entry) => browsedQueueMessage(entry, now)) };
}

/** A page of browseMessages, with the server's time of the look. */
export interface BrowsedPageAt extends BrowseMessagesPage {
  now: number;
}
