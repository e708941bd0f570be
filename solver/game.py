"""Days of Honor: Operation Wildhorn III as an OpenSpiel game (``wildhorn``).

Importing this module registers the game, so ``pyspiel.load_game("wildhorn")``
works after ``import solver``.  Player 0 is the Polish side, player 1 the
German side.  The rules run in the Cython core (:mod:`solver._core`); this
module is the thin pyspiel layer used for conformance, OpenSpiel's own
algorithms and exact checks on the small variants.  Bots drive the core
directly.

Parameters (``parameter_specification``; -1 / "" mean "as the variant says"):

========== ========= =======================================================
name       default   meaning
========== ========= =======================================================
variant    "full"    preset: ``full`` (the rulebook game), ``small``, ``tiny``
card_set   "default" "default" or the path of a card-set file (solver.cards)
turns      -1        number of turns (rulebook: 4)
draw       -1        cards drawn per turn (rulebook: 5)
dice       -1        sides of a die (rulebook: 6)
rockets    ""        Rocket card values, e.g. "1;2;3;4;5"
cards      ""        card numbers in play, e.g. "PL01;PL18;DE01" (all if "")
redraw     -1        1/0: whether the once-per-game redraw exists (R5)
setup      ""        where cards begin, e.g. "PL01:periphery;DE02:base"
                     (default: START cards in hand, the rest in the deck)
start_fragments ""   fragments placed at the start, e.g. "forest:1;periphery:2"
========== ========= =======================================================

List values are separated by ';' (',' also works in a params dict).

The information state is the player's *current view* (what a state.json
file holds: the public table, fragments, revealed Rocket cards, hand sizes,
the action under resolution, and the player's own hand), not the history of
moves.  It is canonical and leaks nothing hidden; the observation string is
the same view.  ``wildhorn-solve bench variants`` measures the size of each
small preset (results/variant-sizes.json).
"""

from __future__ import annotations

import base64
import os
import re
from typing import Any

import numpy as np
import pyspiel

from solver._core import (
    CARDS_PER_SIDE,
    NUM_DISTINCT_ACTIONS,
    Core,
    CoreConfig,
    decode_action,
    describe,
    tensor_pieces,
)
from solver.cards import default_card_set_path, load_card_set
from solver.errors import (IllegalActionError, ParameterError, SerializationError,
                           WildhornError, describe_value, quote)
from solver.vocabulary import ZONES

GAME_NAME = "wildhorn"

_DEFAULT_PARAMS: dict[str, Any] = {
    "variant": "full",
    "card_set": "default",
    "turns": -1,
    "draw": -1,
    "dice": -1,
    "rockets": "",
    "cards": "",
    "redraw": -1,
    "setup": "",
    "start_fragments": "",
}

# Presets.  ``cards`` lists the card numbers in play (None: the whole set);
# ``setup`` says where cards begin (default: START cards in hand, the rest in
# the deck, R3).  The small variants start mid-game, with units already on the
# table, so that one turn holds searches, attacks and Immediates; the sizes
# (histories, information states) are measured by ``wildhorn-solve bench
# variants`` (apps.bench.bench_variants) into results/variant-sizes.json.
VARIANTS: dict[str, dict[str, Any]] = {
    "full": {"turns": 4, "draw": 5, "dice": 6, "rockets": None, "cards": None,
             "redraw": True, "setup": None, "start_fragments": None},
    # One turn in the Periphery: Polish Scouts and Good Luck against German
    # Recon, Soldiers and Bad Luck; three-sided dice; a Rocket of 1 or 2.
    # Searches, an attack, modifier windows; small enough for OpenSpiel's
    # Python best response over the whole tree.
    "tiny": {"turns": 1, "draw": 0, "dice": 3, "rockets": [1, 2],
             "cards": ["PL01", "PL18", "DE01", "DE02", "DE18"], "redraw": False,
             "setup": {"PL01": "periphery", "PL18": "hand", "DE01": "periphery",
                       "DE02": "periphery", "DE18": "hand"},
             "start_fragments": None},
    # One turn with every kind of play: Polish Scouts and Partisans (Escort)
    # in the Periphery, Unseen and Silent in the Rocket Base (Spy), Good Luck;
    # German Soldiers in the Periphery, SS in the Forest (Sturmwind), Bad
    # Luck; one fragment on each home zone card.
    "small": {"turns": 1, "draw": 0, "dice": 3, "rockets": [1, 2],
              "cards": ["PL01", "PL02", "PL10", "PL18", "DE02", "DE09", "DE18"],
              "redraw": False,
              "setup": {"PL01": "periphery", "PL02": "periphery", "PL10": "base",
                        "PL18": "hand", "DE02": "periphery", "DE09": "forest",
                        "DE18": "hand"},
              "start_fragments": {"forest": 1, "base": 1}},
}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Days of Honor: Operation Wildhorn III",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=True,
    parameter_specification=_DEFAULT_PARAMS,
)


