"""The ``"game"`` and ``"card_set"`` keys of a state file and the core
configurations they name: each way, the game objects built once per
parameter set, and the deck schedule a configuration forces (R3, R5)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import pyspiel

from solver.cards import default_card_set_path
from solver.errors import ParameterError
from solver.game import VARIANTS, make_config

__all__ = ["card_set_source", "spiel_params", "game_params_of", "load_game", "game_config",
           "deck_schedule"]


def card_set_source(cfg) -> str:
    """The ``card_set`` key of a configuration: "default" or the card set's path."""
    return _source_of_path(cfg.card_set.path)


@lru_cache(maxsize=64)
def _source_of_path(path) -> str:
    if path is None:
        return "default"
    try:
        if Path(path).resolve() == default_card_set_path().resolve():
            return "default"
    except OSError:
        pass
    return str(path)


def spiel_params(game: dict, card_set: str) -> dict[str, Any]:
    """The pyspiel parameters of a "game" object (JSON types -> parameter text)."""
    params: dict[str, Any] = {}
    if card_set != "default":
        params["card_set"] = card_set
    for key, value in game.items():
        if key in ("rockets", "cards"):
            params[key] = ";".join(str(v) for v in value)
        elif key in ("setup", "start_fragments"):
            params[key] = ";".join(f"{k}:{v}" for k, v in value.items())
        elif key == "redraw":
            params[key] = int(value)
        else:
            params[key] = value
    return params


def game_params_of(cfg) -> dict | None:
    """The "game" object that rebuilds ``cfg`` (None for the rulebook game)."""
    source = card_set_source(cfg)
    base = make_config({"card_set": source} if source != "default" else None)
    if base.key == cfg.key:
        return None
    for variant in VARIANTS:
        if variant == "full":
            continue
        params = {"variant": variant}
        if make_config(spiel_params(params, source)).key == cfg.key:
            return params
    _, turns, draw, dice, rockets, cards, redraw, setup, frags = cfg.key
    full = base.key
    game: dict[str, Any] = {}
    for name, value, default in (("turns", turns, full[1]), ("draw", draw, full[2]),
                                 ("dice", dice, full[3])):
        if value != default:
            game[name] = value
    if tuple(rockets) != tuple(full[4]):
        game["rockets"] = list(rockets)
    if cards is not None:
        game["cards"] = list(cards)
    if bool(redraw) != bool(full[6]):
        game["redraw"] = bool(redraw)
    if setup:
        game["setup"] = dict(setup)
    if frags:
        game["start_fragments"] = dict(frags)
    if make_config(spiel_params(game, source)).key != cfg.key:
        raise ParameterError("to_json: this game's configuration cannot be written as game parameters")
    return game


_GAMES: dict[tuple, pyspiel.Game] = {}


def load_game(params: dict[str, Any]) -> pyspiel.Game:
    key = tuple(sorted(params.items()))
    game = _GAMES.get(key)
    if game is None:
        game = pyspiel.load_game("wildhorn", params)
        _GAMES[key] = game
    return game


def game_config(game: dict[str, Any], card_set: str = "default") -> Any:
    """The core configuration of a state file's ``"game"`` object (with its
    card set): what a position of that game is checked against.  The
    parameters are checked as always (ParameterError naming the one at
    fault)."""
    return load_game(spiel_params(game, card_set)).core_config


def deck_schedule(cfg, turn: int) -> tuple[list[int], list[int]]:
    """Per side: cards left in the deck after the draws of ``turn``, and cards
    drawn in that turn's draw step.  Decks lose cards only to draws (a redraw
    puts back and draws the same number, R5), so both are forced (R3, R28)."""
    _, turns, draw, _, _, _, _, setup, _ = cfg.key
    setup = dict(setup)
    present = cfg.present
    deck = [0, 0]
    for card in cfg.card_set.cards:
        g = card.global_index
        if present[g] and setup.get(card.number, "hand" if card.start else "deck") == "deck":
            deck[card.side_id] += 1
    drawn = [0, 0]
    for _ in range(max(0, min(turn, turns))):  # bounded whatever turn a file names
        for side in (0, 1):
            drawn[side] = min(draw, deck[side])
            deck[side] -= drawn[side]
    return deck, drawn
