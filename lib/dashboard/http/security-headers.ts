/**
 * The headers every answer carries (docs/dashboard.md, Security): a CSP that allows the page's own
 * files only, no sniffing, no referrer, no framing, no indexing.
 */
import type { ServerResponse } from "http";

/** No inline script or style and no request elsewhere: the handler serves every asset itself. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "X-Robots-Tag": "noindex",
};

/** Sets the security headers on `res` (before anything is written). */
export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}