# Ranges of the integer parameters (-1: as the variant says).  The core
# checks them against the card set too (turns at most the Rocket cards).
PARAM_RANGES: dict[str, tuple[int, int]] = {
    "turns": (1, 8), "draw": (0, CARDS_PER_SIDE), "dice": (1, 60), "redraw": (0, 1),
}


def check_params(params: Any) -> dict[str, Any]:
    """``params`` checked before anything is built from them: known names,
    text where text is expected, and each integer parameter an integer
    (``True`` and ``4.0`` are refused, as everywhere in the package) that
    is -1 or in its range.  Returns a plain dict; raises ParameterError
    naming the parameter.  Call it before ``pyspiel.load_game``, whose
    own conversion fails with a traceback for numbers beyond 32 bits."""
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise ParameterError(f"wildhorn: parameters: expected an object, got "
                             f"{describe_value(params)}")
    out = {}
    for key, value in params.items():
        if key not in _DEFAULT_PARAMS:
            raise ParameterError(f"wildhorn: unknown parameter {quote(key)} (known: "
                                 f"{', '.join(_DEFAULT_PARAMS)})")
        if key in PARAM_RANGES:
            lo, hi = PARAM_RANGES[key]
            if (isinstance(value, bool) or not isinstance(value, int)
                    or not (value == -1 or lo <= value <= hi)):
                raise ParameterError(f"wildhorn: {key}: expected an integer {lo}..{hi} (or -1 "
                                     f"for the variant's value), got {describe_value(value)}")
        elif not isinstance(value, str):
            raise ParameterError(f"wildhorn: {key}: expected text, got {describe_value(value)}")
        elif len(value) > 4096 or "\0" in value:
            raise ParameterError(f"wildhorn: {key}: expected at most 4096 characters of text "
                                 "without NUL, got " + describe_value(value))
        out[key] = value
    return out


def resolve_params(params: dict[str, Any] | None) -> dict[str, Any]:
    """Merges game parameters with their variant; raises ParameterError."""
    merged = dict(_DEFAULT_PARAMS)
    merged.update(check_params(params))
    variant = merged["variant"]
    if variant not in VARIANTS:
        raise ParameterError(
            f"wildhorn: variant: expected one of {', '.join(VARIANTS)}, got {quote(variant)}")
    out = dict(VARIANTS[variant])
    for key in ("turns", "draw", "dice", "redraw"):
        if int(merged[key]) >= 0:
            out[key] = int(merged[key])
    if merged["rockets"]:
        try:
            out["rockets"] = [int(v) for v in _split(merged["rockets"])]
        except ValueError:
            raise ParameterError(
                f"wildhorn: rockets: expected comma-separated integers, got {describe_value(merged['rockets'])}"
            ) from None
    if merged["cards"]:
        out["cards"] = _split(merged["cards"])
        for number in out["cards"]:
            _card_number("cards", number)
    if merged["setup"]:
        out["setup"] = _pairs("setup", merged["setup"], str)
        for number, place in out["setup"].items():
            _card_number("setup", number)
            if place not in _PLACES:
                raise ParameterError(f"wildhorn: setup: {number}: expected "
                                     f"{', '.join(_PLACES)}, got {describe_value(place)}")
    if merged["start_fragments"]:
        out["start_fragments"] = _pairs("start_fragments", merged["start_fragments"], int)
    out["card_set"] = merged["card_set"]
    out["variant"] = variant
    return out


