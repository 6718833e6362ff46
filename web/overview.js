/**
 * The overview (#/): every queue of the namespace live, in table#queues (a paused queue and a
 * rate-limited one and one with a concurrency limit marked by a badge beside its name), and the
 * create-queue form.
 */
import { el } from "./dom.js";
import { createQueueForm } from "./create-queue.js";
import { fmtDue, fmtDuration, fmtNumber, fmtPause, fmtRate, fmtRateLimit, fmtTime, isPaused } from "./format.js";
import { queueLink } from "./routes.js";
import { readOnly } from "./state.js";
import { T } from "./text.js";

export function overviewView() {
  const tbody = el("tbody");
  const empty = el("p", { class: "empty", hidden: true }, T.noQueues);
  const keys = [
    "qname",
    "visible",
    "inFlight",
    "delayed",
    "total",
    "oldest",
    "nextDue",
    "sentPerSecond",
    "receivedPerSecond",
    "deadLetters",
  ];
  const table = el(
    "table",
    { id: "queues", class: "grid" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        T.cols.map((label, i) => el("th", { scope: "col", class: i > 0 && i < 9 ? "num" : null, "data-col": keys[i] }, label)),
      ),
    ),
    tbody,
  );
  const node = el(
    "section",
    { id: "overview" },
    el("div", { class: "heading" }, el("h1", {}, T.queues)),
    el("div", { class: "card scroll" }, table, empty),
    readOnly() ? null : createQueueForm(),
  );
  return {
    node,
    needsRender: () => false,
    update(snap) {
      const now = snap.now ?? Date.now();
      tbody.replaceChildren(...snap.queues.map((q) => overviewRow(q, now)));
      empty.hidden = snap.queues.length > 0 || !snap.redis.ok;
      node.dataset.queues = String(snap.queues.length);
    },
  };
}

function overviewRow(q, now) {
  const approx = q.partial ? el("span", { class: "approx", title: T.partial }, "≈") : null;
  const dlq = q.deadLetterQueue;
  return el(
    "tr",
    { "data-qname": q.qname, class: q.isDeadLetterQueue ? "is-dlq" : null },
    el(
      "td",
      { "data-col": "qname" },
      el("a", { href: queueLink(q.qname) }, q.qname),
      q.isDeadLetterQueue ? el("span", { class: "badge dlq" }, T.dlqBadge) : null,
      isPaused(q) ? el("span", { class: "badge paused", "data-badge": "paused", title: fmtPause(q.paused) }, T.controls.pausedBadge) : null,
      q.rateLimit
        ? el("span", { class: "badge limit", "data-badge": "rate-limit", title: fmtRateLimit(q.rateLimit) }, limitBadge(q.rateLimit))
        : null,
      q.concurrency === null || q.concurrency === undefined
        ? null
        : el(
            "span",
            { class: "badge limit", "data-badge": "concurrency", title: T.controls.leasedOf(q.leased, q.concurrency) },
            T.controls.concurrencyBadge(q.leased, q.concurrency),
          ),
    ),
    numCell("visible", q.visible),
    numCell("inFlight", q.inFlight, approx),
    numCell("delayed", q.delayed, approx && approx.cloneNode(true)),
    numCell("total", q.total),
    el("td", { "data-col": "oldest", class: "num" }, q.oldestAgeMs === null ? T.none : fmtDuration(q.oldestAgeMs)),
    el("td", { "data-col": "nextDue", class: "num", title: q.nextDueAt ? fmtTime(q.nextDueAt) : null }, fmtDue(q.nextDueAt, now)),
    el("td", { "data-col": "sentPerSecond", class: "num" }, fmtRate(q.sentPerSecond)),
    el("td", { "data-col": "receivedPerSecond", class: "num" }, fmtRate(q.receivedPerSecond)),
    el(
      "td",
      { "data-col": "deadLetters", "data-value": dlq ? dlq.total : null },
      dlq
        ? [
            el("a", { href: queueLink(dlq.qname) }, dlq.qname),
            " ",
            el("span", { class: dlq.total > 0 ? "count alert" : "count" }, fmtNumber(dlq.total)),
          ]
        : T.none,
    ),
  );
}

/** The tightest limit, as messages per second: `≤ 5/s`. */
function limitBadge(rateLimit) {
  const perSecond = Math.min(...rateLimit.limits.map((l) => (l.max * 1000) / l.perMs));
  return `≤ ${Number(perSecond.toPrecision(3))}/s`;
}

function numCell(col, value, extra) {
  return el("td", { "data-col": col, "data-value": value, class: "num" }, extra, fmtNumber(value));
}
