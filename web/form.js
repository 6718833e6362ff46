/** What the page's forms share. */
import { el } from "./dom.js";

/** A labelled input named `name`. */
export function field(name, label, attrs = {}) {
  return el("label", {}, el("span", {}, label), el("input", { name, ...attrs }));
}

/** A number field's value: undefined when left empty, so the server keeps its default. */
export function intOrUndefined(value) {
  return value === "" ? undefined : Number(value);
}
