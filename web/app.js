/*
 * The rsmq-next dashboard page: no framework, no build step. It reads the JSON API of
 * docs/dashboard.md with relative URLs only (so it works mounted at any path), renders untrusted
 * data (queue names, bodies, errors) as text only, and runs under the dashboard's strict CSP
 * (no inline script or style: classes and SVG attributes only).
 *
 * Hooks for browser tests:
 *   #status[data-state=connecting|live|polling|offline]   live-update status
 *   #cost                        "Dashboard cost: X Redis commands/s (N tabs)"
 *   #redis-banner[data-cause=redis|dashboard]  shown (not [hidden]) while Redis (or the dashboard) is unreachable
 *   #mode                        "read-only" / "read-write"
 *   #toasts .toast[data-kind=error|ok] .text               notices (an error answer's message)
 *   Overview (#/):
 *     table#queues  tr[data-qname="<qname>"]  td[data-col=qname|visible|inFlight|delayed|total|
 *       oldest|nextDue|sentPerSecond|receivedPerSecond|deadLetters]; numeric cells carry data-value
 *     form#create-queue (input[name=qname|vt|delay|maxsize]) button[data-action=create-queue]
 *   Queue page (#/queues/<qname>): section#queue[data-qname]
 *     #queue-stats [data-stat=visible|inFlight|delayed|total|oldest|nextDue|due1m|due10m|due1h|
 *       sentPerSecond|receivedPerSecond]; #settings [data-setting=vt|delay|maxsize|created|modified]
 *     svg#rate-chart (polyline.sent, polyline.received)
 *     table#messages tr[data-id="<id>"][data-state]  td[data-col=id|state|receiveCount|sent|due|
 *       size|body|actions]; button[data-action=show-body|make-visible|delete-message]
 *     button[data-filter=all|visible|inFlight|delayed|deadLettered] (chips, aria-pressed)
 *     button[data-action=refresh-messages|prev-page|next-page], #page-info
 *     section#dead-letters  tr[data-group="<index>"]  button[data-action=redrive-group|redrive-all]
 *     form#settings-form button[data-action=save-settings]
 *     form#send-message (textarea[name=message], input[name=delay]) button[data-action=send-message]
 *     button[data-action=delete-queue]
 *   dialog#confirm  input#confirm-input (type-the-name)  button[data-action=confirm|cancel]
 */

/** Every string the page shows. */
const T = {
  title: "rsmq-next dashboard",
  connecting: "connecting…",
  live: "live",
  polling: "polling",
  offline: "offline",
  readOnly: "read-only",
  readWrite: "read-write",
  cost: (cps, tabs) => `Dashboard cost: ${cps} Redis commands/s (${tabs} ${tabs === 1 ? "tab" : "tabs"})`,
  redisDown: (since, error) => `Redis unreachable since ${since}: ${error}; retrying`,
  queues: "Queues",
  noQueues: "No queues in this namespace yet.",
  loading: "Loading…",
  cols: ["Queue", "Visible", "In flight", "Delayed", "Total", "Oldest", "Next due", "Sent/s", "Received/s", "Dead letters"],
  partial: "More hidden messages than one reading looks at: in flight and delayed split the earliest only",
  dlqBadge: "DLQ",
  none: "—",
  now: "now",
  inTime: (d) => `in ${d}`,
  ago: (d) => `${d} ago`,
  newQueue: "New queue",
  qname: "Name",
  vt: "Visibility timeout (s)",
  delay: "Delay (s)",
  maxsize: "Max size (bytes, -1 unlimited)",
  create: "Create queue",
  created: (q) => `Queue ${q} created`,
  back: "← All queues",
  notFound: (q) => `There is no queue ${q} in this namespace.`,
  stats: { visible: "Visible", inFlight: "In flight", delayed: "Delayed", total: "Total", oldest: "Oldest", nextDue: "Next due" },
  dueWithin: "Becoming visible within",
  due: { due1m: "1 min", due10m: "10 min", due1h: "1 h" },
  rates: "Rates since this page opened",
  sentPerSecond: "Sent/s",
  receivedPerSecond: "Received/s",
  collecting: "Collecting readings…",
  peak: (v) => `peak ${v}/s`,
  settings: "Settings",
  settingNames: { vt: "vt", delay: "delay", maxsize: "maxsize", created: "created", modified: "modified" },
  seconds: (n) => `${n} s`,
  unlimited: "unlimited",
  save: "Save settings",
  changeSettings: "Change settings",
  saved: "Settings saved",
  sendTitle: "Send a test message",
  body: "Body",
  send: "Send",
  sent: (id) => `Message ${id} sent`,
  dangerZone: "Delete this queue",
  deleteQueue: "Delete queue…",
  deleteQueueText: (q) => `This deletes ${q} and every message in it. Type the queue's name to confirm.`,
  deletedQueue: (q) => `Queue ${q} deleted`,
  messages: "Messages",
  browseNote: "Browsing never receives: it changes no visibility and no receive count.",
  refresh: "Refresh",
  prev: "← Previous",
  next: "Next →",
  pageInfo: (from, to, total) => (total === 0 ? "no messages" : `${from}–${to} of ${total}`),
  filters: { all: "All", visible: "Visible", inFlight: "In flight", delayed: "Delayed", deadLettered: "Dead-lettered" },
  msgCols: ["ID", "State", "Received", "Sent", "Due", "Size", "Body", ""],
  states: { visible: "visible", inFlight: "in flight", delayed: "delayed", deadLettered: "dead-lettered" },
  ellipsis: "…",
  showBody: "Show whole body",
  makeVisible: "Make visible now",
  madeVisible: "Message is visible now",
  deleteMessage: "Delete",
  deleteMessageText: (id) => `Delete message ${id}? This cannot be undone.`,
  deletedMessage: "Message deleted",
  noMessages: "No messages.",
  noMatch: "No message of this state on this page.",
  deadInfo: (d) => `${d.reason} after ${d.deliveries} deliveries from ${d.source}: ${d.error}`,
  deadLetters: "Dead letters",
  dlCols: ["Reason", "Last error", "Count", "From", ""],
  dlPartial: (looked, total) => `Grouped from the first ${looked} of ${total} messages.`,
  noDeadLetters: "No dead letters.",
  redriveGroup: "Redrive these",
  redriveAll: "Redrive all",
  redriveGroupText: (n, reason) => `Move the ${n} dead letters of reason "${reason}" back to their queue?`,
  redriveAllText: (q) => `Move every message of ${q} back to the queue it came from?`,
  redriven: (n) => `${n} ${n === 1 ? "message" : "messages"} moved back`,
  confirm: "Confirm",
  cancel: "Cancel",
  areYouSure: "Are you sure?",
  failed: "Request failed",
  close: "Close",
  redisDownNow: (error) => `Redis unreachable: ${error}; retrying`,
  serverDown: (error) => `The dashboard does not answer: ${error}; retrying`,
};

