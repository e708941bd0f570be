// @ts-check
// The review of a game: the rated decisions, the largest mistakes, the graph
// of the chances, and the table as it was at any decision.

import { api } from "./api.js";
import { $, el, showError, sleep } from "./dom.js";
import { clearHint, game, playerMessage, run, show } from "./game.js";
import { estimates, graph, pct } from "./graph.js";

/** @typedef {import("./api.js").Review} Review */
/** @typedef {import("./api.js").ReviewDecision} ReviewDecision */

/** @param {ReviewDecision} d */
function reviewRow(d) {
  let text = `turn ${d.turn}: ${d.chosen}`;
  if (d.loss !== undefined && d.loss !== null) {
    text += d.loss > 0 ? ` \u2014 loses ${pct(d.loss)} (better: ${d.best}, ${pct(d.best_value)} instead of ${pct(d.chosen_value)})`
                       : ` \u2014 fine (${pct(d.chosen_value)})`;
    if (d.exact) text += " (exact)";
  } else if (d.options === 1) text += " \u2014 forced";
  return el("li", { class: "review-row", "data-index": d.index, text, onclick: () => stepTo(d.index) });
}

/**
 * The player's error rate as GNU Backgammon gives it: the mean loss in win
 * chance per rated decision, and over the last turn's exactly rated ones.
 * @param {Review} r
 */
function errorRateText(r) {
  const all = r.error_rate;
  if (!all || all.mean_loss === null || !all.decisions) return "";
  let text = ` Your error rate: ${(100 * all.mean_loss).toFixed(1)}% of win chance lost per decision, on average over ${all.decisions} rated.`;
  const exact = r.exact_error_rate;
  if (exact && exact.decisions && exact.mean_loss !== null) {
    text += ` In the last turn, rated exactly: ${(100 * exact.mean_loss).toFixed(1)}% per decision over ${exact.decisions}.`;
  }
  return text;
}

/** @param {Review} r */
function drawReview(r) {
  /** @type {number[]} */
  const rated = [];
  for (const d of r.decisions) if (d.chosen_value !== undefined && d.chosen_value !== null) rated.push(d.chosen_value);
  const g = $("#review-graph");
  g.innerHTML = "";
  const series = [{ values: rated, cls: "review-line", label: "the review's value of each of your rated decisions" }];
  g.append(graph(game.view ? [estimates(game.view), ...series] : series, { xLabel: "moves and decisions, first to last" }));
  const bar = $("#review-bar", HTMLProgressElement);
  bar.max = Math.max(1, r.total);
  bar.value = r.done;
  $("#review-closable").hidden = r.done >= r.total;
  $("#review-progress").textContent = r.total === 0 ? "No decision of yours to rate yet." :
    `Rated ${r.done} of ${r.total} of your decisions (${r.budget})` + (r.done < r.total ? "\u2026" : ".") +
    errorRateText(r);
  const ml = $("#review-mistakes");
  ml.innerHTML = "";
  for (const d of r.mistakes || []) ml.append(reviewRow(d));
  if (!(r.mistakes || []).length && r.done === r.total) ml.append(el("li", { text: "none found" }));
  const ol = $("#review-moves");
  ol.innerHTML = "";
  for (const d of r.decisions) ol.append(reviewRow(d));
}

/** Opens the review and follows its rating until done (or closed). */
async function showReview() {
  const view = game.view;
  if (!view) return;
  clearHint();
  const g = $("#review-graph");
  g.innerHTML = "";
  g.append(graph([estimates(view)]));
  const dialog = $("#review-dialog", HTMLDialogElement);
  dialog.showModal();
  try {
    /** @type {Review} */
    let r = await api("POST", `/api/games/${game.id}/review`);
    drawReview(r);
    while (r.done < r.total && dialog.open) {
      await sleep(700);
      r = await api("GET", `/api/games/${game.id}/review`);
      drawReview(r);
    }
  } catch (err) { showError(playerMessage(err)); }
}

