/*
 * Element helpers: text goes in as text nodes and attributes through setAttribute, never as HTML,
 * so untrusted data (queue names, bodies, errors) is shown as written and never parsed.
 */

const SVG = "http://www.w3.org/2000/svg";

/** A new HTML element with `attrs` (an `on…` key adds that listener) and `children` (text or nodes). */
export function el(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** A new SVG element, as `el`. */
export function svg(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG, tag), attrs, children);
}

/** Sets `attrs` on `node` and appends `children` (nested arrays flattened; null, undefined and false skipped). */
export function fill(node, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const $ = (selector, root = document) => root.querySelector(selector);
