// @ts-check
// The game in progress: its state, one request per click, the bot's moves
// asked for one at a time, the game's buttons and keyboard shortcuts.

import { renderAdvice } from "./advice_view.js";
import { api, ApiError } from "./api.js";
import { askConfirm } from "./dialogs.js";
import { $, el, showError, sleep } from "./dom.js";
import { drawTable, followAnchor, hideMenu, menuOpen, revealLastMove } from "./table.js";
import { sideTitle, vocabulary } from "./vocabulary.js";

/** @typedef {import("./api.js").View} View */

/**
 * The page's game (the browser tests read it as window.wildhorn).
 * @typedef {object} GameState
 * @property {string | null} id the game's id (kept in localStorage across loads)
 * @property {View | null} view the last view drawn
 * @property {boolean} busy a request of the human's is under way
 * @property {number | undefined} thinkTimer the bot's thinking clock
 * @property {boolean} botLoop the bot's moves are being asked for
 * @property {boolean} reviewing the table shows a past decision
 */

/** @type {GameState} */
export const game = { id: localStorage.getItem("wildhorn-game"), view: null, busy: false,
                      thinkTimer: undefined, botLoop: false, reviewing: false };

/** A line under the toolbar saying what a button did (Undo's answer); "" hides it. @param {string} text */
export function showNotice(text) {
  const box = $("#notice");
  box.textContent = text;
  box.hidden = !text;
}

/** Empties and hides the hint: it speaks of a position that is gone. */
export function clearHint() {
  const box = $("#hint");
  box.hidden = true;
  box.innerHTML = "";
}

/**
 * Draws a view and makes it the game's; a new position (any new view: a
 * move, a new game, the end, the review) clears the hint.
 * @param {View} view
 */
export function show(view) {
  const before = game.view;
  if (!before || before.version !== view.version || before.id !== view.id || before.status !== view.status) {
    clearHint();
    showNotice("");
  }
  game.view = view;
  if (view.status !== "review") localStorage.setItem("wildhorn-game", view.id);
  game.id = view.id;
  drawTable(view, act);
  $("#pondering").hidden = !(view.pondering && view.status === "human");
}

/**
 * An error as a player reads it: the server's messages are written for
 * players; a lost connection says so.
 * @param {unknown} err
 */
export function playerMessage(err) {
  if (err instanceof ApiError) {
    if (err.status === 404 && /^unknown game/.test(err.message)) {
      return "This game is no longer on the server (it was closed): start a new game, or load a save.";
    }
    return err.message;
  }
  if (err instanceof TypeError) return "The server did not answer: is wildhorn-solve serve still running? (Reload the page once it is.)";
  return err instanceof Error ? err.message : String(err);
}

/**
 * Runs one request of the human's at a time; its error goes to the error line.
 * @param {() => Promise<unknown>} task
 */
export async function run(task) {
  if (game.busy) return;
  game.busy = true;
  try {
    showError("");
    await task();
  } catch (err) {
    showError(playerMessage(err));
    if (err instanceof ApiError && err.status === 404 && game.id) { localStorage.removeItem("wildhorn-game"); }
  } finally {
    game.busy = false;
  }
}

/**
 * The human takes an action chosen in the position ``version``, then the
 * bot moves.  A click from a menu or list of an older position is ignored.
 * @param {number} actionId @param {string} version
 */
function act(actionId, version) {
  hideMenu();
  const view = game.view;
  if (!view || view.version !== version || view.status !== "human" || game.busy) return;
  run(async () => {
    show(await api("POST", `/api/games/${game.id}/action`, { action: actionId, version }));
  }).then(botTurns);
}

/** The thinking indicator, in the choices (in view at every size). @param {number} n the bot's decision, 1 for its first since yours */
function startThinking(n) {
  const box = $("#thinking");
  const t0 = performance.now();
  box.hidden = false;
  const bot = game.view ? `${sideTitle(game.view.bot_side)} (the bot)` : "The bot";
  const which = n > 1 ? `its decision ${n} since yours` : "its decision";
  const tick = () => { box.textContent = `${bot} is thinking about ${which}\u2026 ${((performance.now() - t0) / 1000).toFixed(1)} s`; };
  tick();
  game.thinkTimer = window.setInterval(tick, 100);
}
function stopThinking() {
  clearInterval(game.thinkTimer);
  $("#thinking").hidden = true;
}

