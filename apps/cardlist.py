"""``wildhorn-solve cards``: every card of a card set, named as advise and
play name them ("PL04 Scouts", the engine's own card names)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from solver import CoreConfig
from solver.cards import CardSet

KINDS = {"unit": "Unit", "support": "Support", "action": "Action", "immediate": "Immediate"}


def card_rows(card_set: CardSet) -> list[dict[str, Any]]:
    """One dict per card: number, name (as in actions), side, type, bullets,
    abilities (name -> number to roll, or true), START, copies, effect, text."""
    config = CoreConfig(card_set)
    copies = Counter((c.side, c.type.key) for c in card_set.cards)
    rows = []
    for c in card_set.cards:
        t = c.type
        rows.append({"number": c.number, "name": config.card_name(c.global_index),
                     "type_name": t.name, "side": c.side, "kind": t.kind,
                     "bullets": t.bullets, "abilities": dict(t.abilities),
                     "effect": t.effect, "start": c.start,
                     "copies": copies[(c.side, t.key)], "text": t.text})
    return rows


def _abilities(abilities: dict[str, Any]) -> str:
    return ", ".join(name if value is True else f"{name} {value}+"
                     for name, value in abilities.items()) or "-"


def format_cards(card_set: CardSet) -> str:
    """The cards as a table for people, then each card type's text."""
    rows = card_rows(card_set)
    lines = [f"Card set {card_set.name!r}: {len(rows)} cards, {card_set.fragments} fragments, "
             f"Rocket cards {', '.join(map(str, card_set.rockets))}", ""]
    lines.append(f"{'card':28s} {'side':7s} {'type':10s} {'bullets':>7s}  {'START':5s} "
                 f"{'copies':>6s}  abilities / effect")
    for r in rows:
        what = _abilities(r["abilities"]) if r["kind"] in ("unit", "support") \
            else (r["effect"] or "-")
        lines.append(f"{r['name'][:28]:28s} {r['side']:7s} {KINDS.get(r['kind'], r['kind']):10s} "
                     f"{r['bullets']:>7d}  {'yes' if r['start'] else '':5s} {r['copies']:>6d}  "
                     f"{what}")
    texts: dict[tuple, list[str]] = {}
    for r in rows:
        if r["text"]:
            texts.setdefault((r["side"], r["type_name"], r["text"]), []).append(r["number"])
    if texts:
        lines.append("")
        for (side, name, text), numbers in texts.items():
            lines.append(f"{name} ({', '.join(numbers)}): {text}")
    return "\n".join(lines)
