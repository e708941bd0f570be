// @ts-check
// The analysis board: build a position by clicking, checked as you go by
// the server's state checker (the same code as `wildhorn-solve advise`),
// and the advice of that position.  The position itself (the fields, the
// card places, the state.json they make) is board_model.js's.

import { renderAdvice } from "./advice_view.js";
import { send } from "./api.js";
import { $, el } from "./dom.js";
import { game, newGameDialog } from "./game.js";
import { actingCards, blank, board, cardsAt, hasAbility, kindOf, kindsOf, pendingActor, position,
         rocketCount, setPosition } from "./board_model.js";
import { isChanceStep, otherSide, sideTitle, vocabulary, zoneIds, zoneName } from "./vocabulary.js";

/** @typedef {import("./api.js").StateJson} StateJson */
/** @typedef {import("./api.js").Check} Check */
/** @typedef {import("./api.js").Analysis} Analysis */
/** @typedef {import("./api.js").Advice} Advice */
/** @typedef {[string | number, string]} Option a value and its text */

/** Where a clicked card goes: the hands, the zones, beside them, or back to unseen. */
const DESTS = [["hand", "Hand"], ["drawn", "Hand, drawn this turn"], ...vocabulary.zones,
               ["gone", "Gone"], ["event", "Beside the zones"], ["unseen", "Unseen (deck / their hand)"]];

/** @returns {Option[]} the sides, by their titles */
const sideOptions = () => vocabulary.sides.map((s) => /** @type {Option} */ ([s, sideTitle(s)]));

/** @param {string} path @param {unknown} body @param {string} [raw] a body sent as it is */
function post(path, body, raw) {
  return send("POST", path, raw !== undefined ? raw : body);
}

// ---- the fields (one object of values, drawn as controls) ---------------------------

/**
 * @typedef {object} Binding how a control reads and writes its value
 * @property {() => unknown} [get] the value (default: the field named by the key)
 * @property {(value: string) => void} [set] stores a chosen value (default: into that field)
 * @property {boolean} [number] the default field holds a number
 */

/**
 * A control's reading and writing of the fields: its own, or the field of its key.
 * @param {string} key
 * @param {Binding} opts
 * @returns {{ get: () => unknown, set: (value: string) => void }}
 */
function bind(key, opts) {
  // a control without its own get/set is bound to the field of its name:
  // the fields are addressed by that name, so they are read as a record here
  const fields = () => /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (board.f));
  if (!(opts.get && opts.set) && !(key in fields())) throw new Error(`no field ${key}`);
  return { get: opts.get || (() => fields()[key]),
           set: opts.set || ((v) => { fields()[key] = opts.number ? Number(v) : v; }) };
}

/** @param {string} key @returns {string} its control's id */
const controlId = (key) => `b-${key.replace(/[._]/g, "-")}`;

/** @param {Option[]} list @param {unknown} value the one selected */
function options(list, value) {
  return list.map(([v, t]) => el("option", { value: String(v), text: t, selected: String(v) === String(value) }));
}

/**
 * A labelled select bound to a field; path: the JSON path its messages name.
 * @param {string} key @param {string} label @param {Option[]} list @param {string} path
 * @param {Binding} [opts]
 */
function select(key, label, list, path, opts = {}) {
  const b = bind(key, opts);
  const s = el("select", { id: controlId(key), "data-path": path, "aria-label": label }, ...options(list, b.get()));
  s.addEventListener("change", () => { b.set(s.value); changed(); });
  return el("label", { class: "b-field", "data-path": path }, el("span", { text: label }), s,
            el("span", { class: "b-err" }));
}

/**
 * A row of buttons, one per value (one click to choose), bound like select().
 * @param {string} key @param {string} label @param {Option[]} list @param {string} path
 * @param {Binding} [opts]
 */
function seg(key, label, list, path, opts = {}) {
  const b = bind(key, opts);
  const value = String(b.get());
  const row = el("span", { class: "b-seg", id: controlId(key), role: "radiogroup", "aria-label": label });
  for (const [v, t] of list) {
    row.append(el("button", { class: String(v) === value ? "on" : "", "data-value": String(v),
                              "aria-pressed": String(v) === value ? "true" : "false", text: t,
                              onclick: () => { b.set(String(v)); changed(); } }));
  }
  return el("div", { class: "b-field", "data-path": path }, el("span", { text: label }), row,
            el("span", { class: "b-err" }));
}

