/** A queue's page (#/queues/<qname>): section#queue[data-qname], made of the parts in this folder. */
import { el } from "../dom.js";
import { readOnly, state } from "../state.js";
import { T } from "../text.js";
import { actionsArea } from "./actions.js";
import { consumersSection } from "./consumers.js";
import { controlForms } from "./controls.js";
import { deadLetterSection } from "./dead-letters.js";
import { messageBrowser } from "./messages.js";
import { schedulesSection } from "./schedules.js";
import { liveFigures } from "./stats.js";
import { findSection, triageForms } from "./triage-actions.js";
import { tenantsSection } from "./tenants.js";

/**
 * What of a queue's row moves when its messages change: a send, a receive, a delete, a purge, an
 * expiry, a message coming due or going hidden. The list is read again when it differs.
 */
const changeMark = (q) =>
  [q.total, q.visible, q.inFlight, q.delayed, q.totalsent, q.totalrecv, q.totalexpired, q.nextDueAt, q.modified].join(",");

export function queueView(qname) {
  let known = null; // whether the queue was in the snapshot the page was built from
  let mark = null; // the queue's change mark at the last reading
  const refresh = () => {
    messages.load();
    deadLetters.refresh();
  };
  const figures = liveFigures();
  const deadLetters = deadLetterSection(qname, refresh);
  const messages = messageBrowser(qname, { refresh, sawDeadLetters: () => deadLetters.show() });
  const actions = actionsArea(
    qname,
    () => messages.load(),
    (q) => [...controlForms(qname, q), ...triageForms(qname, q, refresh)],
  );
  const finder = findSection(qname, refresh);
  const tenants = tenantsSection(qname);
  const badge = el("span", { class: "badge dlq", hidden: true, id: "dlq-badge" }, T.dlqBadge);
  const concurrency = el("span", { class: "badge limit", hidden: true, id: "concurrency-badge", "data-badge": "concurrency" });
  const consumers = consumersSection(qname);
  const schedules = schedulesSection(qname);
  const notFound = el("p", { class: "empty", id: "not-found", hidden: true }, T.notFound(qname));
  const node = el(
    "section",
    { id: "queue", "data-qname": qname },
    el("a", { href: "#/", class: "back" }, T.back),
    el("div", { class: "heading" }, el("h1", {}, qname), badge, concurrency),
    notFound,
    figures.node,
    consumers.node,
    schedules.node,
    deadLetters.node,
    messages.node,
    tenants.node,
    finder,
    actions.node,
  );
  const find = (snap) => snap.queues.find((q) => q.qname === qname) || null;

  messages.load(0);
  tenants.count();

  return {
    node,
    // Rebuild when the queue appears or disappears (deleted, or created after the page opened).
    needsRender: (snap) => known !== null && snap.redis.ok && Boolean(find(snap)) !== known,
    /** Shows a good reading; `resumed` after readings failed (what the page shows is then read again). */
    update(snap, resumed) {
      if (!snap.redis.ok) return; // keep the last figures (or the placeholders) while Redis is away
      const q = find(snap);
      known = Boolean(q);
      notFound.hidden = known;
      figures.node.hidden = !known;
      if (!q) return;
      badge.hidden = !q.isDeadLetterQueue;
      concurrency.hidden = q.concurrency === null;
      concurrency.textContent = q.concurrency === null ? "" : T.controls.concurrencyBadge(q.leased, q.concurrency);
      consumers.update(q);
      schedules.update(q);
      if (q.isDeadLetterQueue) deadLetters.show();
      figures.update(q, snap.now ?? Date.now(), state.history.get(qname) || []);
      if (!readOnly()) actions.fill(q);
      const now = changeMark(q);
      if (resumed || (mark !== null && now !== mark)) messages.follow();
      if (resumed) deadLetters.refresh();
      mark = now;
    },
  };
}