/** The bot's moves, one at a time, each shown for a moment. */
async function botTurns() {
  if (game.botLoop) return;
  game.botLoop = true;
  try {
    let n = 0;
    while (game.view && game.view.status === "bot") {
      startThinking(++n);
      /** @type {View} */
      let view;
      try {
        view = await api("POST", `/api/games/${game.id}/bot`);
      } catch (err) {
        showError(playerMessage(err));
        break;
      } finally {
        stopThinking();
      }
      show(view);  // each decision of the bot as it is made, marked on the table
      revealLastMove();
      if (view.status === "bot") await sleep(350);
    }
  } finally {
    game.botLoop = false;
  }
}

/** @param {string} id */
async function loadGame(id) {
  show(await api("GET", `/api/games/${id}`));
  revealLastMove();
  botTurns();
}

export function newGameDialog() {
  $("#new-dialog", HTMLDialogElement).showModal();
}

/** A new or loaded game closes the current one (its autosave goes): ask first. */
async function mayClose() {
  const v = game.view;
  return !v || v.status === "over" ||
    askConfirm("This closes the game in progress (Save downloads it first). Go on?", "Close it");
}

/** @param {HTMLFormElement} form the new-game dialog's */
async function startGame(form) {
  if (!(await mayClose())) return;
  const data = new FormData(form);
  /** @type {{ side: FormDataEntryValue | null, bot: FormDataEntryValue | null, seed?: number }} */
  const body = { side: data.get("side"), bot: data.get("bot") };
  if (data.get("seed") !== "") body.seed = Number(data.get("seed"));
  await run(async () => {
    const old = game.id;
    /** @type {View} */
    const view = await api("POST", "/api/games", body);
    const end = $("#end-dialog", HTMLDialogElement);
    if (end.open) end.close();
    clearHint();
    game.reviewing = false;
    show(view);
    if (old && old !== view.id) api("DELETE", `/api/games/${old}`).catch(() => {});
  });
  botTurns();
}

/** What the search would do. @param {import("./api.js").Advice} a */
function showHint(a) {
  const box = $("#hint");
  renderAdvice(box, a, { title: "Hint", testid: "hint", maxActions: 5 });
  const view = game.view;
  if (view && !a.only) {
    // whose chance it gives, and why it need not add up with the bot's own figure (issue 46)
    const you = sideTitle(view.you), bot = sideTitle(view.bot_side);
    box.querySelector("h3")?.after(el("p", { class: "hint-note", "data-testid": "hint-note",
      text: `Chances here are yours (${you}), from your information; the bot's own rating ` +
            `under its moves (${bot}) is from its information: the two need not add up to 100%.` }));
  }
  box.prepend(el("button", { type: "button", class: "hint-close", title: "Close the hint", "aria-label": "close the hint",
                             text: "\u00d7", onclick: clearHint }));
  box.hidden = false;
  box.scrollTop = 0;  // the hint is in the choices, which stay in the window at every size
}

/** The game's keyboard shortcuts: p pass, d or Escape decline, Enter the only action, h hint, u undo. */
function shortcuts() {
  document.addEventListener("keydown", (ev) => {
    const view = game.view;
    if (ev.key === "Escape" && menuOpen()) { ev.preventDefault(); hideMenu(); return; }
    if (ev.target instanceof HTMLElement && ev.target.tagName === "INPUT") return;
    if (document.querySelector("dialog[open]")) return;  // a dialog has the keys
    if (!view || view.status !== "human") return;
    if (!$("#board").hidden) return;  // the analysis board is open: no game shortcuts
    const acts = view.actions;
    /** @param {string[]} kinds */
    const find = (kinds) => acts.find((a) => kinds.includes(a.kind) || kinds.includes(a.text));
    let a;
    if (ev.key === "p") a = find(["pass"]);
    else if (ev.key === "d" || ev.key === "Escape") a = find(["decline", "pass priority", "keep hand"]);
    else if (ev.key === "Enter" && acts.length === 1) a = acts[0];
    else if (ev.key === "h") { $("#btn-hint").click(); return; }
    else if (ev.key === "u") { $("#btn-undo").click(); return; }
    if (a) { ev.preventDefault(); act(a.id, view.version); }
  });
}

