/*
 * Live readings: the event stream (api/stream), or polling api/queues when the stream does not
 * work (no EventSource, repeated errors, or a proxy that holds the events back). The status says
 * "live" (or "polling") only after a reading that reached Redis: a reading that failed, or one the
 * dashboard says is late, makes it "stale", and a dashboard that does not answer "offline".
 */
import { getJSON } from "./api.js";
import { setMode, showBanner, showStale } from "./header.js";
import { toast } from "./notices.js";
import { state } from "./state.js";

const STREAM_ERRORS_BEFORE_POLLING = 3;
const STREAM_SILENCE_MS = 10000;

/** Hands `snap` to the page, then says how fresh it is: `okMode` when it reached Redis, else stale. */
function deliver(onSnapshot, snap, okMode) {
  try {
    onSnapshot(snap);
  } finally {
    setMode(snap.redis.ok ? okMode : "stale");
  }
}

/** Calls `onSnapshot` with every reading, from the stream or else by polling. */
export function startLive(onSnapshot) {
  if (typeof EventSource !== "function") return startPolling(onSnapshot);
  const source = new EventSource("api/stream");
  let errors = 0;
  let lastEvent = Date.now();
  const giveUp = () => {
    clearInterval(watchdog);
    source.close();
    startPolling(onSnapshot);
  };
  // The server sends an event after every reading (and while a reading is late): silence on an
  // open stream means something in between holds the events back (a buffering proxy), so poll instead.
  const watchdog = setInterval(() => {
    const interval = (state.snap && state.snap.intervalMs) || 2000;
    if (source.readyState === EventSource.OPEN && Date.now() - lastEvent > Math.max(3 * interval, STREAM_SILENCE_MS)) giveUp();
  }, 1000);
  // An open stream says nothing yet of Redis: the first event does.
  source.addEventListener("open", () => {
    lastEvent = Date.now();
  });
  source.addEventListener("queues", (event) => {
    errors = 0;
    lastEvent = Date.now();
    let snap;
    try {
      snap = JSON.parse(event.data);
    } catch (error) {
      toast(error.message, "error");
      return;
    }
    deliver(onSnapshot, snap, "live");
  });
  source.addEventListener("error", () => {
    errors += 1;
    if (errors >= STREAM_ERRORS_BEFORE_POLLING || source.readyState === EventSource.CLOSED) {
      giveUp();
    } else if (state.staleSince === null) {
      setMode("connecting");
    }
  });
}

function startPolling(onSnapshot) {
  setMode("polling");
  const poll = async () => {
    let snap;
    try {
      snap = await getJSON("api/queues");
    } catch (error) {
      setMode("offline");
      // 503: the dashboard answered and Redis did not; anything else: the dashboard did not answer.
      showBanner({ ok: false, error: error.message, since: null, server: error.status !== 503 });
      showStale(state.staleSince ?? Date.now(), state.good && state.good.now);
    }
    if (snap) deliver(onSnapshot, snap, "polling");
    setTimeout(poll, (state.snap && state.snap.intervalMs) || 2000);
  };
  poll();
}