/**
 * @param {string} id @param {string} label @param {string} path
 * @param {() => boolean} get @param {(checked: boolean) => void} set
 */
function checkbox(id, label, path, get, set) {
  const c = el("input", { type: "checkbox", id, "data-path": path, checked: get() });
  c.addEventListener("change", () => { set(c.checked); changed(); });
  return el("label", { class: "b-field", "data-path": path }, c, el("span", { text: " " + label }),
            el("span", { class: "b-err" }));
}

/** @param {number} a @param {number} b @returns {Option[]} a..b */
const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => /** @type {Option} */ ([a + i, String(a + i)]));
/** @param {string[]} numbers @param {string} none the text of no card @returns {Option[]} */
const cardOpts = (numbers, none) => [["", none], ...numbers.map((n) => /** @type {Option} */ ([n, board.byNumber[n].name]))];

/** @param {import("./board_model.js").Fields} f @returns {string} who moves when "auto" */
function toMoveText(f) {
  return isChanceStep(f.step) ? "chance" : sideTitle(f.perspective);
}

function drawFields() {
  const f = board.f, box = $("#b-fields");
  box.innerHTML = "";
  /** @param {string} title @param {...(Node | null)} items */
  const sec = (title, ...items) => box.append(el("fieldset", {}, el("legend", { text: title }), ...items));
  // the steps in the order of play
  const steps = vocabulary.phases.filter((p) => vocabulary.steps.includes(p));
  sec("Whose view, and when",
      seg("perspective", "View of", sideOptions(), "$.perspective"),
      seg("turn", "Turn", range(1, 4), "$.turn", { number: true }),
      select("step", "Step", steps.map((s) => [s, s]), "$.step"),
      select("to_move", f.step === "modifiers" ? "Priority (to move)" : "To move",
             [["auto", `auto (${toMoveText(f)})`], ...sideOptions(), ["none", "nobody (chance)"]], "$.to_move"));
  const rockets = [];
  const n = rocketCount(f);
  for (let i = 0; i < n; i++) {
    const used = f.rockets.filter((v, j) => j !== i && j < n).map(String);
    rockets.push(seg(`rocket${i}`, `Rocket ${i + 1}`,
                     [["", "?"], ...range(1, 5).filter(([v]) => !used.includes(String(v)))],
                     `$.rockets[${i}]`, { get: () => f.rockets[i] ?? "", set: (v) => { f.rockets[i] = v === "" ? "" : Number(v); } }));
  }
  if (board.extra.game) sec("Game", el("span", { class: "b-note", text: `not the rulebook game: ${JSON.stringify(board.extra.game)} (from the import; Clear for the rulebook game)` }));
  sec("Rocket cards revealed", el("div", { class: "b-field b-rockets", "data-path": "$.rockets" },
      ...(rockets.length ? rockets : [el("span", { class: "b-note", text: "none yet" })]), el("span", { class: "b-err" })));
  const hs = vocabulary.sides.map((s) => {
    if (s === f.perspective) return el("div", { class: "b-field", "data-path": `$.hand_sizes.${s}`,
                                                text: `${sideTitle(s)} hand: ${cardsAt(["hand", "drawn"], s).length} (yours)` });
    if (f.hs_auto) return el("div", { class: "b-field", "data-path": `$.hand_sizes.${s}`, id: `b-hs-${s}`,
                                      text: `${sideTitle(s)} hand: ${f.hs[s]} (follows from the cards seen)` },
                             el("span", { class: "b-err" }));
    return select(`hs.${s}`, `${sideTitle(s)} hand`, range(0, 23), `$.hand_sizes.${s}`,
                  { get: () => f.hs[s], set: (v) => { f.hs[s] = Number(v); } });
  });
  const derived = (board.last && board.last.derived) || {};
  const decks = derived.decks;
  sec("Hands and decks", ...hs,
      checkbox("b-hs-auto", "fill the opponent's hand size", "$.hand_sizes", () => f.hs_auto, (v) => { f.hs_auto = v; }),
      el("div", { class: "b-note", id: "b-decks",
                  text: decks ? `decks: ${vocabulary.sides.map((s) => `${sideTitle(s)} ${decks[s]}`).join(", ")}` : "" }),
      ...vocabulary.sides.map((s) => checkbox(`b-redraw-used-${s}`, `${sideTitle(s)} used the redraw`, `$.redraw_used.${s}`,
                                              () => f.redraw_used[s], (v) => { f.redraw_used[s] = v; })),
      f.step === "redraw" ? select("redraw_choice", "Your redraw decision", [["", "not taken"], ["keep", "keep"], ["redraw", "redraw"]],
                                   "$.redraw_choice")
        : el("div", {}, ...vocabulary.sides.map((s) => checkbox(`b-redrew-${s}`, `${sideTitle(s)} redrew this turn`, `$.redraw_choice.${s}`,
                                                                () => f.redrew[s], (v) => { f.redrew[s] = v; }))));
  // the zones' fragments first, then those on event cards
  const places = [...vocabulary.fragments.filter(([k]) => zoneIds.includes(k)),
                  ...vocabulary.fragments.filter(([k]) => !zoneIds.includes(k))];
  sec("Fragments", ...places.map(([k, t]) =>
    select(`frag-${k}`, t, range(0, 15), `$.fragments.${k}`, { get: () => f.fragments[k], set: (v) => { f.fragments[k] = Number(v); } })),
      el("div", { class: "b-note", id: "b-pool", text: derived.pool === undefined || derived.pool === null ? "" : `pool: ${derived.pool}` }));
  sec("The chain of actions",
      select("actor", "Actor", [["auto", "auto"], ...sideOptions()], "$.actions.actor"),
      select("left", "Actions left", range(0, 6), "$.actions.left", { number: true }),
      select("passes", "Passes in a row", range(0, 2), "$.actions.passes", { number: true }),
      el("details", { open: f.mr.some((k) => k) || f.mr_due ? true : null },
         el("summary", { text: "Motorized Column refreshes to come (R12)" }),
         ...[0, 1, 2].map((i) => select(`mr${i}`, `due after ${i + 1} more action${i ? "s" : ""}`, range(0, 3),
                                        "$.actions.motorized_refresh", { get: () => f.mr[i], set: (v) => { f.mr[i] = Number(v); } })),
         select("mr_due", "owed now", range(0, 3), "$.actions.motorized_refresh", { number: true })));
  const kinds = kindsOf(f);
  if (!kinds.length) {
    sec("Under way", el("span", { class: "b-note", text: `nothing at the ${f.step} step` }));
    return;
  }
  const kind = kindOf(f), actor = pendingActor(f);
  const items = [select("kind", "Action", kinds.map((k) => [k, k.replace("_", " ")]), "$.pending.kind", { get: () => kind }),
                 select("p_actor", "Declared by", [["auto", `auto (${sideTitle(actor)})`], ...sideOptions()], "$.pending.actor")];
  if (kind !== "motorized_refresh") items.push(select("p_card", "Acting card", cardOpts(actingCards(kind, actor), "choose"), "$.pending.card"));
  if (kind === "attack") {
    // the target stands in the attacker's zone; an escort is a card with
    // Escort of the target's side in that zone (R15, R16)
    const zone = f.p_card ? board.place[f.p_card] : null;
    const enemy = cardsAt(zone ? [zone] : zoneIds, otherSide(actor));
    const escorts = enemy.filter((c) => hasAbility(c, "escort"));
    items.push(select("p_target", "Target", cardOpts(enemy, f.step === "target" ? "being chosen" : "choose"), "$.pending.target"));
    if (f.step !== "target") {
      items.push(select("p_defender", "Defender", cardOpts(escorts.filter((c) => c !== f.p_target), "the target"), "$.pending.defender"),
                 checkbox("b-p-escorted", "escorted", "$.pending.escorted", () => f.p_escorted, (v) => { f.p_escorted = v; }));
    }
  }
  if (kind === "movement" && f.step === "motorcycle") {
    items.push(select("p_zone", "Destination", [["", "choose"], ...vocabulary.table_order.map((z) => /** @type {Option} */ ([z, zoneName(z)]))],
                      "$.pending.zone"));
  }
  if (vocabulary.dice_steps.includes(f.step) && kind !== "movement") {
    /** @type {Option[]} */
    const dieOpts = [["", "-"], ...range(1, 6)];
    items.push(select("die1", "Die 1 (actor)", dieOpts, "$.pending.dice"));
    if (kind === "attack") items.push(select("die2", "Die 2 (defender)", dieOpts, "$.pending.dice"));
    if (f.step !== "roll") {
      items.push(select("mod1", "Actor's modifiers", range(-6, 6), "$.pending.modifiers", { number: true }),
                 select("mod2", "Defender's modifiers", range(-6, 6), "$.pending.modifiers", { number: true }),
                 select("p_passes", "Window passes", [["", "-"], ...range(0, 2)], "$.pending.window_passes"));
    }
  }
  sec("Under way", ...items);
}

