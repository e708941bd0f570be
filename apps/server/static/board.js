// The analysis board: build a position by clicking, checked as you go by
// the server's state checker (the same code as `wildhorn-solve advise`),
// and the advice of that position.  Plain JavaScript, no build step.
// The position is held as a state.json object (docs/state-format.md).
"use strict";

(() => {
  const $ = (sel) => document.querySelector(sel);
  const SIDES = ["polish", "german"];
  const TITLE = { polish: "Polish", german: "German" };
  const ZONES = [["base", "Rocket Base"], ["periphery", "Periphery"], ["forest", "Forest"]];
  const STEPS = ["redraw", "rocket", "actions", "zone", "motorcycle", "target", "escort", "ambush",
                 "modifiers", "roll", "nurses", "witnesses", "refresh", "number"];
  const KINDS = { zone: ["movement"], motorcycle: ["movement"], target: ["attack"], escort: ["attack"],
                  ambush: ["attack"], nurses: ["attack"], modifiers: ["attack", "search", "spy", "sturmwind"],
                  roll: ["attack", "search", "spy", "sturmwind"], witnesses: ["search"],
                  refresh: ["command", "high_morale", "motorized_refresh"], number: ["hidden_fragments"] };
  const ON_TABLE_KINDS = ["movement", "attack", "search", "spy", "sturmwind", "command"];
  const DESTS = [["hand", "Hand"], ["drawn", "Hand, drawn this turn"], ["forest", "Forest"],
                 ["periphery", "Periphery"], ["base", "Rocket Base"], ["gone", "Gone"],
                 ["event", "Beside the zones"], ["unseen", "Unseen (deck / their hand)"]];
  const other = (s) => (s === "polish" ? "german" : "polish");

  const B = {
    cards: [], byNumber: {}, dest: "hand", place: {}, exhausted: {}, drawn: {},
    f: null, extra: {}, seq: 0, last: null, checking: false, changes: 0, job: null,
    maxIterations: 20000,
  };
  window.wildhornBoard = B;  // for the browser tests

  // el(tag, attrs, ...children): the element builder of app.js (loaded first)

  async function post(path, body, raw) {
    const res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
                                    body: raw !== undefined ? raw : JSON.stringify(body) });
    let data;
    try { data = await res.json(); } catch (e) { data = { error: `${res.status} ${res.statusText}` }; }
    return { ok: res.ok, status: res.status, data };
  }

  // ---- the fields (one object of values, drawn as selects) ---------------------------

  function blank() {
    return { perspective: "polish", turn: 1, step: "actions", to_move: "auto",
             hs_auto: true, hs: { polish: 3, german: 3 }, rockets: [],
             fragments: { periphery: 0, hidden: 0, forest: 0, wildhorn: 0, base: 0 },
             redraw_used: { polish: false, german: false }, redraw_choice: "",
             actor: "auto", left: 1, passes: 0, mr: [0, 0, 0], mr_due: 0,
             redrew: { polish: false, german: false },
             kind: "", p_actor: "auto", p_card: "", p_target: "", p_defender: "", p_escorted: false,
             p_zone: "", die1: "", die2: "", mod1: 0, mod2: 0, p_passes: "" };
  }

  function rocketCount(f) {
    return Math.max(0, Math.min(5, ["redraw", "rocket"].includes(f.step) ? f.turn - 1 : f.turn));
  }
  function kindsOf(f) { return KINDS[f.step] || []; }
  function kindOf(f) {
    const ks = kindsOf(f);
    if (!ks.length) return "";
    return ks.includes(f.kind) ? f.kind : ks[0];
  }
  function toMove(f) {
    if (f.to_move !== "auto") return f.to_move === "none" ? null : f.to_move;
    return ["rocket", "roll"].includes(f.step) ? null : f.perspective;
  }
  function pendingActor(f) {
    if (f.p_actor !== "auto") return f.p_actor;
    const mover = toMove(f) || f.perspective;
    const k = kindOf(f);
    if (k === "spy") return "polish";
    if (k === "sturmwind") return "german";
    return ["escort", "nurses", "modifiers"].includes(f.step) ? other(mover) : mover;
  }
  // what a kind of action needs of its acting card (the card's abilities, and
  // where it stands: Search in the Periphery, Spy and Sturmwind in the enemy
  // home zone), so the editor offers only cards the rules allow
  const ABILITY = { movement: "movement", attack: "attack", search: "search", spy: "spy",
                    sturmwind: "sturmwind", command: "command" };
  const ABILITY_ZONES = { search: ["periphery"] };
  const ENEMY_HOME = { polish: "base", german: "forest" };
  function hasAbility(number, kind) {
    const card = B.cards.find((c) => c.number === number);
    const need = ABILITY[kind] || kind;
    return !!card && !!card.abilities && need in card.abilities;
  }

  function cardsAt(places, side) {
    return B.cards.filter((c) => places.includes(B.place[c.number]) && (!side || c.side === side))
                  .map((c) => c.number);
  }

  // the state.json object of the editor
  function position() {
    const f = B.f;
    const s = { format: "wildhorn-state/1" };
    if (B.extra.game) s.game = B.extra.game;  // a variant's parameters, kept from an import
    Object.assign(s, { perspective: f.perspective, turn: f.turn, step: f.step, to_move: toMove(f) });
    s.hand = cardsAt(["hand", "drawn"], f.perspective);
    s.hand_sizes = { polish: f.hs.polish, german: f.hs.german };
    s.hand_sizes[f.perspective] = s.hand.length;
    s.rockets = f.rockets.slice(0, rocketCount(f)).filter((v) => v !== "" && v !== undefined).map(Number);
    s.fragments = { ...f.fragments };
    s.table = B.cards.filter((c) => ["forest", "periphery", "base"].includes(B.place[c.number]))
                     .map((c) => ({ card: c.number, zone: B.place[c.number], exhausted: !!B.exhausted[c.number] }));
    s.gone = cardsAt(["gone"]);
    s.events_in_play = cardsAt(["event"]);
    s.redraw_used = { ...f.redraw_used };
    if (f.step === "redraw") {
      s.drawn_this_turn = cardsAt(["drawn"], f.perspective);
      if (f.redraw_choice !== "") s.redraw_choice = { [f.perspective]: f.redraw_choice === "redraw" };
    } else if (f.redrew.polish || f.redrew.german) s.redraw_choice = { ...f.redrew };
    s.actions = { left: Number(f.left), passes: Number(f.passes) };
    if (f.actor !== "auto") s.actions.actor = f.actor;
    if (f.mr.some((k) => k) || f.mr_due) {
      s.actions.motorized_refresh = { counters: [1, 2, 3].flatMap((a, i) => Array(f.mr[i]).fill(a)),
                                      due: f.mr_due };
    }
    const kind = kindOf(f);
    if (!kind) s.pending = null;
    else {
      const p = { kind, actor: pendingActor(f), card: f.p_card || null };
      if (kind === "attack") {
        p.target = f.p_target || null;
        if (f.p_defender) p.defender = f.p_defender;
        if (f.p_escorted) p.escorted = true;
      }
      if (kind === "movement" && f.p_zone) p.zone = f.p_zone;
      const dice = [f.die1, f.die2].filter((d) => d !== "").map(Number);
      if (dice.length) p.dice = dice;
      if (Number(f.mod1) || Number(f.mod2)) p.modifiers = [Number(f.mod1), Number(f.mod2)];
      if (f.p_passes !== "") p.window_passes = Number(f.p_passes);
      s.pending = p;
    }
    return s;
  }

  function options(list, value) {
    return list.map(([v, t]) => el("option", { value: String(v), text: t, selected: String(v) === String(value) }));
  }

  // a labelled select bound to B.f[key]; path: the JSON path its messages name
  function select(key, label, list, path, opts = {}) {
    const value = opts.get ? opts.get() : B.f[key];
    const s = el("select", { id: `b-${key.replace(/[._]/g, "-")}`, "data-path": path, "aria-label": label },
                 ...options(list, value));
    s.addEventListener("change", () => {
      const v = s.value;
      if (opts.set) opts.set(v); else B.f[key] = opts.number ? Number(v) : v;
      changed();
    });
    return el("label", { class: "b-field", "data-path": path }, el("span", { text: label }), s,
              el("span", { class: "b-err" }));
  }
  // a row of buttons, one per value (one click to choose), bound like select()
  function seg(key, label, list, path, opts = {}) {
    const value = String(opts.get ? opts.get() : B.f[key]);
    const row = el("span", { class: "b-seg", id: `b-${key.replace(/[._]/g, "-")}`, role: "radiogroup", "aria-label": label });
    for (const [v, t] of list) {
      row.append(el("button", { class: String(v) === value ? "on" : "", "data-value": String(v),
                                "aria-pressed": String(v) === value ? "true" : "false", text: t,
                                onclick: () => {
                                  if (opts.set) opts.set(String(v)); else B.f[key] = opts.number ? Number(v) : String(v);
                                  changed();
                                } }));
    }
    return el("div", { class: "b-field", "data-path": path }, el("span", { text: label }), row,
              el("span", { class: "b-err" }));
  }
  function checkbox(id, label, path, get, set) {
    const c = el("input", { type: "checkbox", id, "data-path": path, checked: get() });
    c.addEventListener("change", () => { set(c.checked); changed(); });
    return el("label", { class: "b-field", "data-path": path }, c, el("span", { text: " " + label }),
              el("span", { class: "b-err" }));
  }
  const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => [a + i, String(a + i)]);
  const cardOpts = (numbers, none) => [["", none], ...numbers.map((n) => [n, B.byNumber[n].name])];

  function drawFields() {
    const f = B.f, box = $("#b-fields");
    box.innerHTML = "";
    const sec = (title, ...items) => box.append(el("fieldset", {}, el("legend", { text: title }), ...items));
    sec("Whose view, and when",
        seg("perspective", "View of", SIDES.map((s) => [s, TITLE[s]]), "$.perspective"),
        seg("turn", "Turn", range(1, 4), "$.turn", { number: true }),
        select("step", "Step", STEPS.map((s) => [s, s]), "$.step"),
        select("to_move", f.step === "modifiers" ? "Priority (to move)" : "To move", [["auto", `auto (${toMoveText(f)})`], ["polish", "Polish"],
                                      ["german", "German"], ["none", "nobody (chance)"]], "$.to_move"));
    const rockets = [];
    const n = rocketCount(f);
    for (let i = 0; i < n; i++) {
      const used = f.rockets.filter((v, j) => j !== i && j < n).map(String);
      rockets.push(seg(`rocket${i}`, `Rocket ${i + 1}`,
                       [["", "?"], ...range(1, 5).filter(([v]) => !used.includes(String(v)))],
                       `$.rockets[${i}]`, { get: () => f.rockets[i] ?? "", set: (v) => { f.rockets[i] = v === "" ? "" : Number(v); } }));
    }
    if (B.extra.game) sec("Game", el("span", { class: "b-note", text: `not the rulebook game: ${JSON.stringify(B.extra.game)} (from the import; Clear for the rulebook game)` }));
    sec("Rocket cards revealed", el("div", { class: "b-field b-rockets", "data-path": "$.rockets" },
        ...(rockets.length ? rockets : [el("span", { class: "b-note", text: "none yet" })]), el("span", { class: "b-err" })));
    const hs = SIDES.map((s) => {
      if (s === f.perspective) return el("div", { class: "b-field", "data-path": `$.hand_sizes.${s}`,
                                                  text: `${TITLE[s]} hand: ${cardsAt(["hand", "drawn"], s).length} (yours)` });
      if (f.hs_auto) return el("div", { class: "b-field", "data-path": `$.hand_sizes.${s}`, id: `b-hs-${s}`,
                                        text: `${TITLE[s]} hand: ${f.hs[s]} (follows from the cards seen)` },
                               el("span", { class: "b-err" }));
      return select(`hs.${s}`, `${TITLE[s]} hand`, range(0, 23), `$.hand_sizes.${s}`,
                    { get: () => f.hs[s], set: (v) => { f.hs[s] = Number(v); } });
    });
    const derived = (B.last && B.last.derived) || {};
    sec("Hands and decks", ...hs,
        checkbox("b-hs-auto", "fill the opponent's hand size", "$.hand_sizes", () => f.hs_auto, (v) => { f.hs_auto = v; }),
        el("div", { class: "b-note", id: "b-decks",
                    text: derived.decks ? `decks: Polish ${derived.decks.polish}, German ${derived.decks.german}` : "" }),
        ...SIDES.map((s) => checkbox(`b-redraw-used-${s}`, `${TITLE[s]} used the redraw`, `$.redraw_used.${s}`,
                                     () => f.redraw_used[s], (v) => { f.redraw_used[s] = v; })),
        f.step === "redraw" ? select("redraw_choice", "Your redraw decision", [["", "not taken"], ["keep", "keep"], ["redraw", "redraw"]],
                                     "$.redraw_choice")
          : el("div", {}, ...SIDES.map((s) => checkbox(`b-redrew-${s}`, `${TITLE[s]} redrew this turn`, `$.redraw_choice.${s}`,
                                                       () => f.redrew[s], (v) => { f.redrew[s] = v; }))));
    sec("Fragments", ...[["periphery", "Periphery"], ["forest", "Forest"], ["base", "Rocket Base"],
                         ["hidden", "on Hidden Fragments"], ["wildhorn", "on Operation Wildhorn III"]].map(([k, t]) =>
      select(`frag-${k}`, t, range(0, 15), `$.fragments.${k}`, { get: () => f.fragments[k], set: (v) => { f.fragments[k] = Number(v); } })),
        el("div", { class: "b-note", id: "b-pool", text: derived.pool === undefined || derived.pool === null ? "" : `pool: ${derived.pool}` }));
    sec("The chain of actions",
        select("actor", "Actor", [["auto", "auto"], ["polish", "Polish"], ["german", "German"]], "$.actions.actor"),
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
    } else {
      const kind = kindOf(f), actor = pendingActor(f);
      const items = [select("kind", "Action", kinds.map((k) => [k, k.replace("_", " ")]), "$.pending.kind", { get: () => kind }),
                     select("p_actor", "Declared by", [["auto", `auto (${TITLE[actor]})`], ["polish", "Polish"], ["german", "German"]], "$.pending.actor")];
      let own = [];
      if (ON_TABLE_KINDS.includes(kind)) own = cardsAt(ABILITY_ZONES[kind] || ["forest", "periphery", "base"], actor)
        .filter((n) => hasAbility(n, kind) && (kind !== "spy" && kind !== "sturmwind"
                                               || B.place[n] === ENEMY_HOME[actor]));
      else if (kind === "high_morale") own = cardsAt(["gone"], actor);
      else if (kind === "hidden_fragments") own = cardsAt(["event"], actor);
      if (kind !== "motorized_refresh") items.push(select("p_card", "Acting card", cardOpts(own, "choose"), "$.pending.card"));
      if (kind === "attack") {
        // the target stands in the attacker's zone; an escort is a card with
        // Escort of the target's side in that zone (R15, R16)
        const zone = f.p_card ? B.place[f.p_card] : null;
        const enemy = cardsAt(zone ? [zone] : ["forest", "periphery", "base"], other(actor));
        const escorts = enemy.filter((n) => hasAbility(n, "escort"));
        items.push(select("p_target", "Target", cardOpts(enemy, f.step === "target" ? "being chosen" : "choose"), "$.pending.target"));
        if (!["target"].includes(f.step)) {
          items.push(select("p_defender", "Defender", cardOpts(escorts.filter((n) => n !== f.p_target), "the target"), "$.pending.defender"),
                     checkbox("b-p-escorted", "escorted", "$.pending.escorted", () => f.p_escorted, (v) => { f.p_escorted = v; }));
        }
      }
      if (kind === "movement" && f.step === "motorcycle") {
        items.push(select("p_zone", "Destination", [["", "choose"], ...ZONES.map(([z, t]) => [z, t])], "$.pending.zone"));
      }
      if (["modifiers", "nurses", "witnesses", "roll"].includes(f.step) && kind !== "movement") {
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
  }
  function toMoveText(f) {
    const m = ["rocket", "roll"].includes(f.step) ? null : f.perspective;
    return m ? TITLE[m] : "chance";
  }

  // ---- cards: the list, the destinations, the places ----------------------------------

  function drawDests() {
    const box = $("#b-dests");
    box.innerHTML = "";
    for (const [d, t] of DESTS) {
      if (d === "drawn" && B.f.step !== "redraw") continue;
      box.append(el("button", { class: `b-dest${B.dest === d ? " on" : ""}`, "data-dest": d, role: "radio",
                                "aria-checked": B.dest === d ? "true" : "false", text: t,
                                onclick: () => { B.dest = d; drawDests(); } }));
    }
  }

  function chip(number, path) {
    const c = B.byNumber[number];
    const e = el("button", { class: `b-chip ${c.side}${B.exhausted[number] ? " exhausted" : ""}`, "data-card": number,
                             "data-path": path, title: `${c.name}: ${c.text}` }, `${c.name}${B.exhausted[number] ? " (exhausted)" : ""}`);
    return e;
  }

  function drawPlaces() {
    const box = $("#b-places");
    box.innerHTML = "";
    const pos = position();
    const tableIndex = {};
    pos.table.forEach((t, i) => { tableIndex[t.card] = i; });
    const f = B.f;
    const zoneRow = (z, t) => {
      const row = el("div", { class: `b-zone ${z}`, "data-zone": z, "data-path": "$.table" },
                     el("div", { class: "b-zone-title", text: `${t} \u2014 ${f.fragments[z]} fragment${f.fragments[z] === 1 ? "" : "s"}` }));
      for (const n of cardsAt([z])) {
        const e = chip(n, `$.table[${tableIndex[n]}]`);
        e.title += " (click to turn it: exhausted / fresh)";
        e.onclick = () => { B.exhausted[n] = !B.exhausted[n]; changed(); };
        row.append(e);
      }
      row.append(el("span", { class: "b-err" }));
      return row;
    };
    for (const [z, t] of ZONES) box.append(zoneRow(z, t));
    const list = (title, numbers, path, cls) => {
      const row = el("div", { class: `b-zone ${cls}`, "data-path": path }, el("div", { class: "b-zone-title", text: title }));
      numbers.forEach((n, i) => {
        const e = chip(n, `${path}[${i}]`);
        e.onclick = () => { delete B.place[n]; changed(); };
        e.title += " (click to take it back)";
        row.append(e);
      });
      row.append(el("span", { class: "b-err" }));
      return row;
    };
    box.append(list(`Your hand (${TITLE[f.perspective]})`, pos.hand, "$.hand", "hand"));
    if (f.step === "redraw") box.append(list("Drawn this turn", pos.drawn_this_turn, "$.drawn_this_turn", "drawn"));
    box.append(list("Beside the zones (Operation Wildhorn III, Hidden Fragments)", pos.events_in_play, "$.events_in_play", "event"),
               list("Gone", pos.gone, "$.gone", "gone"));
  }

  function drawCardList() {
    const box = $("#b-cardlist");
    box.innerHTML = "";
    for (const side of SIDES) {
      const col = el("div", { class: "b-side" }, el("h3", { text: `${TITLE[side]} cards` }));
      for (const c of B.cards.filter((x) => x.side === side)) {
        const where = B.place[c.number];
        col.append(el("button", { class: `b-card ${side}${where ? " placed " + where : ""}`, "data-card": c.number,
                                  title: c.text, onclick: () => put(c.number) },
                      c.name, where ? el("small", { text: ` \u2014 ${placeName(where)}` }) : null));
      }
      box.append(col);
    }
  }
  function placeName(p) { const d = DESTS.find(([k]) => k === p); return d ? d[1].toLowerCase() : p; }

  function put(number) {
    const d = B.dest;
    if (d === "unseen" || B.place[number] === d) delete B.place[number];
    else {
      B.place[number] = d;
      if (!["forest", "periphery", "base"].includes(d)) B.exhausted[number] = false;
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
    B.changes += 1;
    drawAll();
    check();
  }

  async function check() {
    const seq = ++B.seq;
    B.checking = true;
    $("#b-analyse").disabled = true;
    const state = position();
    let r;
    try { r = await post("/api/board/check", { state, auto: B.f.hs_auto }); }
    catch (e) { r = { ok: false, data: { error: String(e), path: "$" } }; }
    if (seq !== B.seq) return;  // a newer change is being checked
    B.checking = false;
    B.last = r.ok ? r.data : { ok: false, error: r.data.error, path: r.data.path || "$",
                               derived: B.last && B.last.derived };
    if (r.ok && B.f.hs_auto) {
      const hs = r.data.state.hand_sizes;
      if (hs.polish !== B.f.hs.polish || hs.german !== B.f.hs.german) { B.f.hs = { ...hs }; drawFields(); }
    }
    if (r.ok) { drawFields(); }
    showCheck();
  }

  // the element whose data-path is the longest prefix of the message's path
  function fieldFor(path) {
    let best = null, bestLen = -1;
    for (const e of document.querySelectorAll("#board [data-path]")) {
      const p = e.getAttribute("data-path");
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
    const box = $("#b-check"), r = B.last;
    const analyse = $("#b-analyse");
    if (!r) { box.textContent = "checking\u2026"; analyse.disabled = true; return; }
    if (!r.ok) {
      box.className = "bad";
      box.textContent = `Not a valid position: ${r.error.replace(/^position: /, "")}`;
      const e = fieldFor(r.path || "$");
      if (e) {
        e.classList.add("b-invalid");
        let err = e.querySelector(":scope > .b-err");
        if (e.classList.contains("b-chip")) {
          err = e.parentElement.querySelector(":scope > .b-err");
        }
        if (err) { err.textContent = r.error.replace(/^position: /, ""); err.setAttribute("data-testid", "field-error"); }
      }
      analyse.disabled = true;
      analyse.title = "the position must be valid first";
      return;
    }
    box.className = r.advisable ? "good" : "warn";
    box.textContent = r.advisable
      ? `Valid: ${TITLE[r.to_move]} to move at the ${r.step} step, ${r.legal_actions} legal actions.`
      : `Valid, but not to analyse: ${r.why}.`;
    analyse.disabled = !r.advisable || !!B.job;
    analyse.title = r.advisable ? "search this position" : r.why;
  }

  // ---- loading a position into the editor ------------------------------------------------

  function load(s) {
    const f = blank();
    B.place = {}; B.exhausted = {}; B.drawn = {}; B.extra = {};
    if (s.game) B.extra.game = s.game;
    f.perspective = s.perspective; f.turn = s.turn; f.step = s.step;
    f.to_move = s.to_move === null ? "none" : s.to_move;
    for (const n of s.hand || []) B.place[n] = "hand";
    for (const n of s.drawn_this_turn || []) B.place[n] = "drawn";
    for (const t of s.table || []) { B.place[t.card] = t.zone; B.exhausted[t.card] = !!t.exhausted; }
    for (const n of s.gone || []) B.place[n] = "gone";
    for (const n of s.events_in_play || []) B.place[n] = "event";
    f.hs = { ...s.hand_sizes };
    f.rockets = (s.rockets || []).slice();
    f.fragments = { ...f.fragments, ...s.fragments };
    f.redraw_used = { ...f.redraw_used, ...s.redraw_used };
    if (s.step === "redraw" && s.redraw_choice && s.redraw_choice[s.perspective] !== undefined) {
      f.redraw_choice = s.redraw_choice[s.perspective] ? "redraw" : "keep";
    } else if (s.redraw_choice && s.step !== "redraw") f.redrew = { ...f.redrew, ...s.redraw_choice };
    const a = s.actions || {};
    f.actor = a.actor || "auto"; f.left = a.left ?? 1; f.passes = a.passes ?? 0;
    const mr = a.motorized_refresh;
    if (mr) {
      f.mr = [1, 2, 3].map((a) => (mr.counters || []).filter((c) => c === a).length);
      f.mr_due = mr.due || 0;
    }
    const p = s.pending;
    if (p) {
      f.kind = p.kind; f.p_actor = p.actor || "auto"; f.p_card = p.card || "";
      f.p_target = p.target || ""; f.p_defender = p.defender && p.defender !== p.target ? p.defender : "";
      f.p_escorted = !!p.escorted; f.p_zone = p.zone || "";
      const dice = p.dice || [];
      f.die1 = dice[0] ?? ""; f.die2 = dice[1] ?? "";
      const m = p.modifiers || [0, 0];
      f.mod1 = m[0]; f.mod2 = m[1];
      f.p_passes = p.window_passes ?? "";
      if (p.kind === "attack" && !["nurses", "modifiers", "roll"].includes(s.step) && !dice.length) f.p_passes = "";
    }
    B.f = f;
    B.dest = "hand";
    drawAll();
    check();
  }

  // ---- advice -----------------------------------------------------------------------------

  const pc = (x) => (x === null || x === undefined ? "?" : `${(100 * x).toFixed(1)}%`);
  const num = (x, d = 3) => (x === null || x === undefined ? "\u2013" : Number(x).toFixed(d));

  function showAdvice(a) {
    const box = $("#b-advice");
    box.innerHTML = "";
    box.append(el("h3", { "data-testid": "board-recommended", text: `Recommended: ${a.recommended}` }));
    if (a.value) {
      const ci = a.value_ci95 || {};
      box.append(el("div", { class: "b-win" }, ...SIDES.map((s) =>
        el("div", { text: `${TITLE[s]} wins ${pc(a.value[s])}` + (ci[s] ? ` (95% interval ${pc(ci[s][0])} to ${pc(ci[s][1])})` : "") }))));
    }
    const table = el("table", { class: "b-actions", "data-testid": "board-actions" },
                     el("tr", {}, ...["action", "frequency", "value", "stderr", "loss"].map((h) => el("th", { text: h }))));
    for (const r of a.actions || []) {
      table.append(el("tr", { class: r.id === a.recommended_id ? "best" : "" },
        el("td", { text: r.action }), el("td", { text: pc(r.frequency) }), el("td", { text: num(r.value) }),
        el("td", { text: num(r.stderr) }),
        el("td", { text: r.loss === null || r.loss === undefined ? "\u2013" : `${num(r.loss)} \u00b1 ${num(r.loss_stderr)}` })));
    }
    box.append(table);
    const opp = a.to_move ? TITLE[other(a.to_move)] : "opponent";
    box.append(el("h4", { text: `Responses: what the ${opp} may answer, and your answer` }));
    if (a.responses && a.responses.length) {
      const ul = el("ul", { class: "b-responses", "data-testid": "board-responses" });
      for (const r of a.responses) {
        const li = el("li", { text: `if the ${r.if} (${pc(r.probability)}): answer ${r.then} \u2014 win ${pc(r.value)} \u00b1 ${pc(r.stderr)}` });
        if (r.outcomes && r.outcomes.length) {
          const sub = el("ul");
          for (const o of r.outcomes) sub.append(el("li", { text: `${o.when} (${pc(o.probability)}): ${o.then} \u2014 win ${pc(o.value)}` }));
          li.append(sub);
        }
        ul.append(li);
      }
      box.append(ul);
    }
    if (a.responses_note) box.append(el("p", { class: "b-note", text: a.responses_note }));
    if (a.opponent_model) box.append(el("p", { class: "b-note", text: `Opponent model: ${a.opponent_model}` }));
    const st = a.stats || {};
    box.append(el("p", { class: "b-note", text: `Search: ${st.spec || ""}, ${st.iterations ?? "?"} iterations in ${num(st.seconds, 2)} s` +
      (st.responses_iterations ? `; responses ${st.responses_iterations} iterations` : "") +
      (st.continued === false ? " (started afresh)." : ".") }));
  }

  async function analyse() {
    if (!B.last || !B.last.ok || B.job) return;
    const iterations = Number($("#b-budget").value);
    const r = await post("/api/board/analyses", { state: position(), iterations, seed: 0 });
    if (!r.ok) { B.last = { ok: false, error: r.data.error, path: r.data.path || "$" }; showCheck(); return; }
    B.job = r.data.id;
    $("#b-analyse").disabled = true;
    $("#b-stop").hidden = false;
    $("#b-progress").hidden = false;
    $("#b-advice").innerHTML = "";
    const bar = $("#b-progress");
    const say = (v) => {
      // the main search's share of its budget as a bar; the responses'
      // searches depend on the replies found, so that phase has no fraction
      if (v.progress === null || v.progress === undefined) bar.removeAttribute("value");
      else { bar.max = 1; bar.value = v.progress; }
      $("#b-progress-text").textContent = v.status === "queued"
        ? `waiting for a free search slot (${v.searches_running} running, ${v.searches_waiting} waiting)\u2026 ${v.elapsed.toFixed(1)} s`
        : v.phase === "main search"
          ? `main search: ${v.iterations_done} of ${v.iterations} iterations, then the responses\u2026 ${v.elapsed.toFixed(1)} s`
          : `the responses: ${v.iterations_done - v.iterations} more iterations so far\u2026 ${v.elapsed.toFixed(1)} s`;
    };
    try {
      // the progress as server-sent events (as the bot's thinking); polling if they fail
      let v = await new Promise((resolve) => {
        const es = new EventSource(`/api/board/analyses/${B.job}/events`);
        es.addEventListener("status", (ev) => say(JSON.parse(ev.data)));
        es.addEventListener("done", (ev) => { es.close(); resolve(JSON.parse(ev.data)); });
        es.onerror = () => { es.close(); resolve(r.data); };
      });
      while (["queued", "running"].includes(v.status)) {
        say(v);
        await new Promise((res) => setTimeout(res, 250));
        const g = await fetch(`/api/board/analyses/${B.job}`);
        v = await g.json();
        if (!g.ok) throw new Error(v.error);
      }
      if (v.status === "done") {
        $("#b-progress-text").textContent = `done in ${v.elapsed.toFixed(1)} s (${v.iterations} iterations, a fresh search)`;
        showAdvice(v.result);
      } else {
        $("#b-progress-text").textContent = v.status === "stopped" ? "stopped" : `the search failed: ${v.error}`;
      }
    } catch (e) {
      $("#b-progress-text").textContent = `the search failed: ${e.message}`;
    } finally {
      B.job = null;
      $("#b-stop").hidden = true;
      $("#b-progress").hidden = true;
      showCheck();
    }
  }

  // ---- in and out --------------------------------------------------------------------------

  // the board opens: the card set is fetched the first time (not with the
  // table: a player's page never needs it)
  async function open() {
    $("#board").hidden = false;
    document.querySelector("main").hidden = true;
    const d = $("#new-dialog");
    if (d && d.open) d.close();
    if (!(window.wildhorn && window.wildhorn.view)) $("#status").textContent = "no game open";
    if (B.cards.length) return;
    const res = await fetch("/api/board/cards");
    const data = await res.json();
    B.cards = data.cards;
    for (const c of B.cards) B.byNumber[c.number] = c;
    const budget = $("#b-budget");
    budget.max = Math.min(data.max_iterations, 20000);
    budget.value = Math.min(data.default_iterations, budget.max);
    $("#b-budget-text").textContent = budget.value;
    $("#b-fresh").textContent = data.note.charAt(0).toUpperCase() + data.note.slice(1) + ".";
    B.f = blank();
    drawAll();
    await check();
    B.changes = 0;
    B.ready = true;
  }
  function close() {
    $("#board").hidden = true;
    document.querySelector("main").hidden = false;
    if (history.replaceState && location.hash.startsWith("#board")) history.replaceState(null, "", location.pathname);
    if (!(window.wildhorn && window.wildhorn.view)) $("#new-dialog").showModal();
  }

  function showFailure(message) {
    B.last = { ok: false, error: message, path: "$" };
    showCheck();
  }

  async function importText(text, name) {
    const r = await post(`/api/board/import?name=${encodeURIComponent(name)}`, null, text);
    if (!r.ok) { showFailure(r.data.error); return; }
    load(r.data.state);
  }

  async function exportFile() {
    const res = await fetch("/api/board/export", { method: "POST", headers: { "Content-Type": "application/json" },
                                                    body: JSON.stringify({ state: position() }) });
    if (!res.ok) { const d = await res.json(); B.last = { ok: false, error: d.error, path: d.path || "$" }; showCheck(); return; }
    const blob = await res.blob();
    const name = (res.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
    const a = el("a", { href: URL.createObjectURL(blob), download: name ? name[1] : "state.json" });
    document.body.append(a);
    a.click();
    a.remove();
  }

  async function copyLink() {
    const r = await post("/api/board/link", { state: position() });
    if (!r.ok) { B.last = { ok: false, error: r.data.error, path: r.data.path || "$" }; showCheck(); return; }
    const url = `${location.origin}${location.pathname}#board=${r.data.code}`;
    $("#b-link-text").value = url;
    if (history.replaceState) history.replaceState(null, "", `#board=${r.data.code}`);
    try { await navigator.clipboard.writeText(url); } catch (e) { /* the text field holds it */ }
  }

  async function openLink(code) {
    await open();
    const r = await post("/api/board/link/open", { code });
    if (!r.ok) { showFailure(r.data.error); return; }
    load(r.data.state);
  }

  async function fromGame() {
    const g = window.wildhorn;
    if (!g || !g.id) return;
    const step = g.view && g.view.review_step ? `?k=${g.view.review_step.index}` : "";
    const r = await post(`/api/games/${g.id}/position${step}`, {});
    if (!r.ok) { const e = $("#error"); e.textContent = r.data.error; e.hidden = false; return; }
    await open();
    load(r.data.state);
  }

  async function setup() {
    const budget = $("#b-budget");
    budget.oninput = () => { $("#b-budget-text").textContent = budget.value; };
    $("#b-analyse").onclick = analyse;
    $("#b-stop").onclick = () => { if (B.job) fetch(`/api/board/analyses/${B.job}`, { method: "DELETE" }); };
    $("#b-clear").onclick = () => { B.f = blank(); B.place = {}; B.exhausted = {}; B.extra = {}; changed(); };
    $("#b-export").onclick = exportFile;
    $("#b-link").onclick = copyLink;
    $("#b-back").onclick = close;
    $("#b-import").onchange = async (ev) => {
      const file = ev.target.files[0];
      ev.target.value = "";
      if (file) await importText(await file.text(), file.name);
    };
    $("#btn-board").onclick = open;
    $("#btn-analyse-here").onclick = fromGame;
    const m = location.hash.match(/^#board=(.+)$/);
    if (m) await openLink(m[1]);
    else if (location.hash === "#board") await open();
  }

  B.load = load;
  B.position = position;
  setup();
})();
