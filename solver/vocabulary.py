"""The game's words, declared once: sides, zones, homes, steps, kinds of
pending action, reaction windows.

Everything the engine names is taken from the core's exported names
(:mod:`solver._core`: ``PHASE_NAMES``, ``ZONE_NAMES``, ``PENDING_NAMES``,
``LOC_NAMES``, ``FRAGMENT_PLACES``) and the card file's side names
(:data:`solver.cards.SIDE_NAMES`); what the rules say of those names (which
kinds of action each step allows, who decides where, which zone a Search
needs) and the titles a sentence gives them are declared here.  Every Python
module and both pages of the web server (through ``GET /api``,
:func:`as_json`) read these, so a name is spelled in one place.
"""

from __future__ import annotations

from typing import Any

from solver._core import (FRAGMENT_PLACES, LOC_NAMES, PENDING_NAMES, PHASE_NAMES, ZONE_NAMES)
from solver.cards import SIDE_NAMES

__all__ = ["SIDES", "SIDE_TITLES", "ZONES", "ZONE_TITLES", "ZONE_PLACES", "HOMES",
           "TABLE_ORDER", "SEARCH_ZONE", "PHASES", "DECISION_STEPS", "CHANCE_STEPS", "STEPS",
           "ACTOR_STEPS", "DICE_STEPS", "PENDING_KINDS", "STEAL_KINDS", "ABILITY_KINDS",
           "STEP_KINDS", "KIND_TITLES", "WINDOW_PHASES", "PRIVATE_WINDOWS", "LOCATIONS",
           "FRAGMENT_KEYS", "FRAGMENT_TITLES",
           "side_index", "format_kinds", "as_json"]

SIDES: tuple[str, ...] = tuple(SIDE_NAMES)
"""Side names, by the core's player number (0 Polish, 1 German)."""
SIDE_TITLES: tuple[str, ...] = tuple(s.title() for s in SIDES)
"""The sides as a sentence names them."""

ZONES: tuple[str, ...] = tuple(ZONE_NAMES)
"""The three zones, by the core's zone number: forest, periphery, base."""
ZONE_PLACES: dict[str, str] = {"forest": "Forest", "periphery": "Periphery",
                               "base": "Rocket Base"}
"""Each zone's name on the table."""
ZONE_TITLES: dict[str, str] = {z: f"the {t}" for z, t in ZONE_PLACES.items()}
"""Each zone as a sentence names it ("the Rocket Base")."""
HOMES: tuple[str, str] = (ZONES[0], ZONES[2])
"""Each side's home zone (R1): the Polish Forest, the German Rocket Base."""
assert set(ZONE_PLACES) == set(ZONES), "a zone of the core has no title"
TABLE_ORDER: tuple[str, ...] = tuple(reversed(ZONES))
"""The zones top to bottom as the pages draw the table: the German home above,
the Polish home below."""
SEARCH_ZONE: str = ZONES[1]
"""Where a Search is made and what it takes fragments from: the Periphery (R16)."""

PHASES: tuple[str, ...] = tuple(PHASE_NAMES)
"""Every phase of the engine (``Core.phase``), in the core's order."""
CHANCE_STEPS: tuple[str, ...] = ("rocket", "roll")
"""The steps where chance acts (a Rocket card, the dice)."""
DECISION_STEPS: tuple[str, ...] = ("redraw", "actions", "zone", "motorcycle", "target",
                                   "escort", "ambush", "modifiers", "nurses", "witnesses",
                                   "refresh", "number")
"""The steps where a player decides, in the state format's order."""
STEPS: tuple[str, ...] = DECISION_STEPS + CHANCE_STEPS
"""The steps a state file may name; each is the engine phase of the same name."""
assert set(STEPS) <= set(PHASES), "a step that is not an engine phase"
ACTOR_STEPS: tuple[str, ...] = ("actions", "zone", "motorcycle", "target", "ambush",
                                "witnesses", "refresh", "number")
"""The decision steps where the actor of the action under way (or of the
chain) decides; at the others the other side does (escort, nurses), either may
(modifiers), or each decides for itself (redraw)."""
assert set(ACTOR_STEPS) <= set(DECISION_STEPS), "an actor step that is not a decision step"
DICE_STEPS: tuple[str, ...] = ("roll", "modifiers", "nurses", "witnesses")
"""The steps at which the action under way rolls or has rolled its dice."""
assert set(DICE_STEPS) <= set(STEPS), "a dice step that is not a step"

