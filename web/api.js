/*
 * The JSON API of docs/dashboard.md, by relative URLs only (so the page works mounted at any path).
 * A failed request rejects with the answer's own message; `status` says which answer it was.
 */
import { T } from "./text.js";

export const queuePath = (qname) => `api/queues/${encodeURIComponent(qname)}`;

async function request(url, init) {
  let response;
  try {
    response = await fetch(url, { cache: "no-store", credentials: "same-origin", ...init });
  } catch (error) {
    throw new Error(`${T.failed}: ${error.message}`);
  }
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's error page, say): the status says what happened.
  }
  if (!response.ok) {
    const error = new Error((json && json.message) || `${T.failed}: ${response.status} ${response.statusText}`);
    error.status = response.status;
    throw error;
  }
  return json;
}

export const getJSON = (url) => request(url);

export const post = (url, body = {}) =>
  request(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
