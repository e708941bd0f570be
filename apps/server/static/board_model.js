// @ts-check
// The analysis board's position: the editor's fields and card places, the
// rules that fill what the user left on "auto", and the state.json object
// they make (docs/state-format.md) and are read back from.

import { beforeRocketCard, isChanceStep, otherSide, vocabulary, zoneIds } from "./vocabulary.js";

/** @typedef {import("./api.js").StateJson} StateJson */
/** @typedef {import("./api.js").PendingJson} PendingJson */
/** @typedef {import("./api.js").SetCard} SetCard */
/** @typedef {import("./api.js").Check} Check */

/**
 * The editor's fields: one value per control ("" or "auto" where unset).
 * @typedef {object} Fields
 * @property {string} perspective
 * @property {number} turn
 * @property {string} step
 * @property {string} to_move a side, "auto" or "none" (chance)
 * @property {boolean} hs_auto the opponent's hand size follows from the cards seen
 * @property {Record<string, number>} hs hand sizes by side
 * @property {(number | "")[]} rockets the Rocket cards revealed, "" unknown
 * @property {Record<string, number>} fragments by place
 * @property {Record<string, boolean>} redraw_used by side
 * @property {string} redraw_choice "", "keep" or "redraw" (the viewer's, at the redraw step)
 * @property {string} actor the chain's actor, or "auto"
 * @property {number} left actions left
 * @property {number} passes passes in a row
 * @property {number[]} mr Motorized Column refreshes due after 1, 2, 3 more actions
 * @property {number} mr_due refreshes owed now
 * @property {Record<string, boolean>} redrew by side, this turn
 * @property {string} kind the action under way ("" the step's first)
 * @property {string} p_actor its actor, or "auto"
 * @property {string} p_card
 * @property {string} p_target
 * @property {string} p_defender
 * @property {boolean} p_escorted
 * @property {string} p_zone
 * @property {number | ""} die1
 * @property {number | ""} die2
 * @property {number} mod1
 * @property {number} mod2
 * @property {number | ""} p_passes window passes
 */

/**
 * The board: the card set, where each card is, the fields, and the check's
 * state (the browser tests read it as window.wildhornBoard).
 * @typedef {object} Board
 * @property {SetCard[]} cards
 * @property {Record<string, SetCard>} byNumber
 * @property {string} dest where a clicked card goes
 * @property {Record<string, string>} place each placed card's place
 * @property {Record<string, boolean>} exhausted
 * @property {Fields} f
 * @property {{ game?: unknown }} extra what an import holds that the fields do not
 * @property {number} seq the last check asked for
 * @property {Check | null} last the last check's answer
 * @property {boolean} checking
 * @property {number} changes edits since the board opened
 * @property {string | null} job the analysis running
 * @property {boolean} ready the card set is loaded and the first check done
 * @property {(s: StateJson) => void} load
 * @property {() => StateJson} position
 */

/** @param {boolean | number} value @returns {Record<string, any>} the value for each side */
const bySide = (value) => Object.fromEntries(vocabulary.sides.map((s) => [s, value]));

/** @returns {Fields} an empty position's */
export function blank() {
  return { perspective: vocabulary.sides[0], turn: 1, step: "actions", to_move: "auto",
           hs_auto: true, hs: bySide(3), rockets: [],
           fragments: Object.fromEntries(vocabulary.fragments.map(([k]) => [k, 0])),
           redraw_used: bySide(false), redraw_choice: "",
           actor: "auto", left: 1, passes: 0, mr: [0, 0, 0], mr_due: 0,
           redrew: bySide(false),
           kind: "", p_actor: "auto", p_card: "", p_target: "", p_defender: "", p_escorted: false,
           p_zone: "", die1: "", die2: "", mod1: 0, mod2: 0, p_passes: "" };
}

/** @type {Board} */
export const board = {
  cards: [], byNumber: {}, dest: "hand", place: {}, exhausted: {}, f: blank(), extra: {},
  seq: 0, last: null, checking: false, changes: 0, job: null, ready: false,
  load: () => { throw new Error("the board is not set up"); }, position,
};

/** @param {Fields} f @returns {number} how many Rocket cards are revealed */
export function rocketCount(f) {
  return Math.max(0, Math.min(5, beforeRocketCard(f.step) ? f.turn - 1 : f.turn));
}
/** @param {Fields} f @returns {string[]} the kinds of action the step allows */
export function kindsOf(f) { return vocabulary.step_kinds[f.step] || []; }
/** @param {Fields} f @returns {string} the kind under way ("" none) */
export function kindOf(f) {
  const ks = kindsOf(f);
  if (!ks.length) return "";
  return ks.includes(f.kind) ? f.kind : ks[0];
}
/** @param {Fields} f @returns {string | null} the side to move (null: chance) */
export function toMove(f) {
  if (f.to_move !== "auto") return f.to_move === "none" ? null : f.to_move;
  return isChanceStep(f.step) ? null : f.perspective;
}
/** @param {Fields} f @returns {string} who declared the action under way */
export function pendingActor(f) {
  if (f.p_actor !== "auto") return f.p_actor;
  const mover = toMove(f) || f.perspective;
  const k = kindOf(f);
  const steal = vocabulary.steal_kinds.indexOf(k);
  if (steal >= 0) return vocabulary.sides[steal];
  // at a decision step the actor does not decide, the mover is the other side
  const otherDecides = vocabulary.decision_steps.includes(f.step) && !vocabulary.actor_steps.includes(f.step);
  return otherDecides ? otherSide(mover) : mover;
}

