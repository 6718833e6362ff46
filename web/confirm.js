/** The confirm dialog (dialog#confirm) asked before every destructive action. */
import { el, fill } from "./dom.js";
import { T } from "./text.js";

let dialog = null;

/** Asks before a destructive action; with `typeToConfirm` the user must type that text. */
export function ask({ text, confirmLabel = T.confirm, typeToConfirm = null }) {
  if (typeof HTMLDialogElement !== "function") return Promise.resolve(window.confirm(text));
  if (!dialog) {
    dialog = el("dialog", { id: "confirm", "aria-labelledby": "confirm-title" });
    document.body.append(dialog);
  }
  return new Promise((resolve) => {
    const input = typeToConfirm ? el("input", { id: "confirm-input", type: "text", autocomplete: "off", spellcheck: "false" }) : null;
    const ok = el("button", { type: "button", class: "danger", "data-action": "confirm", disabled: Boolean(typeToConfirm) }, confirmLabel);
    const cancel = el("button", { type: "button", "data-action": "cancel" }, T.cancel);
    let answer = false;
    const finish = (value) => {
      answer = value;
      dialog.close();
    };
    ok.addEventListener("click", () => finish(true));
    cancel.addEventListener("click", () => finish(false));
    if (input) {
      input.addEventListener("input", () => (ok.disabled = input.value !== typeToConfirm));
      input.addEventListener("keydown", (event) => {
        if (event.key === "Enter" && input.value === typeToConfirm) finish(true);
      });
    }
    fill(dialog, {}, [
      el("h2", { id: "confirm-title" }, T.areYouSure),
      el("p", {}, text),
      input,
      el("div", { class: "buttons" }, cancel, ok),
    ]);
    dialog.addEventListener(
      "close",
      () => {
        dialog.replaceChildren();
        resolve(answer);
      },
      { once: true },
    );
    dialog.showModal();
    (input || cancel).focus();
  });
}
