/**
 * One request, from the path to the answer: security headers first, then the page's files, the
 * mount redirect, the route; for a mutating route the read-only refusal before anything else, then
 * the same-origin check, then the body; then the route's own code (read-routes.ts, write-routes.ts).
 * Every failure becomes the error JSON (respond.ts), but the `metrics` route's, which Prometheus
 * reads: a 503 with a line of text.
 */
import type { IncomingMessage, ServerResponse } from "http";
import { HttpError } from "./http-error";
import { readJsonBody } from "./json-body";
import { mountRedirect } from "./mount-redirect";
import { sendError } from "./respond";
import type { HandlerParts } from "./route";
import { findRoute } from "./routes";
import { isSameOrigin } from "./same-origin";
import { setSecurityHeaders } from "./security-headers";
import { isAsset, sendAsset } from "./static-assets";

/** Serves one request; never rejects (every failure is answered). */
export async function handleRequest(parts: HandlerParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    setSecurityHeaders(res);
    await dispatch(parts, req, res);
  } catch (error) {
    sendError(res, error);
  }
}

async function dispatch(parts: HandlerParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://dashboard.invalid");
  const path = url.pathname.replace(/^\/+/, "");
  const method = req.method ?? "GET";
  if (isAsset(path)) {
    const location = mountRedirect(req, path);
    if (location !== undefined) {
      res.writeHead(301, { Location: location, "Cache-Control": "no-store" }).end();
      return;
    }
    if (method !== "GET" && method !== "HEAD")
      throw new HttpError(405, "methodNotAllowed", "The page's files take GET.", { Allow: "GET, HEAD" });
    sendAsset(res, path, method === "HEAD");
    return;
  }
  const { route, params } = findRoute(method, path, url.searchParams);
  const body = route.mutates ? await mutationBody(parts, req, route.body) : {};
  await route.run({ ...parts, req, res }, params, body);
}

/**
 * A mutation's JSON body, once the checks pass: read-only first (no body is read, nothing else is
 * looked at), then the origin; a field the route does not take is refused.
 */
async function mutationBody(parts: HandlerParts, req: IncomingMessage, fields: readonly string[]): Promise<Record<string, unknown>> {
  if (parts.readOnly) {
    throw new HttpError(
      405,
      "readOnly",
      "This dashboard is read-only: start it with readOnly: false (CLI: --read-write) to allow changes.",
    );
  }
  if (!isSameOrigin(req)) {
    throw new HttpError(
      403,
      "crossSite",
      "A change must come from the dashboard's own page: send Sec-Fetch-Site: same-origin (or an Origin equal to this host).",
    );
  }
  return readJsonBody(req, fields);
}