_CONFIGS: dict[tuple, CoreConfig] = {}
_PLACES = ("hand", "deck", *ZONES)
_CARD_NUMBER = re.compile(r"(PL|DE)[0-9]{2}")


def _card_number(name: str, text: str) -> None:
    """Card numbers of parameters look like card numbers (the card set says
    which exist), so that no message echoes a long text."""
    if not _CARD_NUMBER.fullmatch(text):
        raise ParameterError(f"wildhorn: {name}: expected card numbers such as PL04 or DE17, "
                             f"got {describe_value(text)}")


def _split(text: Any) -> list[str]:
    """List parameters are separated by ';' (a game string such as
    ``wildhorn(rockets=1;2)`` already uses ','), or ',' in a params dict."""
    return [v for v in re.split(r"[;,\s]+", str(text)) if v]


def _pairs(name: str, text: str, kind) -> dict[str, Any]:
    out = {}
    for item in _split(text):
        key, sep, value = item.strip().partition(":")
        if not sep or not key.strip() or not value.strip():
            raise ParameterError(f"wildhorn: {name}: expected key:value pairs, got {describe_value(item.strip())}")
        try:
            out[key.strip()] = kind(value.strip())
        except ValueError:
            raise ParameterError(f"wildhorn: {name}: bad value in {describe_value(item.strip())}") from None
    return out


def make_config(params: dict[str, Any] | None = None) -> CoreConfig:
    """The core's game data for these (unresolved) game parameters.

    Configurations are cached by their parameters (and, for a card-set
    file, its modification time): pyspiel builds a new game object for
    every deserialized state.
    """
    p = resolve_params(params)
    source = p["card_set"]
    stamp = None if source == "default" else _mtime(source)
    key = (source, stamp, p["turns"], p["draw"], p["dice"],
           None if p["rockets"] is None else tuple(p["rockets"]),
           None if p["cards"] is None else tuple(p["cards"]), bool(p["redraw"]),
           tuple(sorted((p["setup"] or {}).items())),
           tuple(sorted((p["start_fragments"] or {}).items())))
    cfg = _CONFIGS.get(key)
    if cfg is None:
        cfg = CoreConfig(load_card_set(source), turns=p["turns"], draw=p["draw"],
                         dice=p["dice"], rockets=p["rockets"], cards=p["cards"],
                         redraw=bool(p["redraw"]), setup=p["setup"],
                         fragments=p["start_fragments"])
        _CONFIGS[key] = cfg
    return cfg


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None  # load_card_set reports the problem


def game_for_config(config: CoreConfig) -> "WildhornGame":
    """The pyspiel game whose core configuration is ``config``."""
    source, turns, draw, dice, rockets, cards, redraw, setup, frags = config.key
    params = {"card_set": "default" if source == str(default_card_set_path()) else source,
              "turns": turns, "draw": draw, "dice": dice,
              "rockets": ";".join(map(str, rockets)),
              "cards": "" if cards is None else ";".join(cards),
              "redraw": int(redraw),
              "setup": ";".join(f"{k}:{v}" for k, v in setup),
              "start_fragments": ";".join(f"{k}:{v}" for k, v in frags)}
    game = pyspiel.load_game(GAME_NAME, params)
    if game.core_config.key != config.key:
        raise ParameterError("no game string reproduces this configuration")
    return game


def max_game_length(config: CoreConfig) -> int:
    """An upper bound on the player decisions of one game (``CoreConfig.max_game_length``).

    Per turn: two redraw decisions; at most 2U activations (each exhausts a
    card; refreshes come only from cards, U = cards in play), U placements
    and events; at most 7 decisions per action besides the modifier window,
    whose plays (at most 2U a turn) each bring a pass; passes at most one per
    action plus two.
    """
    return config.max_game_length  # one formula, the core's (it bounds Core.moves)


