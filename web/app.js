/*
 * The rsmq-next dashboard page: no framework, no build step. It reads the JSON API of
 * docs/dashboard.md with relative URLs only (so it works mounted at any path), renders untrusted
 * data (queue names, bodies, errors) as text only, and runs under the dashboard's strict CSP
 * (no inline script or style: classes and SVG attributes only).
 *
 * This module routes between the two views and starts the live readings; each view and each part
 * of one is a module of its own (web/overview.js, web/queue/), all loaded as ES modules.
 *
 * Hooks for browser tests:
 *   #status[data-state=connecting|live|polling|stale|offline]   live-update status (never live while readings fail)
 *   #stale[data-since=<epoch ms>]  "stale since <time>", shown while the figures are the last good reading's;
 *     #view[data-stale=true] meanwhile
 *   #cost                        "Dashboard cost: X Redis commands/s (N tabs)"
 *   #redis-banner[data-cause=redis|dashboard]  shown (not [hidden]) while Redis (or the dashboard) is unreachable
 *   #mode                        "read-only" / "read-write"
 *   #toasts .toast[data-kind=error|ok] .text               notices (an error answer's message)
 *   Overview (#/):
 *     table#queues  tr[data-qname="<qname>"]  td[data-col=qname|visible|inFlight|delayed|total|
 *       oldest|nextDue|sentPerSecond|receivedPerSecond|deadLetters]; numeric cells carry data-value
 *     form#create-queue (input[name=qname|vt|delay|maxsize]) button[data-action=create-queue]
 *   Queue page (#/queues/<qname>): section#queue[data-qname]
 *     #queue-stats [data-stat=visible|inFlight|delayed|total|oldest|nextDue|due1m|due10m|due1h|
 *       sentPerSecond|receivedPerSecond]; #settings [data-setting=vt|delay|maxsize|retention|expireTo|created|modified]
 *     svg#rate-chart (polyline.sent, polyline.received, text.y-unit, text.y-tick, text.x-tick)
 *     table#messages tr[data-id="<id>"][data-state]  td[data-col=id|state|priority|receiveCount|sent|due|
 *       size|body|actions]; button[data-action=show-body|make-visible|delete-message]
 *     button[data-filter=all|visible|inFlight|delayed|deadLettered] (chips, aria-pressed)
 *     button[data-action=refresh-messages|prev-page|next-page], #page-info
 *     section#dead-letters  tr[data-group="<index>"][data-reason]  td[data-col=error] .example .variants
 *       button[data-action=redrive-group|redrive-all]
 *     form#settings-form button[data-action=save-settings]
 *     form#send-message (textarea[name=message], input[name=delay]) button[data-action=send-message]
 *     button[data-action=delete-queue]
 *   dialog#confirm  input#confirm-input (type-the-name)  button[data-action=confirm|cancel]
 */

import { getJSON } from "./api.js";
import { $ } from "./dom.js";
import { setMode, showBanner, showHeader, showStale } from "./header.js";
import { startLive } from "./live.js";
import { toast } from "./notices.js";
import { overviewView } from "./overview.js";
import { queueView } from "./queue/view.js";
import { currentRoute } from "./routes.js";
import { isStale, readOnly, record, state } from "./state.js";
import { T } from "./text.js";

const FIRST_READING_WAIT_MS = 1500;

let view = { needsRender: () => true, update() {} };

function render() {
  const current = currentRoute();
  view = current.name === "queue" ? queueView(current.qname) : overviewView();
  view.readOnly = readOnly(); // what the view was built for: rebuilt when the API says otherwise
  document.title = current.name === "queue" ? `${current.qname} · ${T.title}` : T.title;
  $("#view").replaceChildren(view.node);
  if (state.good) view.update(state.good, false);
}

function onSnapshot(snap) {
  state.snap = snap;
  showBanner(snap.redis);
  showHeader(snap);
  // While readings fail the views keep the last good one, marked stale since the first failure.
  if (!snap.redis.ok) return showStale(state.staleSince ?? snap.redis.since, state.good && state.good.now);
  const previous = state.good;
  const resumed = isStale();
  state.good = snap;
  if (resumed) showStale(null);
  if (!previous || previous.now !== snap.now) record(snap);
  if (view.readOnly !== snap.readOnly || view.needsRender(snap)) render();
  else view.update(snap, resumed);
}

window.addEventListener("hashchange", render);
window.addEventListener("unhandledrejection", (event) => toast(String((event.reason && event.reason.message) || event.reason), "error"));
setMode("connecting");
render();
startLive(onSnapshot);
// Shows the queues at once when the stream's first event is slow to come (one reading, not more).
setTimeout(() => {
  if (!state.snap)
    getJSON("api/queues").then(
      (snap) => state.snap || onSnapshot(snap),
      () => {},
    );
}, FIRST_READING_WAIT_MS);
