// @ts-check
// The game's words (sides, zones, steps, kinds of action), fetched once from
// GET /api: the server declares them (solver/vocabulary.py), the page none.

import { api } from "./api.js";
import { showError } from "./dom.js";

/** @typedef {import("./api.js").Vocabulary} Vocabulary */

/** @returns {Promise<Vocabulary>} */
async function fetchVocabulary() {
  try {
    /** @type {{ vocabulary: Vocabulary }} */
    const index = await api("GET", "/api");
    return index.vocabulary;
  } catch (err) {
    showError(`the page cannot start: GET /api failed (${err instanceof Error ? err.message : err})`);
    throw err;
  }
}

/** Every module that imports this one waits for the vocabulary. */
export const vocabulary = await fetchVocabulary();

/** @param {string} side @returns {string} "Polish" for "polish" */
export function sideTitle(side) {
  const i = vocabulary.sides.indexOf(side);
  return i < 0 ? side : vocabulary.side_titles[i];
}

/** @param {string} side @returns {string} the other side */
export function otherSide(side) {
  const [a, b] = vocabulary.sides;
  return side === a ? b : a;
}

/** The zone names, by the core's zone number. */
export const zoneIds = vocabulary.zones.map(([z]) => z);

/** @param {string} zone @returns {string} the zone's place name ("Rocket Base") */
export function zoneName(zone) {
  const found = vocabulary.zones.find(([z]) => z === zone);
  return found ? found[1] : zone;
}

/** @param {string} step @returns {boolean} whether chance acts at this step */
export function isChanceStep(step) {
  return vocabulary.chance_steps.includes(step);
}

/**
 * Whether this turn's Rocket card is still to come at a step (the steps up to
 * and including the reveal, in the engine's order).
 * @param {string} step
 */
export function beforeRocketCard(step) {
  const at = vocabulary.phases.indexOf(step), rocket = vocabulary.phases.indexOf("rocket");
  return at >= 0 && at <= rocket;
}
