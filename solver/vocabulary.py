"""The game's words, declared once: sides, zones, homes, steps, kinds of
pending action, reaction windows.

Everything the engine names is taken from the core's exported names
(:mod:`solver._core`: ``PHASE_NAMES``, ``ZONE_NAMES``, ``PENDING_NAMES``,
``LOC_NAMES``, ``FRAGMENT_PLACES``); what the engine numbers without naming
(the two sides) is named here.  Every Python module and both pages of the
web server (through ``GET /api``, :func:`as_json`) read these, so a name is
spelled in one place.
"""

from __future__ import annotations

from typing import Any

from solver._core import (FRAGMENT_PLACES, LOC_NAMES, PENDING_NAMES, PHASE_NAMES, ZONE_NAMES)

__all__ = ["SIDES", "SIDE_TITLES", "ZONES", "ZONE_TITLES", "ZONE_PLACES", "HOMES", "PHASES",
           "DECISION_STEPS", "CHANCE_STEPS", "STEPS", "PENDING_KINDS", "WINDOW_PHASES",
           "LOCATIONS", "FRAGMENT_KEYS", "side_index", "as_json"]

SIDES: tuple[str, str] = ("polish", "german")
"""Side names, by the core's player number (0 Polish, 1 German)."""
SIDE_TITLES: tuple[str, str] = ("Polish", "German")
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

PENDING_KINDS: tuple[str, ...] = tuple(k for k in PENDING_NAMES if k != "none")
"""The kinds of action that can be under way (``Core.pending["kind"]``)."""
WINDOW_PHASES: tuple[str, ...] = ("escort", "ambush", "witnesses", "nurses", "motorcycle",
                                  "modifiers")
"""Reaction windows: a side may answer the action under way, or decline.
Where the bot decides in one, its deciding at all would tell what it holds
(R29): it thinks there without a word."""
assert set(WINDOW_PHASES) <= set(PHASES), "a window that is not an engine phase"

LOCATIONS: tuple[str, ...] = tuple(LOC_NAMES)
"""Where a card can be (``Core.location``)."""
FRAGMENT_KEYS: tuple[str, ...] = tuple(p for p in FRAGMENT_PLACES if p != "pool")
"""The places a fragment can be, besides the pool."""


def side_index(name: str) -> int:
    """0 for "polish", 1 for "german" (ValueError otherwise)."""
    return SIDES.index(name)


def as_json() -> dict[str, Any]:
    """The vocabulary as the web pages read it (``GET /api``)."""
    return {"sides": list(SIDES), "side_titles": list(SIDE_TITLES),
            "zones": [[z, ZONE_PLACES[z]] for z in ZONES], "homes": list(HOMES),
            "phases": list(PHASES), "steps": list(STEPS),
            "decision_steps": list(DECISION_STEPS), "chance_steps": list(CHANCE_STEPS),
            "pending_kinds": list(PENDING_KINDS), "window_phases": list(WINDOW_PHASES),
            "locations": list(LOCATIONS), "fragment_keys": list(FRAGMENT_KEYS)}
