// @ts-check
// The advice on a position in a player's words, for the board's analysis and
// the game's hint alike: the recommended action (or "about the same" where
// the search cannot tell actions apart), each action's win chance and what
// it costs, the search's frequency labelled as a frequency, the opponent's
// replies and your answers as sentences.  Every probability reads "59% ± 1%",
// as `wildhorn-solve advise` writes it; the sentences' words (the replies,
// the answers, the dice classes) come with the payload (apps/advise.py).

import { el } from "./dom.js";
import { otherSide, sideTitle, vocabulary } from "./vocabulary.js";

/** @typedef {import("./api.js").Advice} Advice */
/** @typedef {import("./api.js").AdviceAction} AdviceAction */
/** @typedef {import("./api.js").Reply} Reply */
/** @typedef {import("./api.js").Outcome} Outcome */

/**
 * How the advice is drawn.
 * @typedef {object} AdviceOptions
 * @property {string} [title] the heading's first word: "Recommended" (default) or "Hint"
 * @property {string} [testid] the prefix of the parts' data-testid ("board" -> board-recommended, ...)
 * @property {number} [maxActions] at most this many actions listed (default: all)
 */

/** @param {number} x a probability @returns {string} "59%" */
export const percent = (x) => `${Math.round(100 * x)}%`;

/**
 * A win chance as the CLI writes it: "59% ± 1%" (± one standard error), one
 * decimal for a tight estimate, no ± for an exact value.
 * @param {number | null | undefined} value @param {number | null | undefined} stderr
 * @returns {string}
 */
export function winText(value, stderr) {
  if (value === null || value === undefined) return "forced";
  if (!stderr) return percent(value);
  if (stderr < 0.005) return `${(100 * value).toFixed(1)}% \u00b1 ${(100 * stderr).toFixed(1)}%`;
  return `${percent(value)} \u00b1 ${percent(stderr)}`;
}

/**
 * Whether an action is as good as the recommended one as far as the search
 * can tell (the payload says; an older payload: the same rule as advise).
 * @param {AdviceAction} r @param {number} recommended
 */
export function aboutTheSame(r, recommended) {
  if (typeof r.about_the_same === "boolean") return r.about_the_same;
  if (r.id === recommended || r.loss === null || r.loss === undefined ||
      r.loss_stderr === null || r.loss_stderr === undefined) return false;
  return r.loss <= 2 * r.loss_stderr && r.loss < 0.01 + r.loss_stderr;
}

/** @param {AdviceAction} r @param {number} recommended @returns {string} what it costs */
function costText(r, recommended) {
  if (r.id === recommended) return "recommended";
  if (r.loss === null || r.loss === undefined) return "";
  const cost = winText(Math.max(r.loss, 0), r.loss_stderr);
  return aboutTheSame(r, recommended) ? `about the same (${cost} less)` : `costs ${cost} of win chance`;
}

/** @param {string} s @returns {string} with a capital first letter */
const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** @param {Reply | Outcome} x @returns {string} the answer and its win chance, in words */
function answerText(x) {
  const then = x.then_says || x.then;
  if (x.at === "end") return then;
  const chance = x.value === null || x.value === undefined ? "forced" : `you win ${winText(x.value, x.stderr)}`;
  return `${then} (${chance})`;
}

/**
 * Draws an advice into ``box`` (emptied first).
 * @param {HTMLElement} box
 * @param {Advice} a
 * @param {AdviceOptions} [opts]
 */
