/*
 * A section of a queue's page that lists what the queue's row only counts (its consumers, its
 * schedules): a card with a title and the count, and a table read from its own route. Read again
 * when the reading's count changes, when asked (after an action), and every `everyMs` while the
 * list is not empty (what it shows moves): one script call, not one per reading.
 */
import { getJSON, queuePath } from "../api.js";
import { el } from "../dom.js";
import { fmtNumber } from "../format.js";
import { attempt } from "../notices.js";
import { isStale } from "../state.js";
import { T } from "../text.js";

/**
 * `key`: the section's id, the route under the queue's path, the list's name in the answer and in
 * the queue's row (a count); `texts`: its `title` and `none`; `table(result, reload)` builds the
 * table of a list that is not empty.
 */
export function listedSection(qname, { key, texts, everyMs, table }) {
  const body = el("div", {}, el("p", { class: "muted" }, T.loading));
  const count = el("span", { class: "muted" }, "");
  const node = el("section", { id: key, class: "card" }, el("h2", {}, texts.title, " ", count), body);
  let shownCount = null;
  let loadedAt = 0;
  let loading = false;

  async function load() {
    if (isStale() || loading) return;
    loading = true;
    try {
      const result = await attempt(() => getJSON(`${queuePath(qname)}/${key}`));
      if (!result) return;
      loadedAt = Date.now();
      shownCount = result[key].length;
      count.textContent = fmtNumber(shownCount);
      node.dataset[key] = String(shownCount);
      body.replaceChildren(shownCount === 0 ? el("p", { class: "empty" }, texts.none) : table(result, load));
    } finally {
      loading = false;
    }
  }

  return {
    node,
    /** Follows queue row `q`: reads the list again when its count differs, or it is old and not empty. */
    update(q) {
      const old = Date.now() - loadedAt >= everyMs && q[key] > 0;
      if (shownCount === null || q[key] !== shownCount || old) load();
    },
  };
}
