// @ts-check
// The win-probability graph (the end of a game, the review), with its axes:
// your chance to win (0 to 100%) up, the moves along.

import { el } from "./dom.js";

/**
 * @typedef {object} Series one line of win probabilities (0..1) over the game
 * @property {number[]} values
 * @property {string} cls its CSS class
 * @property {string} label its legend
 * @property {number} [marked] the index of a point to mark (the decision on the table)
 */

const SVG = "http://www.w3.org/2000/svg";

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 * @param {string} [text]
 */
function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * @param {Series[]} series
 * @param {{ xLabel?: string }} [opts] the x axis's title
 * @returns {HTMLDivElement} the graph with its axes and legend
 */
export function graph(series, opts = {}) {
  const w = 420, h = 170, left = 44, right = 10, top = 10, bottom = 36;
  const pw = w - left - right, ph = h - top - bottom;
  const svg = svgEl("svg", { viewBox: `0 0 ${w} ${h}`, class: "graph", role: "img",
                             "aria-label": "your chance to win over the game" });
  const y = (/** @type {number} */ v) => top + ph - v * ph;
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    svg.append(svgEl("line", { x1: left, x2: left + pw, y1: y(v), y2: y(v), class: v === 0.5 ? "mid" : "grid" }),
               svgEl("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, `${v * 100}%`));
  }
  svg.append(svgEl("line", { x1: left, x2: left, y1: top, y2: top + ph, class: "axis" }),
             svgEl("line", { x1: left, x2: left + pw, y1: top + ph, y2: top + ph, class: "axis" }),
             svgEl("text", { x: 12, y: top + ph / 2, transform: `rotate(-90 12 ${top + ph / 2})`,
                             "text-anchor": "middle", class: "axis-title" }, "your chance to win"),
             svgEl("text", { x: left + pw / 2, y: h - 4, "text-anchor": "middle", class: "axis-title" },
                   opts.xLabel || "moves, first to last"));
  const longest = Math.max(1, ...series.map((s) => s.values.length));
  const x = (/** @type {number} */ i, /** @type {number} */ n) => left + (n === 1 ? pw / 2 : (i * pw) / (n - 1));
  // ticks along: the first, the middle and the last move of the longest line
  for (const i of [...new Set([0, Math.floor((longest - 1) / 2), longest - 1])]) {
    svg.append(svgEl("text", { x: x(i, longest), y: top + ph + 14, "text-anchor": "middle", class: "tick" }, `${i + 1}`));
  }
  const box = el("div", { class: "graph-box" }, svg);
  for (const s of series) {
    if (!s.values.length) continue;
    const n = s.values.length;
    svg.append(svgEl("polyline", { points: s.values.map((v, i) => `${x(i, n)},${y(v)}`).join(" "), class: s.cls }));
    if (s.marked !== undefined && s.marked >= 0 && s.marked < n) {
      svg.append(svgEl("circle", { cx: x(s.marked, n), cy: y(s.values[s.marked]), r: 4, class: `${s.cls} marked` }));
    }
    box.append(el("div", { class: `legend ${s.cls}`, text: s.label }));
  }
  if (!series.some((s) => s.values.length)) box.append(el("div", { text: "no estimate yet" }));
  return box;
}

/**
 * The bot's estimates of the human's chance, as a graph's line.
 * @param {import("./api.js").View} view
 * @returns {Series}
 */
export function estimates(view) {
  return { values: view.win_estimates, cls: "bot-line", label: "the bot's estimate of your chance, at each of its rated moves" };
}

/** @param {number | null | undefined} x @returns {string} "42%", or "?" */
export function pct(x) { return x === null || x === undefined ? "?" : `${(100 * x).toFixed(0)}%`; }
