// @ts-check
// The table: draws the view of a game (the cards, zones, fragments, piles,
// the prompt and the legal actions, the card menus, the end) as the server
// sends it.

import { $, el } from "./dom.js";
import { pendingDice } from "./dice.js";
import { estimates, graph } from "./graph.js";
import { drawBotMove, markLastMove } from "./last_move.js";
import { sideTitle, vocabulary } from "./vocabulary.js";

/** @typedef {import("./api.js").View} View */
/** @typedef {import("./api.js").Card} Card */
/** @typedef {import("./api.js").Action} Action */
/**
 * The human takes an action chosen in the position ``version`` names (an
 * action of an older position is ignored).
 * @typedef {(actionId: number, version: string) => void} Act
 */

/** @param {number} n @param {string} word @returns {string} "2 bullets" */
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** @param {Card} card @param {{ full?: boolean }} [opts] full: with the card's text */
export function cardEl(card, opts = {}) {
  const classes = ["card", card.side, card.kind];
  if (card.exhausted) classes.push("exhausted");
  if (opts.full) classes.push("full");
  const e = el("div", { class: classes.join(" "), "data-number": card.number,
                        "data-testid": `card-${card.number}`, tabindex: "0",
                        "aria-label": `${card.number} ${card.name}${card.exhausted ? ", exhausted" : ""}` },
    el("div", { class: "num", text: card.number }),
    el("div", { class: "name", text: card.name }),
    card.bullets ? el("div", { class: "bullets", text: "\u25CF".repeat(card.bullets),
                               title: plural(card.bullets, "bullet") }) : null,
    el("div", { class: "abilities", text: card.abilities.join(", ") || card.kind }));
  if (opts.full) {
    const text = el("div", { class: "text", text: card.text });
    e.append(text);
    // a narrow window draws the hand as the table's cards, without their text: the tooltip gives it
    const tip = () => { if (getComputedStyle(text).display === "none") showTip(e, card); };
    e.addEventListener("mouseenter", tip);
    e.addEventListener("mouseleave", hideTip);
    e.addEventListener("focus", tip);
    e.addEventListener("blur", hideTip);
  } else {
    e.addEventListener("mouseenter", () => showTip(e, card));
    e.addEventListener("mouseleave", hideTip);
    e.addEventListener("focus", () => showTip(e, card));
    e.addEventListener("blur", hideTip);
  }
  return e;
}

/** @param {Element} anchor @param {Card} card */
function showTip(anchor, card) {
  const tip = $("#tooltip");
  tip.innerHTML = "";
  tip.append(el("b", { text: `${card.number} ${card.name}` }),
             el("div", { text: `${sideTitle(card.side)} ${card.kind}` +
                               (card.bullets ? `, ${plural(card.bullets, "bullet")}` : "") +
                               (card.exhausted ? ", exhausted" : card.exhausted === false ? ", fresh" : "") }),
             el("p", { text: card.text }));
  const r = anchor.getBoundingClientRect();
  const left = r.right + 286 < window.innerWidth ? r.right + 6 : Math.max(4, r.left - 286);
  tip.style.left = `${left}px`;
  tip.style.top = `${Math.max(4, Math.min(r.top, window.innerHeight - 160))}px`;
  tip.hidden = false;
}
function hideTip() { $("#tooltip").hidden = true; }

/** @param {number} n @param {string} [label] where they are */
function cubes(n, label) {
  const box = el("div", { class: "fragments", title: `${plural(n, "fragment")}${label ? " " + label : ""}`,
                          "data-fragments": n });
  for (let i = 0; i < Math.min(n, 15); i++) box.append(el("span", { class: "cube" }));
  box.append(el("span", { class: "count", text: `${n}` }));
  return box;
}

/** @param {number} n @param {string} label @param {string} testid @param {number} [shown] */
function backs(n, label, testid, shown = n) {
  const box = el("div", { class: "backs", "data-testid": testid, "data-count": n, title: `${label}: ${n}` });
  for (let i = 0; i < Math.min(shown, 8); i++) box.append(el("div", { class: "card back" }));
  box.append(el("span", { class: "count", text: `${label}: ${n}` }));
  return box;
}

/**
 * A side's pile of cards gone (destroyed, played and spent): its count and
 * the card on top; a click opens it.
 * @param {View} view @param {string} side
 */
