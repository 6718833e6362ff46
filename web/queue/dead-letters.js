/*
 * The dead letters of a queue's page (section#dead-letters), shown once the queue is known to hold
 * any: grouped by why they stopped (tr[data-group]), each group or all of them redriven back.
 */
import { getJSON, post, queuePath } from "../api.js";
import { ask } from "../confirm.js";
import { el, fill, svg } from "../dom.js";
import { fmtNumber } from "../format.js";
import { attempt } from "../notices.js";
import { readOnly } from "../state.js";
import { T } from "../text.js";

/** The section, hidden until `show`; `refresh` (after a redrive) reloads the whole page's data. */
export function deadLetterSection(qname, refresh) {
  const node = el("section", { id: "dead-letters", class: "card", hidden: true });
  let wanted = false;

  const redrive = async (body, text, confirmLabel) => {
    if (!(await ask({ text, confirmLabel }))) return;
    const moved = (r) => T.redriven(r && typeof r.moved === "number" ? r.moved : 0);
    if (await attempt(() => post(`${queuePath(qname)}/redrive`, body), moved)) refresh();
  };

  async function load() {
    const result = await attempt(() => getJSON(`${queuePath(qname)}/dead-letters`));
    if (!result) return;
    node.hidden = false;
    node.replaceChildren();
    fill(node, {}, [
      heading(result, () => redrive({}, T.redriveAllText(qname), T.redriveAll)),
      result.partial ? el("p", { class: "muted small" }, T.dlPartial(result.looked, result.total)) : null,
      result.groups.length === 0 ? el("p", { class: "empty" }, T.noDeadLetters) : groupTable(result.groups, redrive),
    ]);
  }

  return {
    node,
    /** Loads the section the first time the queue is seen to hold dead letters. */
    show() {
      if (wanted) return;
      wanted = true;
      load();
    },
    /** Reloads the section if it is shown. */
    refresh() {
      if (wanted) load();
    },
  };
}

function heading(result, redriveAll) {
  return el(
    "div",
    { class: "heading" },
    el("h2", {}, T.deadLetters, " ", el("span", { class: "muted" }, fmtNumber(result.total))),
    el("span", { class: "spacer" }),
    readOnly() || result.total === 0
      ? null
      : el("button", { type: "button", class: "primary", "data-action": "redrive-all", onclick: redriveAll }, T.redriveAll),
  );
}

function groupTable(groups, redrive) {
  const max = Math.max(1, ...groups.map((g) => g.count));
  return el(
    "table",
    { class: "grid histogram" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        T.dlCols.map((label) => el("th", { scope: "col" }, label)),
      ),
    ),
    el(
      "tbody",
      {},
      groups.map((g, i) => groupRow(g, i, max, redrive)),
    ),
  );
}

/** Group `g` (the `i`th), its count drawn as a bar against the largest group's `max`. */
function groupRow(g, i, max, redrive) {
  const redriveGroup = () => redrive({ reason: g.reason, error: g.error }, T.redriveGroupText(g.count, g.reason), T.redriveGroup);
  return el(
    "tr",
    { "data-group": i, "data-reason": g.reason },
    el("td", { "data-col": "reason" }, el("span", { class: `state ${g.reason === "poison" ? "deadLettered" : "delayed"}` }, g.reason)),
    el("td", { "data-col": "error", class: "error-text" }, g.error || T.none),
    el(
      "td",
      { "data-col": "count", "data-value": g.count },
      el(
        "div",
        { class: "bar-cell" },
        svg(
          "svg",
          { class: "bar", viewBox: "0 0 100 10", preserveAspectRatio: "none", "aria-hidden": "true" },
          svg("rect", { x: 0, y: 0, width: Math.max(1, (g.count / max) * 100).toFixed(2), height: 10, rx: 1 }),
        ),
        el("span", { class: "num" }, fmtNumber(g.count)),
      ),
    ),
    el("td", { "data-col": "sources" }, g.sources.join(", ")),
    el(
      "td",
      { class: "row-actions" },
      readOnly() ? null : el("button", { type: "button", "data-action": "redrive-group", onclick: redriveGroup }, T.redriveGroup),
    ),
  );
}