class WildhornGame(pyspiel.Game):
    """The game; ``core_config`` holds its card data and rule parameters."""

    def __init__(self, params: dict[str, Any] | None = None):
        self.core_config = make_config(params)
        cfg = self.core_config
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_DISTINCT_ACTIONS,
            max_chance_outcomes=max(CARDS_PER_SIDE, len(cfg.rockets), cfg.dice_sides),
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length(cfg),
        )
        super().__init__(_GAME_TYPE, info, params or {})
        self._initial = Core(cfg).frozen_copy()

    def new_initial_state(self, *args: Any) -> "WildhornState":
        state = WildhornState(self)
        state._core = self._initial
        return state

    def state_from_core(self, core: Core) -> "WildhornState":
        """A pyspiel state around (a frozen copy of) a core position of this game."""
        if core.config.key != self.core_config.key:
            raise ParameterError("core position belongs to another game configuration")
        state = WildhornState(self)
        state._core = core.frozen_copy()
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        if not isinstance(iig_obs_type, pyspiel.IIGObservationType):
            iig_obs_type = None  # C++ passes the params dict when no type is given
        return WildhornObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)

    def deserialize_state(self, text: str) -> "WildhornState":
        """Inverse of ``WildhornState.serialize``; SerializationError if corrupt."""
        if not isinstance(text, str) or not text.startswith(_SER_PREFIX):
            raise SerializationError(f"serialized state: expected text starting {_SER_PREFIX!r}")
        try:
            raw = base64.b64decode(text[len(_SER_PREFIX):].strip(), validate=True)
        except (ValueError, TypeError):
            raise SerializationError("serialized state: not valid base64") from None
        core = Core.from_bytes(self.core_config, raw)
        for check in POSITION_CHECKS:
            try:
                check(core, "serialized state")
            except WildhornError as err:
                raise SerializationError(f"an impossible position: {err}") from None
        return self.state_from_core(core)


_SER_PREFIX = "wildhorn-state/1 "

POSITION_CHECKS: list = []
"""Checks a deserialized position must pass besides the core's own range
checks, each ``check(core, source)`` raising a WildhornError.  The
state-file invariants (``solver.state_io.check_position``) register here
when solver.state_io is imported, which ``import solver`` does; this
module cannot import it (state_io builds on it)."""