/** @param {string} side @returns {string} the home zone of the side's enemy */
export function enemyHome(side) { return vocabulary.homes[1 - vocabulary.sides.indexOf(side)]; }

/** @param {string} number @param {string} ability @returns {boolean} the card has it */
export function hasAbility(number, ability) {
  const card = board.byNumber[number];
  return !!card && !!card.abilities && ability in card.abilities;
}

/**
 * The cards at some places, of one side or both, in the card set's order.
 * @param {string[]} places
 * @param {string} [side]
 * @returns {string[]}
 */
export function cardsAt(places, side) {
  return board.cards.filter((c) => places.includes(board.place[c.number]) && (!side || c.side === side))
                    .map((c) => c.number);
}

/**
 * The cards that may declare a kind of action: a Unit with the ability, where
 * the rules let it act (a Search in the Periphery, a steal in the enemy home),
 * a card gone (High Morale), an event beside the zones (Hidden Fragments).
 * @param {string} kind
 * @param {string} actor
 * @returns {string[]}
 */
export function actingCards(kind, actor) {
  if (vocabulary.ability_kinds.includes(kind)) {
    const steal = vocabulary.steal_kinds.includes(kind);
    const places = kind === "search" ? [vocabulary.search_zone] : steal ? [enemyHome(actor)] : zoneIds;
    return cardsAt(places, actor).filter((n) => hasAbility(n, kind));
  }
  if (kind === "high_morale") return cardsAt(["gone"], actor);
  if (kind === "hidden_fragments") return cardsAt(["event"], actor);
  return [];
}

/** @param {Fields} f @returns {PendingJson | null} the action under way */
function pendingOf(f) {
  const kind = kindOf(f);
  if (!kind) return null;
  /** @type {PendingJson} */
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
  return p;
}

/** @returns {StateJson} the state.json object of the editor (its keys in the format's order) */
export function position() {
  const f = board.f;
  const perspective = f.perspective;
  const hand = cardsAt(["hand", "drawn"], perspective);
  /** @type {Partial<StateJson>} */
  const redraw = {};
  if (f.step === "redraw") {
    redraw.drawn_this_turn = cardsAt(["drawn"], perspective);
    if (f.redraw_choice !== "") redraw.redraw_choice = { [perspective]: f.redraw_choice === "redraw" };
  } else if (Object.values(f.redrew).some((r) => r)) redraw.redraw_choice = { ...f.redrew };
  /** @type {StateJson["actions"]} */
  const actions = { left: Number(f.left), passes: Number(f.passes) };
  if (f.actor !== "auto") actions.actor = f.actor;
  if (f.mr.some((k) => k) || f.mr_due) {
    actions.motorized_refresh = { counters: [1, 2, 3].flatMap((a, i) => Array(f.mr[i]).fill(a)),
                                  due: f.mr_due };
  }
  return {
    format: "wildhorn-state/1",
    ...(board.extra.game ? { game: board.extra.game } : {}),  // a variant's parameters, kept from an import
    perspective, turn: f.turn, step: f.step, to_move: toMove(f),
    hand, hand_sizes: { ...f.hs, [perspective]: hand.length },
    rockets: f.rockets.slice(0, rocketCount(f)).filter((v) => v !== "" && v !== undefined).map(Number),
    fragments: { ...f.fragments },
    table: board.cards.filter((c) => zoneIds.includes(board.place[c.number]))
                      .map((c) => ({ card: c.number, zone: board.place[c.number], exhausted: !!board.exhausted[c.number] })),
    gone: cardsAt(["gone"]), events_in_play: cardsAt(["event"]), redraw_used: { ...f.redraw_used },
    ...redraw, actions, pending: pendingOf(f),
  };
}

/**
 * Sets the board to a state.json object (the server checked it): the card
 * places, the fields.
 * @param {StateJson} s
 */
export function setPosition(s) {
  const f = blank();
  board.place = {}; board.exhausted = {}; board.extra = {};
  if (s.game) board.extra.game = s.game;
  f.perspective = s.perspective; f.turn = s.turn; f.step = s.step;
  f.to_move = s.to_move === null ? "none" : s.to_move;
  for (const n of s.hand || []) board.place[n] = "hand";
  for (const n of s.drawn_this_turn || []) board.place[n] = "drawn";
  for (const t of s.table || []) { board.place[t.card] = t.zone; board.exhausted[t.card] = !!t.exhausted; }
  for (const n of s.gone || []) board.place[n] = "gone";
  for (const n of s.events_in_play || []) board.place[n] = "event";
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
    f.mr = [1, 2, 3].map((k) => (mr.counters || []).filter((c) => c === k).length);
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
    // an attack's window passes are only kept once its dice are rolled
    if (p.kind === "attack" && !vocabulary.dice_steps.includes(s.step) && !dice.length) f.p_passes = "";
  }
  board.f = f;
  board.dest = "hand";
}
