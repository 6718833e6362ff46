/*
 * The Workers consuming a queue, on its page (section#consumers): one row each (tr[data-consumer]),
 * from their heartbeats (GET api/queues/:q/consumers). Read again when the reading's count of
 * live consumers changes, and every CONSUMERS_EVERY_MS while there are any (their "last seen"
 * moves): one script call, not one per reading.
 */
import { el } from "../dom.js";
import { fmtDuration, fmtNumber, fmtTime } from "../format.js";
import { T } from "../text.js";
import { listedSection } from "./listed-section.js";

const CONSUMERS_EVERY_MS = 10000;

export function consumersSection(qname) {
  return listedSection(qname, { key: "consumers", texts: T.consumers, everyMs: CONSUMERS_EVERY_MS, table: (result) => table(result) });
}

function table({ now, consumers }) {
  return el(
    "div",
    { class: "scroll" },
    el(
      "table",
      { class: "grid" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          T.consumers.cols.map((label) => el("th", { scope: "col" }, label)),
        ),
      ),
      el(
        "tbody",
        {},
        consumers.map((c) =>
          el(
            "tr",
            { "data-consumer": c.id },
            el("td", { "data-col": "id", class: "mono" }, c.id),
            el("td", { "data-col": "host" }, c.host),
            el("td", { "data-col": "pid", class: "num" }, String(c.pid)),
            el("td", { "data-col": "concurrency", class: "num" }, fmtNumber(c.concurrency)),
            el("td", { "data-col": "started" }, fmtTime(c.startedAt)),
            el("td", { "data-col": "lastSeen", title: fmtTime(c.lastSeenAt) }, T.ago(fmtDuration(now - c.lastSeenAt))),
          ),
        ),
      ),
    ),
  );
}
