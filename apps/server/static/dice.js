// @ts-check
// Dice drawn as dice: a die's face with its pips, what is added to it
// (bullets, the cards played on it) and the total.

import { el } from "./dom.js";
import { sideTitle } from "./vocabulary.js";

/** @typedef {import("./api.js").DieRoll} DieRoll */
/** @typedef {import("./api.js").SettledRoll} SettledRoll */
/** @typedef {import("./api.js").Pending} Pending */

// the pips of each face on a 3x3 grid (cells 0..8, row by row)
const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

/**
 * A die: its face, or a blank die not rolled yet.
 * @param {number | null} face 1..6, or null
 * @param {string} side whose die (its colour)
 */
export function dieEl(face, side) {
  const pips = face === null ? [] : PIPS[/** @type {1|2|3|4|5|6} */ (face)] || [];
  const box = el("span", { class: `die ${side}${face === null ? " unrolled" : ""}`, role: "img",
                           "data-face": face === null ? "" : face,
                           "aria-label": face === null ? "a die not rolled yet" : `a die showing ${face}` });
  for (let i = 0; i < 9; i++) box.append(el("span", { class: pips.includes(i) ? "pip" : "nopip" }));
  return box;
}

/** @param {number} n @returns {string} "+ 2", "- 2" */
const signed = (n) => `${n < 0 ? "\u2212" : "+"} ${Math.abs(n)}`;

/** One die with what is added to it. @param {DieRoll} r */
export function rollEl(r) {
  const box = el("span", { class: "roll", "data-testid": "roll", "data-side": r.side, "data-card": r.card || "" },
                 el("span", { class: "roll-who", text: `${sideTitle(r.side)}${r.card ? ` (${r.card})` : ""}` }),
                 dieEl(r.die, r.side));
  if (r.bullets) box.append(el("span", { class: "add", text: `${signed(r.bullets)} bullet${r.bullets === 1 ? "" : "s"}` }));
  if (r.modifier) box.append(el("span", { class: "add mod", text: `${signed(r.modifier)} from cards`,
                                          title: "Good Luck, Bad Luck or Assistance played on this die" }));
  if (r.total !== null) box.append(el("span", { class: "total", text: `= ${r.total}` }));
  return box;
}

/**
 * The dice of a roll: the attacker's against the defender's, or one die
 * against what it needs.
 * @param {DieRoll[]} rolls
 * @param {number | null | undefined} needed
 */
export function rollsEl(rolls, needed) {
  const box = el("div", { class: "dice" });
  rolls.forEach((r, i) => {
    if (i) box.append(el("span", { class: "vs", text: "against" }));
    box.append(rollEl(r));
  });
  if (needed) box.append(el("span", { class: "vs", text: `needs ${needed}` }));
  return box;
}

/** A roll settled: its dice and whether it succeeded. @param {SettledRoll} s */
export function settledEl(s) {
  const box = el("div", { class: `settled ${s.success ? "success" : "failure"}`, title: s.text },
                 el("span", { class: "settled-what", text: `${s.title}: ${s.success ? "succeeds" : "fails"}` }),
                 rollsEl(s.rolls, s.needed));
  return box;
}

/** The dice of the action under way, if it has any. @param {Pending | null} p */
export function pendingDice(p) {
  if (!p || !p.rolls || !p.dice.length) return null;
  return rollsEl(p.rolls, p.needed);
}