class WildhornState(pyspiel.State):
    """A game position.  Its ``__dict__`` holds only ``_core``, a frozen
    (immutable) core position: pyspiel clones a Python state by deep-copying
    its ``__dict__``, and an immutable value is its own deep copy.  Applying
    an action replaces ``_core`` by a new frozen position (a struct copy).
    Create states with ``game.new_initial_state()`` or ``game.state_from_core``.
    """

    @property
    def core(self) -> Core:
        """The (frozen) core position; ``core.copy()`` gives a mutable one."""
        return self._core

    def current_player(self) -> int:
        return self._core.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        if player != self._core.current_player():
            return []
        return self._core.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._core.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self._core = self._core.applied(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self._core.action_string(player, action)

    def string_to_action(self, text: str, player: int | None = None) -> int:
        """The legal action whose string is ``text`` (IllegalActionError if none)."""
        p = self.current_player() if player is None else player
        actions = ([a for a, _ in self.chance_outcomes()] if self.is_chance_node()
                   else self.legal_actions())
        for a in actions:
            if self._core.action_string(p, a) == text:
                return a
        raise IllegalActionError(f"no legal action reads {text!r} here")

    def is_terminal(self) -> bool:
        return self._core.is_terminal()

    def returns(self) -> list[float]:
        return self._core.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "WildhornState":
        """A state with the same information state for ``player_id``: the
        opponent's hand drawn uniformly from the unseen cards (R26)."""
        seed = int(probability_sampler() * 2**53)
        state = self.get_game().new_initial_state()
        state._core = self._core.resample(player_id, seed).frozen_copy()
        return state

    def serialize(self) -> str:
        return _SER_PREFIX + base64.b64encode(self._core.to_bytes()).decode("ascii")

    def __str__(self) -> str:
        return describe(self._core)


class WildhornObserver:
    """Builds information-state / observation strings and tensors.

    The view depends on ``iig_obs_type.private_info``: SINGLE_PLAYER, the
    player's own view; ALL_PLAYERS, the whole state; NONE, the public part.
    With ``public_info`` False only the private part (the player's hand) is
    given, as a string.  ``perfect_recall`` changes nothing: the view is
    the game's information state (see the module docstring).
    """

    def __init__(self, iig_obs_type, params):
        if params:
            raise ParameterError(f"wildhorn observer: unexpected parameters {params}")
        self._public = iig_obs_type.public_info
        private = iig_obs_type.private_info
        self._mode = {pyspiel.PrivateInfoType.SINGLE_PLAYER: "single",
                      pyspiel.PrivateInfoType.ALL_PLAYERS: "all",
                      pyspiel.PrivateInfoType.NONE: "none"}[private]
        if self._public:
            pieces = tensor_pieces()
            size = sum(n for _, n in pieces)
            self.tensor = np.zeros(size, np.float32)
            self.dict = {}
            index = 0
            for name, n in pieces:
                self.dict[name] = self.tensor[index:index + n]
                index += n
        else:
            self.tensor = None
            self.dict = {}

    def _view(self, player: int) -> int:
        return {"single": player, "all": 2, "none": -1}[self._mode]

    def set_from(self, state: WildhornState, player: int) -> None:
        if self.tensor is not None:
            state._core.fill_tensor(self._view(player), self.tensor)

    def string_from(self, state: WildhornState, player: int) -> str:
        core = state._core
        if self._public:
            return core.info_string(self._view(player))
        if self._mode == "none":
            return ""
        sides = (0, 1) if self._mode == "all" else (player,)
        cfg = core.config
        return " ".join(
            f"P{side} hand:" + ",".join(cfg.names[g].split()[0] for g in core.cards_at("hand", side))
            for side in sides)


pyspiel.register_game(_GAME_TYPE, WildhornGame)


def _string_params(text: str) -> dict[str, Any] | None:
    """The parameters of a game string ``wildhorn(k=v,...)`` as OpenSpiel
    reads them (an integer where the value is one), or None when the string
    is not that simple form (OpenSpiel's own parser then answers)."""
    match = re.fullmatch(r"\s*" + GAME_NAME + r"\s*(?:\((.*)\))?\s*", text, re.S)
    if match is None or (match.group(1) or "").count("(") > 0:
        return None
    params: dict[str, Any] = {}
    for item in filter(None, (match.group(1) or "").split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            return None
        params[key.strip()] = int(value) if re.fullmatch(r"-?\d+", value.strip()) else value
    return params


_openspiel_load_game = pyspiel.load_game


def load_game(game: Any, params: Any = None) -> Any:
    """``pyspiel.load_game`` with this game's parameters checked first.

    pybind11 converts a parameter dict to C++ before the game sees it, so an
    integer beyond 32 bits (``{"turns": 2**31}``) used to fail there with a
    RuntimeError that names nothing.  This wrapper, installed as
    ``pyspiel.load_game`` when the game registers, runs :func:`check_params`
    on a ``wildhorn`` game's parameters (a dict, or the ``wildhorn(k=v)``
    string form) and raises its one-line ParameterError; every other game,
    and every valid call, goes straight to OpenSpiel."""
    if isinstance(game, str):
        if params is None:
            named = _string_params(game)
            if named is not None:
                check_params(named)
        elif game.strip() == GAME_NAME:
            check_params(params)
    if params is None:
        return _openspiel_load_game(game)
    return _openspiel_load_game(game, params)


pyspiel.load_game = load_game

__all__ = ["GAME_NAME", "VARIANTS", "WildhornGame", "WildhornState", "WildhornObserver",
           "decode_action", "describe", "make_config", "resolve_params", "max_game_length"]