// ---- cards: the list, the destinations, the places ----------------------------------

function drawDests() {
  const box = $("#b-dests");
  box.innerHTML = "";
  for (const [d, t] of DESTS) {
    if (d === "drawn" && board.f.step !== "redraw") continue;
    box.append(el("button", { class: `b-dest${board.dest === d ? " on" : ""}`, "data-dest": d, role: "radio",
                              "aria-checked": board.dest === d ? "true" : "false", text: t,
                              onclick: () => { board.dest = d; drawDests(); } }));
  }
}

/** @param {string} number @param {string} path */
function chip(number, path) {
  const c = board.byNumber[number];
  return el("button", { class: `b-chip ${c.side}${board.exhausted[number] ? " exhausted" : ""}`, "data-card": number,
                        "data-path": path, title: `${c.name}: ${c.text}` }, `${c.name}${board.exhausted[number] ? " (exhausted)" : ""}`);
}

function drawPlaces() {
  const box = $("#b-places");
  box.innerHTML = "";
  const pos = position();
  /** @type {Record<string, number>} */
  const tableIndex = {};
  pos.table.forEach((t, i) => { tableIndex[t.card] = i; });
  const f = board.f;
  /** @param {string} z */
  const zoneRow = (z) => {
    const row = el("div", { class: `b-zone ${z}`, "data-zone": z, "data-path": "$.table" },
                   el("div", { class: "b-zone-title", text: `${zoneName(z)} \u2014 ${f.fragments[z]} fragment${f.fragments[z] === 1 ? "" : "s"}` }));
    for (const n of cardsAt([z])) {
      const e = chip(n, `$.table[${tableIndex[n]}]`);
      e.title += " (click to turn it: exhausted / fresh)";
      e.onclick = () => { board.exhausted[n] = !board.exhausted[n]; changed(); };
      row.append(e);
    }
    row.append(el("span", { class: "b-err" }));
    return row;
  };
  for (const z of vocabulary.table_order) box.append(zoneRow(z));
  /** @param {string} title @param {string[]} numbers @param {string} path @param {string} cls */
  const list = (title, numbers, path, cls) => {
    const row = el("div", { class: `b-zone ${cls}`, "data-path": path }, el("div", { class: "b-zone-title", text: title }));
    numbers.forEach((n, i) => {
      const e = chip(n, `${path}[${i}]`);
      e.onclick = () => { delete board.place[n]; changed(); };
      e.title += " (click to take it back)";
      row.append(e);
    });
    row.append(el("span", { class: "b-err" }));
    return row;
  };
  box.append(list(`Your hand (${sideTitle(f.perspective)})`, pos.hand, "$.hand", "hand"));
  if (f.step === "redraw") box.append(list("Drawn this turn", pos.drawn_this_turn || [], "$.drawn_this_turn", "drawn"));
  box.append(list("Beside the zones (Operation Wildhorn III, Hidden Fragments)", pos.events_in_play, "$.events_in_play", "event"),
             list("Gone", pos.gone, "$.gone", "gone"));
}

