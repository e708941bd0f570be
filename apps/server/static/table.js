// @ts-check
// The table: draws the view of a game (the cards, zones, fragments, the
// prompt and the legal actions, the log, the end) as the server sends it.

import { $, el } from "./dom.js";
import { estimates, graph } from "./graph.js";
import { sideTitle, vocabulary } from "./vocabulary.js";

/** @typedef {import("./api.js").View} View */
/** @typedef {import("./api.js").Card} Card */
/** @typedef {import("./api.js").Action} Action */
/** @typedef {(actionId: number) => void} Act the human takes an action */

/** @param {number} n @param {string} word @returns {string} "2 bullets" */
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** @param {Card} card @param {{ full?: boolean }} [opts] full: with the card's text */
function cardEl(card, opts = {}) {
  const classes = ["card", card.side, card.kind];
  if (card.exhausted) classes.push("exhausted");
  const e = el("div", { class: classes.join(" "), "data-number": card.number,
                        "data-testid": `card-${card.number}`, tabindex: "0",
                        "aria-label": `${card.number} ${card.name}${card.exhausted ? ", exhausted" : ""}` },
    el("div", { class: "num", text: card.number }),
    el("div", { class: "name", text: card.name }),
    card.bullets ? el("div", { class: "bullets", text: "\u25CF".repeat(card.bullets),
                               title: `${card.bullets} bullet${card.bullets > 1 ? "s" : ""}` }) : null,
    el("div", { class: "abilities", text: card.abilities.join(", ") || card.kind }));
  if (opts.full) e.append(el("div", { class: "text", text: card.text }));
  e.addEventListener("mouseenter", () => showTip(e, card));
  e.addEventListener("mouseleave", hideTip);
  e.addEventListener("focus", () => showTip(e, card));
  e.addEventListener("blur", hideTip);
  return e;
}

/** @param {Element} anchor @param {Card} card */
function showTip(anchor, card) {
  const tip = $("#tooltip");
  tip.innerHTML = "";
  tip.append(el("b", { text: `${card.number} ${card.name}` }),
             el("div", { text: `${sideTitle(card.side)} ${card.kind}` +
                               (card.bullets ? `, ${card.bullets} bullet${card.bullets > 1 ? "s" : ""}` : "") +
                               (card.exhausted ? ", exhausted" : card.exhausted === false ? ", fresh" : "") }),
             el("p", { text: card.text }));
  const r = anchor.getBoundingClientRect();
  tip.style.left = `${Math.min(window.innerWidth - 280, r.right + 6 + window.scrollX)}px`;
  tip.style.top = `${r.top + window.scrollY}px`;
  tip.hidden = false;
}
function hideTip() { $("#tooltip").hidden = true; }

/** @param {number} n @param {string} [label] where they are */
function cubes(n, label) {
  const box = el("div", { class: "fragments", title: `${plural(n, "fragment")}${label ? " " + label : ""}`,
                          "data-fragments": n });
  for (let i = 0; i < n; i++) box.append(el("span", { class: "cube" }));
  box.append(el("span", { class: "count", text: `${n}` }));
  return box;
}

/** @param {number} n @param {string} label @param {string} testid @param {number} [shown] */
function backs(n, label, testid, shown = n) {
  const box = el("div", { class: "backs", "data-testid": testid, "data-count": n });
  for (let i = 0; i < Math.min(shown, 8); i++) box.append(el("div", { class: "card back" }));
  box.append(el("span", { class: "count", text: `${label}: ${n}` }));
  return box;
}

/** The status line. @param {View} view */
function statusText(view) {
  const score = vocabulary.sides.map((s) => `${sideTitle(s)} ${view.score[s]}`).join(", ");
  let status = `Turn ${view.turn}/${view.turns} \u2014 ${view.title} against ${view.bot} \u2014 score ${score}`;
  if (view.status === "human") status += " \u2014 your decision";
  else if (view.status === "bot") status += " \u2014 the bot's move";
  else if (view.status === "review") status += " \u2014 review";
  else status += " \u2014 game over";
  return status;
}

/**
 * Draws the whole table for a view.
 * @param {View} view
 * @param {Act} act what a click on an action does
 */
