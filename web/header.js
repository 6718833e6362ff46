/**
 * The top bar and the banner: live-update status, read-only or read-write, the cost, Redis health,
 * and whether the figures shown are stale (#stale, and #view[data-stale]).
 */
import { $ } from "./dom.js";
import { costFormat, fmtClock, fmtTime } from "./format.js";
import { state } from "./state.js";
import { T } from "./text.js";

/** Shows how the page gets its readings: connecting, live, polling or offline. */
export function setMode(mode) {
  state.mode = mode;
  const status = $("#status");
  status.dataset.state = mode;
  status.textContent = T[mode];
}

/**
 * Marks the figures shown as stale since `since` (epoch ms; the last good reading was `readAt`), or
 * as fresh with null. The status is never "live" while they are stale.
 */
export function showStale(since, readAt) {
  const marker = $("#stale");
  const view = $("#view");
  state.staleSince = since;
  if (since === null) {
    marker.hidden = true;
    marker.textContent = "";
    delete marker.dataset.since;
    marker.removeAttribute("title");
    delete view.dataset.stale;
    return;
  }
  marker.textContent = T.staleSince(fmtClock(since));
  marker.dataset.since = String(since);
  if (readAt) marker.title = T.staleTitle(fmtTime(readAt));
  marker.hidden = false;
  view.dataset.stale = "true";
  if (state.mode === "live") setMode("stale");
}

/** Shows the dashboard's cost and whether it takes changes, from one reading. */
export function showHeader(snap) {
  $("#cost").textContent = T.cost(costFormat.format(snap.cost.commandsPerSecond), snap.cost.streams);
  const modeBadge = $("#mode");
  modeBadge.textContent = snap.readOnly ? T.readOnly : T.readWrite;
  modeBadge.dataset.mode = snap.readOnly ? "read-only" : "read-write";
}

/** Shows the banner while Redis (or, with `server`, the dashboard) does not answer; hides it when `ok`. */
export function showBanner(redis) {
  const banner = $("#redis-banner");
  if (redis.ok) {
    banner.hidden = true;
    banner.textContent = "";
    return;
  }
  if (redis.server) banner.textContent = T.serverDown(redis.error);
  else banner.textContent = redis.since ? T.redisDown(fmtTime(redis.since), redis.error) : T.redisDownNow(redis.error);
  banner.dataset.cause = redis.server ? "dashboard" : "redis";
  banner.hidden = false;
}
