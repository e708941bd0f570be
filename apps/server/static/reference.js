// @ts-check
// The reference, one click away: every card's full text and the rulings by
// number (GET /api/reference: the card set, and docs/rules.md's summary).

import { api } from "./api.js";
import { $, el, showError } from "./dom.js";
import { sideTitle } from "./vocabulary.js";

/** @typedef {import("./api.js").Reference} Reference */

/** @type {Reference | null} */
let loaded = null;

/** @param {import("./api.js").SetCard} c */
function cardEntry(c) {
  const abilities = Object.entries(c.abilities).filter(([, v]) => v)
    .map(([k, v]) => (v === true ? k : `${k} ${v}+`)).join(", ");
  return el("div", { class: `ref-card ${c.side}`, "data-number": c.number,
                     "data-search": `${c.name} ${c.kind || ""} ${abilities} ${c.text}`.toLowerCase() },
            el("b", { text: c.name }),
            el("span", { class: "ref-meta", text: [c.kind, c.bullets ? `${c.bullets} bullet${c.bullets > 1 ? "s" : ""}` : "",
                                                   abilities].filter(Boolean).join(" \u00b7 ") }),
            el("p", { text: c.text }));
}

/** @param {import("./api.js").Ruling} r */
function ruleEntry(r) {
  const body = el("div", { class: "ref-rule-text" });
  for (const para of r.text.split("\n\n")) body.append(el("p", { text: para }));
  return el("section", { class: "ref-rule", id: `rule-${r.id}`, "data-rule": r.id,
                         "data-search": `${r.id} ${r.id}. ${r.title} ${r.text}`.toLowerCase() },
            el("h3", { text: `${r.id}. ${r.title}` }), el("div", { class: "ref-part", text: r.part }), body);
}

/** @param {Reference} ref */
function fill(ref) {
  const cards = $("#ref-cards");
  cards.innerHTML = "";
  for (const side of [...new Set(ref.cards.map((c) => c.side))]) {
    cards.append(el("h3", { text: `${sideTitle(side)} cards` }));
    const grid = el("div", { class: "ref-grid" });
    for (const c of ref.cards.filter((x) => x.side === side)) grid.append(cardEntry(c));
    cards.append(grid);
  }
  const rules = $("#ref-rules");
  rules.innerHTML = "";
  rules.append(el("p", { class: "ref-note", text: `The rulings by number, as ${ref.source} gives them; ` +
                                                   "the printed rulebook is the authority." }));
  for (const r of ref.rules) rules.append(ruleEntry(r));
}

/** @param {"cards" | "rules"} tab */
function showTab(tab) {
  $("#ref-cards").hidden = tab !== "cards";
  $("#ref-rules").hidden = tab !== "rules";
  $("#ref-tab-cards").classList.toggle("on", tab === "cards");
  $("#ref-tab-rules").classList.toggle("on", tab === "rules");
  filter();
}

function filter() {
  const words = $("#ref-filter", HTMLInputElement).value.trim().toLowerCase().split(/\s+/).filter(Boolean);
  document.querySelectorAll("#ref-dialog [data-search]").forEach((e) => {
    const text = e.getAttribute("data-search") || "";
    if (e instanceof HTMLElement) e.hidden = !words.every((w) => text.includes(w));
  });
}

/**
 * Opens the reference, on a card or a ruling if named.
 * @param {{ card?: string, rule?: string }} [at]
 */
export async function openReference(at = {}) {
  try {
    if (!loaded) {
      loaded = /** @type {Reference} */ (await api("GET", "/api/reference"));
      fill(loaded);
    }
  } catch (err) { showError(err instanceof Error ? err.message : String(err)); return; }
  const d = $("#ref-dialog", HTMLDialogElement);
  $("#ref-filter", HTMLInputElement).value = "";
  showTab(at.rule ? "rules" : "cards");
  if (!d.open) d.showModal();
  const target = at.rule ? document.getElementById(`rule-${at.rule}`)
    : at.card ? document.querySelector(`#ref-cards [data-number="${at.card}"]`) : null;
  if (target) { target.scrollIntoView({ block: "center" }); target.classList.add("ref-hit"); }
}

/** Wires the reference's button, tabs and filter. */
export function setupReference() {
  $("#btn-reference").onclick = () => openReference();
  $("#btn-ref-close").onclick = () => $("#ref-dialog", HTMLDialogElement).close();
  $("#ref-tab-cards").onclick = () => showTab("cards");
  $("#ref-tab-rules").onclick = () => showTab("rules");
  $("#ref-filter").addEventListener("input", filter);
}
