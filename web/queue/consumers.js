/*
 * The Workers consuming a queue, on its page (section#consumers): one row each (tr[data-consumer]),
 * from their heartbeats (GET api/queues/:q/consumers). Read again when the reading's count of
 * live consumers changes, and every CONSUMERS_EVERY_MS while there are any (their "last seen"
 * moves): one script call, not one per reading.
 */
import { getJSON, queuePath } from "../api.js";
import { el } from "../dom.js";
import { fmtDuration, fmtNumber, fmtTime } from "../format.js";
import { attempt } from "../notices.js";
import { isStale } from "../state.js";
import { T } from "../text.js";

const CONSUMERS_EVERY_MS = 10000;

export function consumersSection(qname) {
  const body = el("div", {}, el("p", { class: "muted" }, T.loading));
  const count = el("span", { class: "muted" }, "");
  const node = el("section", { id: "consumers", class: "card" }, el("h2", {}, T.consumers.title, " ", count), body);
  let shownCount = null;
  let loadedAt = 0;
  let loading = false;

  async function load() {
    if (isStale() || loading) return;
    loading = true;
    try {
      const result = await attempt(() => getJSON(`${queuePath(qname)}/consumers`));
      if (!result) return;
      loadedAt = Date.now();
      shownCount = result.consumers.length;
      count.textContent = fmtNumber(shownCount);
      node.dataset.consumers = String(shownCount);
      body.replaceChildren(result.consumers.length === 0 ? el("p", { class: "empty" }, T.consumers.none) : table(result));
    } finally {
      loading = false;
    }
  }

  return {
    node,
    /** Follows queue row `q`: reads the list again when its count differs, or it is old and not empty. */
    update(q) {
      const old = Date.now() - loadedAt >= CONSUMERS_EVERY_MS && q.consumers > 0;
      if (shownCount === null || q.consumers !== shownCount || old) load();
    },
  };
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
