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


def describe_card(card_set: CardSet, query: str) -> str:
    """One card for a player: ``query`` is its number ("PL07", any case) or
    a part of its name ("partisans": the first such card).  "PL07 Partisans
    (Polish Unit, 2 bullets, one of 4 copies): <its text>".  ValueError with
    a one-line message when no card matches."""
    rows = card_rows(card_set)
    want = " ".join(query.split()).lower()
    row = next((r for r in rows if r["number"].lower() == want), None) \
        or next((r for r in rows if want and want in r["name"].lower()), None)
    if row is None:
        first, last = rows[0]["number"], rows[-1]["number"]
        raise ValueError(f"no card {query.strip()!r}: give a card's number ({first} to {last}) "
                         f"or part of its name")
    what = f"{row['side'].title()} {KINDS.get(row['kind'], row['kind'])}"
    if row["kind"] in ("unit", "support"):
        what += f", {row['bullets']} bullet{'' if row['bullets'] == 1 else 's'}"
    what += f", one of {row['copies']} copies" if row["copies"] > 1 else ", the only copy"
    return f"{row['name']} ({what}): {row['text'] or 'no text'}"
