// @ts-check
// The review of a game: the rated decisions, the largest mistakes, the graph
// of the chances, and the table as it was at any decision.

import { api } from "./api.js";
import { $, el, showError, sleep } from "./dom.js";
import { game, run, show } from "./game.js";
import { estimates, graph, pct } from "./graph.js";

/** @typedef {import("./api.js").Review} Review */
/** @typedef {import("./api.js").ReviewDecision} ReviewDecision */

/** @param {ReviewDecision} d */
function reviewRow(d) {
  let text = `turn ${d.turn}: ${d.chosen}`;
  if (d.loss !== undefined && d.loss !== null) {
    text += d.loss > 0 ? ` \u2014 loses ${pct(d.loss)} (better: ${d.best}, ${pct(d.best_value)} instead of ${pct(d.chosen_value)})`
                       : ` \u2014 fine (${pct(d.chosen_value)})`;
  } else if (d.options === 1) text += " \u2014 forced";
  return el("li", { class: "review-row", "data-index": d.index, text, onclick: () => stepTo(d.index) });
}

/** @param {Review} r */
function drawReview(r) {
  /** @type {number[]} */
  const rated = [];
  for (const d of r.decisions) if (d.chosen_value !== undefined && d.chosen_value !== null) rated.push(d.chosen_value);
  const g = $("#review-graph");
  g.innerHTML = "";
  const series = [{ values: rated, cls: "review-line", label: "the review's value of each of your rated decisions" }];
  g.append(graph(game.view ? [estimates(game.view), ...series] : series));
  $("#review-progress").textContent = r.total === 0 ? "No decision of yours to rate yet." :
    `Rated ${r.done} of ${r.total} of your decisions (${r.budget})` + (r.done < r.total ? "\u2026" : ".");
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
  } catch (err) { showError(err instanceof Error ? err.message : String(err)); }
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
    $("#review-banner-text").textContent =
      `The table at your decision ${k + 1} of ${step ? step.of : "?"}; you chose: ${step ? step.chosen : "?"}`;
    $("#review-banner").hidden = false;
  } catch (err) { showError(err instanceof Error ? err.message : String(err)); }
}

/** Wires the review's buttons. */
export function setupReview() {
  $("#btn-review").onclick = showReview;
  $("#btn-review-close").onclick = () => $("#review-dialog", HTMLDialogElement).close();
  $("#btn-review-back").onclick = () => run(async () => {
    game.reviewing = false;
    $("#review-banner").hidden = true;
    show(await api("GET", `/api/games/${game.id}`));
  });
}