function drawCardList() {
  const box = $("#b-cardlist");
  box.innerHTML = "";
  for (const side of vocabulary.sides) {
    const col = el("div", { class: "b-side" }, el("h3", { text: `${sideTitle(side)} cards` }));
    for (const c of board.cards.filter((x) => x.side === side)) {
      const where = board.place[c.number];
      col.append(el("button", { class: `b-card ${side}${where ? " placed " + where : ""}`, "data-card": c.number,
                                title: c.text, onclick: () => put(c.number) },
                    c.name, where ? el("small", { text: ` \u2014 ${placeName(where)}` }) : null));
    }
    box.append(col);
  }
}
/** @param {string} p @returns {string} */
function placeName(p) { const d = DESTS.find(([k]) => k === p); return d ? d[1].toLowerCase() : p; }

/** A card clicked in the list goes to the chosen place (or back, clicked again). @param {string} number */
function put(number) {
  const d = board.dest;
  if (d === "unseen" || board.place[number] === d) delete board.place[number];
  else {
    board.place[number] = d;
    if (!zoneIds.includes(d)) board.exhausted[number] = false;
  }
  changed();
}

// ---- checking ---------------------------------------------------------------------

function drawAll() {
  drawFields();
  drawDests();
  drawPlaces();
  drawCardList();
  showCheck();
}

