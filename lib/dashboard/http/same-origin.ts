/**
 * The CSRF check of every POST: the browser must say the request comes from this page's origin.
 * Browsers send `Sec-Fetch-Site`; the few that do not send `Origin`, which must then be this host.
 * A script calling the API sends `Sec-Fetch-Site: same-origin` itself.
 */
import type { IncomingMessage } from "http";

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Whether a POST may change anything. */
export function isSameOrigin(req: IncomingMessage): boolean {
  const site = header(req, "sec-fetch-site");
  if (site !== undefined) return site === "same-origin";
  const origin = header(req, "origin");
  const host = header(req, "host");
  if (origin === undefined || host === undefined) return false;
  return origin === `http://${host}` || origin === `https://${host}`;
}
