/*
 * The dead letters of a queue's page (section#dead-letters), shown once the queue is known to hold
 * any: grouped by why they stopped (tr[data-group]; errors that differ only by numbers and ids are
 * one group, shown by one example), each group or all of them redriven back.
 */
import { getJSON, post, queuePath } from "../api.js";
import { ask } from "../confirm.js";
import { el, fill, svg } from "../dom.js";
import { fmtNumber } from "../format.js";
import { attempt } from "../notices.js";
import { isStale, readOnly } from "../state.js";
import { T } from "../text.js";

/** The section, hidden until `show`; `refresh` (after a redrive) reloads the whole page's data. */
export function deadLetterSection(qname, refresh) {
  const node = el("section", { id: "dead-letters", class: "card", hidden: true });
  let wanted = false;

  // Redrive matches an exact error text: a group that folds several is redriven one text at a time.
  const redrive = async (bodies, text, confirmLabel) => {
    if (!(await ask({ text, confirmLabel }))) return;
    const moveAll = async () => {
      let moved = 0;
      for (const body of bodies) {
        const r = await post(`${queuePath(qname)}/redrive`, body);
        moved += r && typeof r.moved === "number" ? r.moved : 0;
      }
      return moved;
    };
    if ((await attempt(moveAll, (moved) => T.redriven(moved))) !== false) refresh();
  };

  async function load() {
    if (isStale()) return; // read again when readings work (the page's refresh after they resume)
    const result = await attempt(() => getJSON(`${queuePath(qname)}/dead-letters`));
    if (!result) return;
    node.hidden = false;
    node.replaceChildren();
    fill(node, {}, [
      heading(result, () => redrive([{}], T.redriveAllText(qname), T.redriveAll)),
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
  const errors = g.errors && g.errors.length > 0 ? g.errors : [g.error];
  const redriveGroup = () =>
    redrive(
      errors.map((error) => ({ reason: g.reason, error })),
      T.redriveVariantsText(g.count, g.reason, errors.length, g.variants || 1),
      T.redriveGroup,
    );
  return el(
    "tr",
    { "data-group": i, "data-reason": g.reason },
    el("td", { "data-col": "reason" }, el("span", { class: `state ${g.reason === "poison" ? "deadLettered" : "delayed"}` }, g.reason)),
    el(
      "td",
      { "data-col": "error", class: "error-text", title: g.variants > 1 ? T.pattern(g.pattern) : null },
      el("span", { class: "example" }, g.error || T.none),
      g.variants > 1 ? el("div", { class: "variants muted small" }, T.variants(g.variants)) : null,
    ),
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