PENDING_KINDS: tuple[str, ...] = tuple(k for k in PENDING_NAMES if k != "none")
"""The kinds of action that can be under way (``Core.pending["kind"]``)."""
STEAL_KINDS: tuple[str, str] = ("spy", "sturmwind")
"""The engine's "steal" as the state format writes it, by the actor's side:
the Polish Spy, the German Sturmwind."""
ABILITY_KINDS: tuple[str, ...] = ("movement", "attack", "search", "steal", "command")
"""The kinds whose acting card is a Unit on the table using the ability of
the same name (a steal: Spy or Sturmwind, after its side)."""
STEP_KINDS: dict[str, tuple[str, ...]] = {
    "zone": ("movement",), "motorcycle": ("movement",),
    "target": ("attack",), "escort": ("attack",), "ambush": ("attack",), "nurses": ("attack",),
    "witnesses": ("search",),
    "roll": ("attack", "search", "steal"), "modifiers": ("attack", "search", "steal"),
    "refresh": ("command", "high_morale", "motorized_refresh"),
    "number": ("hidden_fragments",),
}
"""The kinds of action that may be under way at each step (engine names); a
step not listed (redraw, rocket, actions) has none."""
assert set(STEP_KINDS) <= set(STEPS), "kinds for a step that is not a step"
assert {k for ks in STEP_KINDS.values() for k in ks} <= set(PENDING_KINDS), "an unknown kind"
assert set(ABILITY_KINDS) <= set(PENDING_KINDS), "an unknown ability kind"
KIND_TITLES: dict[str, str] = {
    "movement": "Movement", "attack": "attack", "search": "search", "steal": "Spy",
    "command": "Command", "high_morale": "High Morale",
    "motorized_refresh": "Motorized Column refresh", "hidden_fragments": "Hidden Fragments"}
"""Each kind of action under way as a sentence names it (a steal: "Spy" for
the Polish side; the narration says "Sturmwind" for the German), so that no
engine name reaches a player."""
assert set(KIND_TITLES) == set(PENDING_KINDS), "a kind of action without a title"
WINDOW_PHASES: tuple[str, ...] = ("escort", "ambush", "witnesses", "nurses", "motorcycle",
                                  "modifiers")
"""Reaction windows: a side may answer the action under way, or decline.
Where the bot decides in one, its deciding at all would tell what it holds
(R29): it thinks there without a word."""
assert set(WINDOW_PHASES) <= set(PHASES), "a window that is not an engine phase"
PRIVATE_WINDOWS: dict[str, str] = {"escort": "Escort", "ambush": "Ambush!",
                                   "witnesses": "Witnesses", "nurses": "Nurses",
                                   "motorcycle": "Motorcycle"}
"""The windows whose decline is private (R29), and the card or ability each
offers: the opponent sees only what is played ("no Ambush! played"), never
the decline (a pass of priority in the modifier window is public)."""
assert set(PRIVATE_WINDOWS) <= set(WINDOW_PHASES), "a private window that is not a window"

LOCATIONS: tuple[str, ...] = tuple(LOC_NAMES)
"""Where a card can be (``Core.location``)."""
FRAGMENT_KEYS: tuple[str, ...] = tuple(p for p in FRAGMENT_PLACES if p != "pool")
"""The places a fragment can be, besides the pool."""
FRAGMENT_TITLES: dict[str, str] = {k: ZONE_PLACES.get(k, "") for k in FRAGMENT_KEYS} | {
    "hidden": "on Hidden Fragments", "wildhorn": "on Operation Wildhorn III"}
"""Each place of fragments as the pages name it (a zone by its place name)."""
assert list(FRAGMENT_TITLES) == list(FRAGMENT_KEYS) and all(FRAGMENT_TITLES.values()), \
    "a fragment place without a title"


def side_index(name: str) -> int:
    """0 for "polish", 1 for "german" (ValueError otherwise)."""
    return SIDES.index(name)


def format_kinds(kinds: tuple[str, ...]) -> list[str]:
    """Engine kinds as the state format writes them ("steal" becomes "spy",
    "sturmwind"), in order."""
    return [w for k in kinds for w in (STEAL_KINDS if k == "steal" else (k,))]


def as_json() -> dict[str, Any]:
    """The vocabulary as the web pages read it (``GET /api``); kinds of
    action in the state format's words (:func:`format_kinds`)."""
    return {"sides": list(SIDES), "side_titles": list(SIDE_TITLES),
            "zones": [[z, ZONE_PLACES[z]] for z in ZONES], "homes": list(HOMES),
            "table_order": list(TABLE_ORDER), "search_zone": SEARCH_ZONE,
            "phases": list(PHASES), "steps": list(STEPS),
            "decision_steps": list(DECISION_STEPS), "chance_steps": list(CHANCE_STEPS),
            "actor_steps": list(ACTOR_STEPS), "dice_steps": list(DICE_STEPS),
            "pending_kinds": format_kinds(PENDING_KINDS), "steal_kinds": list(STEAL_KINDS),
            "ability_kinds": format_kinds(ABILITY_KINDS),
            "step_kinds": {s: format_kinds(k) for s, k in STEP_KINDS.items()},
            "window_phases": list(WINDOW_PHASES), "locations": list(LOCATIONS),
            "fragments": [[k, FRAGMENT_TITLES[k]] for k in FRAGMENT_KEYS]}
