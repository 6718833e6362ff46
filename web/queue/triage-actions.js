/*
 * Triage on a queue's page: find messages by id or by a text in their bodies (a read, shown in
 * read-only mode too; section#find), and, with writes on, purge the queue (its name typed to
 * confirm), change its retention, and redrive one dead letter from the search's results.
 */
import { getJSON, post, queuePath } from "../api.js";
import { ask } from "../confirm.js";
import { el } from "../dom.js";
import { fmtBytes, fmtNumber } from "../format.js";
import { field, intOrUndefined } from "../form.js";
import { attempt } from "../notices.js";
import { readOnly } from "../state.js";
import { T } from "../text.js";

/** The search section (section#find); `changed` reloads the page's data after a redrive. */
export function findSection(qname, changed) {
  const results = el("div", { id: "find-results" });
  const note = el("p", { id: "find-note", class: "muted small" });
  let last = null; // the query of the shown results, and its cursor
  const form = el(
    "form",
    { id: "find-messages", class: "toolbar", autocomplete: "off", role: "search" },
    el(
      "select",
      { name: "by", "aria-label": T.triage.findBy },
      el("option", { value: "text" }, T.triage.byText),
      el("option", { value: "id" }, T.triage.byId),
    ),
    el("input", { name: "query", type: "search", required: true, maxlength: 200, spellcheck: "false", "aria-label": T.triage.findWhat }),
    el("button", { type: "submit", class: "primary", "data-action": "find" }, T.triage.find),
  );
  const more = el("button", { type: "button", "data-action": "find-more", hidden: true }, T.triage.findMore);

  async function search(query, cursor) {
    const params =
      query.by === "id"
        ? `id=${encodeURIComponent(query.value)}`
        : `text=${encodeURIComponent(query.value)}&cursor=${encodeURIComponent(cursor)}`;
    const answer = await attempt(() => getJSON(`${queuePath(qname)}/find?${params}`));
    if (!answer) return;
    last = { query, cursor: answer.cursor };
    results.replaceChildren(resultTable(qname, answer, changed));
    note.textContent = query.by === "id" ? "" : T.triage.looked(answer.looked, answer.total, answer.cursor !== null);
    more.hidden = answer.cursor === null;
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    search({ by: String(data.get("by")), value: String(data.get("query")) }, "0");
  });
  more.addEventListener("click", () => last && search(last.query, last.cursor));

  return el(
    "section",
    { id: "find", class: "card" },
    el("div", { class: "heading" }, el("h2", {}, T.triage.findTitle)),
    el("p", { class: "muted small", id: "find-bound" }, T.triage.bound),
    form,
    note,
    results,
    el("div", { class: "buttons" }, more),
  );
}

/** The messages found, bodies as text; a dead letter offers its redrive when writes are on. */
function resultTable(qname, answer, changed) {
  if (answer.messages.length === 0) return el("p", { class: "empty" }, T.triage.nothingFound);
  return el(
    "table",
    { class: "grid", id: "found" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        T.triage.cols.map((label) => el("th", { scope: "col" }, label)),
      ),
    ),
    el(
      "tbody",
      {},
      answer.messages.map((m) =>
        el(
          "tr",
          { "data-id": m.id, "data-state": m.state },
          el("td", { "data-col": "id", class: "mono" }, m.id),
          el("td", { "data-col": "state" }, el("span", { class: `state ${m.state}` }, T.states[m.state] || m.state)),
          el("td", { "data-col": "size", class: "num" }, fmtBytes(m.size)),
          el(
            "td",
            { "data-col": "body", class: "body" },
            el("span", { class: "text" }, m.body),
            m.truncated ? el("span", { class: "ellipsis", "aria-hidden": "true" }, T.ellipsis) : null,
          ),
          el("td", { class: "row-actions" }, m.deadLetter && !readOnly() ? redriveButton(qname, m, changed) : null),
        ),
      ),
    ),
  );
}

function redriveButton(qname, m, changed) {
  const redrive = async () => {
    if (!(await ask({ text: T.triage.redriveOneText(m.id, m.deadLetter.source), confirmLabel: T.triage.redriveOne }))) return;
    const path = `${queuePath(qname)}/messages/${encodeURIComponent(m.id)}/redrive`;
    if (await attempt(() => post(path), T.triage.redrivenOne)) {
      button.closest("tr").remove();
      changed();
    }
  };
  const button = el("button", { type: "button", "data-action": "redrive-one", onclick: redrive }, T.triage.redriveOne);
  return button;
}

/** The retention form (form#retention-form) and the purge card, for a dashboard with writes on. */
export function triageForms(qname, q, changed) {
  return [retentionForm(qname, q), purgeCard(qname, changed)];
}

function retentionForm(qname, q) {
  const form = el(
    "form",
    { id: "retention-form", class: "card form", autocomplete: "off" },
    el("h2", {}, T.triage.retentionTitle),
    el(
      "div",
      { class: "fields" },
      field("retention", T.triage.retention, { type: "number", min: 0, value: q.retention ?? 0 }),
      field("expireTo", T.triage.expireTo, { maxlength: 160, pattern: "[A-Za-z0-9_\\-]*", value: q.expireTo ?? "" }),
    ),
    el("p", { class: "muted small" }, T.triage.retentionNote),
    el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", "data-action": "save-retention" }, T.save)),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = { retention: intOrUndefined(data.get("retention")) ?? 0, expireTo: String(data.get("expireTo")).trim() };
    await attempt(() => post(`${queuePath(qname)}/attributes`, body), T.triage.retentionSaved);
  });
  return form;
}

function purgeCard(qname, changed) {
  const purge = async () => {
    if (!(await ask({ text: T.triage.purgeText(qname), confirmLabel: T.triage.purge, typeToConfirm: qname }))) return;
    const removed = (r) => T.triage.purged(fmtNumber(r && typeof r.removed === "number" ? r.removed : 0));
    if (await attempt(() => post(`${queuePath(qname)}/purge`, { confirm: qname }), removed)) changed();
  };
  return el(
    "div",
    { class: "card form danger-zone", id: "purge" },
    el("h2", {}, T.triage.purgeTitle),
    el("p", { class: "muted small" }, T.triage.purgeNote),
    el("button", { type: "button", class: "danger", "data-action": "purge-queue", onclick: purge }, T.triage.purge),
  );
}