// ---- DOM helpers: text goes in as text nodes, attributes through setAttribute ----

const SVG = "http://www.w3.org/2000/svg";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  return fill(node, attrs, children);
}

function svg(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG, tag), attrs, children);
}

function fill(node, attrs, children) {
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

const $ = (selector, root = document) => root.querySelector(selector);

// ---- Formatting ----

const numberFormat = new Intl.NumberFormat("en");
const rateFormat = new Intl.NumberFormat("en", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const costFormat = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });
const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

const fmtNumber = (n) => numberFormat.format(n);
const fmtRate = (r) => (r === null || r === undefined ? T.none : rateFormat.format(r));
const fmtTime = (ms) => (ms === null || ms === undefined ? T.none : timeFormat.format(new Date(ms)));

function fmtDuration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

function fmtDue(at, now) {
  if (at === null || at === undefined) return T.none;
  return at <= now ? T.now : T.inTime(fmtDuration(at - now));
}

function fmtBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

// ---- The API ----

const queuePath = (qname) => `api/queues/${encodeURIComponent(qname)}`;

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

const getJSON = (url) => request(url);

const post = (url, body = {}) =>
  request(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

// ---- Notices and the confirm dialog ----

function toast(message, kind = "ok") {
  const item = el(
    "div",
    { class: `toast ${kind}`, "data-kind": kind, role: kind === "error" ? "alert" : "status" },
    el("span", { class: "text" }, message),
  );
  const close = () => item.remove();
  item.append(el("button", { type: "button", class: "ghost", "aria-label": T.close, onclick: close }, "×"));
  $("#toasts").append(item);
  setTimeout(close, kind === "error" ? 10000 : 4000);
}

/** Runs an action, shows its error's message, and tells whether it worked. */
async function attempt(action, success) {
  try {
    const result = await action();
    if (success) toast(typeof success === "function" ? success(result) : success, "ok");
    return result === undefined ? true : result;
  } catch (error) {
    toast(error.message || String(error), "error");
    return false;
  }
}

let dialog = null;

/** Asks before a destructive action; with `typeToConfirm` the user must type that text. */
function ask({ text, confirmLabel = T.confirm, typeToConfirm = null }) {
  if (typeof HTMLDialogElement !== "function") return Promise.resolve(window.confirm(text));
  if (!dialog) {
    dialog = el("dialog", { id: "confirm", "aria-labelledby": "confirm-title" });
    document.body.append(dialog);
  }
  return new Promise((resolve) => {
    const input = typeToConfirm ? el("input", { id: "confirm-input", type: "text", autocomplete: "off", spellcheck: "false" }) : null;
    const ok = el("button", { type: "button", class: "danger", "data-action": "confirm", disabled: Boolean(typeToConfirm) }, confirmLabel);
    const cancel = el("button", { type: "button", "data-action": "cancel" }, T.cancel);
    let answer = false;
    const finish = (value) => {
      answer = value;
      dialog.close();
    };
    ok.addEventListener("click", () => finish(true));
    cancel.addEventListener("click", () => finish(false));
    if (input) {
      input.addEventListener("input", () => (ok.disabled = input.value !== typeToConfirm));
      input.addEventListener("keydown", (event) => {
        if (event.key === "Enter" && input.value === typeToConfirm) finish(true);
      });
    }
    fill(dialog, {}, [
      el("h2", { id: "confirm-title" }, T.areYouSure),
      el("p", {}, text),
      input,
      el("div", { class: "buttons" }, cancel, ok),
    ]);
    dialog.addEventListener(
      "close",
      () => {
        dialog.replaceChildren();
        resolve(answer);
      },
      { once: true },
    );
    dialog.showModal();
    (input || cancel).focus();
  });
}

// ---- Live state: the stream, or polling when the stream does not work ----

const state = {
  snap: null, // the latest QueuesResponse
  mode: "connecting",
  history: new Map(), // qname -> [{ t, s, r }], readings since the page opened
};
const HISTORY_POINTS = 150;
const STREAM_ERRORS_BEFORE_POLLING = 3;
const STREAM_SILENCE_MS = 10000;
const FIRST_READING_WAIT_MS = 1500;

function setMode(mode) {
  state.mode = mode;
  const status = $("#status");
  status.dataset.state = mode;
  status.textContent = T[mode];
}

function startLive() {
  if (typeof EventSource !== "function") return startPolling();
  const source = new EventSource("api/stream");
  let errors = 0;
  let lastEvent = Date.now();
  const giveUp = () => {
    clearInterval(watchdog);
    source.close();
    startPolling();
  };
  // The server sends an event after every reading: silence on an open stream means something in
  // between holds the events back (a buffering proxy), so poll instead.
  const watchdog = setInterval(() => {
    const interval = (state.snap && state.snap.intervalMs) || 2000;
    if (source.readyState === EventSource.OPEN && Date.now() - lastEvent > Math.max(3 * interval, STREAM_SILENCE_MS)) giveUp();
  }, 1000);
  source.addEventListener("open", () => {
    lastEvent = Date.now();
    setMode("live");
  });
  source.addEventListener("queues", (event) => {
    errors = 0;
    lastEvent = Date.now();
    setMode("live");
    try {
      onSnapshot(JSON.parse(event.data));
    } catch (error) {
      toast(error.message, "error");
    }
  });
  source.addEventListener("error", () => {
    errors += 1;
    if (errors >= STREAM_ERRORS_BEFORE_POLLING || source.readyState === EventSource.CLOSED) {
      giveUp();
    } else {
      setMode("connecting");
    }
  });
}

function startPolling() {
  setMode("polling");
  const poll = async () => {
    try {
      onSnapshot(await getJSON("api/queues"));
      setMode("polling");
    } catch (error) {
      setMode("offline");
      // 503: the dashboard answered and Redis did not; anything else: the dashboard did not answer.
      showBanner({ ok: false, error: error.message, since: null, server: error.status !== 503 });
    }
    setTimeout(poll, (state.snap && state.snap.intervalMs) || 2000);
  };
  poll();
}

function showBanner(redis) {
  const banner = $("#redis-banner");
  if (redis.ok) {
    banner.hidden = true;
    banner.textContent = "";
    return;
  }
  if (redis.server) banner.textContent = T.serverDown(redis.error);
  else banner.textContent = redis.since ? T.redisDown(fmtTime(redis.since), redis.error) : T.redisDownNow(redis.error);
  banner.dataset.cause = redis.server ? "dashboard" : "redis";
  banner.hidden = false;
}

function onSnapshot(snap) {
  const previous = state.snap;
  state.snap = snap;
  showBanner(snap.redis);
  $("#cost").textContent = T.cost(costFormat.format(snap.cost.commandsPerSecond), snap.cost.streams);
  const modeBadge = $("#mode");
  modeBadge.textContent = snap.readOnly ? T.readOnly : T.readWrite;
  modeBadge.dataset.mode = snap.readOnly ? "read-only" : "read-write";
  if (snap.now !== null && (!previous || previous.now !== snap.now)) record(snap);
  if (view.readOnly !== snap.readOnly || view.needsRender(snap)) render();
  else view.update(snap);
}

function record(snap) {
  for (const q of snap.queues) {
    let points = state.history.get(q.qname);
    if (!points) state.history.set(q.qname, (points = []));
    points.push({ t: snap.now, s: q.sentPerSecond, r: q.receivedPerSecond });
    if (points.length > HISTORY_POINTS) points.splice(0, points.length - HISTORY_POINTS);
  }
}

// ---- Routing ----

let view = { needsRender: () => true, update() {} };

function route() {
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

function render() {
  const current = route();
  view = current.name === "queue" ? queueView(current.qname) : overviewView();
  view.readOnly = readOnly(); // what the view was built for: rebuilt when the API says otherwise
  document.title = current.name === "queue" ? `${current.qname} · ${T.title}` : T.title;
  $("#view").replaceChildren(view.node);
  if (state.snap) view.update(state.snap);
}

const readOnly = () => !state.snap || state.snap.readOnly;
const queueLink = (qname) => `#/queues/${encodeURIComponent(qname)}`;

function numCell(col, value, extra) {
  return el("td", { "data-col": col, "data-value": value, class: "num" }, extra, fmtNumber(value));
}

// ---- Overview ----

function overviewView() {
  const tbody = el("tbody");
  const empty = el("p", { class: "empty", hidden: true }, T.noQueues);
  const keys = [
    "qname",
    "visible",
    "inFlight",
    "delayed",
    "total",
    "oldest",
    "nextDue",
    "sentPerSecond",
    "receivedPerSecond",
    "deadLetters",
  ];
  const table = el(
    "table",
    { id: "queues", class: "grid" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        T.cols.map((label, i) => el("th", { scope: "col", class: i > 0 && i < 9 ? "num" : null, "data-col": keys[i] }, label)),
      ),
    ),
    tbody,
  );
  const node = el(
    "section",
    { id: "overview" },
    el("div", { class: "heading" }, el("h1", {}, T.queues)),
    el("div", { class: "card scroll" }, table, empty),
    readOnly() ? null : createQueueForm(),
  );
  return {
    node,
    needsRender: () => false,
    update(snap) {
      const now = snap.now ?? Date.now();
      tbody.replaceChildren(...snap.queues.map((q) => overviewRow(q, now)));
      empty.hidden = snap.queues.length > 0 || !snap.redis.ok;
      node.dataset.queues = String(snap.queues.length);
    },
  };
}

function overviewRow(q, now) {
  const approx = q.partial ? el("span", { class: "approx", title: T.partial }, "≈") : null;
  const dlq = q.deadLetterQueue;
  return el(
    "tr",
    { "data-qname": q.qname, class: q.isDeadLetterQueue ? "is-dlq" : null },
    el(
      "td",
      { "data-col": "qname" },
      el("a", { href: queueLink(q.qname) }, q.qname),
      q.isDeadLetterQueue ? el("span", { class: "badge dlq" }, T.dlqBadge) : null,
    ),
    numCell("visible", q.visible),
    numCell("inFlight", q.inFlight, approx),
    numCell("delayed", q.delayed, approx && approx.cloneNode(true)),
    numCell("total", q.total),
    el("td", { "data-col": "oldest", class: "num" }, q.oldestAgeMs === null ? T.none : fmtDuration(q.oldestAgeMs)),
    el("td", { "data-col": "nextDue", class: "num", title: q.nextDueAt ? fmtTime(q.nextDueAt) : null }, fmtDue(q.nextDueAt, now)),
    el("td", { "data-col": "sentPerSecond", class: "num" }, fmtRate(q.sentPerSecond)),
    el("td", { "data-col": "receivedPerSecond", class: "num" }, fmtRate(q.receivedPerSecond)),
    el(
      "td",
      { "data-col": "deadLetters", "data-value": dlq ? dlq.total : null },
      dlq
        ? [
            el("a", { href: queueLink(dlq.qname) }, dlq.qname),
            " ",
            el("span", { class: dlq.total > 0 ? "count alert" : "count" }, fmtNumber(dlq.total)),
          ]
        : T.none,
    ),
  );
}

function field(name, label, attrs = {}) {
  return el("label", {}, el("span", {}, label), el("input", { name, ...attrs }));
}

function intOrUndefined(value) {
  return value === "" ? undefined : Number(value);
}

function createQueueForm() {
  const form = el(
    "form",
    { id: "create-queue", class: "card form", autocomplete: "off" },
    el("h2", {}, T.newQueue),
    el(
      "div",
      { class: "fields" },
      field("qname", T.qname, { required: true, maxlength: 160, pattern: "[A-Za-z0-9_\\-]+" }),
      field("vt", T.vt, { type: "number", min: 0, placeholder: "30" }),
      field("delay", T.delay, { type: "number", min: 0, placeholder: "0" }),
      field("maxsize", T.maxsize, { type: "number", min: -1, placeholder: "65536" }),
    ),
    el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", "data-action": "create-queue" }, T.create)),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const qname = String(data.get("qname")).trim();
    const body = {
      qname,
      vt: intOrUndefined(data.get("vt")),
      delay: intOrUndefined(data.get("delay")),
      maxsize: intOrUndefined(data.get("maxsize")),
    };
    if (await attempt(() => post("api/queues", body), T.created(qname))) {
      form.reset();
      location.hash = queueLink(qname);
    }
  });
  return form;
}

