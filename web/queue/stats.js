/*
 * The live figures of a queue's page (#queue-live): counts by state, what becomes visible soon
 * (#queue-stats [data-stat]), the rate chart and the settings (#settings [data-setting]), the
 * retention and where expired messages go among them, and the controls: the pause, the rate limit
 * and a block of receives, the concurrency limit and what is leased of it (docs/fleet-controls.md).
 */
import { $, el } from "../dom.js";
import { fmtBytes, fmtDue, fmtDuration, fmtNumber, fmtPause, fmtRate, fmtRateLimit, fmtTime } from "../format.js";
import { T } from "../text.js";
import { rateChart } from "./rate-chart.js";

/** The figures' cards, showing placeholders until the first `update`. */
export function liveFigures() {
  const stats = el(
    "div",
    { id: "queue-stats", class: "stats" },
    Object.entries(T.stats).map(([key, label]) => stat(key, label)),
    stat("sentPerSecond", T.sentPerSecond),
    stat("receivedPerSecond", T.receivedPerSecond),
  );
  const due = el(
    "div",
    { class: "stats small" },
    Object.entries(T.due).map(([key, label]) => stat(key, label)),
  );
  const settings = el("dl", { id: "settings", class: "settings" });
  const rates = rateChart();
  const node = el(
    "div",
    { class: "overview-grid", id: "queue-live" },
    el("div", { class: "card" }, stats, el("h3", {}, T.dueWithin), due),
    el("div", { class: "card" }, el("h3", {}, T.rates), rates.chart, rates.legend),
    el("div", { class: "card" }, el("h3", {}, T.settings), settings),
  );
  return {
    node,
    /** Shows queue row `q` of a reading taken at `now`, and the queue's rate `history`. */
    update(q, now, history) {
      showStats(node, q, now);
      showSettings(settings, q);
      rates.draw(history);
    },
  };
}

function stat(key, label) {
  return el("div", { class: "stat", "data-stat": key }, el("span", { class: "label" }, label), el("span", { class: "value" }, T.none));
}

function setStat(node, key, text, value) {
  const item = $(`[data-stat="${key}"]`, node);
  if (!item) return;
  item.lastChild.textContent = text;
  if (value !== undefined) item.dataset.value = String(value);
}

function showStats(node, q, now) {
  for (const key of ["visible", "inFlight", "delayed", "total"])
    setStat(node, key, (q.partial && (key === "inFlight" || key === "delayed") ? "≈" : "") + fmtNumber(q[key]), q[key]);
  setStat(node, "oldest", q.oldestAgeMs === null ? T.none : fmtDuration(q.oldestAgeMs));
  setStat(node, "nextDue", fmtDue(q.nextDueAt, now));
  setStat(node, "due1m", fmtNumber(q.dueWithin["1m"]), q.dueWithin["1m"]);
  setStat(node, "due10m", fmtNumber(q.dueWithin["10m"]), q.dueWithin["10m"]);
  setStat(node, "due1h", fmtNumber(q.dueWithin["1h"]), q.dueWithin["1h"]);
  setStat(node, "sentPerSecond", fmtRate(q.sentPerSecond));
  setStat(node, "receivedPerSecond", fmtRate(q.receivedPerSecond));
}

/** `3600 s (1h 0m)`: rsmq's unit, and the same as a person reads it. */
function retentionText(seconds) {
  return seconds < 60 ? T.seconds(seconds) : `${T.seconds(seconds)} (${fmtDuration(seconds * 1000)})`;
}

function showSettings(settings, q) {
  const entries = [
    ["vt", T.seconds(q.vt)],
    ["delay", T.seconds(q.delay)],
    ["maxsize", q.maxsize === -1 ? T.unlimited : fmtBytes(q.maxsize)],
    ["retention", q.retention > 0 ? retentionText(q.retention) : T.keptForever],
    ["expireTo", q.expireTo || (q.retention > 0 ? T.expiredDeleted : T.none)],
    ["paused", q.paused ? fmtPause(q.paused) : T.controls.notPaused],
    ["rateLimit", limitText(q)],
    ["concurrency", q.concurrency === null ? T.controls.noConcurrency : T.controls.leasedOf(q.leased, q.concurrency)],
    ["created", fmtTime(q.created * 1000)],
    ["modified", fmtTime(q.modified * 1000)],
  ];
  settings.replaceChildren(
    ...entries.flatMap(([key, text]) => [el("dt", {}, T.settingNames[key]), el("dd", { "data-setting": key }, text)]),
  );
}

/** The rate limit, and a block of receives in force after it. */
function limitText(q) {
  const limit = q.rateLimit ? fmtRateLimit(q.rateLimit) : T.controls.noLimit;
  return q.rateLimitedUntil ? `${limit}; ${T.controls.blockedUntil(fmtTime(q.rateLimitedUntil))}` : limit;
}