function changed() {
  board.changes += 1;
  drawAll();
  check();
}

/** @param {{ error?: string, path?: string }} data a failure's answer @returns {Check} */
const failure = (data) => ({ ok: false, error: data.error, path: data.path || "$" });

async function check() {
  const seq = ++board.seq;
  board.checking = true;
  $("#b-analyse", HTMLButtonElement).disabled = true;
  const state = position();
  let r;
  try { r = await post("/api/board/check", { state, auto: board.f.hs_auto }); }
  catch (e) { r = { ok: false, status: 0, data: { error: String(e), path: "$" } }; }
  if (seq !== board.seq) return;  // a newer change is being checked
  board.checking = false;
  /** @type {Check} */
  const answer = r.data;
  board.last = r.ok ? answer : { ...failure(answer), derived: board.last ? board.last.derived : undefined };
  if (r.ok && board.f.hs_auto && answer.state) {
    const hs = answer.state.hand_sizes;
    if (vocabulary.sides.some((s) => hs[s] !== board.f.hs[s])) { board.f.hs = { ...hs }; drawFields(); }
  }
  if (r.ok) { drawFields(); }
  showCheck();
}

/** The element whose data-path is the longest prefix of the message's path. @param {string} path */
function fieldFor(path) {
  /** @type {Element | null} */
  let best = null, bestLen = -1;
  for (const e of document.querySelectorAll("#board [data-path]")) {
    const p = e.getAttribute("data-path") || "";
    const fits = path === p || path.startsWith(p + ".") || path.startsWith(p + "[");
    if (fits && p.length > bestLen && (e.tagName === "LABEL" || e.classList.contains("b-field") ||
                                       e.classList.contains("b-zone") || e.classList.contains("b-chip"))) {
      best = e; bestLen = p.length;
    }
  }
  return best;
}

function showCheck() {
  document.querySelectorAll("#board .b-invalid").forEach((e) => e.classList.remove("b-invalid"));
  document.querySelectorAll("#board .b-err").forEach((e) => { e.textContent = ""; });
  const box = $("#b-check"), r = board.last;
  const analyse = $("#b-analyse", HTMLButtonElement);
  if (!r) { box.textContent = "checking\u2026"; analyse.disabled = true; return; }
  if (!r.ok) {
    const message = (r.error || "").replace(/^position: /, "");
    box.className = "bad";
    box.textContent = `Not a valid position: ${message}`;
    const e = fieldFor(r.path || "$");
    if (e) {
      e.classList.add("b-invalid");
      let err = e.querySelector(":scope > .b-err");
      if (e.classList.contains("b-chip") && e.parentElement) {
        err = e.parentElement.querySelector(":scope > .b-err");
      }
      if (err) { err.textContent = message; err.setAttribute("data-testid", "field-error"); }
    }
    analyse.disabled = true;
    analyse.title = "the position must be valid first";
    return;
  }
  box.className = r.advisable ? "good" : "warn";
  box.textContent = r.advisable
    ? `Valid: ${sideTitle(r.to_move || "")} to move at the ${r.step} step, ${r.legal_actions} legal actions.`
    : `Valid, but not to analyse: ${r.why}.`;
  analyse.disabled = !r.advisable || !!board.job;
  analyse.title = r.advisable ? "search this position" : r.why || "";
}

