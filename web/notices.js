/** Notices (#toasts): what an action did, or why it failed. */
import { $, el } from "./dom.js";
import { T } from "./text.js";

/** Shows `message` for a while; `kind` is "ok" or "error". */
export function toast(message, kind = "ok") {
  const item = el(
    "div",
    { class: `toast ${kind}`, "data-kind": kind, role: kind === "error" ? "alert" : "status" },
    el("span", { class: "text" }, message),
  );
  const close = () => item.remove();
  item.append(el("button", { type: "button", class: "ghost", "aria-label": T.close, onclick: close }, "×"));
  $("#toasts").append(item);
  setTimeout(close, kind === "error" ? 10000 : 4000);
}

/** Runs an action, shows its error's message, and tells whether it worked. */
export async function attempt(action, success) {
  try {
    const result = await action();
    if (success) toast(typeof success === "function" ? success(result) : success, "ok");
    return result === undefined ? true : result;
  } catch (error) {
    toast(error.message || String(error), "error");
    return false;
  }
}