// ---- Queue page ----

function queueView(qname) {
  const pageSize = 50;
  const page = { offset: 0, total: 0, messages: [], now: Date.now(), filter: "all", hasDeadLetters: false };
  let known = null; // whether the queue was in the snapshot the page was built from
  let settingsFilled = false;

  const stat = (key, label) =>
    el("div", { class: "stat", "data-stat": key }, el("span", { class: "label" }, label), el("span", { class: "value" }, T.none));
  const stats = el(
    "div",
    { id: "queue-stats", class: "stats" },
    Object.entries(T.stats).map(([key, label]) => stat(key, label)),
    stat("sentPerSecond", T.sentPerSecond),
    stat("receivedPerSecond", T.receivedPerSecond),
  );
  const due = el(
    "div",
    { class: "stats small" },
    Object.entries(T.due).map(([key, label]) => stat(key, label)),
  );
  const settings = el("dl", { id: "settings", class: "settings" });
  const chart = svg("svg", {
    id: "rate-chart",
    class: "chart",
    viewBox: "0 0 300 80",
    preserveAspectRatio: "none",
    role: "img",
    "aria-label": T.rates,
  });
  const chartNote = el("div", { class: "legend" });
  const actions = el("div", { class: "actions-area" });

  const messagesBody = el("tbody");
  const messagesNote = el("p", { class: "empty", hidden: true });
  const pageInfo = el("span", { id: "page-info", class: "muted" });
  const prev = el(
    "button",
    { type: "button", "data-action": "prev-page", onclick: () => loadMessages(Math.max(0, page.offset - pageSize)) },
    T.prev,
  );
  const next = el("button", { type: "button", "data-action": "next-page", onclick: () => loadMessages(page.offset + pageSize) }, T.next);
  const chips = el(
    "div",
    { class: "chips", role: "group" },
    Object.entries(T.filters).map(([key, label]) =>
      el(
        "button",
        {
          type: "button",
          class: "chip",
          "data-filter": key,
          "aria-pressed": key === "all" ? "true" : "false",
          onclick: () => {
            page.filter = key;
            for (const chip of chips.children) chip.setAttribute("aria-pressed", String(chip.dataset.filter === key));
            drawMessages();
          },
        },
        label,
        el("span", { class: "n" }),
      ),
    ),
  );
  const messagesTable = el(
    "table",
    { id: "messages", class: "grid" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        T.msgCols.map((label) => el("th", { scope: "col" }, label)),
      ),
    ),
    messagesBody,
  );
  const deadLetters = el("section", { id: "dead-letters", class: "card", hidden: true });

  const node = el(
    "section",
    { id: "queue", "data-qname": qname },
    el("a", { href: "#/", class: "back" }, T.back),
    el("div", { class: "heading" }, el("h1", {}, qname), el("span", { class: "badge dlq", hidden: true, id: "dlq-badge" }, T.dlqBadge)),
    el("p", { class: "empty", id: "not-found", hidden: true }, T.notFound(qname)),
    el(
      "div",
      { class: "overview-grid", id: "queue-live" },
      el("div", { class: "card" }, stats, el("h3", {}, T.dueWithin), due),
      el("div", { class: "card" }, el("h3", {}, T.rates), chart, chartNote),
      el("div", { class: "card" }, el("h3", {}, T.settings), settings),
    ),
    deadLetters,
    el(
      "section",
      { class: "card", id: "message-browser" },
      el(
        "div",
        { class: "heading" },
        el("h2", {}, T.messages),
        el("span", { class: "spacer" }),
        el("button", { type: "button", "data-action": "refresh-messages", onclick: () => refreshAll() }, T.refresh),
      ),
      el("p", { class: "muted small" }, T.browseNote),
      el("div", { class: "toolbar" }, chips, el("span", { class: "spacer" }), pageInfo, prev, next),
      el("div", { class: "scroll" }, messagesTable),
      messagesNote,
    ),
    actions,
  );

  async function loadMessages(offset = page.offset) {
    const url = `${queuePath(qname)}/messages?offset=${offset}&limit=${pageSize}`;
    const result = await attempt(() => getJSON(url));
    if (!result) return;
    Object.assign(page, { offset: result.offset, total: result.total, messages: result.messages, now: result.now });
    drawMessages();
    const hasDead = result.messages.some((m) => m.deadLetter);
    if (hasDead && !page.hasDeadLetters) {
      page.hasDeadLetters = true;
      loadDeadLetters();
    }
  }

  function refreshAll() {
    loadMessages();
    if (page.hasDeadLetters) loadDeadLetters();
  }

  function drawMessages() {
    const counts = { all: page.messages.length };
    for (const m of page.messages) counts[m.state] = (counts[m.state] || 0) + 1;
    for (const chip of chips.children) chip.lastChild.textContent = String(counts[chip.dataset.filter] || 0);
    const shown = page.messages.filter((m) => page.filter === "all" || m.state === page.filter);
    messagesBody.replaceChildren(...shown.map(messageRow));
    messagesNote.textContent = page.messages.length === 0 ? T.noMessages : T.noMatch;
    messagesNote.hidden = shown.length > 0;
    messagesTable.hidden = shown.length === 0;
    const from = page.total === 0 ? 0 : page.offset + 1;
    pageInfo.textContent = T.pageInfo(from, page.offset + page.messages.length, page.total);
    prev.disabled = page.offset === 0;
    next.disabled = page.offset + page.messages.length >= page.total;
  }

  function messageRow(m) {
    const text = el("span", { class: "text" }, m.body);
    const bodyCell = el("td", { "data-col": "body", class: "body" }, text);
    if (m.truncated) {
      const mark = el("span", { class: "ellipsis", "aria-hidden": "true" }, T.ellipsis);
      const more = el("button", { type: "button", class: "link", "data-action": "show-body" }, T.showBody);
      more.addEventListener("click", async () => {
        const result = await attempt(() => getJSON(`${queuePath(qname)}/messages/${encodeURIComponent(m.id)}`));
        if (!result) return;
        text.textContent = result.message.body;
        bodyCell.classList.add("whole");
        mark.remove();
        more.remove();
      });
      bodyCell.append(mark, " ", more);
    }
    if (m.deadLetter) bodyCell.append(el("div", { class: "dead-info" }, T.deadInfo(m.deadLetter)));
    const rowActions = el("td", { "data-col": "actions", class: "row-actions" });
    if (!readOnly()) {
      if (m.dueAt > page.now) {
        rowActions.append(
          el(
            "button",
            {
              type: "button",
              "data-action": "make-visible",
              onclick: async () => {
                if (await attempt(() => post(`${queuePath(qname)}/messages/${encodeURIComponent(m.id)}/visible`), T.madeVisible))
                  refreshAll();
              },
            },
            T.makeVisible,
          ),
        );
      }
      rowActions.append(
        el(
          "button",
          {
            type: "button",
            class: "danger",
            "data-action": "delete-message",
            onclick: async () => {
              if (!(await ask({ text: T.deleteMessageText(m.id), confirmLabel: T.deleteMessage }))) return;
              if (await attempt(() => post(`${queuePath(qname)}/messages/${encodeURIComponent(m.id)}/delete`), T.deletedMessage))
                refreshAll();
            },
          },
          T.deleteMessage,
        ),
      );
    }
    return el(
      "tr",
      { "data-id": m.id, "data-state": m.state },
      el("td", { "data-col": "id", class: "mono id", title: m.id }, m.id),
      el("td", { "data-col": "state" }, el("span", { class: `state ${m.state}` }, T.states[m.state] || m.state)),
      el("td", { "data-col": "receiveCount", "data-value": m.receiveCount, class: "num" }, fmtNumber(m.receiveCount)),
      el("td", { "data-col": "sent", title: fmtTime(m.sent) }, T.ago(fmtDuration(page.now - m.sent))),
      el("td", { "data-col": "due", title: fmtTime(m.dueAt) }, fmtDue(m.dueAt, page.now)),
      el("td", { "data-col": "size", "data-value": m.size, class: "num" }, fmtBytes(m.size)),
      bodyCell,
      rowActions,
    );
  }

  async function loadDeadLetters() {
    const result = await attempt(() => getJSON(`${queuePath(qname)}/dead-letters`));
    if (!result) return;
    deadLetters.hidden = false;
    const max = Math.max(1, ...result.groups.map((g) => g.count));
    const redrive = async (body, text, confirmLabel) => {
      if (!(await ask({ text, confirmLabel }))) return;
      if (
        await attempt(
          () => post(`${queuePath(qname)}/redrive`, body),
          (r) => T.redriven(r && typeof r.moved === "number" ? r.moved : 0),
        )
      ) {
        refreshAll();
      }
    };
    const rows = result.groups.map((g, i) =>
      el(
        "tr",
        { "data-group": i, "data-reason": g.reason },
        el("td", { "data-col": "reason" }, el("span", { class: `state ${g.reason === "poison" ? "deadLettered" : "delayed"}` }, g.reason)),
        el("td", { "data-col": "error", class: "error-text" }, g.error || T.none),
        el(
          "td",
          { "data-col": "count", "data-value": g.count },
          el(
            "div",
            { class: "bar-cell" },
            svg(
              "svg",
              { class: "bar", viewBox: "0 0 100 10", preserveAspectRatio: "none", "aria-hidden": "true" },
              svg("rect", { x: 0, y: 0, width: Math.max(1, (g.count / max) * 100).toFixed(2), height: 10, rx: 1 }),
            ),
            el("span", { class: "num" }, fmtNumber(g.count)),
          ),
        ),
        el("td", { "data-col": "sources" }, g.sources.join(", ")),
        el(
          "td",
          { class: "row-actions" },
          readOnly()
            ? null
            : el(
                "button",
                {
                  type: "button",
                  "data-action": "redrive-group",
                  onclick: () => redrive({ reason: g.reason, error: g.error }, T.redriveGroupText(g.count, g.reason), T.redriveGroup),
                },
                T.redriveGroup,
              ),
        ),
      ),
    );
    deadLetters.replaceChildren();
    fill(deadLetters, {}, [
      el(
        "div",
        { class: "heading" },
        el("h2", {}, T.deadLetters, " ", el("span", { class: "muted" }, fmtNumber(result.total))),
        el("span", { class: "spacer" }),
        readOnly() || result.total === 0
          ? null
          : el(
              "button",
              {
                type: "button",
                class: "primary",
                "data-action": "redrive-all",
                onclick: () => redrive({}, T.redriveAllText(qname), T.redriveAll),
              },
              T.redriveAll,
            ),
      ),
      result.partial ? el("p", { class: "muted small" }, T.dlPartial(result.looked, result.total)) : null,
      result.groups.length === 0
        ? el("p", { class: "empty" }, T.noDeadLetters)
        : el(
            "table",
            { class: "grid histogram" },
            el(
              "thead",
              {},
              el(
                "tr",
                {},
                T.dlCols.map((label) => el("th", { scope: "col" }, label)),
              ),
            ),
            el("tbody", {}, rows),
          ),
    ]);
  }

  function buildActions(q) {
    const settingsForm = el(
      "form",
      { id: "settings-form", class: "card form", autocomplete: "off" },
      el("h2", {}, T.changeSettings),
      el(
        "div",
        { class: "fields" },
        field("vt", T.vt, { type: "number", min: 0, value: q.vt }),
        field("delay", T.delay, { type: "number", min: 0, value: q.delay }),
        field("maxsize", T.maxsize, { type: "number", min: -1, value: q.maxsize }),
      ),
      el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", "data-action": "save-settings" }, T.save)),
    );
    settingsForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = new FormData(settingsForm);
      const body = {
        vt: intOrUndefined(data.get("vt")),
        delay: intOrUndefined(data.get("delay")),
        maxsize: intOrUndefined(data.get("maxsize")),
      };
      await attempt(() => post(`${queuePath(qname)}/attributes`, body), T.saved);
    });
    const sendForm = el(
      "form",
      { id: "send-message", class: "card form", autocomplete: "off" },
      el("h2", {}, T.sendTitle),
      el("label", { class: "wide" }, el("span", {}, T.body), el("textarea", { name: "message", rows: 3, required: true })),
      el("div", { class: "fields" }, field("delay", T.delay, { type: "number", min: 0, placeholder: "0" })),
      el("div", { class: "buttons" }, el("button", { type: "submit", class: "primary", "data-action": "send-message" }, T.send)),
    );
    sendForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = new FormData(sendForm);
      const body = { message: String(data.get("message")), delay: intOrUndefined(data.get("delay")) };
      if (
        await attempt(
          () => post(`${queuePath(qname)}/messages`, body),
          (r) => T.sent(r && r.id),
        )
      ) {
        sendForm.reset();
        loadMessages();
      }
    });
    const danger = el(
      "div",
      { class: "card form danger-zone" },
      el("h2", {}, T.dangerZone),
      el(
        "button",
        {
          type: "button",
          class: "danger",
          "data-action": "delete-queue",
          onclick: async () => {
            if (!(await ask({ text: T.deleteQueueText(qname), confirmLabel: T.deleteQueue, typeToConfirm: qname }))) return;
            if (await attempt(() => post(`${queuePath(qname)}/delete`, { confirm: qname }), T.deletedQueue(qname))) location.hash = "#/";
          },
        },
        T.deleteQueue,
      ),
    );
    actions.replaceChildren(el("div", { class: "forms" }, settingsForm, sendForm, danger));
  }

  function drawChart(points) {
    const usable = points.filter((p) => p.s !== null || p.r !== null);
    if (usable.length < 2) {
      chart.replaceChildren();
      chartNote.replaceChildren(el("span", { class: "muted" }, T.collecting));
      return;
    }
    const peak = Math.max(0.1, ...usable.map((p) => Math.max(p.s || 0, p.r || 0)));
    const step = 300 / (usable.length - 1);
    const line = (key) => usable.map((p, i) => `${(i * step).toFixed(1)},${(78 - ((p[key] || 0) / peak) * 74).toFixed(1)}`).join(" ");
    chart.replaceChildren(
      svg("line", { class: "axis", x1: 0, y1: 78, x2: 300, y2: 78 }),
      svg("polyline", { class: "sent", points: line("s") }),
      svg("polyline", { class: "received", points: line("r") }),
    );
    const last = usable[usable.length - 1];
    chartNote.replaceChildren(
      el("span", { class: "key sent" }, `${T.sentPerSecond} ${fmtRate(last.s)}`),
      el("span", { class: "key received" }, `${T.receivedPerSecond} ${fmtRate(last.r)}`),
      el("span", { class: "muted" }, T.peak(rateFormat.format(peak))),
    );
  }

  function setStat(key, text, value) {
    const item = $(`[data-stat="${key}"]`, node);
    if (!item) return;
    item.lastChild.textContent = text;
    if (value !== undefined) item.dataset.value = String(value);
  }

  const find = (snap) => snap.queues.find((q) => q.qname === qname) || null;

  loadMessages(0);

  return {
    node,
    // Rebuild when the queue appears or disappears (deleted, or created after the page opened).
    needsRender: (snap) => known !== null && snap.redis.ok && Boolean(find(snap)) !== known,
    update(snap) {
      if (!snap.redis.ok) return; // keep the last figures (or the placeholders) while Redis is away
      const q = find(snap);
      known = Boolean(q);
      $("#not-found", node).hidden = known;
      $("#queue-live", node).hidden = !known;
      if (!q) return;
      const now = snap.now ?? Date.now();
      $("#dlq-badge", node).hidden = !q.isDeadLetterQueue;
      if (q.isDeadLetterQueue && !page.hasDeadLetters) {
        page.hasDeadLetters = true;
        loadDeadLetters();
      }
      for (const key of ["visible", "inFlight", "delayed", "total"])
        setStat(key, (q.partial && (key === "inFlight" || key === "delayed") ? "≈" : "") + fmtNumber(q[key]), q[key]);
      setStat("oldest", q.oldestAgeMs === null ? T.none : fmtDuration(q.oldestAgeMs));
      setStat("nextDue", fmtDue(q.nextDueAt, now));
      setStat("due1m", fmtNumber(q.dueWithin["1m"]), q.dueWithin["1m"]);
      setStat("due10m", fmtNumber(q.dueWithin["10m"]), q.dueWithin["10m"]);
      setStat("due1h", fmtNumber(q.dueWithin["1h"]), q.dueWithin["1h"]);
      setStat("sentPerSecond", fmtRate(q.sentPerSecond));
      setStat("receivedPerSecond", fmtRate(q.receivedPerSecond));
      const entries = [
        ["vt", T.seconds(q.vt)],
        ["delay", T.seconds(q.delay)],
        ["maxsize", q.maxsize === -1 ? T.unlimited : fmtBytes(q.maxsize)],
        ["created", fmtTime(q.created * 1000)],
        ["modified", fmtTime(q.modified * 1000)],
      ];
      settings.replaceChildren(
        ...entries.flatMap(([key, text]) => [el("dt", {}, T.settingNames[key]), el("dd", { "data-setting": key }, text)]),
      );
      drawChart(state.history.get(qname) || []);
      if (!readOnly() && !settingsFilled) {
        settingsFilled = true;
        buildActions(q);
      }
    },
  };
}

// ---- Start ----

window.addEventListener("hashchange", render);
window.addEventListener("unhandledrejection", (event) => toast(String((event.reason && event.reason.message) || event.reason), "error"));
setMode("connecting");
render();
startLive();
// Shows the queues at once when the stream's first event is slow to come (one reading, not more).
setTimeout(() => {
  if (!state.snap)
    getJSON("api/queues").then(
      (snap) => state.snap || onSnapshot(snap),
      () => {},
    );
}, FIRST_READING_WAIT_MS);