export function drawTable(view, act) {
  hideMenu();
  const you = view.you, bot = view.bot_side;
  $("#status").textContent = statusText(view);
  $("#bot-time", HTMLInputElement).value = (view.bot.match(/time=([0-9.]+)/) || [null, "1.0"])[1];
  $("#btn-undo", HTMLButtonElement).disabled = !view.can_undo;
  $("#btn-hint", HTMLButtonElement).disabled = view.status !== "human";
  $("#btn-resign", HTMLButtonElement).disabled = view.status === "over";

  // the opponent: hand as backs, deck
  const opp = $("#opponent");
  opp.innerHTML = "";
  opp.append(el("span", { class: "who", text: `Bot (${sideTitle(bot)})` }),
             backs(view.bot_hand, "hand", "bot-hand"), backs(view.decks.bot, "deck", "bot-deck", view.decks.bot ? 1 : 0));

  // rocket cards
  const rockets = $("#rockets");
  rockets.innerHTML = "";
  rockets.append(el("span", { class: "who", text: "Rocket cards" }));
  for (const r of view.rockets.revealed) rockets.append(el("div", { class: "rocket up", text: `${r}`, title: "revealed Rocket card" }));
  for (let i = 0; i < view.rockets.face_down; i++) rockets.append(el("div", { class: "rocket down", title: "Rocket card, face down" }));
  rockets.append(el("span", { class: "pool" }, "pool: ", cubes(view.fragments.pool)));

  // zones; the fragments on event cards are shown in the Polish home (whose cards they are)
  const zones = $("#zones");
  zones.innerHTML = "";
  for (const z of view.zones) {
    const box = el("div", { class: `zone ${z.id}`, "data-zone": z.id, "data-testid": `zone-${z.id}` },
      el("div", { class: "zone-head" },
        el("span", { class: "zone-title", text: z.title + (z.home ? ` (${sideTitle(z.home)} home)` : "") }),
        cubes(z.fragments, `in the ${z.title}`)));
    if (z.id === vocabulary.homes[0] && (view.fragments.wildhorn || view.fragments.hidden)) {
      const extra = el("div", { class: "zone-extra" });
      if (view.fragments.wildhorn) extra.append(el("span", { text: "on Operation Wildhorn III: " }), cubes(view.fragments.wildhorn));
      if (view.fragments.hidden) extra.append(el("span", { text: " hidden: " }), cubes(view.fragments.hidden));
      box.append(extra);
    }
    for (const side of [bot, you]) {
      const row = el("div", { class: `zone-side ${side === you ? "mine" : "theirs"}` },
                     el("span", { class: "who", text: side === you ? "you" : "bot" }));
      for (const c of z.cards[side]) row.append(cardEl(c));
      box.append(row);
    }
    zones.append(box);
  }

  const inPlay = $("#in-play");
  inPlay.innerHTML = "";
  if (view.in_play.length) {
    inPlay.append(el("span", { class: "who", text: "In play" }));
    for (const c of view.in_play) inPlay.append(cardEl(c));
  }

  // your hand and deck
  const mine = $("#you");
  mine.innerHTML = "";
  mine.append(el("span", { class: "who", text: `Your hand (${sideTitle(you)})` }));
  const hand = el("div", { class: "hand", "data-testid": "hand" });
  for (const c of view.hand) hand.append(cardEl(c, { full: true }));
  mine.append(hand, backs(view.decks.you, "deck", "my-deck", view.decks.you ? 1 : 0));

  drawActions(view, act);
  drawLog(view);
  drawBotMove(view);
  if (view.status === "over") showEnd(view);
  if (view.status !== "review") $("#review-banner").hidden = true;
}

/** @param {import("./api.js").Pending | null} p */
function describePending(p) {
  if (!p) return null;
  const box = el("div", { class: "pending", "data-testid": "pending" },
                 el("div", { text: `Under way: ${p.text}` }));
  if (p.totals) box.append(el("div", { class: "totals", text: p.totals }));
  else if (p.needed) box.append(el("div", { class: "totals", text: `needs ${p.needed} or more on the die` }));
  return box;
}

