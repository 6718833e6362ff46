/*
 * The tenants of a queue's page (section#tenants): its messages counted by their `tenant`
 * attribute and state, over the first 10,000 messages (the server walks them in Redis calls of at
 * most 1,000); "at least" when the queue holds more. Read when the page opens and on "Count".
 */
import { getJSON, queuePath } from "../api.js";
import { el } from "../dom.js";
import { fmtNumber } from "../format.js";
import { attempt } from "../notices.js";
import { T } from "../text.js";

export function tenantsSection(qname) {
  const body = el("div", { id: "tenant-counts" });
  const note = el("p", { id: "tenants-note", class: "muted small" });

  async function count() {
    const answer = await attempt(() => getJSON(`${queuePath(qname)}/tenants`));
    if (!answer) return;
    note.textContent = answer.complete
      ? T.tenants.all(answer.looked, answer.withoutTenant)
      : T.tenants.atLeast(answer.looked, answer.total);
    body.replaceChildren(answer.tenants.length === 0 ? el("p", { class: "empty" }, T.tenants.none) : tenantTable(answer.tenants));
  }

  const node = el(
    "section",
    { id: "tenants", class: "card" },
    el(
      "div",
      { class: "heading" },
      el("h2", {}, T.tenants.title),
      el("span", { class: "spacer" }),
      el("button", { type: "button", "data-action": "count-tenants", onclick: () => count() }, T.tenants.count),
    ),
    el("p", { class: "muted small" }, T.tenants.note),
    note,
    body,
  );
  return { node, count };
}

/** One row per tenant (tr[data-tenant]), names as text. */
function tenantTable(tenants) {
  return el(
    "table",
    { class: "grid", id: "tenant-table" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        T.tenants.cols.map((label) => el("th", { scope: "col" }, label)),
      ),
    ),
    el(
      "tbody",
      {},
      tenants.map((t) =>
        el(
          "tr",
          { "data-tenant": t.tenant },
          el("td", { "data-col": "tenant", class: "mono" }, t.tenant),
          el("td", { "data-col": "visible", class: "num" }, fmtNumber(t.visible)),
          el("td", { "data-col": "inFlight", class: "num" }, fmtNumber(t.inFlight)),
          el("td", { "data-col": "delayed", class: "num" }, fmtNumber(t.delayed)),
          el("td", { "data-col": "total", class: "num" }, fmtNumber(t.total)),
        ),
      ),
    ),
  );
}