/** Wires the game's buttons, then opens the game of the last visit or asks for a new one. */
export function setupGame() {
  $("#btn-new").onclick = newGameDialog;
  $("#btn-end-new").onclick = () => { $("#end-dialog", HTMLDialogElement).close(); newGameDialog(); };
  $("#btn-end-close").onclick = () => $("#end-dialog", HTMLDialogElement).close();
  $("#btn-pile-close").onclick = () => $("#pile-dialog", HTMLDialogElement).close();
  $("#new-form").addEventListener("submit", (ev) => {
    const submitter = /** @type {SubmitEvent} */ (ev).submitter;
    if (submitter instanceof HTMLButtonElement && submitter.value === "start") {
      ev.preventDefault();
      $("#new-dialog", HTMLDialogElement).close();
      startGame($("#new-form", HTMLFormElement));
    }
  });
  $("#btn-hint").onclick = () => run(async () => {
    const view = game.view;
    if (!view || view.status !== "human") return;
    const box = $("#hint");
    box.hidden = false;
    box.textContent = "Thinking about your position\u2026";
    /** @type {import("./api.js").Advice} */
    const advice = await api("POST", `/api/games/${game.id}/hint`);
    // the position may have changed meanwhile: a hint of another position is dropped
    if (game.view && game.view.version === view.version && game.view.status === "human") showHint(advice);
    else clearHint();
  });
  $("#btn-undo").onclick = () => {
    if (game.view && game.view.can_undo) run(async () => {
      /** @type {View} */
      const view = await api("POST", `/api/games/${game.id}/undo`);
      show(view);
      if (view.undone) showNotice(`${view.undone} Back to that decision.`);  // as the terminal says it
    });
  };
  $("#btn-resign").onclick = async () => {
    if (!game.view || !game.view.can_resign) return;
    if (await askConfirm("Resign this game? The bot wins it.", "Resign")) {
      run(async () => show(await api("POST", `/api/games/${game.id}/resign`)));
    }
  };
  $("#btn-save").onclick = () => { window.location.href = `/api/games/${game.id}/save`; };
  const fileLoad = $("#file-load", HTMLInputElement);
  fileLoad.onchange = () => {
    const file = fileLoad.files && fileLoad.files[0];
    fileLoad.value = "";
    if (!file) return;
    mayClose().then(async (yes) => { if (yes) await run(async () => {
      const text = await file.text();
      const old = game.id;
      /** @type {View} */
      const view = await api("POST", `/api/games/load?name=${encodeURIComponent(file.name)}`, text);
      show(view);
      if (old && old !== view.id) api("DELETE", `/api/games/${old}`).catch(() => {});
    }); }).then(botTurns);
  };
  $("#side-select").append(...vocabulary.sides.map((s) => el("option", { value: s, text: sideTitle(s) })),
                          el("option", { value: "random", text: "random" }));
  const botTime = $("#bot-time", HTMLInputElement);
  botTime.onchange = () => {
    const t = Number(botTime.value), max = Number(botTime.max || "10");
    if (!(t >= 0.1 && t <= max)) {
      showError(`The bot's time per move goes from 0.1 to ${max} seconds.`);
      if (game.view) botTime.value = (game.view.bot.match(/time=([0-9.]+)/) || [null, "1.0"])[1];
      return;
    }
    run(async () => {
      show(await api("POST", `/api/games/${game.id}/settings`, { time: t }));
    });
  };
  // a card's menu closes on a click anywhere else, and when the page scrolls or resizes under it
  document.addEventListener("click", (ev) => {
    if (ev.target instanceof Element && !ev.target.closest("#menu")) hideMenu();
  }, true);
  window.addEventListener("resize", () => hideMenu());
  // the page, or a strip holding the menu's card, scrolled: the menu would float away from its card
  document.addEventListener("scroll", followAnchor, { capture: true, passive: true });
  shortcuts();
  // the new-game dialog opens only once its bot list is filled: a dialog shown
  // before would offer an empty choice of opponent
  const botsReady = api("GET", "/api/bots").then((/** @type {import("./api.js").Bots} */ b) => {
    const sel = $("#bot-select");
    for (const spec of b.bots) {
      sel.append(el("option", { value: spec, text: (b.labels && b.labels[spec] || spec).replace(/^Bot: /, ""),
                                title: spec, selected: spec === b.default }));
    }
    botTime.max = String(b.max_time);
  }).catch((e) => showError(String(e && e.message || e)));
  // ... and not over the analysis board when the page opened on it (#board)
  const startDialog = () => {
    if (!game.view) $("#status").textContent = "No game in progress: start one in the New game dialog.";
    if ($("#board").hidden) newGameDialog();
  };
  const id = game.id;
  if (id) {
    Promise.all([botsReady, run(() => loadGame(id))]).then(() => { if (!game.view) startDialog(); });
  } else {
    botsReady.then(startDialog);
  }
}