function pileEl(view, side) {
  const cards = view.piles[side] || [];
  const lost = view.last_move.cards.filter((c) => c.side === side && c.role === "destroyed").map((c) => c.number);
  const top = cards.find((c) => lost.includes(c.number)) || cards[cards.length - 1];
  const box = el("button", { type: "button", class: `pile ${side}${lost.length ? " last-move lm-destroyed" : ""}`,
                             "data-testid": `pile-${side}`, "data-count": cards.length,
                             title: `${sideTitle(side)} cards gone (destroyed, or played and spent): click to see them`,
                             onclick: () => openPile(view, side) },
    el("span", { class: "pile-top", text: top ? `${top.number} ${top.name}` : "empty" }),
    el("span", { class: "count", text: `gone: ${cards.length}` }));
  return box;
}

/** The pile's dialog: every card gone of a side. @param {View} view @param {string} side */
function openPile(view, side) {
  const cards = view.piles[side] || [];
  $("#pile-title").textContent = `${sideTitle(side)} cards gone (${cards.length})`;
  const box = $("#pile-cards");
  box.innerHTML = "";
  if (!cards.length) box.append(el("p", { text: "No card has left the game yet." }));
  for (const c of cards) box.append(cardEl(c, { full: true }));
  $("#pile-dialog", HTMLDialogElement).showModal();
}

/** The status line. @param {View} view */
function statusText(view) {
  const score = vocabulary.sides.map((s) => `${sideTitle(s)} ${view.score[s]}`).join(", ");
  let status = `Turn ${view.turn}/${view.turns} \u2014 ${view.title} \u2014 score ${score}`;
  if (view.status === "human") status += " \u2014 your decision";
  else if (view.status === "bot") status += " \u2014 the bot's move";
  else if (view.status === "review") status += " \u2014 review";
  else status += " \u2014 game over";
  return status;
}

/** The tab's title: says when the decision is the player's. @param {View} view */
function tabTitle(view) {
  const name = "Operation Wildhorn III";
  if (view.status === "human") return `\u25B6 Your decision \u2014 ${name}`;
  if (view.status === "bot") return `The bot's move \u2014 ${name}`;
  if (view.status === "over") return `Game over \u2014 ${name}`;
  return `Review \u2014 ${name}`;
}

/**
 * What the page scrolls into view (a card, a zone's heading) lands above the
 * sticky dock (below 1000 px: your hand and choices; wider: your hand), not
 * under it; the dock's height.
 */
export function keepClearOfDock() {
  const narrow = window.matchMedia("(max-width: 1000px)").matches;
  const covered = (narrow ? $("#dock") : $("#you")).getBoundingClientRect().height;
  document.documentElement.style.scrollPaddingBottom = `${Math.ceil(covered) + 6}px`;
  return covered;
}

/**
 * Keeps the cards of the bot's last move in sight: the first one marked on
 * the table that the sticky dock (your hand and choices) covers, or that is
 * out of the window, is scrolled into the part of the window above the dock.
 */
export function revealLastMove() {
  const covered = keepClearOfDock();
  const marked = document.querySelector("#table .card.last-move");
  if (!(marked instanceof HTMLElement)) return;
  const r = marked.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight - covered) marked.scrollIntoView({ block: "nearest" });
}

/**
 * Draws the whole table for a view.
 * @param {View} view
 * @param {Act} act what a click on an action does
 */
