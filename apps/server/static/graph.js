// @ts-check
// The win-probability graph (the end of a game, the review).

import { el } from "./dom.js";

/**
 * @typedef {object} Series one line of win probabilities (0..1) over the game
 * @property {number[]} values
 * @property {string} cls its CSS class
 * @property {string} label its legend
 */

const SVG = "http://www.w3.org/2000/svg";

/**
 * @param {Series[]} series
 * @returns {HTMLDivElement} the graph with its legend
 */
export function graph(series) {
  const w = 360, h = 120;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("class", "graph");
  const mid = document.createElementNS(SVG, "line");
  for (const [k, v] of Object.entries({ x1: 0, x2: w, y1: h / 2, y2: h / 2, class: "mid" })) mid.setAttribute(k, String(v));
  svg.append(mid);
  const box = el("div", { class: "graph-box" }, svg);
  for (const s of series) {
    if (!s.values.length) continue;
    const n = s.values.length;
    const p = document.createElementNS(SVG, "polyline");
    p.setAttribute("points", s.values.map((v, i) => `${n === 1 ? w / 2 : (i * w) / (n - 1)},${h - v * h}`).join(" "));
    p.setAttribute("class", s.cls);
    svg.append(p);
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
  return { values: view.win_estimates, cls: "bot-line", label: "the bot's estimate of your chance at each of its moves" };
}

/** @param {number | null | undefined} x @returns {string} "42%", or "?" */
export function pct(x) { return x === null || x === undefined ? "?" : `${(100 * x).toFixed(0)}%`; }
