/** The rate chart of a queue's page (svg#rate-chart): sent and received per second since the page opened. */
import { el, svg } from "../dom.js";
import { fmtRate, rateFormat } from "../format.js";
import { T } from "../text.js";

/** The chart and its legend, empty until `draw` has two readings to join. */
export function rateChart() {
  const chart = svg("svg", {
    id: "rate-chart",
    class: "chart",
    viewBox: "0 0 300 80",
    preserveAspectRatio: "none",
    role: "img",
    "aria-label": T.rates,
  });
  const legend = el("div", { class: "legend" });
  return { chart, legend, draw: (points) => drawChart(chart, legend, points) };
}

/** Draws `points` ([{ s, r }], oldest first) scaled to their peak. */
function drawChart(chart, legend, points) {
  const usable = points.filter((p) => p.s !== null || p.r !== null);
  if (usable.length < 2) {
    chart.replaceChildren();
    legend.replaceChildren(el("span", { class: "muted" }, T.collecting));
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
  legend.replaceChildren(
    el("span", { class: "key sent" }, `${T.sentPerSecond} ${fmtRate(last.s)}`),
    el("span", { class: "key received" }, `${T.receivedPerSecond} ${fmtRate(last.r)}`),
    el("span", { class: "muted" }, T.peak(rateFormat.format(peak))),
  );
}