// ---- loading a position into the editor ------------------------------------------------

/** @param {StateJson} s a checked state.json object */
function load(s) {
  setPosition(s);
  drawAll();
  check();
}

// ---- advice -----------------------------------------------------------------------------

/** @param {Advice} a the analysis's advice, in a player's words (advice_view.js) */
function showAdvice(a) {
  renderAdvice($("#b-advice"), a, { title: "Recommended", testid: "board" });
}

/** @param {Analysis} v an analysis under way: its progress, said */
function sayProgress(v) {
  const bar = $("#b-progress", HTMLProgressElement);
  // the main search's share of its budget as a bar; the responses'
  // searches depend on the replies found, so that phase has no fraction
  if (v.progress === null || v.progress === undefined) bar.removeAttribute("value");
  else { bar.max = 1; bar.value = v.progress; }
  $("#b-progress-text").textContent = v.status === "queued"
    ? `waiting for a free search slot (${v.searches_running} running, ${v.searches_waiting} waiting)\u2026 ${v.elapsed.toFixed(1)} s`
    : v.phase === "main search"
      ? `main search: ${v.iterations_done} of ${v.iterations} iterations, then the responses\u2026 ${v.elapsed.toFixed(1)} s`
      : `the responses: ${v.iterations_done - v.iterations} more iterations so far\u2026 ${v.elapsed.toFixed(1)} s`;
}

/**
 * The analysis's progress as server-sent events (as the bot's thinking); at
 * their end, or if they fail, the last known state of it.
 * @param {string} job @param {Analysis} started
 * @returns {Promise<Analysis>}
 */
function followEvents(job, started) {
  return new Promise((resolve) => {
    const es = new EventSource(`/api/board/analyses/${job}/events`);
    es.addEventListener("status", (ev) => sayProgress(JSON.parse(ev.data)));
    es.addEventListener("done", (ev) => { es.close(); resolve(JSON.parse(ev.data)); });
    es.onerror = () => { es.close(); resolve(started); };
  });
}

async function analyse() {
  if (!board.last || !board.last.ok || board.job) return;
  const iterations = Number($("#b-budget", HTMLInputElement).value);
  const r = await post("/api/board/analyses", { state: position(), iterations, seed: 0 });
  if (!r.ok) { board.last = failure(r.data); showCheck(); return; }
  /** @type {Analysis} */
  const started = r.data;
  const job = started.id;
  board.job = job;
  $("#b-analyse", HTMLButtonElement).disabled = true;
  $("#b-stop").hidden = false;
  $("#b-progress").hidden = false;
  $("#b-advice").innerHTML = "";
  try {
    // polling if the events ended before the search did
    let v = await followEvents(job, started);
    while (v.status === "queued" || v.status === "running") {
      sayProgress(v);
      await new Promise((res) => setTimeout(res, 250));
      const g = await fetch(`/api/board/analyses/${job}`);
      v = await g.json();
      if (!g.ok) throw new Error(v.error);
    }
    if (v.status === "done" && v.result) {
      $("#b-progress-text").textContent = `done in ${v.elapsed.toFixed(1)} s (${v.iterations} iterations, a fresh search)`;
      showAdvice(v.result);
    } else {
      $("#b-progress-text").textContent = v.status === "stopped" ? "stopped" : `the search failed: ${v.error}`;
    }
  } catch (e) {
    $("#b-progress-text").textContent = `the search failed: ${e instanceof Error ? e.message : e}`;
  } finally {
    board.job = null;
    $("#b-stop").hidden = true;
    $("#b-progress").hidden = true;
    showCheck();
  }
}

// ---- in and out --------------------------------------------------------------------------

/** The board opens: the card set is fetched the first time (not with the
 * table: a player's page never needs it). */
