/**
 * The mount root without its trailing slash (`/ops/queues` under Express) must become
 * `/ops/queues/`, or the page's relative URLs would resolve one level too high. Express keeps the
 * path as asked in `req.originalUrl`; where that is missing, the host did the redirect itself (or
 * mounted at the root).
 */
import type { IncomingMessage } from "http";

/** The relative Location to redirect to, or undefined when the request needs none. */
export function mountRedirect(req: IncomingMessage & { originalUrl?: string }, path: string): string | undefined {
  if (path !== "" || typeof req.originalUrl !== "string") return undefined;
  const [original, query] = splitQuery(req.originalUrl);
  if (original === "" || original.endsWith("/")) return undefined;
  const last = original.slice(original.lastIndexOf("/") + 1);
  return `${last}/${query}`;
}

function splitQuery(url: string): [string, string] {
  const at = url.indexOf("?");
  return at === -1 ? [url, ""] : [url.slice(0, at), url.slice(at)];
}
