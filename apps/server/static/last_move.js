// @ts-check
// What happened since the human's last decision: the bot's moves in words
// (chance apart: a draw is never called a bot move), the dice of each roll,
// and on the table every card it moved, activated, played, attacked with or
// destroyed, marked until the human's next decision.

import { $, el } from "./dom.js";
import { settledEl } from "./dice.js";
import { sideTitle } from "./vocabulary.js";

/** @typedef {import("./api.js").View} View */

/** What each role reads as on a card's badge. */
export const ROLE_WORDS = { placed: "placed", played: "played", activated: "activated", moved: "moved",
                            attacker: "attacked", targeted: "targeted", refreshed: "refreshed",
                            destroyed: "destroyed", sent_home: "sent home" };

/** The bot's move box. @param {View} view */
export function drawBotMove(view) {
  const box = $("#bot-move");
  box.innerHTML = "";
  const last = view.last_move;
  if (!last || view.status === "review") return;
  const bot = sideTitle(last.side);
  if (last.moves.length) {
    box.append(el("h3", { text: view.status === "bot" ? `${bot} (the bot) so far` : `${bot} (the bot) played` }));
    const ol = el("ul", { class: "moves", "data-testid": "bot-moves" });
    for (const m of last.moves) ol.append(el("li", { text: m }));
    box.append(ol);
    if (last.moves.some((m) => m.includes("bot rates its chance"))) {
      box.append(el("p", { class: "hint-note", "data-testid": "bot-rating-note",
        text: `"rates its chance" is the bot's own (${bot}) chance, from its information; ` +
              "Hint gives yours from your information: the two need not add up to 100%." }));
    }
  } else if (view.status === "human" && view.log_size > 0) {
    box.append(el("h3", { text: `${bot} (the bot) made no move since your last decision` }));
  }
  for (const d of last.dice) box.append(settledEl(d));
  if (last.chance.length) {
    const d = el("details", { class: "chance" }, el("summary", { text: `Chance and the rules (${last.chance.length})` }));
    const ul = el("ul");
    for (const c of last.chance) ul.append(el("li", { text: c }));
    d.append(ul);
    box.append(d);
  }
  if (last.alternatives && last.alternatives.length) {
    const d = el("details", {}, el("summary", { text: "what else the bot considered" }));
    const ol = el("ol");
    for (const a of last.alternatives) {
      ol.append(el("li", { text: `${a.action} \u2014 searched ${a.visits} times` +
                                 (a.value === null ? "" : `, the bot's own chance after it ${(100 * a.value).toFixed(0)}%`) }));
    }
    d.append(ol);
    box.append(d);
  }
}

/** Marks on the table the cards of the last move, with a badge saying what each did. @param {View} view */
export function markLastMove(view) {
  const last = view.last_move;
  if (!last) return;
  for (const c of last.cards) {
    document.querySelectorAll(`#table .card[data-number="${c.number}"], #dock .card[data-number="${c.number}"]`).forEach((e) => {
      e.classList.add("last-move", `lm-${c.role}`);
      e.setAttribute("data-role", c.role);
      e.append(el("span", { class: "lm-badge", text: ROLE_WORDS[c.role] || c.role }));
    });
  }
}
