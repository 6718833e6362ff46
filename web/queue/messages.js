/*
 * The message browser of a queue's page (section#message-browser): one page of messages at a
 * time, filtered by state on the page, and by attributes (form#message-filter: `name=value`
 * items) through the browse route, which pages with a cursor. Browsing never receives, so it
 * changes nothing in Redis.
 * The list follows the queue: after a reading in which the queue changed, `follow` reads the page
 * again (`live=1`: the dashboard reads it once for every open page, docs/dashboard.md).
 */
import { getJSON, queuePath } from "../api.js";
import { el } from "../dom.js";
import { attempt } from "../notices.js";
import { isStale, state } from "../state.js";
import { T } from "../text.js";
import { messageRow } from "./message-row.js";

const PAGE_SIZE = 50;

/**
 * The browser; `load` reads a page (the current one by default), `follow` reads it again after a
 * change seen elsewhere. `refresh` reloads what an action changed; `sawDeadLetters` is called when
 * a page holds dead letters.
 */
export function messageBrowser(qname, { refresh, sawDeadLetters }) {
  const page = { offset: 0, total: 0, messages: [], now: Date.now(), filter: "all" };
  // With attribute filters: the items, the cursor the shown page started from, those before it, and where it stopped.
  const filtered = { where: [], from: null, before: [], cursor: null, looked: 0 };
  // Whole bodies read on demand, by id: a reload keeps them open.
  const wholeBodies = new Map();
  let latest = 0; // the last read asked for: an answer to an earlier one comes too late to show
  const parts = {
    body: el("tbody"),
    note: el("p", { class: "empty", hidden: true }),
    pageInfo: el("span", { id: "page-info", class: "muted" }),
    prev: el("button", { type: "button", "data-action": "prev-page", onclick: () => previous() }, T.prev),
    next: el("button", { type: "button", "data-action": "next-page", onclick: () => next() }, T.next),
    filterForm: filterForm((where) => {
      Object.assign(filtered, { where, from: null, before: [], cursor: null, looked: 0 });
      load(0);
    }),
    chips: filterChips((key) => {
      page.filter = key;
      draw();
    }),
  };
  parts.table = el(
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
    parts.body,
  );
  const draw = () => drawMessages(parts, page, (m) => messageRow(qname, m, page.now, refresh, wholeBodies), filtered);

  function show(result) {
    Object.assign(page, { offset: result.offset ?? 0, total: result.total, messages: result.messages, now: result.now });
    for (const id of [...wholeBodies.keys()]) if (!result.messages.some((m) => m.id === id)) wholeBodies.delete(id);
    state.lists.set(qname, result);
    draw();
    if (result.messages.some((m) => m.deadLetter)) sawDeadLetters();
  }

  /** Reads page `offset` and shows it; `live` reads share one read with the other open pages, and fail quietly. */
  async function read(offset, live) {
    // While readings fail the page keeps what it shows; the first good reading reads it again.
    if (isStale()) return;
    const asked = ++latest;
    if (filtered.where.length > 0) return readFiltered(asked, live);
    const url = `${queuePath(qname)}/messages?offset=${offset}&limit=${PAGE_SIZE}${live ? "&live=1" : ""}`;
    const result = live ? await getJSON(url).catch(() => null) : await attempt(() => getJSON(url));
    if (result && asked === latest) show(result);
  }

  /** The filtered page from `filtered.from`: not shared with other pages, and not kept as the queue's list. */
  async function readFiltered(asked, live) {
    const params = filtered.where.map((item) => `where=${encodeURIComponent(item)}`);
    params.push(`limit=${PAGE_SIZE}`);
    if (filtered.from) params.push(`cursor=${encodeURIComponent(filtered.from)}`);
    const url = `${queuePath(qname)}/browse?${params.join("&")}`;
    const result = live ? await getJSON(url).catch(() => null) : await attempt(() => getJSON(url));
    if (!result || asked !== latest) return;
    Object.assign(filtered, { cursor: result.cursor, looked: result.looked });
    Object.assign(page, { offset: 0, total: result.total, messages: result.messages, now: result.now });
    draw();
  }

  function next() {
    if (filtered.where.length === 0) return load(page.offset + Math.max(1, page.messages.length));
    filtered.before.push(filtered.from);
    filtered.from = filtered.cursor;
    return load(0);
  }

  function previous() {
    if (filtered.where.length === 0) return load(Math.max(0, page.offset - PAGE_SIZE));
    filtered.from = filtered.before.pop() ?? null;
    return load(0);
  }

  const load = (offset = page.offset) => read(offset, false);

  // The last list this page showed of the queue, at once, until the first read answers.
  const kept = state.lists.get(qname);
  if (kept) show(kept);

  return {
    node: browserSection(parts, refresh),
    load,
    /** Reads the shown page again after a change seen in a reading, or after readings failed. */
    follow() {
      read(page.offset, true);
    },
  };
}

