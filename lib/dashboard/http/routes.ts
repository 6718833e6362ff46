/**
 * Every route of the API (docs/dashboard.md, JSON API), each with the code that answers it: the
 * reads, then the mutations. Matching a path gives the route per method, so a known path with
 * another method is a 405 naming the methods it takes, and anything else a 404. The page's files
 * are matched first, apart (static-assets.ts).
 */
import { CONTROL_ROUTES } from "./control-routes";
import { HttpError } from "./http-error";
import { READ_ROUTES } from "./read-routes";
import { SCHEDULE_ROUTES } from "./schedule-routes";
import type { Method, Route, RouteParams } from "./route";
import { TRIAGE_ROUTES } from "./triage-routes";
import { WRITE_ROUTES } from "./write-routes";

export const ROUTES: readonly Route[] = [...READ_ROUTES, ...WRITE_ROUTES, ...TRIAGE_ROUTES, ...CONTROL_ROUTES, ...SCHEDULE_ROUTES];

/** A route found for a path and method. */
export interface Match {
  route: Route;
  params: RouteParams;
}

/** The segments of a path; a malformed %-escape is bad input. */
function segmentsOf(path: string): string[] {
  return path.split("/").map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw new HttpError(400, "invalidPath", `The path segment "${segment}" is not valid %-encoding.`);
    }
  });
}

function matchPattern(pattern: string, segments: string[]): Omit<RouteParams, "query"> | undefined {
  const parts = pattern.split("/");
  if (parts.length !== segments.length) return undefined;
  const params = { qname: "", id: "", name: "" };
  for (let i = 0; i < parts.length; i++) {
    // An empty segment (`api/queues/`) names no queue or message: no route has it.
    if (parts[i].startsWith(":") && segments[i] === "") return undefined;
    if (parts[i] === ":qname") params.qname = segments[i];
    else if (parts[i] === ":id") params.id = segments[i];
    else if (parts[i] === ":name") params.name = segments[i];
    else if (parts[i] !== segments[i]) return undefined;
  }
  return params;
}

/**
 * The route for `method` at `path` (relative to the mount, no leading slash). Throws 404 for a
 * path no route has, 405 (with Allow) for a method the path does not take.
 */
export function findRoute(method: string, path: string, query: URLSearchParams): Match {
  const segments = segmentsOf(path);
  const allowed: Method[] = [];
  for (const route of ROUTES) {
    const params = matchPattern(route.pattern, segments);
    if (params === undefined) continue;
    if (route.method === method) return { route, params: { ...params, query } };
    allowed.push(route.method);
  }
  if (allowed.length === 0) throw new HttpError(404, "notFound", `No route ${method} ${path}: see docs/dashboard.md for the API.`);
  throw new HttpError(405, "methodNotAllowed", `${path} takes ${allowed.join(" or ")}, not ${method}.`, { Allow: allowed.join(", ") });
}