export function renderAdvice(box, a, opts = {}) {
  const id = (/** @type {string} */ part) => (opts.testid ? `${opts.testid}-${part}` : null);
  box.innerHTML = "";
  if (a.only) {   // one legal action: nothing to weigh
    box.append(el("h3", { "data-testid": id("recommended"), text: `${opts.title || "Recommended"}: ${a.recommended}` }));
    box.append(el("p", { text: "It is your only option here." }));
    return;
  }
  const actions = a.actions || [];
  const same = actions.filter((r) => aboutTheSame(r, a.recommended_id)).map((r) => r.action);
  const names = same.length <= 1 ? same.join("") : `${same.slice(0, -1).join(", ")} and ${same[same.length - 1]}`;
  // never a firm recommendation where another action is as good within the noise
  const head = `${opts.title || "Recommended"}: ${a.recommended}` + (same.length ? `, or about the same: ${names}` : "");
  box.append(el("h3", { "data-testid": id("recommended"), text: head }));
  if (same.length) {
    box.append(el("p", { "data-testid": id("same"),
      text: `About the same: ${names} ${same.length === 1 ? "is" : "are"} as good as ${a.recommended} as far as the search can tell (the difference is within its noise).` }));
  }
  if (a.exact) {
    box.append(el("p", { "data-testid": id("exact"),
      text: "Exact: the position is solved (both hands known, only dice left); every win chance is exact." }));
  }
  const me = a.to_move || null;
  const value = a.value;
  if (value) {
    const ci = a.value_ci95 || {};
    const order = me ? [me, ...vocabulary.sides.filter((s) => s !== me)] : vocabulary.sides;
    const parts = order.map((s) => {
      // one statement of uncertainty: the interval, with a plain word when wide (apps.advise)
      let t = `${sideTitle(s)}${s === me ? " (you)" : ""} ${percent(value[s])}`;
      const iv = ci[s];
      const word = a.uncertainty === "very uncertain"
        ? ": very uncertain, the search cannot pin this position down"
        : a.uncertainty === "rough" ? ": rough" : "";
      if (s === me && iv && iv[1] > iv[0]) t += ` (95% interval ${percent(iv[0])} to ${percent(iv[1])}${word})`;
      return t;
    });
    box.append(el("p", { class: "b-win", "data-testid": id("win"),
                         text: `Win chance with the recommended action: ${parts.join("; ")}.` }));
  }
  if (actions.length) {
    const table = el("table", { class: "b-actions", "data-testid": id("actions") },
                     el("tr", {}, ...["action", "you win", "cost", "how often the search chose it"].map((h) => el("th", { text: h }))));
    for (const r of actions.slice(0, opts.maxActions || actions.length)) {
      table.append(el("tr", { class: r.id === a.recommended_id ? "best" : "" },
        el("td", { text: r.action }), el("td", { text: winText(r.value, r.stderr) }),
        el("td", { text: costText(r, a.recommended_id) }),
        el("td", { text: `chosen in ${percent(r.frequency)} of the search` })));
    }
    box.append(table);
  }
  const opp = me ? sideTitle(otherSide(me)) : "opponent";
  const responses = a.responses || [];
  if (responses.length) {
    box.append(el("h4", { text: `If you play ${a.recommended}: what the ${opp} may do, and your answer` }));
    const ul = el("ul", { class: "b-responses", "data-testid": id("responses") });
    for (const r of responses) {
      const says = r.says || r.reply || r.if;
      const where = r.where ? `${r.where}, ` : "";
      const likely = r.probability === undefined ? "" : `${percent(r.probability)} likely`;
      const cond = `If the ${opp} ${says} (${where}${likely})`;
      const outcomes = r.outcomes || [];
      const li = el("li", { text: outcomes.length ? `${cond}:` : `${cond}, your answer: ${answerText(r)}.` });
      if (outcomes.length) {
        const sub = el("ul");
        for (const o of outcomes) {
          sub.append(el("li", { text: `${capital(o.when)} (${percent(o.probability)} of these cases), your answer: ${answerText(o)}.` }));
        }
        li.append(sub);
      }
      ul.append(li);
    }
    box.append(ul);
  } else if (a.responses_note) {
    box.append(el("p", { class: "b-note", "data-testid": id("no-responses"),
                         text: `No reply of the ${opp} to plan: ${a.responses_note}.` }));
  }
  if (a.opponent_model && responses.length) {
    box.append(el("details", { class: "b-note" },
      el("summary", { text: `How likely each ${opp} reply is` }),
      el("p", { text: `From ${a.opponent_model}.` })));
  }
  const st = a.stats || {};
  if (st.iterations !== undefined) {
    box.append(el("p", { class: "b-note", text: `Searched ${st.iterations} iterations` +
      (st.seconds !== undefined ? ` in ${st.seconds.toFixed(2)} s` : "") +
      (st.responses_iterations ? `, and ${st.responses_iterations} more for the replies and answers` : "") +
      (st.spec ? ` (bot ${st.spec})` : "") + (st.continued === false ? ", started afresh." : ".") }));
  }
}
