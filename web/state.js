/**
 * What the page knows: the latest reading of the queues, the last good one (shown while readings
 * fail), each queue's rates since the page opened, and the last list of messages of each queue.
 */

const HISTORY_POINTS = 150;

export const state = {
  snap: null, // the latest QueuesResponse
  good: null, // the latest QueuesResponse with redis.ok: what the views show
  mode: "connecting",
  staleSince: null, // epoch ms since when readings fail (null: they do not)
  history: new Map(), // qname -> [{ t, s, r }], readings since the page opened
  lists: new Map(), // qname -> the last MessagesResponse read (page and all), shown again at once
};

/** Whether changes are off: until the first reading says otherwise, they are. */
export const readOnly = () => !state.snap || state.snap.readOnly;

/** Whether the page shows old figures because readings fail: it then asks Redis for nothing. */
export const isStale = () => state.staleSince !== null;

/** Keeps each queue's rates of `snap`, the last HISTORY_POINTS readings only. */
export function record(snap) {
  for (const q of snap.queues) {
    let points = state.history.get(q.qname);
    if (!points) state.history.set(q.qname, (points = []));
    points.push({ t: snap.now, s: q.sentPerSecond, r: q.receivedPerSecond });
    if (points.length > HISTORY_POINTS) points.splice(0, points.length - HISTORY_POINTS);
  }
}
