/**
 * The routes, as a table: a method, a path pattern relative to the mount (`:qname` and `:id` match
 * one segment) and whether it changes anything. Matching a path gives the route per method, so a
 * known path with another method is a 405 naming the methods it takes, and anything else a 404.
 */
import { HttpError } from "./http-error";

export type Method = "GET" | "POST";

/** What a matched route gets: the decoded `:qname` and `:id` segments and the query. */
export interface RouteParams {
  qname: string;
  id: string;
  query: URLSearchParams;
}

export interface Route<Name extends string = string> {
  method: Method;
  pattern: string;
  /** A mutation: refused in read-only mode, and only from the same origin. */
  mutates: boolean;
  name: Name;
}

/** Every route of the API (docs/dashboard.md, JSON API). The page's files are matched first, apart. */
export const ROUTES = [
  { method: "GET", pattern: "api/queues", mutates: false, name: "queues" },
  { method: "GET", pattern: "api/stream", mutates: false, name: "stream" },
  { method: "GET", pattern: "api/queues/:qname", mutates: false, name: "queue" },
  { method: "GET", pattern: "api/queues/:qname/messages", mutates: false, name: "messages" },
  { method: "GET", pattern: "api/queues/:qname/messages/:id", mutates: false, name: "message" },
  { method: "GET", pattern: "api/queues/:qname/dead-letters", mutates: false, name: "deadLetters" },
  // The queue-state metrics in Prometheus' text format (lib/telemetry/exposition/), from the shared reading.
  { method: "GET", pattern: "metrics", mutates: false, name: "metrics" },
  { method: "POST", pattern: "api/queues", mutates: true, name: "createQueue" },
  { method: "POST", pattern: "api/queues/:qname/attributes", mutates: true, name: "setAttributes" },
  { method: "POST", pattern: "api/queues/:qname/messages", mutates: true, name: "sendMessage" },
  { method: "POST", pattern: "api/queues/:qname/messages/:id/visible", mutates: true, name: "makeVisible" },
  { method: "POST", pattern: "api/queues/:qname/messages/:id/delete", mutates: true, name: "deleteMessage" },
  { method: "POST", pattern: "api/queues/:qname/redrive", mutates: true, name: "redrive" },
  { method: "POST", pattern: "api/queues/:qname/delete", mutates: true, name: "deleteQueue" },
] as const satisfies readonly Route[];

export type RouteName = (typeof ROUTES)[number]["name"];

/** A route found for a path and method. */
export interface Match {
  route: Route<RouteName>;
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
  const params = { qname: "", id: "" };
  for (let i = 0; i < parts.length; i++) {
    // An empty segment (`api/queues/`) names no queue or message: no route has it.
    if (parts[i].startsWith(":") && segments[i] === "") return undefined;
    if (parts[i] === ":qname") params.qname = segments[i];
    else if (parts[i] === ":id") params.id = segments[i];
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