async function open() {
  $("#board").hidden = false;
  $("main").hidden = true;
  const d = $("#new-dialog", HTMLDialogElement);
  if (d.open) d.close();
  if (!game.view) $("#status").textContent = "no game open";
  if (board.cards.length) return;
  const res = await fetch("/api/board/cards");
  /** @type {import("./api.js").CardSet} */
  const data = await res.json();
  board.cards = data.cards;
  for (const c of board.cards) board.byNumber[c.number] = c;
  const budget = $("#b-budget", HTMLInputElement);
  budget.max = String(Math.min(data.max_iterations, 20000));
  budget.value = String(Math.min(data.default_iterations, Number(budget.max)));
  $("#b-budget-text").textContent = budget.value;
  $("#b-fresh").textContent = data.note.charAt(0).toUpperCase() + data.note.slice(1) + ".";
  board.f = blank();
  drawAll();
  await check();
  board.changes = 0;
  board.ready = true;
}
function close() {
  $("#board").hidden = true;
  $("main").hidden = false;
  if (history.replaceState && location.hash.startsWith("#board")) history.replaceState(null, "", location.pathname);
  if (!game.view) newGameDialog();
}

/** @param {string | undefined} message */
function showFailure(message) {
  board.last = { ok: false, error: message, path: "$" };
  showCheck();
}

/** @param {string} text @param {string} name */
async function importText(text, name) {
  const r = await post(`/api/board/import?name=${encodeURIComponent(name)}`, null, text);
  if (!r.ok) { showFailure(r.data.error); return; }
  load(r.data.state);
}

async function exportFile() {
  const res = await fetch("/api/board/export", { method: "POST", headers: { "Content-Type": "application/json" },
                                                  body: JSON.stringify({ state: position() }) });
  if (!res.ok) { board.last = failure(await res.json()); showCheck(); return; }
  const blob = await res.blob();
  const name = (res.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
  const a = el("a", { href: URL.createObjectURL(blob), download: name ? name[1] : "state.json" });
  document.body.append(a);
  a.click();
  a.remove();
}

async function copyLink() {
  const r = await post("/api/board/link", { state: position() });
  if (!r.ok) { board.last = failure(r.data); showCheck(); return; }
  const url = `${location.origin}${location.pathname}#board=${r.data.code}`;
  $("#b-link-text", HTMLInputElement).value = url;
  if (history.replaceState) history.replaceState(null, "", `#board=${r.data.code}`);
  try { await navigator.clipboard.writeText(url); } catch (e) { /* the text field holds it */ }
}

/** @param {string} code a link's, after #board= */
async function openLink(code) {
  await open();
  const r = await post("/api/board/link/open", { code });
  if (!r.ok) { showFailure(r.data.error); return; }
  load(r.data.state);
}

/** The position of the game on the table (or of the decision reviewed), as its human sees it. */
async function fromGame() {
  if (!game.id) return;
  const step = game.view && game.view.review_step ? `?k=${game.view.review_step.index}` : "";
  const r = await post(`/api/games/${game.id}/position${step}`, {});
  if (!r.ok) { const e = $("#error"); e.textContent = r.data.error; e.hidden = false; return; }
  await open();
  load(r.data.state);
}

/** Wires the board's buttons; opens the board if the address asks for it (#board, #board=code). */
export async function setupBoard() {
  board.load = load;
  const budget = $("#b-budget", HTMLInputElement);
  budget.oninput = () => { $("#b-budget-text").textContent = budget.value; };
  $("#b-analyse").onclick = analyse;
  $("#b-stop").onclick = () => { if (board.job) fetch(`/api/board/analyses/${board.job}`, { method: "DELETE" }); };
  $("#b-clear").onclick = () => { board.f = blank(); board.place = {}; board.exhausted = {}; board.extra = {}; changed(); };
  $("#b-export").onclick = exportFile;
  $("#b-link").onclick = copyLink;
  $("#b-back").onclick = close;
  const importer = $("#b-import", HTMLInputElement);
  importer.onchange = async () => {
    const file = importer.files && importer.files[0];
    importer.value = "";
    if (file) await importText(await file.text(), file.name);
  };
  $("#btn-board").onclick = open;
  $("#btn-analyse-here").onclick = fromGame;
  const m = location.hash.match(/^#board=(.+)$/);
  if (m) await openLink(m[1]);
  else if (location.hash === "#board") await open();
}
