/*
 * A queue's schedules, on its page (section#schedules): one row each (tr[data-schedule]), from
 * GET api/queues/:q/schedules: the timing, the next and last run (ISO times, UTC), the messages
 * sent, the slots missed and skipped, and whether it is paused or ended. With writes on, each row
 * has Pause (or Resume) and Remove. Read again when the reading's count of schedules changes,
 * after an action, and every SCHEDULES_EVERY_MS while there are any (their runs move): one script
 * call, not one per reading.
 */
import { post, queuePath } from "../api.js";
import { ask } from "../confirm.js";
import { el } from "../dom.js";
import { fmtNumber } from "../format.js";
import { attempt } from "../notices.js";
import { readOnly } from "../state.js";
import { T } from "../text.js";
import { listedSection } from "./listed-section.js";

const SCHEDULES_EVERY_MS = 10000;

/** `cron "0 2 * * *" Europe/Berlin` or `every 60 s`, as the command line prints it. */
export function fmtTiming(s) {
  return s.cron !== undefined && s.cron !== null ? T.schedules.cron(s.cron, s.tz) : T.schedules.every(s.every / 1000);
}

/** An epoch-ms time as an ISO time (UTC); a dash for none. */
const isoTime = (ms) => (ms === null || ms === undefined ? T.none : new Date(ms).toISOString());

export function schedulesSection(qname) {
  return listedSection(qname, {
    key: "schedules",
    texts: T.schedules,
    everyMs: SCHEDULES_EVERY_MS,
    table: (result, reload) => table(qname, result, reload),
  });
}

function table(qname, { schedules }, reload) {
  const writable = !readOnly();
  return el(
    "div",
    { class: "scroll" },
    el(
      "table",
      { class: "grid" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          T.schedules.cols.map((label) => el("th", { scope: "col" }, label)),
          writable ? el("th", { scope: "col" }, "") : null,
        ),
      ),
      el(
        "tbody",
        {},
        schedules.map((s) => row(qname, s, writable, reload)),
      ),
    ),
  );
}

function row(qname, s, writable, reload) {
  const path = `${queuePath(qname)}/schedules/${encodeURIComponent(s.name)}`;
  const state = s.ended ? "ended" : s.paused ? "paused" : "active";
  const act = async (action, success) => {
    if (await attempt(() => post(`${path}/${action}`), success)) reload();
  };
  const remove = async () => {
    if (!(await ask({ text: T.schedules.removeText(s.name), confirmLabel: T.schedules.remove }))) return;
    await act("remove", T.schedules.removed);
  };
  return el(
    "tr",
    { "data-schedule": s.name, "data-state": state },
    el("td", { "data-col": "name", class: "mono" }, s.name),
    el("td", { "data-col": "timing", class: "mono" }, fmtTiming(s)),
    el("td", { "data-col": "nextRun" }, isoTime(s.nextRunAt)),
    el("td", { "data-col": "lastRun" }, isoTime(s.lastRunAt)),
    el("td", { "data-col": "count", class: "num" }, fmtNumber(s.count)),
    el("td", { "data-col": "missed", class: "num" }, `${fmtNumber(s.missed)} / ${fmtNumber(s.overlapped)}`),
    el("td", { "data-col": "state" }, T.schedules.states[state]),
    writable
      ? el(
          "td",
          { class: "row-actions" },
          s.paused
            ? el(
                "button",
                { type: "button", "data-action": "resume-schedule", onclick: () => act("resume", T.schedules.resumed) },
                T.schedules.resume,
              )
            : el(
                "button",
                { type: "button", "data-action": "pause-schedule", onclick: () => act("pause", T.schedules.paused) },
                T.schedules.pause,
              ),
          el("button", { type: "button", class: "danger", "data-action": "remove-schedule", onclick: remove }, T.schedules.remove),
        )
      : null,
  );
}