/** The attribute filter (form#message-filter): `onApply` gets its items, [] when cleared. */
function filterForm(onApply) {
  const input = el("input", {
    name: "where",
    type: "search",
    spellcheck: "false",
    placeholder: T.filter.placeholder,
    "aria-label": T.filter.label,
    maxlength: 2000,
  });
  const form = el(
    "form",
    { id: "message-filter", class: "toolbar", autocomplete: "off", role: "search" },
    input,
    el("button", { type: "submit", class: "primary", "data-action": "filter-messages" }, T.filter.apply),
    el(
      "button",
      {
        type: "button",
        "data-action": "clear-filter",
        onclick: () => {
          input.value = "";
          onApply([]);
        },
      },
      T.filter.clear,
    ),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    onApply(input.value.split(/\s+/).filter((item) => item !== ""));
  });
  return form;
}

/** The state filter's chips (button[data-filter], aria-pressed); `onPick` gets the chosen state. */
function filterChips(onPick) {
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
            for (const chip of chips.children) chip.setAttribute("aria-pressed", String(chip.dataset.filter === key));
            onPick(key);
          },
        },
        label,
        el("span", { class: "n" }),
      ),
    ),
  );
  return chips;
}

function browserSection(parts, refresh) {
  return el(
    "section",
    { class: "card", id: "message-browser" },
    el(
      "div",
      { class: "heading" },
      el("h2", {}, T.messages),
      el("span", { class: "spacer" }),
      el("button", { type: "button", "data-action": "refresh-messages", onclick: () => refresh() }, T.refresh),
    ),
    el("p", { class: "muted small" }, T.browseNote),
    parts.filterForm,
    el("p", { class: "muted small", id: "filter-bound" }, T.filter.bound),
    el("div", { class: "toolbar" }, parts.chips, el("span", { class: "spacer" }), parts.pageInfo, parts.prev, parts.next),
    el("div", { class: "scroll" }, parts.table),
    parts.note,
  );
}

/** Shows the loaded page: the chips' counts, the rows of the chosen state, the paging. */
function drawMessages(parts, page, row, filtered) {
  const counts = { all: page.messages.length };
  for (const m of page.messages) counts[m.state] = (counts[m.state] || 0) + 1;
  for (const chip of parts.chips.children) chip.lastChild.textContent = String(counts[chip.dataset.filter] || 0);
  const shown = page.messages.filter((m) => page.filter === "all" || m.state === page.filter);
  parts.body.replaceChildren(...shown.map(row));
  parts.note.textContent = page.messages.length === 0 ? T.noMessages : T.noMatch;
  parts.note.hidden = shown.length > 0;
  parts.table.hidden = shown.length === 0;
  if (filtered.where.length > 0) {
    parts.pageInfo.textContent = T.filter.info(page.messages.length, filtered.looked, filtered.cursor !== null);
    parts.prev.disabled = filtered.before.length === 0;
    parts.next.disabled = filtered.cursor === null;
    return;
  }
  const from = page.total === 0 ? 0 : page.offset + 1;
  parts.pageInfo.textContent = T.pageInfo(from, page.offset + page.messages.length, page.total);
  parts.prev.disabled = page.offset === 0;
  parts.next.disabled = page.offset + page.messages.length >= page.total;
}
