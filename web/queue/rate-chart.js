/**
 * The rate chart of a queue's page (svg#rate-chart): sent and received per second since the page
 * opened, against time. The y axis is in messages per second (text.y-unit, text.y-tick from 0 to a
 * round top), the x axis in seconds before the latest reading (text.x-tick, ending at "now").
 */
import { el, svg } from "../dom.js";
import { fmtRate, rateFormat } from "../format.js";
import { T } from "../text.js";

// The drawing's own units: the SVG scales as a whole (text keeps its proportions).
const WIDTH = 320;
const HEIGHT = 124;
const PLOT = { left: 40, right: WIDTH - 8, top: 16, bottom: HEIGHT - 20 };

const tickFormat = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });

/** The chart and its legend, empty until `draw` has two readings to join. */
export function rateChart() {
  const chart = svg("svg", {
    id: "rate-chart",
    class: "chart",
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: "img",
    "aria-label": T.rates,
  });
  const legend = el("div", { class: "legend" });
  return { chart, legend, draw: (points) => drawChart(chart, legend, points) };
}

/** The smallest of 1, 2 or 5 times a power of ten at or above `value`: the y axis' top. */
function roundTop(value) {
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= value * (1 - 1e-9));
}

/** Seconds as a tick says them: whole from 10 on, one decimal below. */
const secondsText = (s) => (s >= 10 ? String(Math.round(s)) : s.toFixed(1).replace(/\.0$/, ""));

/** Draws `points` ([{ t, s, r }], oldest first; t in epoch ms) on a y axis from 0 to a round top above their peak. */
function drawChart(chart, legend, points) {
  const usable = points.filter((p) => p.s !== null || p.r !== null);
  if (usable.length < 2) {
    chart.replaceChildren();
    legend.replaceChildren(el("span", { class: "muted" }, T.collecting));
    return;
  }
  const peak = Math.max(...usable.map((p) => Math.max(p.s || 0, p.r || 0)));
  const top = roundTop(Math.max(0.1, peak));
  const first = usable[0].t;
  const span = Math.max(1, usable[usable.length - 1].t - first);
  const x = (t) => PLOT.left + ((t - first) / span) * (PLOT.right - PLOT.left);
  const y = (rate) => PLOT.bottom - (rate / top) * (PLOT.bottom - PLOT.top);
  const line = (key) => usable.map((p) => `${x(p.t).toFixed(1)},${y(p[key] || 0).toFixed(1)}`).join(" ");
  const yTicks = [0, top / 2, top].map((rate) => [
    svg("line", { class: "grid", x1: PLOT.left, y1: y(rate), x2: PLOT.right, y2: y(rate) }),
    svg("text", { class: "y-tick", x: PLOT.left - 4, y: y(rate) + 3, "text-anchor": "end" }, tickFormat.format(rate)),
  ]);
  const xTicks = [first, first + span / 2, first + span].map((t, i, all) =>
    svg(
      "text",
      { class: "x-tick", x: x(t), y: HEIGHT - 6, "text-anchor": i === 0 ? "start" : i === all.length - 1 ? "end" : "middle" },
      i === all.length - 1 ? T.now : T.secondsAgo(secondsText((first + span - t) / 1000)),
    ),
  );
  chart.replaceChildren(
    ...yTicks.flat(),
    svg("line", { class: "axis", x1: PLOT.left, y1: PLOT.bottom, x2: PLOT.right, y2: PLOT.bottom }),
    svg("line", { class: "axis", x1: PLOT.left, y1: PLOT.top, x2: PLOT.left, y2: PLOT.bottom }),
    svg("text", { class: "y-unit", x: 2, y: 10 }, T.rateUnit),
    ...xTicks,
    svg("polyline", { class: "sent", points: line("s") }),
    svg("polyline", { class: "received", points: line("r") }),
  );
  const last = usable[usable.length - 1];
  legend.replaceChildren(
    el("span", { class: "key sent" }, `${T.sentPerSecond} ${fmtRate(last.s)}`),
    el("span", { class: "key received" }, `${T.receivedPerSecond} ${fmtRate(last.r)}`),
    el("span", { class: "muted" }, T.peak(rateFormat.format(peak))),
  );
}
