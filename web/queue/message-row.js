/** One message of the browser (tr[data-id][data-state]): its figures, its body, what can be done with it. */
import { getJSON, post, queuePath } from "../api.js";
import { ask } from "../confirm.js";
import { el } from "../dom.js";
import { fmtBytes, fmtDue, fmtDuration, fmtNumber, fmtTime } from "../format.js";
import { attempt } from "../notices.js";
import { readOnly } from "../state.js";
import { T } from "../text.js";

/**
 * The row of message `m` of queue `qname`, read at `now`; `refresh` reloads after an action;
 * `wholeBodies` (id -> body) holds the bodies read whole so far, kept across reloads.
 */
export function messageRow(qname, m, now, refresh, wholeBodies) {
  return el(
    "tr",
    { "data-id": m.id, "data-state": m.state },
    el("td", { "data-col": "id", class: "mono id", title: m.id }, m.id),
    el("td", { "data-col": "state" }, el("span", { class: `state ${m.state}` }, T.states[m.state] || m.state)),
    el(
      "td",
      { "data-col": "priority", "data-value": m.priority, class: m.priority > 0 ? "num priority high" : "num priority" },
      fmtNumber(m.priority),
    ),
    el("td", { "data-col": "receiveCount", "data-value": m.receiveCount, class: "num" }, fmtNumber(m.receiveCount)),
    el("td", { "data-col": "sent", title: fmtTime(m.sent) }, T.ago(fmtDuration(now - m.sent))),
    el("td", { "data-col": "due", title: fmtTime(m.dueAt) }, fmtDue(m.dueAt, now)),
    el("td", { "data-col": "size", "data-value": m.size, class: "num" }, fmtBytes(m.size)),
    bodyCell(qname, m, wholeBodies),
    actionsCell(qname, m, now, refresh),
  );
}

const messagePath = (qname, m) => `${queuePath(qname)}/messages/${encodeURIComponent(m.id)}`;

/** The body as far as the page holds it; a truncated one offers the whole, read on demand. */
function bodyCell(qname, m, wholeBodies) {
  const whole = wholeBodies.get(m.id);
  const text = el("span", { class: "text" }, whole === undefined ? m.body : whole);
  const cell = el("td", { "data-col": "body", class: whole === undefined ? "body" : "body whole" }, text);
  if (m.truncated && whole === undefined) {
    const mark = el("span", { class: "ellipsis", "aria-hidden": "true" }, T.ellipsis);
    const more = el("button", { type: "button", class: "link", "data-action": "show-body" }, T.showBody);
    more.addEventListener("click", async () => {
      const result = await attempt(() => getJSON(messagePath(qname, m)));
      if (!result) return;
      wholeBodies.set(m.id, result.message.body);
      text.textContent = result.message.body;
      cell.classList.add("whole");
      mark.remove();
      more.remove();
    });
    cell.append(mark, " ", more);
  }
  // Its attributes under the body, as text (untrusted: never HTML), written as the filter takes them.
  if (m.attributes) cell.append(el("div", { class: "attrs mono", "data-attributes": "" }, attributesText(m.attributes)));
  if (m.deadLetter) cell.append(el("div", { class: "dead-info" }, T.deadInfo(m.deadLetter)));
  return cell;
}

/** `tenant=acme attempt:=2 key:={"b64":"AP8="}`: strings as name=value, other types as name:=<json>. */
export function attributesText(attributes) {
  return Object.entries(attributes)
    .map(([name, value]) => (typeof value === "string" ? `${name}=${value}` : `${name}:=${JSON.stringify(value)}`))
    .join("  ");
}

/** Make-visible (for a hidden message) and delete; nothing when the dashboard is read-only. */
function actionsCell(qname, m, now, refresh) {
  const cell = el("td", { "data-col": "actions", class: "row-actions" });
  if (readOnly()) return cell;
  if (m.dueAt > now) {
    const makeVisible = async () => {
      if (await attempt(() => post(`${messagePath(qname, m)}/visible`), T.madeVisible)) refresh();
    };
    cell.append(el("button", { type: "button", "data-action": "make-visible", onclick: makeVisible }, T.makeVisible));
  }
  const remove = async () => {
    if (!(await ask({ text: T.deleteMessageText(m.id), confirmLabel: T.deleteMessage }))) return;
    if (await attempt(() => post(`${messagePath(qname, m)}/delete`), T.deletedMessage)) refresh();
  };
  cell.append(el("button", { type: "button", class: "danger", "data-action": "delete-message", onclick: remove }, T.deleteMessage));
  return cell;
}
