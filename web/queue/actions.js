/** What can be done to a queue from its page (read-write only): change its settings, send a message, delete it. */
import { post, queuePath } from "../api.js";
import { ask } from "../confirm.js";
import { el } from "../dom.js";
import { field, intOrUndefined } from "../form.js";
import { attempt } from "../notices.js";
import { T } from "../text.js";

/**
 * The forms' area, empty until `fill` (once, with the queue's settings); `onSent` after a send;
 * `more(q)` gives further forms (triage-actions.js), shown before the delete.
 */
export function actionsArea(qname, onSent, more = () => []) {
  const node = el("div", { class: "actions-area" });
  let filled = false;
  return {
    node,
    fill(q) {
      if (filled) return;
      filled = true;
      node.replaceChildren(el("div", { class: "forms" }, settingsForm(qname, q), sendForm(qname, onSent), more(q), dangerZone(qname)));
    },
  };
}

function settingsForm(qname, q) {
  const form = el(
    "form",
    { id: "settings-form", class: "card form", autocomplete: "off" },
    el("h2", {}, T.changeSettings),
    el(
      "div",
      { class: "fields" },
      field("vt", T.vt, { type: "number", min: 0, value: q.vt }),
      field("delay", T.delay, { type: "number", min: 0, value: q.delay }),
      field("maxsize", T.maxsize, { type: "number", min: -1, value: q.maxsize }),
    ),
    el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", "data-action": "save-settings" }, T.save)),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = {
      vt: intOrUndefined(data.get("vt")),
      delay: intOrUndefined(data.get("delay")),
      maxsize: intOrUndefined(data.get("maxsize")),
    };
    await attempt(() => post(`${queuePath(qname)}/attributes`, body), T.saved);
  });
  return form;
}

function sendForm(qname, onSent) {
  const form = el(
    "form",
    { id: "send-message", class: "card form", autocomplete: "off" },
    el("h2", {}, T.sendTitle),
    el("label", { class: "wide" }, el("span", {}, T.body), el("textarea", { name: "message", rows: 3, required: true })),
    el(
      "div",
      { class: "fields" },
      field("delay", T.delay, { type: "number", min: 0, placeholder: "0" }),
      field("priority", T.priority, { type: "number", min: 0, max: 9, placeholder: "0" }),
    ),
    el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", "data-action": "send-message" }, T.send)),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = {
      message: String(data.get("message")),
      delay: intOrUndefined(data.get("delay")),
      priority: intOrUndefined(data.get("priority")),
    };
    if (
      await attempt(
        () => post(`${queuePath(qname)}/messages`, body),
        (r) => T.sent(r && r.id),
      )
    ) {
      form.reset();
      onSent();
    }
  });
  return form;
}

function dangerZone(qname) {
  const deleteQueue = async () => {
    if (!(await ask({ text: T.deleteQueueText(qname), confirmLabel: T.deleteQueue, typeToConfirm: qname }))) return;
    if (await attempt(() => post(`${queuePath(qname)}/delete`, { confirm: qname }), T.deletedQueue(qname))) location.hash = "#/";
  };
  return el(
    "div",
    { class: "card form danger-zone" },
    el("h2", {}, T.dangerZone),
    el("button", { type: "button", class: "danger", "data-action": "delete-queue", onclick: deleteQueue }, T.deleteQueue),
  );
}