export function drawTable(view, act) {
  hideMenu();
  hideTip();
  const you = view.you, bot = view.bot_side;
  $("#status").textContent = statusText(view);
  document.title = tabTitle(view);
  $("#bot-time", HTMLInputElement).value = (view.bot.match(/time=([0-9.]+)/) || [null, "1.0"])[1];
  $("#btn-undo", HTMLButtonElement).disabled = !view.can_undo;
  $("#btn-hint", HTMLButtonElement).disabled = view.status !== "human";
  $("#btn-resign", HTMLButtonElement).disabled = !view.can_resign;

  // the opponent: its name, hand as backs, deck, pile; the Rocket cards and the pool
  const opp = $("#opponent");
  opp.innerHTML = "";
  opp.append(el("span", { class: "who", title: `the bot's spec: ${view.bot}`, "data-testid": "opponent-name",
                          text: `${view.bot_label} (${sideTitle(bot)})` }),
             backs(view.bot_hand, "hand", "bot-hand"), backs(view.decks.bot, "deck", "bot-deck", view.decks.bot ? 1 : 0),
             pileEl(view, bot));
  const rockets = el("span", { class: "rockets", "data-testid": "rockets" }, el("span", { class: "who", text: "Rockets" }));
  for (const r of view.rockets.revealed) rockets.append(el("div", { class: "rocket up", text: `${r}`, title: "revealed Rocket card" }));
  for (let i = 0; i < view.rockets.face_down; i++) rockets.append(el("div", { class: "rocket down", title: "Rocket card, face down" }));
  opp.append(rockets, el("span", { class: "pool" }, "pool: ", cubes(view.fragments.pool, "in the pool")));

  // zones, sized to what they hold; the fragments on event cards are shown in the Polish home (whose cards they are)
  const zones = $("#zones");
  zones.innerHTML = "";
  for (const z of view.zones) {
    const box = el("div", { class: `zone ${z.id}`, "data-zone": z.id, "data-testid": `zone-${z.id}` },
      el("div", { class: "zone-head" },
        el("span", { class: "zone-title", text: z.title + (z.home ? ` (${sideTitle(z.home)} home)` : "") }),
        cubes(z.fragments, `in the ${z.title}`)));
    if (z.id === vocabulary.homes[0] && (view.fragments.wildhorn || view.fragments.hidden)) {
      const extra = el("span", { class: "zone-extra" });
      if (view.fragments.wildhorn) extra.append(el("span", { text: "on Operation Wildhorn III: " }), cubes(view.fragments.wildhorn));
      if (view.fragments.hidden) extra.append(el("span", { text: " hidden: " }), cubes(view.fragments.hidden));
      box.firstElementChild?.append(extra);
    }
    for (const side of [bot, you]) {
      const cards = z.cards[side];
      const row = el("div", { class: `zone-side ${side === you ? "mine" : "theirs"}${cards.length ? "" : " empty"}` },
                     el("span", { class: "who", text: side === you ? "you" : "bot" }));
      for (const c of cards) row.append(cardEl(c));
      box.append(row);
    }
    zones.append(box);
  }

  const inPlay = $("#in-play");
  inPlay.innerHTML = "";
  inPlay.hidden = !view.in_play.length;
  if (view.in_play.length) {
    inPlay.append(el("span", { class: "who", text: "In play" }));
    for (const c of view.in_play) inPlay.append(cardEl(c));
  }

  // your hand (each card with its full text), deck and pile, in the dock
  const mine = $("#you");
  mine.innerHTML = "";
  const hand = el("div", { class: "hand", "data-testid": "hand" });
  for (const c of view.hand) hand.append(cardEl(c, { full: true }));
  if (!view.hand.length) hand.append(el("span", { class: "empty-hand", text: "no card in hand" }));
  mine.append(el("div", { class: "hand-head" },
                 el("span", { class: "who", "data-testid": "hand-title",
                              text: `Your hand (${sideTitle(you)}, ${plural(view.hand.length, "card")})` }),
                 backs(view.decks.you, "deck", "my-deck", view.decks.you ? 1 : 0), pileEl(view, you)),
              hand);

  drawActions(view, act);
  drawLog(view);
  drawBotMove(view);
  if (view.status !== "review") markLastMove(view);
  if (view.status === "over") showEnd(view);
  if (view.status !== "review") $("#review-banner").hidden = true;
  keepClearOfDock();
}

/** @param {import("./api.js").Pending | null} p */
function describePending(p) {
  if (!p) return null;
  const box = el("div", { class: "pending", "data-testid": "pending" },
                 el("div", { text: `Under way: ${p.text}` }));
  const dice = pendingDice(p);
  if (dice) box.append(dice);
  else if (p.totals) box.append(el("div", { class: "totals", text: p.totals }));
  else if (p.needed) box.append(el("div", { class: "totals", text: `needs ${p.needed} or more on the die` }));
  return box;
}

