/** The page's two views by location.hash: the overview (#/) and a queue's page (#/queues/<qname>). */

/** The view the hash names; anything else (a malformed escape included) is the overview. */
export function currentRoute() {
  const match = /^#\/queues\/([^/]+)$/.exec(location.hash);
  if (match) {
    try {
      return { name: "queue", qname: decodeURIComponent(match[1]) };
    } catch {
      // A malformed escape: the overview.
    }
  }
  return { name: "overview" };
}

export const queueLink = (qname) => `#/queues/${encodeURIComponent(qname)}`;
