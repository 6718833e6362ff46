/** What the page knows: the latest reading of the queues, and each queue's rates since the page opened. */

const HISTORY_POINTS = 150;

export const state = {
  snap: null, // the latest QueuesResponse
  mode: "connecting",
  history: new Map(), // qname -> [{ t, s, r }], readings since the page opened
};

/** Whether changes are off: until the first reading says otherwise, they are. */
export const readOnly = () => !state.snap || state.snap.readOnly;

/** Keeps each queue's rates of `snap`, the last HISTORY_POINTS readings only. */
export function record(snap) {
  for (const q of snap.queues) {
    let points = state.history.get(q.qname);
    if (!points) state.history.set(q.qname, (points = []));
    points.push({ t: snap.now, s: q.sentPerSecond, r: q.receivedPerSecond });
    if (points.length > HISTORY_POINTS) points.splice(0, points.length - HISTORY_POINTS);
  }
}