/** The prompt, the list of actions, and the cards and zones they act on. @param {View} view @param {Act} act */
function drawActions(view, act) {
  const prompt = $("#prompt"), list = $("#actions");
  prompt.innerHTML = "";
  list.innerHTML = "";
  document.querySelectorAll(".actionable, .target, .destination").forEach(
    (e) => e.classList.remove("actionable", "target", "destination"));
  const pend = describePending(view.pending);
  if (view.status !== "human") {
    if (pend) prompt.append(pend);
    return;
  }
  prompt.append(el("div", { class: "ask", text: view.prompt }));
  if (pend) prompt.append(pend);
  /** @type {Map<string, Action[]>} */
  const byCard = new Map();
  for (const a of view.actions) {
    const numbers = [];
    if (a.card) numbers.push(a.card, ...(a.same_as || []));
    if (a.target) numbers.push(a.target, ...(a.same_as || []));
    for (const n of numbers) {
      const acts = byCard.get(n) || [];
      acts.push(a);
      byCard.set(n, acts);
    }
    if (a.zone) {
      const z = document.querySelector(`.zone[data-zone="${a.zone}"]`);
      if (z instanceof HTMLElement) {
        z.classList.add("destination");
        z.onclick = (ev) => {
          if (ev.target instanceof Element && ev.target.closest(".card")) return;
          act(a.id);
        };
      }
    }
    // every action is also a button in the list (keyboard users, and a summary)
    const key = a.kind === "pass" ? " [p]" : (a.kind === "decline" ? " [d]" : "");
    list.append(el("button", { class: `action ${a.kind}`, "data-action": a.id, title: a.help,
                               onclick: () => act(a.id) },
                   a.text + key, a.note ? el("small", { text: ` \u2014 ${a.note}` }) : null));
  }
  for (const [number, actions] of byCard) {
    document.querySelectorAll(`.card[data-number="${number}"]`).forEach((c) => {
      if (!(c instanceof HTMLElement)) return;
      c.classList.add(actions[0].target ? "target" : "actionable");
      c.onclick = (ev) => { ev.stopPropagation(); openMenu(c, actions, act); };
      c.onkeydown = (ev) => { if (ev.key === "Enter") openMenu(c, actions, act); };
    });
  }
}

/** A card's menu of its actions. @param {Element} anchor @param {Action[]} actions @param {Act} act */
function openMenu(anchor, actions, act) {
  const menu = $("#menu");
  menu.innerHTML = "";
  for (const a of actions) {
    menu.append(el("button", { "data-action": a.id, title: a.help, onclick: () => act(a.id) },
                   a.verb || a.text, a.note ? el("small", { class: "note", text: a.note }) : null));
  }
  const r = anchor.getBoundingClientRect();
  menu.style.left = `${r.left + window.scrollX}px`;
  menu.style.top = `${r.bottom + window.scrollY + 2}px`;
  menu.hidden = false;
}
export function hideMenu() { $("#menu").hidden = true; }

/** @param {View} view */
function drawLog(view) {
  const log = $("#log");
  log.innerHTML = "";
  for (const e of view.log) log.append(el("li", { class: e.who, text: e.text }));
  log.scrollTop = log.scrollHeight;
}

/** @param {View} view */
function drawBotMove(view) {
  const box = $("#bot-move");
  box.innerHTML = "";
  const last = [...view.log].reverse().find((e) => e.who === view.bot_side);
  if (!last) return;
  box.append(el("div", { class: "last", text: `Last bot move: ${last.text}` }));
  if (last.alternatives && last.alternatives.length) {
    const d = el("details", {}, el("summary", { text: "its top alternatives" }));
    const ol = el("ol");
    for (const a of last.alternatives) {
      ol.append(el("li", { text: `${a.action} \u2014 ${a.visits} visits` +
                                 (a.value === null ? "" : `, win ${(100 * a.value).toFixed(0)}%`) }));
    }
    d.append(ol);
    box.append(d);
  }
}

/** The end of the game: who won, and the graph of the chances. @param {View} view */
function showEnd(view) {
  const d = $("#end-dialog", HTMLDialogElement);
  const result = view.result || { you_win: false, text: "" };
  $("#end-title").textContent = result.you_win ? "You win" : "The bot wins";
  $("#end-text").textContent = result.text;
  const g = $("#end-graph");
  g.innerHTML = "";
  g.append(el("p", { text: "Your chance to win over the game:" }), graph([estimates(view)]));
  if (!d.open) d.showModal();
}
