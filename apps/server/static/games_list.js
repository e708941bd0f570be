// @ts-check
// The games kept on this server (GET /api/games), listed in the new-game
// dialog: resume one, or close it, so a full server is never a lock-out.

import { api } from "./api.js";
import { $, el, showError } from "./dom.js";

/**
 * A line of GET /api/games.
 * @typedef {object} GameLine
 * @property {string} id
 * @property {string | null} side the human's side
 * @property {string | null} bot the bot's spec, as chosen
 * @property {string | null} [bot_label] the bot named for people ("ISMCTS, 1 s per move")
 * @property {number | null} turn
 * @property {boolean | null} over
 * @property {boolean} [unreadable] its save cannot be read (loading it says why)
 */

/** Fills the list from the server (the current game left out). */
async function fill() {
  const list = $("#games-list-items");
  const current = localStorage.getItem("wildhorn-game");
  /** @type {{ games: GameLine[] }} */
  const answer = await api("GET", "/api/games");
  const others = answer.games.filter((g) => g.id !== current);
  $("#games-list").hidden = others.length === 0;
  list.replaceChildren(...others.map((g) => el("li", { "data-game": g.id },
    el("span", { class: "game-line", title: g.bot || "", text: g.unreadable ? "a game whose save cannot be read"
      : `You play ${g.side === null ? "" : g.side[0].toUpperCase() + g.side.slice(1)} against the bot `
        + `(${g.bot_label || g.bot}), ` + (g.over ? "over" : `turn ${g.turn}`) }),
    g.unreadable ? null : el("button", { type: "button", class: "resume", text: "Resume",
      onclick: () => { localStorage.setItem("wildhorn-game", g.id); window.location.reload(); } }),
    el("button", { type: "button", class: "close", text: "Close",
      onclick: () => api("DELETE", `/api/games/${g.id}`).then(fill,
        (err) => showError(err instanceof Error ? err.message : String(err))) }))));
}

/** Refreshes the list each time the new-game dialog opens. */
export function setupGamesList() {
  const dialog = $("#new-dialog", HTMLDialogElement);
  new MutationObserver(() => {
    if (dialog.open) fill().catch((err) => showError(err instanceof Error ? err.message : String(err)));
  }).observe(dialog, { attributes: true, attributeFilter: ["open"] });
}
