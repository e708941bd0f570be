// @ts-check
// The game in progress: its state, one request per click, the bot's moves
// asked for one at a time, the game's buttons and keyboard shortcuts.

import { renderAdvice } from "./advice_view.js";
import { api, ApiError } from "./api.js";
import { $, el, showError, sleep } from "./dom.js";
import { drawTable, hideMenu } from "./table.js";
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

/** Draws a view and makes it the game's. @param {View} view */
export function show(view) {
  game.view = view;
  localStorage.setItem("wildhorn-game", view.id);
  game.id = view.id;
  drawTable(view, act);
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
    showError(err instanceof Error ? err.message : String(err));
    if (err instanceof ApiError && err.status === 404 && game.id) { localStorage.removeItem("wildhorn-game"); }
  } finally {
    game.busy = false;
  }
}

/** The human takes an action, then the bot moves. @param {number} actionId */
function act(actionId) {
  hideMenu();
  run(async () => {
    const version = game.view ? game.view.version : null;
    show(await api("POST", `/api/games/${game.id}/action`, { action: actionId, version }));
  }).then(botTurns);
}

function startThinking() {
  const box = $("#thinking");
  const t0 = performance.now();
  box.hidden = false;
  const tick = () => { box.textContent = `Bot is thinking\u2026 ${((performance.now() - t0) / 1000).toFixed(1)} s`; };
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
    while (game.view && game.view.status === "bot") {
      startThinking();
      /** @type {View} */
      let view;
      try {
        view = await api("POST", `/api/games/${game.id}/bot`);
      } catch (err) {
        showError(err instanceof Error ? err.message : String(err));
        break;
      } finally {
        stopThinking();
      }
      show(view);
      if (view.status === "bot") await sleep(350);
    }
  } finally {
    game.botLoop = false;
  }
}

/** @param {string} id */
async function loadGame(id) {
  show(await api("GET", `/api/games/${id}`));
  botTurns();
}

export function newGameDialog() {
  $("#new-dialog", HTMLDialogElement).showModal();
}

/** A new or loaded game closes the current one (its autosave goes): ask first. */
function mayClose() {
  const v = game.view;
  return !v || v.status === "over" ||
    confirm("This closes the game in progress (Save downloads it first). Go on?");
}

/** @param {HTMLFormElement} form the new-game dialog's */
async function startGame(form) {
  if (!mayClose()) return;
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
    $("#hint").hidden = true;
    show(view);
    if (old && old !== view.id) api("DELETE", `/api/games/${old}`).catch(() => {});
  });
  botTurns();
}

/** What the search would do. @param {import("./api.js").Advice} a */
function showHint(a) {
  const box = $("#hint");
  renderAdvice(box, a, { title: "Hint", testid: "hint", maxActions: 5 });
  box.hidden = false;
}

/** The game's keyboard shortcuts: p pass, d or Escape decline, Enter the only action, h hint, u undo. */
function shortcuts() {
  document.addEventListener("keydown", (ev) => {
    const view = game.view;
    if (ev.target instanceof HTMLElement && ev.target.tagName === "INPUT") return;
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
    if (a) { ev.preventDefault(); act(a.id); }
  });
}

/** Wires the game's buttons, then opens the game of the last visit or asks for a new one. */
export function setupGame() {
  $("#btn-new").onclick = newGameDialog;
  $("#btn-end-new").onclick = () => { $("#end-dialog", HTMLDialogElement).close(); newGameDialog(); };
  $("#btn-end-close").onclick = () => $("#end-dialog", HTMLDialogElement).close();
  $("#new-form").addEventListener("submit", (ev) => {
    const submitter = /** @type {SubmitEvent} */ (ev).submitter;
    if (submitter instanceof HTMLButtonElement && submitter.value === "start") {
      ev.preventDefault();
      $("#new-dialog", HTMLDialogElement).close();
      startGame($("#new-form", HTMLFormElement));
    }
  });
  $("#btn-hint").onclick = () => run(async () => {
    const box = $("#hint");
    box.hidden = false;
    box.textContent = "Thinking about your position\u2026";
    showHint(await api("POST", `/api/games/${game.id}/hint`));
  });
  $("#btn-undo").onclick = () => run(async () => {
    show(await api("POST", `/api/games/${game.id}/undo`));
    $("#hint").hidden = true;
  });
  $("#btn-resign").onclick = () => {
    if (confirm("Resign this game?")) run(async () => show(await api("POST", `/api/games/${game.id}/resign`)));
  };
  $("#btn-save").onclick = () => { window.location.href = `/api/games/${game.id}/save`; };
  const fileLoad = $("#file-load", HTMLInputElement);
  fileLoad.onchange = () => {
    const file = fileLoad.files && fileLoad.files[0];
    fileLoad.value = "";
    if (!file || !mayClose()) return;
    run(async () => {
      const text = await file.text();
      const old = game.id;
      /** @type {View} */
      const view = await api("POST", `/api/games/load?name=${encodeURIComponent(file.name)}`, text);
      show(view);
      if (old && old !== view.id) api("DELETE", `/api/games/${old}`).catch(() => {});
    }).then(botTurns);
  };
  $("#side-select").append(...vocabulary.sides.map((s) => el("option", { value: s, text: sideTitle(s) })),
                          el("option", { value: "random", text: "random" }));
  const botTime = $("#bot-time", HTMLInputElement);
  botTime.onchange = () => run(async () => {
    show(await api("POST", `/api/games/${game.id}/settings`, { time: Number(botTime.value) }));
  });
  document.addEventListener("click", (ev) => {
    if (ev.target instanceof Element && !ev.target.closest("#menu") && !ev.target.closest(".card")) hideMenu();
  });
  shortcuts();
  api("GET", "/api/bots").then((/** @type {import("./api.js").Bots} */ b) => {
    const sel = $("#bot-select");
    for (const spec of b.bots) sel.append(el("option", { value: spec, text: spec, selected: spec === b.default }));
    botTime.max = String(b.max_time);
  });
  const id = game.id;
  if (id) {
    run(() => loadGame(id)).then(() => { if (!game.view) newGameDialog(); });
  } else {
    newGameDialog();
  }
}
