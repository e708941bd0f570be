"""Writing state files: one player's view of a position as a
``wildhorn-state/1`` object (:func:`to_json`) and as the text :func:`dump`
writes.  The view holds that player's information and nothing hidden (R25,
R26)."""

from __future__ import annotations

import json
import os
from typing import IO, Any

from solver._core import CARDS_PER_SIDE, Core
from solver.jsonio import write_atomic
from solver.errors import ParameterError
from solver.state_io.fileformat import CHANCE_STEPS, FORMAT, FRAGMENT_KEYS, SIDES, STEPS, ZONES
from solver.state_io.params import card_set_source, game_params_of

__all__ = ["to_json", "dumps", "dump", "core_of"]

_WIDTH = 92  # line width of the files dump writes


def _side_index(player: Any) -> int:
    if isinstance(player, str) and player in SIDES:
        return SIDES.index(player)
    if isinstance(player, int) and not isinstance(player, bool) and player in (0, 1):
        return player
    raise ParameterError(f"player: expected 0 (polish) or 1 (german), got {player!r}")


def core_of(state: Any) -> Core:
    """The core position of a WildhornState or a Core (ParameterError otherwise)."""
    if isinstance(state, Core):
        return state
    core = getattr(state, "core", None)
    if isinstance(core, Core):
        return core
    raise ParameterError(
        f"state: expected a WildhornState or a solver._core.Core, got {type(state).__name__}")



def to_json(state: Any, player: Any) -> dict:
    """``player``'s view of ``state`` as a ``wildhorn-state/1`` object.

    ``state`` is a pyspiel ``WildhornState`` or a ``solver._core.Core``;
    ``player`` is 0 / "polish" or 1 / "german".  The state must be at a
    decision point or at the rocket or roll chance step (ParameterError
    otherwise: the draw step and the end of the game have no file form).
    The result holds the player's information and nothing hidden (R25, R26):
    the opponent's hand and the decks appear only as sizes, the opponent's
    redraw decision only once revealed.
    """
    core = core_of(state)
    p = _side_index(player)
    cfg = core.config
    phase = core.phase
    if phase not in STEPS:
        raise ParameterError(
            f"to_json: the {phase} step has no state-file form (decision points and the "
            "rocket and roll chance steps have)")
    f = core.fields()
    num = {c.global_index: c.number for c in cfg.card_set.cards}
    loc = f["loc"]

    def cards_of(place, side=None):
        return [num[g] for g in range(len(loc))
                if loc[g] == place and (side is None or g // CARDS_PER_SIDE == side)]

    out: dict[str, Any] = {"format": FORMAT, "card_set": card_set_source(cfg)}
    game = game_params_of(cfg)
    if game is not None:
        out["game"] = game
    out["perspective"] = SIDES[p]
    out["turn"] = f["turn"]
    out["step"] = phase
    out["to_move"] = None if phase in CHANCE_STEPS else SIDES[f["player"]]
    out["hand"] = cards_of("hand", p)
    out["hand_sizes"] = {SIDES[s]: core.hand_size(s) for s in (0, 1)}
    out["rockets"] = list(core.rockets_revealed)
    out["fragments"] = {k: f["fragments"][k] for k in FRAGMENT_KEYS}
    out["table"] = [{"card": num[g], "zone": loc[g], "exhausted": bool(f["exhausted"][g])}
                    for g in range(len(loc)) if loc[g] in ZONES]
    out["gone"] = cards_of("gone")
    out["events_in_play"] = cards_of("event")
    out["redraw_used"] = {SIDES[s]: bool(f["redraw_used"][s]) for s in (0, 1)}
    choice = f["redraw_choice"]
    if phase == "redraw":
        # R5: the Polish decision is secret until the German has decided; a
        # player's own decision is known to them once taken.
        if p == 0 and f["player"] == 1:
            out["redraw_choice"] = {"polish": bool(choice[0])}
        out["drawn_this_turn"] = [num[g] for g in range(len(loc))
                                  if loc[g] == "hand" and g // CARDS_PER_SIDE == p and f["drawn"][g]]
    elif any(choice):
        out["redraw_choice"] = {SIDES[s]: bool(choice[s]) for s in (0, 1)}
    mc = f["motorized"]
    out["actions"] = {
        "actor": SIDES[f["actor"]], "left": f["actions_left"], "passes": f["passes"],
        "motorized_refresh": {"counters": [1] * mc[0] + [2] * mc[1] + [3] * mc[2],
                              "due": f["refresh_due"]},
    }
    q = f["pending"]
    if q["kind"] == "none":
        out["pending"] = None
    else:
        kind = q["kind"]
        if kind == "steal":
            kind = "spy" if q["actor"] == 0 else "sturmwind"

        def card(g):
            return None if g < 0 else num[g]

        out["pending"] = {
            "kind": kind, "actor": SIDES[q["actor"]], "card": card(q["card"]),
            "target": card(q["target"]), "defender": card(q["defender"]), "zone": q["zone"],
            "dice": list(q["dice"]), "modifiers": list(q["modifiers"]),
            "window_passes": q["window_passes"], "escorted": bool(q["escorted"]),
        }
    return out


def dumps(state: Any, player: Any) -> str:
    """``to_json`` as the text ``dump`` writes: one key per line, short
    values on one line, a newline at the end."""
    return _pretty(to_json(state, player), 0, 0, top=True) + "\n"


def dump(state: Any, player: Any, target: str | os.PathLike | IO) -> None:
    """Writes ``player``'s view of ``state`` to a path (atomically: a full disk
    leaves no partial file; SerializationError naming it) or an open text file."""
    text = dumps(state, player)
    if hasattr(target, "write"):
        target.write(text)
    else:
        write_atomic(target, text)


def _pretty(value: Any, indent: int, column: int, top: bool = False) -> str:
    one = json.dumps(value, ensure_ascii=False)
    if (not isinstance(value, (dict, list)) or not value
            or (not top and column + len(one) <= _WIDTH)):
        return one
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        lines = []
        for key, child in value.items():
            head = f"{pad}{json.dumps(key, ensure_ascii=False)}: "
            lines.append(head + _pretty(child, indent + 2, len(head)))
        return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"
    lines = [pad + _pretty(child, indent + 2, len(pad)) for child in value]
    return "[\n" + ",\n".join(lines) + "\n" + " " * indent + "]"
