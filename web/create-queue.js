/** The form on the overview that creates a queue (form#create-queue). */
import { post } from "./api.js";
import { el } from "./dom.js";
import { field, intOrUndefined } from "./form.js";
import { attempt } from "./notices.js";
import { queueLink } from "./routes.js";
import { T } from "./text.js";

export function createQueueForm() {
  const form = el(
    "form",
    { id: "create-queue", class: "card form", autocomplete: "off" },
    el("h2", {}, T.newQueue),
    el(
      "div",
      { class: "fields" },
      field("qname", T.qname, { required: true, maxlength: 160, pattern: "[A-Za-z0-9_\\-]+" }),
      field("vt", T.vt, { type: "number", min: 0, placeholder: "30" }),
      field("delay", T.delay, { type: "number", min: 0, placeholder: "0" }),
      field("maxsize", T.maxsize, { type: "number", min: -1, placeholder: "65536" }),
    ),
    el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", "data-action": "create-queue" }, T.create)),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const qname = String(data.get("qname")).trim();
    const body = {
      qname,
      vt: intOrUndefined(data.get("vt")),
      delay: intOrUndefined(data.get("delay")),
      maxsize: intOrUndefined(data.get("maxsize")),
    };
    if (await attempt(() => post("api/queues", body), T.created(qname))) {
      form.reset();
      location.hash = queueLink(qname);
    }
  });
  return form;
}
