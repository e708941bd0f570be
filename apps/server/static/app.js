// The Operation Wildhorn III table: plain JavaScript, no build step.
// It draws the view the server sends (GET /api/games/{id}) and sends one
// request per click; the bot's moves are asked for one at a time.
"use strict";

const $ = (sel) => document.querySelector(sel);
const state = { id: localStorage.getItem("wildhorn-game"), view: null, busy: false,
                thinkTimer: null, botLoop: false };
window.wildhorn = state;  // for the browser tests and the curious

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function showError(message) {
  const box = $("#error");
  box.textContent = message;
  box.hidden = !message;
}

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  let data;
  try { data = await res.json(); } catch (e) { data = { error: `${res.status} ${res.statusText}` }; }
  if (!res.ok) {
    const err = new Error(data.error || `${res.status}`);
    err.status = res.status;
    throw err;
  }
  return data;
}

// ---- drawing -----------------------------------------------------------------

const SIDE_TITLE = { polish: "Polish", german: "German" };

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

function showTip(anchor, card) {
  const tip = $("#tooltip");
  tip.innerHTML = "";
  tip.append(el("b", { text: `${card.number} ${card.name}` }),
             el("div", { text: `${SIDE_TITLE[card.side]} ${card.kind}` +
                               (card.bullets ? `, ${card.bullets} bullet${card.bullets > 1 ? "s" : ""}` : "") +
                               (card.exhausted ? ", exhausted" : card.exhausted === false ? ", fresh" : "") }),
             el("p", { text: card.text }));
  const r = anchor.getBoundingClientRect();
  tip.style.left = `${Math.min(window.innerWidth - 280, r.right + 6 + window.scrollX)}px`;
  tip.style.top = `${r.top + window.scrollY}px`;
  tip.hidden = false;
}
function hideTip() { $("#tooltip").hidden = true; }

function cubes(n, label) {
  const box = el("div", { class: "fragments", title: `${n} fragment${n === 1 ? "" : "s"}${label ? " " + label : ""}`,
                          "data-fragments": n });
  for (let i = 0; i < n; i++) box.append(el("span", { class: "cube" }));
  box.append(el("span", { class: "count", text: `${n}` }));
  return box;
}

function backs(n, label, testid, shown = n) {
  const box = el("div", { class: "backs", "data-testid": testid, "data-count": n });
  for (let i = 0; i < Math.min(shown, 8); i++) box.append(el("div", { class: "card back" }));
  box.append(el("span", { class: "count", text: `${label}: ${n}` }));
  return box;
}

