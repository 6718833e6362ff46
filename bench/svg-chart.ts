/**
 * Horizontal bar charts as standalone SVG text (no external service, no dependencies), on a
 * logarithmic axis because the values compared span several orders of magnitude.
 */

export interface Series {
  name: string;
  color: string;
}

export interface BarRow {
  label: string;
  /** One value per series; NaN or <= 0 draws no bar. */
  values: number[];
}

export interface BarChart {
  title: string;
  subtitle: string;
  /** Axis caption, e.g. "commands per hour". */
  unit: string;
  series: Series[];
  rows: BarRow[];
  /** How a value is written next to its bar. */
  format(value: number): string;
}

const WIDTH = 1000;
const RIGHT_MARGIN = 200;
/** Roughly the width of one 12 px Helvetica character, to size the label column. */
const CHAR_WIDTH = 6.8;
const BAR_HEIGHT = 14;
const BAR_GAP = 3;
const ROW_GAP = 12;
const TOP = 78;

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function superscript(exponent: number): string {
  const digits: Record<string, string> = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };
  return String(exponent)
    .split("")
    .map((char) => digits[char] ?? char)
    .join("");
}

export function renderBarChart(chart: BarChart): string {
  const positive = chart.rows.flatMap((row) => row.values).filter((value) => Number.isFinite(value) && value > 0);
  const low = Math.floor(Math.log10(Math.min(...positive, 1)));
  const high = Math.ceil(Math.log10(Math.max(...positive, 10)));
  const labelWidth = Math.round(Math.max(200, ...chart.rows.map((row) => row.label.length * CHAR_WIDTH)) + 20);
  const plotWidth = WIDTH - labelWidth - RIGHT_MARGIN;
  const x = (value: number): number => labelWidth + ((Math.log10(value) - low) / (high - low)) * plotWidth;
  const rowHeight = chart.series.length * (BAR_HEIGHT + BAR_GAP) - BAR_GAP + ROW_GAP;
  const plotHeight = chart.rows.length * rowHeight;
  const height = TOP + plotHeight + 46;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="16" y="26" font-size="17" font-weight="bold" fill="#111">${escape(chart.title)}</text>`,
    `<text x="16" y="46" font-size="12" fill="#555">${escape(chart.subtitle)}</text>`,
  );
  // Legend.
  let legendX = labelWidth;
  for (const series of chart.series) {
    parts.push(
      `<rect x="${legendX}" y="56" width="12" height="12" fill="${series.color}"/>`,
      `<text x="${legendX + 17}" y="66" font-size="12" fill="#333">${escape(series.name)}</text>`,
    );
    legendX += 30 + series.name.length * 6.5;
  }
  // Grid: one line per power of ten.
  for (let exponent = low; exponent <= high; exponent += 1) {
    const gx = x(10 ** exponent);
    parts.push(
      `<line x1="${gx}" y1="${TOP - 4}" x2="${gx}" y2="${TOP + plotHeight}" stroke="#ddd"/>`,
      `<text x="${gx}" y="${TOP + plotHeight + 16}" font-size="11" fill="#555" text-anchor="middle">10${superscript(exponent)}</text>`,
    );
  }
  parts.push(
    `<text x="${labelWidth + plotWidth / 2}" y="${TOP + plotHeight + 36}" font-size="12" fill="#333" text-anchor="middle">${escape(chart.unit)} (log scale)</text>`,
  );
  chart.rows.forEach((row, rowIndex) => {
    const top = TOP + rowIndex * rowHeight;
    const middle = top + (rowHeight - ROW_GAP) / 2;
    parts.push(`<text x="${labelWidth - 10}" y="${middle + 4}" font-size="12" fill="#111" text-anchor="end">${escape(row.label)}</text>`);
    row.values.forEach((value, seriesIndex) => {
      const barTop = top + seriesIndex * (BAR_HEIGHT + BAR_GAP);
      if (!(Number.isFinite(value) && value > 0)) {
        parts.push(
          `<text x="${labelWidth + 4}" y="${barTop + BAR_HEIGHT - 3}" font-size="11" fill="#777">${value === 0 ? "0" : "n/a"}</text>`,
        );
        return;
      }
      const end = Math.max(x(value), labelWidth + 1);
      parts.push(
        `<rect x="${labelWidth}" y="${barTop}" width="${(end - labelWidth).toFixed(1)}" height="${BAR_HEIGHT}" fill="${chart.series[seriesIndex].color}"/>`,
        `<text x="${(end + 4).toFixed(1)}" y="${barTop + BAR_HEIGHT - 3}" font-size="11" fill="#222">${escape(chart.format(value))}</text>`,
      );
    });
  });
  parts.push(`</svg>`);
  return parts.join("\n") + "\n";
}