/**
 * Marks an action of the reviewed decision on the table: its card (or
 * target, or zone) with a class and a badge.
 * @param {import("./api.js").MarkedAction} a @param {string} cls @param {string} words
 */
function markAction(a, cls, words) {
  const numbers = [a.card, a.target].filter(Boolean);
  let marked = false;
  for (const n of numbers) {
    document.querySelectorAll(`#table .card[data-number="${n}"], #dock .card[data-number="${n}"]`).forEach((e) => {
      e.classList.add(cls);
      e.append(el("span", { class: `rv-badge ${cls}`, text: words }));
      marked = true;
    });
  }
  if (a.zone) {
    const z = document.querySelector(`.zone[data-zone="${a.zone}"]`);
    if (z) { z.classList.add(cls); z.querySelector(".zone-head")?.append(el("span", { class: `rv-badge ${cls}`, text: words })); marked = true; }
  }
  return marked;
}

/** The table as it was at the human's k-th decision. @param {number} k */
async function stepTo(k) {
  try {
    /** @type {import("./api.js").View} */
    const view = await api("GET", `/api/games/${game.id}/review/${k}`);
    $("#review-dialog", HTMLDialogElement).close();
    const end = $("#end-dialog", HTMLDialogElement);
    if (end.open) end.close();
    game.reviewing = true;
    show(view);
    const step = view.review_step;
    if (!step) return;
    const text = $("#review-banner-text");
    text.innerHTML = "";
    text.append(el("b", { text: `Your decision ${k + 1} of ${step.of}` }), ": ",
                el("span", { class: "rv-chosen-text", text: step.chosen }));
    markAction(step.chosen_action, "rv-chosen", "you chose");
    if (step.best_action) {
      markAction(step.best_action, "rv-best", "better");
      text.append(el("span", { class: "rv-best-text", "data-testid": "review-better",
                               text: ` — better: ${step.best_action.text} (${pct(step.best_value)} instead of ${pct(step.chosen_value)})` }));
    } else if (step.loss !== undefined && step.loss !== null) {
      text.append(el("span", { text: ` — fine (${pct(step.chosen_value)})` }));
    } else {
      text.append(el("span", { class: "b-note", text: " (not rated yet: open Review to rate your decisions)" }));
    }
    $("#btn-review-prev", HTMLButtonElement).disabled = k <= 0;
    $("#btn-review-next", HTMLButtonElement).disabled = k >= step.of - 1;
    $("#review-banner").hidden = false;
  } catch (err) { showError(playerMessage(err)); }
}

/** @param {number} delta -1: the decision before, +1: the one after */
function stepBy(delta) {
  const step = game.view && game.view.review_step;
  if (!game.reviewing || !step) return;
  const k = step.index + delta;
  if (k >= 0 && k < step.of) stepTo(k);
}

/** Opens the review at the end of a game. */
export function reviewGame() {
  const end = $("#end-dialog", HTMLDialogElement);
  if (end.open) end.close();
  showReview();
}

/** Wires the review's buttons. */
export function setupReview() {
  $("#btn-review").onclick = showReview;
  $("#btn-end-review").onclick = reviewGame;
  $("#btn-review-prev").onclick = () => stepBy(-1);
  $("#btn-review-next").onclick = () => stepBy(1);
  document.addEventListener("keydown", (ev) => {
    if (!game.reviewing || document.querySelector("dialog[open]")) return;
    if (ev.target instanceof HTMLElement && ev.target.tagName === "INPUT") return;
    if (ev.key === "ArrowLeft") { ev.preventDefault(); stepBy(-1); }
    else if (ev.key === "ArrowRight") { ev.preventDefault(); stepBy(1); }
  });
  $("#btn-review-close").onclick = () => $("#review-dialog", HTMLDialogElement).close();
  $("#btn-review-back").onclick = () => run(async () => {
    game.reviewing = false;
    $("#review-banner").hidden = true;
    show(await api("GET", `/api/games/${game.id}`));
  });
}