/** The prompt, the list of actions, and the cards and zones they act on. @param {View} view @param {Act} act */
function drawActions(view, act) {
  const prompt = $("#prompt"), list = $("#actions");
  const version = view.version;
  prompt.innerHTML = "";
  list.innerHTML = "";
  document.querySelectorAll(".actionable, .target, .destination").forEach(
    (e) => e.classList.remove("actionable", "target", "destination"));
  const pend = describePending(view.pending);
  if (view.status !== "human") {
    if (view.status === "bot") prompt.append(el("div", { class: "ask", text: "The bot is deciding\u2026" }));
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
          act(a.id, version);
        };
      }
    }
    // every action is also a button in the list (keyboard users, and a summary)
    const key = a.kind === "pass" ? " [p]" : (a.kind === "decline" ? " [d]" : "");
    list.append(el("button", { class: `action ${a.kind}`, "data-action": a.id, "data-version": version, title: a.help,
                               onclick: () => act(a.id, version) },
                   a.text + key, a.note ? el("small", { text: ` \u2014 ${a.note}` }) : null));
  }
  for (const [number, actions] of byCard) {
    document.querySelectorAll(`.card[data-number="${number}"]`).forEach((c) => {
      if (!(c instanceof HTMLElement) || c.closest("dialog")) return;
      c.classList.add(actions[0].target ? "target" : "actionable");
      c.onclick = (ev) => { ev.stopPropagation(); openMenu(c, actions, act, version); };
      c.onkeydown = (ev) => { if (ev.key === "Enter") { ev.stopPropagation(); openMenu(c, actions, act, version); } };
    });
  }
}

/**
 * A card's menu of its actions, for the position ``version`` names: a click
 * in it sends that version, so a menu of an older position never makes a move.
 * @param {HTMLElement} anchor @param {Action[]} actions @param {Act} act @param {string} version
 */
function openMenu(anchor, actions, act, version) {
  const menu = $("#menu");
  hideMenu();
  if (!actions.length) return;
  for (const a of actions) {
    menu.append(el("button", { "data-action": a.id, title: a.help,
                               onclick: (/** @type {MouseEvent} */ ev) => { ev.stopPropagation(); hideMenu(); act(a.id, version); } },
                   a.verb || a.text, a.note ? el("small", { class: "note", text: a.note }) : null));
  }
  menu.dataset.version = version;
  menu.dataset.card = anchor.dataset.number || "";
  anchorCard = anchor;
  menu.hidden = false;
  const r = anchor.getBoundingClientRect(), m = menu.getBoundingClientRect();
  anchorAt = r.top + r.left * 10000;
  const below = r.bottom + 2 + m.height <= window.innerHeight;
  menu.style.left = `${Math.max(4, Math.min(r.left, window.innerWidth - m.width - 4))}px`;
  menu.style.top = `${below ? r.bottom + 2 : Math.max(4, r.top - m.height - 2)}px`;
  const first = menu.querySelector("button");
  if (first instanceof HTMLElement) first.focus({ preventScroll: true });
}

/** @type {HTMLElement | null} the card whose menu is open */
let anchorCard = null;
/** where the card was when its menu opened */
let anchorAt = 0;

/** Closes the menu if its card has moved (the page or a strip scrolled under it). */
export function followAnchor() {
  if (!menuOpen() || !anchorCard) return;
  const r = anchorCard.getBoundingClientRect();
  if (Math.abs(r.top + r.left * 10000 - anchorAt) > 2) hideMenu();
}

/** Closes the card menu (and empties it: no stale button stays behind). */
export function hideMenu() {
  anchorCard = null;
  const menu = $("#menu");
  menu.hidden = true;
  menu.innerHTML = "";
  delete menu.dataset.version;
}

/** @returns {boolean} a card menu is open */
export function menuOpen() { return !$("#menu").hidden; }

/** @param {View} view */
function drawLog(view) {
  const log = $("#log");
  log.innerHTML = "";
  const since = view.last_move ? view.last_move.since : view.log_size;
  const first = (view.log_size || view.log.length) - view.log.length;
  view.log.forEach((e, i) => {
    const cls = `${e.who}${e.kind ? " k-" + e.kind : ""}${first + i >= since && view.status !== "review" ? " recent" : ""}`;
    log.append(el("li", { class: cls, value: first + i + 1, text: e.text }));
  });
  log.scrollTop = log.scrollHeight;
}

/** The end of the game: who won, and the graph of the chances. @param {View} view */
function showEnd(view) {
  const d = $("#end-dialog", HTMLDialogElement);
  const result = view.result || { you_win: false, text: "" };
  $("#end-title").textContent = result.you_win ? "You win" : "The bot wins";
  $("#end-text").textContent = result.text;
  const g = $("#end-graph");
  g.innerHTML = "";
  g.append(el("p", { text: "Your chance to win over the game, as the bot estimated it at each of its moves:" }),
           graph([estimates(view)]));
  if (!d.open) d.showModal();
}