function render(view) {
  state.view = view;
  localStorage.setItem("wildhorn-game", view.id);
  state.id = view.id;
  hideMenu();
  const you = view.you, bot = view.bot_side;
  let status = `Turn ${view.turn}/${view.turns} \u2014 ${view.title} against ${view.bot} \u2014 ` +
               `score Polish ${view.score.polish}, German ${view.score.german}`;
  if (view.status === "human") status += " \u2014 your decision";
  else if (view.status === "bot") status += " \u2014 the bot's move";
  else if (view.status === "review") status += " \u2014 review";
  else status += " \u2014 game over";
  $("#status").textContent = status;
  $("#bot-time").value = (view.bot.match(/time=([0-9.]+)/) || [null, "1.0"])[1];
  $("#btn-undo").disabled = !view.can_undo;
  $("#btn-hint").disabled = view.status !== "human";
  $("#btn-resign").disabled = view.status === "over";

  // the opponent: hand as backs, deck
  const opp = $("#opponent");
  opp.innerHTML = "";
  opp.append(el("span", { class: "who", text: `Bot (${SIDE_TITLE[bot]})` }),
             backs(view.bot_hand, "hand", "bot-hand"), backs(view.decks.bot, "deck", "bot-deck", view.decks.bot ? 1 : 0));

  // rocket cards
  const rockets = $("#rockets");
  rockets.innerHTML = "";
  rockets.append(el("span", { class: "who", text: "Rocket cards" }));
  for (const r of view.rockets.revealed) rockets.append(el("div", { class: "rocket up", text: `${r}`, title: "revealed Rocket card" }));
  for (let i = 0; i < view.rockets.face_down; i++) rockets.append(el("div", { class: "rocket down", title: "Rocket card, face down" }));
  rockets.append(el("span", { class: "pool" }, "pool: ", cubes(view.fragments.pool)));

  // zones
  const zones = $("#zones");
  zones.innerHTML = "";
  for (const z of view.zones) {
    const box = el("div", { class: `zone ${z.id}`, "data-zone": z.id, "data-testid": `zone-${z.id}` },
      el("div", { class: "zone-head" },
        el("span", { class: "zone-title", text: z.title + (z.home ? ` (${SIDE_TITLE[z.home]} home)` : "") }),
        cubes(z.fragments, `in the ${z.title}`)));
    if (z.id === "forest" && (view.fragments.wildhorn || view.fragments.hidden)) {
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
  mine.append(el("span", { class: "who", text: `Your hand (${SIDE_TITLE[you]})` }));
  const hand = el("div", { class: "hand", "data-testid": "hand" });
  for (const c of view.hand) hand.append(cardEl(c, { full: true }));
  mine.append(hand, backs(view.decks.you, "deck", "my-deck", view.decks.you ? 1 : 0));

  renderActions(view);
  renderLog(view);
  renderBotMove(view);
  if (view.status === "over") showEnd(view);
  if (view.status !== "review") $("#review-banner").hidden = true;
}

function describePending(p) {
  if (!p) return null;
  const box = el("div", { class: "pending", "data-testid": "pending" },
                 el("div", { text: `Under way: ${p.text}` }));
  if (p.totals) box.append(el("div", { class: "totals", text: p.totals }));
  else if (p.needed) box.append(el("div", { class: "totals", text: `needs ${p.needed} or more on the die` }));
  return box;
}

function renderActions(view) {
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
  const byCard = new Map();
  for (const a of view.actions) {
    const numbers = [];
    if (a.card) numbers.push(a.card, ...(a.same_as || []));
    if (a.target) numbers.push(a.target, ...(a.same_as || []));
    for (const n of numbers) {
      if (!byCard.has(n)) byCard.set(n, []);
      byCard.get(n).push(a);
    }
    if (a.zone) {
      const z = document.querySelector(`.zone[data-zone="${a.zone}"]`);
      if (z) {
        z.classList.add("destination");
        z.onclick = (ev) => { if (ev.target.closest(".card")) return; act(a.id); };
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
      c.classList.add(actions[0].target ? "target" : "actionable");
      c.onclick = (ev) => { ev.stopPropagation(); openMenu(c, actions); };
      c.onkeydown = (ev) => { if (ev.key === "Enter") openMenu(c, actions); };
    });
  }
}

function openMenu(anchor, actions) {
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
function hideMenu() { $("#menu").hidden = true; }

function renderLog(view) {
  const log = $("#log");
  log.innerHTML = "";
  for (const e of view.log) log.append(el("li", { class: e.who, text: e.text }));
  log.scrollTop = log.scrollHeight;
}

function renderBotMove(view) {
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

// lines of win probabilities (0..1) over the game: [{values, cls, label}]
function graph(series) {
  const w = 360, h = 120, ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("class", "graph");
  const mid = document.createElementNS(ns, "line");
  for (const [k, v] of Object.entries({ x1: 0, x2: w, y1: h / 2, y2: h / 2, class: "mid" })) mid.setAttribute(k, v);
  svg.append(mid);
  const box = el("div", { class: "graph-box" }, svg);
  for (const s of series) {
    if (!s.values.length) continue;
    const n = s.values.length;
    const p = document.createElementNS(ns, "polyline");
    p.setAttribute("points", s.values.map((v, i) => `${n === 1 ? w / 2 : (i * w) / (n - 1)},${h - v * h}`).join(" "));
    p.setAttribute("class", s.cls);
    svg.append(p);
    box.append(el("div", { class: `legend ${s.cls}`, text: s.label }));
  }
  if (!series.some((s) => s.values.length)) box.append(el("div", { text: "no estimate yet" }));
  return box;
}

function estimates(view) {
  return { values: view.win_estimates, cls: "bot-line", label: "the bot's estimate of your chance at each of its moves" };
}

function showEnd(view) {
  const d = $("#end-dialog");
  $("#end-title").textContent = view.result.you_win ? "You win" : "The bot wins";
  $("#end-text").textContent = view.result.text;
  const g = $("#end-graph");
  g.innerHTML = "";
  g.append(el("p", { text: "Your chance to win over the game:" }), graph([estimates(view)]));
  if (!d.open) d.showModal();
}

function pct(x) { return x === null || x === undefined ? "?" : `${(100 * x).toFixed(0)}%`; }

function reviewRow(d) {
  let text = `turn ${d.turn}: ${d.chosen}`;
  if (d.loss !== undefined && d.loss !== null) {
    text += d.loss > 0 ? ` \u2014 loses ${pct(d.loss)} (better: ${d.best}, ${pct(d.best_value)} instead of ${pct(d.chosen_value)})`
                       : ` \u2014 fine (${pct(d.chosen_value)})`;
  } else if (d.options === 1) text += " \u2014 forced";
  return el("li", { class: "review-row", "data-index": d.index, text, onclick: () => stepTo(d.index) });
}

function drawReview(r) {
  const rated = r.decisions.filter((d) => d.chosen_value !== undefined && d.chosen_value !== null);
  const g = $("#review-graph");
  g.innerHTML = "";
  g.append(graph([estimates(state.view),
                  { values: rated.map((d) => d.chosen_value), cls: "review-line",
                    label: "the review's value of each of your rated decisions" }]));
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

async function showReview() {
  const view = state.view;
  if (!view) return;
  const g = $("#review-graph");
  g.innerHTML = "";
  g.append(graph([estimates(view)]));
  $("#review-dialog").showModal();
  try {
    let r = await api("POST", `/api/games/${state.id}/review`);
    drawReview(r);
    while (r.done < r.total && $("#review-dialog").open) {
      await new Promise((res) => setTimeout(res, 700));
      r = await api("GET", `/api/games/${state.id}/review`);
      drawReview(r);
    }
  } catch (err) { showError(err.message); }
}

async function stepTo(k) {
  try {
    const view = await api("GET", `/api/games/${state.id}/review/${k}`);
    $("#review-dialog").close();
    $("#end-dialog").open && $("#end-dialog").close();
    state.reviewing = true;
    render(view);
    $("#review-banner-text").textContent =
      `The table at your decision ${k + 1} of ${view.review_step.of}; you chose: ${view.review_step.chosen}`;
    $("#review-banner").hidden = false;
  } catch (err) { showError(err.message); }
}

// ---- acting ---------------------------------------------------------------------

async function run(task) {
  if (state.busy) return;
  state.busy = true;
  try {
    showError("");
    await task();
  } catch (err) {
    showError(err.message);
    if (err.status === 404 && state.id) { localStorage.removeItem("wildhorn-game"); }
  } finally {
    state.busy = false;
  }
}

function act(actionId) {
  hideMenu();
  return run(async () => {
    const view = await api("POST", `/api/games/${state.id}/action`,
                           { action: actionId, version: state.view.version });
    render(view);
  }).then(botTurns);
}

function startThinking() {
  const box = $("#thinking");
  const t0 = performance.now();
  box.hidden = false;
  const tick = () => { box.textContent = `Bot is thinking\u2026 ${((performance.now() - t0) / 1000).toFixed(1)} s`; };
  tick();
  state.thinkTimer = setInterval(tick, 100);
}
function stopThinking() {
  clearInterval(state.thinkTimer);
  $("#thinking").hidden = true;
}

// the bot's moves, one at a time, each shown for a moment
async function botTurns() {
  if (state.botLoop) return;
  state.botLoop = true;
  try {
    while (state.view && state.view.status === "bot") {
      startThinking();
      let view;
      try {
        view = await api("POST", `/api/games/${state.id}/bot`);
      } catch (err) {
        showError(err.message);
        break;
      } finally {
        stopThinking();
      }
      render(view);
      if (view.status === "bot") await new Promise((r) => setTimeout(r, 350));
    }
  } finally {
    state.botLoop = false;
  }
}

async function loadGame(id) {
  const view = await api("GET", `/api/games/${id}`);
  render(view);
  botTurns();
}

function newGameDialog() {
  $("#new-dialog").showModal();
}

// a new or loaded game closes the current one (its autosave goes): ask first
function mayClose() {
  const v = state.view;
  return !v || v.status === "over" ||
    confirm("This closes the game in progress (Save downloads it first). Go on?");
}

async function startGame(form) {
  if (!mayClose()) return;
  const data = new FormData(form);
  const body = { side: data.get("side"), bot: data.get("bot") };
  if (data.get("seed") !== "") body.seed = Number(data.get("seed"));
  await run(async () => {
    const old = state.id;
    const view = await api("POST", "/api/games", body);
    $("#end-dialog").open && $("#end-dialog").close();
    $("#hint").hidden = true;
    render(view);
    if (old && old !== view.id) api("DELETE", `/api/games/${old}`).catch(() => {});
  });
  botTurns();
}

function showHint(a) {
  const box = $("#hint");
  box.innerHTML = "";
  box.append(el("h3", { text: `Hint: ${a.recommended}` }));
  if (a.value) box.append(el("div", { text: `Win probability: Polish ${(100 * a.value.polish).toFixed(0)}%, German ${(100 * a.value.german).toFixed(0)}%` }));
  const ol = el("ol");
  for (const r of (a.actions || []).slice(0, 5)) {
    ol.append(el("li", { text: `${r.action}: ${(100 * r.frequency).toFixed(0)}%` +
                               (r.value === null || r.value === undefined ? "" : `, value ${r.value.toFixed(2)}`) }));
  }
  box.append(ol);
  if (a.responses && a.responses.length) {
    box.append(el("div", { text: "If the bot answers:" }));
    const rl = el("ul");
    for (const r of a.responses) rl.append(el("li", { text: `if the ${r.if}, answer with ${r.then} (win ${(100 * r.value).toFixed(0)}%)` }));
    box.append(rl);
  }
  for (const k of Object.keys(a)) {
    if (!["recommended", "recommended_id", "actions", "value", "value_ci95", "responses", "stats", "to_move", "phase", "only"].includes(k)) {
      box.append(el("div", { text: `${k}: ${JSON.stringify(a[k])}` }));
    }
  }
  box.hidden = false;
}

function setup() {
  $("#btn-new").onclick = newGameDialog;
  $("#btn-end-new").onclick = () => { $("#end-dialog").close(); newGameDialog(); };
  $("#btn-end-close").onclick = () => $("#end-dialog").close();
  $("#btn-review").onclick = showReview;
  $("#btn-review-close").onclick = () => $("#review-dialog").close();
  $("#btn-review-back").onclick = () => run(async () => {
    state.reviewing = false;
    $("#review-banner").hidden = true;
    render(await api("GET", `/api/games/${state.id}`));
  });
  $("#new-form").addEventListener("submit", (ev) => {
    if (ev.submitter && ev.submitter.value === "start") { ev.preventDefault(); $("#new-dialog").close(); startGame(ev.target); }
  });
  $("#btn-hint").onclick = () => run(async () => {
    const box = $("#hint");
    box.hidden = false;
    box.textContent = "Thinking about your position\u2026";
    showHint(await api("POST", `/api/games/${state.id}/hint`));
  });
  $("#btn-undo").onclick = () => run(async () => {
    render(await api("POST", `/api/games/${state.id}/undo`));
    $("#hint").hidden = true;
  });
  $("#btn-resign").onclick = () => {
    if (confirm("Resign this game?")) run(async () => render(await api("POST", `/api/games/${state.id}/resign`)));
  };
  $("#btn-save").onclick = () => { window.location.href = `/api/games/${state.id}/save`; };
  $("#file-load").onchange = (ev) => {
    const file = ev.target.files[0];
    ev.target.value = "";
    if (!file || !mayClose()) return;
    run(async () => {
      const text = await file.text();
      const old = state.id;
      const view = await api("POST", `/api/games/load?name=${encodeURIComponent(file.name)}`, text);
      render(view);
      if (old && old !== view.id) api("DELETE", `/api/games/${old}`).catch(() => {});
    }).then(botTurns);
  };
  $("#bot-time").onchange = (ev) => run(async () => {
    render(await api("POST", `/api/games/${state.id}/settings`, { time: Number(ev.target.value) }));
  });
  document.addEventListener("click", (ev) => { if (!ev.target.closest("#menu") && !ev.target.closest(".card")) hideMenu(); });
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT" || !state.view || state.view.status !== "human") return;
    if (!$("#board").hidden) return;  // the analysis board is open: no game shortcuts
    const acts = state.view.actions;
    const find = (kinds) => acts.find((a) => kinds.includes(a.kind) || kinds.includes(a.text));
    let a = null;
    if (ev.key === "p") a = find(["pass"]);
    else if (ev.key === "d" || ev.key === "Escape") a = find(["decline", "pass priority", "keep hand"]);
    else if (ev.key === "Enter" && acts.length === 1) a = acts[0];
    else if (ev.key === "h") { $("#btn-hint").click(); return; }
    else if (ev.key === "u") { $("#btn-undo").click(); return; }
    if (a) { ev.preventDefault(); act(a.id); }
  });
  api("GET", "/api/bots").then((b) => {
    const sel = $("#bot-select");
    for (const spec of b.bots) sel.append(el("option", { value: spec, text: spec, selected: spec === b.default }));
    $("#bot-time").max = b.max_time;
  });
  if (state.id) {
    run(() => loadGame(state.id)).then(() => { if (!state.view) newGameDialog(); });
  } else {
    newGameDialog();
  }
}

setup();
