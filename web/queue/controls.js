/*
 * A queue's controls on its page, with writes on (docs/fleet-controls.md): pause it (for a number
 * of minutes, or until resumed; hard to stop rsmq 0.12.4 consumers too) and resume it, set one rate
 * limit or remove it, set its concurrency limit or remove it. What is in force shows in the
 * settings (stats.js), read-only too.
 */
import { post, queuePath } from "../api.js";
import { el } from "../dom.js";
import { field, intOrUndefined } from "../form.js";
import { attempt } from "../notices.js";
import { state } from "../state.js";
import { T } from "../text.js";

/**
 * The pause form (form#pause-form), the rate-limit form (form#rate-limit-form) and the
 * concurrency form (form#concurrency-form), filled from row `q`.
 */
export function controlForms(qname, q) {
  return [pauseForm(qname), rateLimitForm(qname, q), concurrencyForm(qname, q)];
}

function pauseForm(qname) {
  const form = el(
    "form",
    { id: "pause-form", class: "card form", autocomplete: "off" },
    el("h2", {}, T.controls.pauseTitle),
    el(
      "div",
      { class: "fields" },
      field("minutes", T.controls.forMinutes, { type: "number", min: 1 }),
      el("label", { class: "check" }, el("input", { type: "checkbox", name: "hard" }), el("span", {}, T.controls.hard)),
    ),
    el("p", { class: "muted small" }, T.controls.pauseNote),
    el(
      "div",
      { class: "buttons" },
      el("button", { type: "submit", class: "primary", "data-action": "pause-queue" }, T.controls.pause),
      el(
        "button",
        {
          type: "button",
          "data-action": "resume-queue",
          onclick: () => attempt(() => post(`${queuePath(qname)}/resume`), T.controls.resumed),
        },
        T.controls.resume,
      ),
    ),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const minutes = intOrUndefined(data.get("minutes"));
    // From the server's time of the last reading (a few seconds old at most), not this machine's clock.
    const now = (state.good && state.good.now) || Date.now();
    const body = { hard: data.get("hard") === "on" ? true : undefined, until: minutes === undefined ? undefined : now + minutes * 60000 };
    await attempt(() => post(`${queuePath(qname)}/pause`, body), T.controls.paused);
  });
  return form;
}

function rateLimitForm(qname, q) {
  const first = q.rateLimit ? q.rateLimit.limits[0] : null;
  const mode = el(
    "select",
    { name: "mode" },
    ["receive", "pace"].map((value) =>
      el("option", { value, selected: q.rateLimit && q.rateLimit.mode === value }, T.controls.modes[value]),
    ),
  );
  const form = el(
    "form",
    { id: "rate-limit-form", class: "card form", autocomplete: "off" },
    el("h2", {}, T.controls.rateTitle),
    el(
      "div",
      { class: "fields" },
      field("max", T.controls.max, { type: "number", min: 1, required: true, value: first ? first.max : null }),
      field("perMs", T.controls.perMs, { type: "number", min: 1, required: true, value: first ? first.perMs : 1000 }),
      field("burst", T.controls.burst, { type: "number", min: 0, value: first ? first.burst : 0 }),
      el("label", {}, el("span", {}, T.controls.mode), mode),
    ),
    el("p", { class: "muted small" }, T.controls.rateNote),
    el(
      "div",
      { class: "buttons" },
      el("button", { type: "submit", class: "primary", "data-action": "set-rate-limit" }, T.controls.setLimit),
      el(
        "button",
        {
          type: "button",
          "data-action": "remove-rate-limit",
          onclick: () => attempt(() => post(`${queuePath(qname)}/rate-limit/remove`), T.controls.limitRemoved),
        },
        T.controls.removeLimit,
      ),
    ),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const limit = {
      max: intOrUndefined(data.get("max")),
      perMs: intOrUndefined(data.get("perMs")),
      burst: intOrUndefined(data.get("burst")),
    };
    await attempt(() => post(`${queuePath(qname)}/rate-limit`, { limits: [limit], mode: String(data.get("mode")) }), T.controls.limitSet);
  });
  return form;
}

function concurrencyForm(qname, q) {
  const form = el(
    "form",
    { id: "concurrency-form", class: "card form", autocomplete: "off" },
    el("h2", {}, T.controls.concurrencyTitle),
    el(
      "div",
      { class: "fields" },
      field("max", T.controls.concurrencyMax, { type: "number", min: 1, max: 10000, required: true, value: q.concurrency }),
    ),
    el("p", { class: "muted small" }, T.controls.concurrencyNote),
    el(
      "div",
      { class: "buttons" },
      el("button", { type: "submit", class: "primary", "data-action": "set-concurrency" }, T.controls.setConcurrency),
      el(
        "button",
        {
          type: "button",
          "data-action": "remove-concurrency",
          onclick: () => attempt(() => post(`${queuePath(qname)}/concurrency/remove`), T.controls.concurrencyRemoved),
        },
        T.controls.removeConcurrency,
      ),
    ),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const max = intOrUndefined(new FormData(form).get("max"));
    await attempt(() => post(`${queuePath(qname)}/concurrency`, { max }), T.controls.concurrencySet);
  });
  return form;
}
