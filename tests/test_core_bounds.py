"""Nothing from Python makes the core read or write out of bounds (issue 22, item 1).

The entry points are found by introspection, not listed: every public method
of ``Core`` and ``CoreConfig`` (their constructors included) and every public
function of ``solver._core``, with the parameters of its signature.  Each
parameter in turn gets out-of-range, negative, huge, float, NaN and None
values while the others keep a valid one.  The contract: the call returns or
raises one of the project's errors (``WildhornError``, a ``ValueError``) with
a one-line message, never another exception (no OverflowError, no bare
TypeError), never a crash.  A value the parameter cannot take (all of them
but the few listed in ``ACCEPTED``) must be refused: a float is never
truncated to an integer.

CI also runs this file on the AddressSanitizer + UndefinedBehaviorSanitizer
build (``WILDHORN_SANITIZE=1``, see ``.ci/run``), where an out-of-bounds read
aborts the process.  A new public method whose parameter has no valid value
in ``VALID`` fails ``test_every_parameter_has_a_valid_value`` until one is
added, so no entry point escapes the sweep.
"""

from __future__ import annotations

import inspect
import random

import numpy as np
import pyspiel
import pytest

import solver._core as core_module
import solver.game  # noqa: F401  (registers the game)
from solver._core import Core, CoreConfig, decode_action, tensor_pieces
from solver.cards import load_card_set
from solver.errors import IllegalActionError, ParameterError, SerializationError, WildhornError

pytestmark = pytest.mark.bounds

CARDS = load_card_set()
CFG = CoreConfig(CARDS)
TENSOR = sum(n for _, n in tensor_pieces())

# Out of range for every index, negative, huge (C int, long, beyond), floats
# (integral ones too), NaN, infinity, None, a bool, a string, a list.
BAD = [-1, 9, 400, -3, 46, 284, 2**31 - 1, 2**31, -2**31, 2**63, -2**63, 2**64,
       3.7, 3.0, float("nan"), float("inf"), None, True, "0", [0]]


def _decision_core(seed: int = 7) -> Core:
    """A mutable position at a decision in the action step of turn 1."""
    core, rng = Core(CFG), random.Random(seed)
    while core.is_chance() or core.phase != "actions":
        moves = [a for a, _ in core.chance_outcomes()] if core.is_chance() else core.legal_actions()
        core.apply(rng.choice(moves))
    return core


def _legal(core: Core) -> list[int]:
    return [a for a, _ in core.chance_outcomes()] if core.is_chance() else core.legal_actions()


# A valid value per parameter name (a callable gets the position the method runs on).
VALID = {
    "config": CFG, "card_set": CARDS, "turns": 4, "draw": 5, "dice": 6, "rockets": None,
    "cards": None, "redraw": True, "setup": None, "fragments": None,
    "data": lambda core: core.to_bytes(), "f": lambda core: core.fields(),
    "places": None, "exhausted": (), "turn": 1, "actor": 0, "actions_left": 1, "passes": 0,
    "redraw_used": (False, False), "wildhorn_played": None,
    "action": lambda core: _legal(core)[0], "player": 0, "side": 0, "g": 0, "seed": 1,
    "place": "hand", "name": "PASS", "arg": 0,
    "out": lambda core: np.zeros(TENSOR, np.float32), "core": lambda core: core,
}


def _integer(v) -> bool:
    return type(v) is int


# Values of BAD that a parameter may legitimately take: the call may then
# succeed (or refuse with a project error).  Keys: parameter or (function, parameter).
ACCEPTED = {
    "seed": lambda v, core: _integer(v),  # any integer, taken modulo 2**64
    "rockets": lambda v, core: v is None,
    "cards": lambda v, core: v is None,
    "setup": lambda v, core: v is None,
    "fragments": lambda v, core: v is None,
    "places": lambda v, core: v is None,
    "wildhorn_played": lambda v, core: v is None or v is True,
    "redraw": lambda v, core: v is True,
    "action": lambda v, core: _integer(v) and v in _legal(core),
    ("decode_action", "action"): lambda v, core: _integer(v) and 0 <= v < 284,
    ("action_string", "action"): lambda v, core: _integer(v) and 0 <= v < 284,
    ("action_string", "player"): lambda v, core: _integer(v) and -4 <= v <= 1,
    ("info_string", "player"): lambda v, core: _integer(v) and -1 <= v <= 2,
    ("info_hash", "player"): lambda v, core: _integer(v) and -1 <= v <= 2,
    ("fill_tensor", "player"): lambda v, core: _integer(v) and -1 <= v <= 2,
    ("cards_at", "side"): lambda v, core: v == -1 and _integer(v),
    ("location", "g"): lambda v, core: _integer(v) and 0 <= v < 46,
    ("drawn_this_turn", "g"): lambda v, core: _integer(v) and 0 <= v < 46,
    ("card_name", "g"): lambda v, core: _integer(v) and 0 <= v < 46,
    ("CoreConfig", "draw"): lambda v, core: _integer(v) and 0 <= v <= 23,
    ("CoreConfig", "dice"): lambda v, core: _integer(v) and 1 <= v <= 60,
    ("build", "turn"): lambda v, core: False,
}


def _constructor_parameters(cls) -> list[inspect.Parameter]:
    """An extension type's ``__init__`` is a slot without a signature; the
    class docstring's first line states it (``Core(config)``).  A drifted
    line fails the sweep: its keyword names would not be accepted."""
    first = cls.__doc__.strip().splitlines()[0]
    assert first.startswith(cls.__name__ + "("), first
    scope: dict = {}
    exec(f"def f{first[len(cls.__name__):]}: pass", scope)  # noqa: S102 - our own docstring
    return list(inspect.signature(scope["f"]).parameters.values())


def _entry_points():
    """(label, owner, name, callable, parameters) of every public entry point."""
    out = []
    for cls in (Core, CoreConfig):
        params = _constructor_parameters(cls)
        out.append((cls.__name__, cls, cls.__name__, cls, params))
        for name, member in vars(cls).items():
            if name.startswith("_"):
                continue
            static = isinstance(member, staticmethod)
            func = getattr(cls, name)
            if not callable(func) or not (static or inspect.isroutine(member)):
                continue  # properties and attributes take no arguments
            params = list(inspect.signature(func).parameters.values())
            if not static:
                params = params[1:]  # self
            out.append((f"{cls.__name__}.{name}", cls if static else "instance", name, func, params))
    for name, func in vars(core_module).items():
        if (not name.startswith("_") and inspect.isroutine(func)
                and getattr(func, "__module__", None) == core_module.__name__):
            out.append((name, None, name, func, list(inspect.signature(func).parameters.values())))
    return out


ENTRY_POINTS = _entry_points()
WITH_PARAMS = [(label, p.name) for label, _, _, _, params in ENTRY_POINTS for p in params]


def test_introspection_finds_the_entry_points():
    """The sweep covers what it should: the issue's methods are among those found."""
    labels = {label for label, *_ in ENTRY_POINTS}
    for expected in ("Core", "CoreConfig", "Core.hand_size", "Core.deck_size", "Core.drawn_this_turn",
                     "Core.apply", "Core.applied", "Core.apply_raw", "Core.from_bytes", "Core.build",
                     "Core.fill_tensor", "Core.resample", "CoreConfig.card_name", "decode_action",
                     "encode_action", "describe"):
        assert expected in labels
    assert len(WITH_PARAMS) >= 40


@pytest.mark.parametrize("label, param", WITH_PARAMS)
def test_every_parameter_has_a_valid_value(label, param):
    assert param in VALID, f"{label}: add a valid value of {param!r} to VALID"


def _call(entry, core: Core, param: str, value):
    label, owner, name, func, params = entry
    kwargs, args = {}, []
    for p in params:
        v = value if p.name == param else VALID[p.name]
        if p.name != param and callable(v):
            v = v(core)
        if p.kind is p.KEYWORD_ONLY:
            kwargs[p.name] = v
        else:
            args.append(v)
    if owner == "instance":
        func = getattr(core if label.startswith("Core.") else CFG, name)
    return func(*args, **kwargs)


POSITIONS = {"decision": _decision_core(), "initial": Core(CFG)}


@pytest.mark.parametrize("where", sorted(POSITIONS))
@pytest.mark.parametrize("label, param", WITH_PARAMS)
def test_bad_arguments_are_refused_cleanly(label, param, where):
    entry = next(e for e in ENTRY_POINTS if e[0] == label)
    base = POSITIONS[where]
    for value in BAD:
        core = base.copy()
        accepted = ACCEPTED.get((entry[2], param), ACCEPTED.get(param))
        may_pass = accepted is not None and accepted(value, core)
        try:
            _call(entry, core, param, value)
        except WildhornError as e:
            assert isinstance(e, ValueError)
            assert str(e) and "\n" not in str(e) and len(str(e)) < 300, (label, param, value, str(e))
            continue
        except Exception as e:  # pragma: no cover - the failure being tested for
            pytest.fail(f"{label}({param}={value!r}) raised {type(e).__name__}: {e}")
        assert may_pass, f"{label}({param}={value!r}) was accepted"


# ---- the cases the audit reported, by name --------------------------------

def test_the_reported_reads_are_refused():
    core = pyspiel.load_game("wildhorn").new_initial_state().core
    for call in (lambda: core.hand_size(2**31 - 1), lambda: core.deck_size(-2**31),
                 lambda: core.drawn_this_turn(-10**8), lambda: core.hand_size(9),
                 lambda: core.deck_size(-3), lambda: core.drawn_this_turn(400),
                 lambda: core.hand_size(-1)):
        with pytest.raises(ParameterError):
            call()
    assert core.hand_size(0) == len(core.cards_at("hand", 0))


def test_a_float_action_is_refused_not_truncated():
    core = _decision_core()
    legal = core.legal_actions()
    for a in legal:
        with pytest.raises(IllegalActionError, match="not an integer"):
            core.copy().apply(float(a))
        with pytest.raises(IllegalActionError, match="not an integer"):
            core.copy().apply(a + 0.7)
    before = core.to_bytes()
    with pytest.raises(IllegalActionError):
        core.apply(3.7)
    assert core.to_bytes() == before  # nothing applied


def test_numpy_integers_still_work():
    """OpenSpiel and numpy callers pass numpy integers: they are integers."""
    core = _decision_core()
    a = core.legal_actions()[-1]
    assert core.applied(np.int64(a)) == core.applied(a)
    assert core.hand_size(np.int32(1)) == core.hand_size(1)
    assert decode_action(np.int16(8)) == ("PLACE", 0)
    out = np.zeros(TENSOR, np.float32)
    core.fill_tensor(np.int64(0), out)
    assert out.sum() > 0
    with pytest.raises(ParameterError):
        core.hand_size(np.float64(1.0))
    with pytest.raises(ParameterError):
        core.hand_size(np.bool_(True))


def test_fill_tensor_refuses_a_short_or_wrong_buffer():
    core = _decision_core()
    for out in (np.zeros(TENSOR - 1, np.float32), np.zeros(TENSOR, np.float64),
                np.zeros((2, TENSOR), np.float32)[:, 0], b"x" * TENSOR, None):
        with pytest.raises(ParameterError):
            core.fill_tensor(0, out)


# ---- serialized states: impossible counts refused, states of play accepted ---

def _play_to(core: Core, rng: random.Random, turn: int, phase: str) -> Core:
    while not core.is_terminal() and not (core.turn == turn and core.phase == phase):
        core.apply(rng.choice(_legal(core)))
    return core


def test_a_serialization_with_impossible_counts_is_refused():
    """Issue 22: the German hand 0 and deck 23 in turn 2 was accepted, and
    ISMCTS then failed.  The deck sizes follow from the turn (R3, R5)."""
    core = _play_to(Core(CFG), random.Random(3), 2, "actions")
    assert core.turn == 2 and core.phase == "actions"
    raw = bytearray(core.to_bytes())
    for g in range(23, 46):
        if core.location(g)[0] == "hand":
            raw[3 + g] = 0  # loc[] is the first field of the state: 0 = deck
    with pytest.raises(SerializationError, match="German deck"):
        Core.from_bytes(CFG, bytes(raw))
    # one card more in a deck, one card flagged as drawn outside the draw step
    raw = bytearray(core.to_bytes())
    g = next(g for g in range(23) if core.location(g)[0] == "hand")
    raw[3 + g] = 0
    with pytest.raises(SerializationError, match="Polish deck"):
        Core.from_bytes(CFG, bytes(raw))


@pytest.mark.parametrize("variant", ["full", "tiny", "small"])
def test_every_position_of_play_survives_serialization(variant):
    """No false refusal: every node of random games (and their resamples) of
    the variants round-trips through to_bytes / from_bytes."""
    game = pyspiel.load_game("wildhorn", {"variant": variant})
    cfg = game.new_initial_state().core.config
    rng = random.Random(variant)
    nodes = 0
    for _ in range(12):
        core = game.new_initial_state().core.copy()
        while True:
            assert Core.from_bytes(cfg, core.to_bytes()) == core
            if not core.is_chance() and not core.is_terminal():
                for p in (0, 1):
                    other = core.resample(p, rng.randrange(2**62))
                    assert Core.from_bytes(cfg, other.to_bytes()) == other
            nodes += 1
            if core.is_terminal():
                break
            core.apply(rng.choice(_legal(core)))
    assert nodes > 12


def test_a_core_made_without_its_constructor_is_a_finished_empty_game():
    """``Core.__new__(Core)`` skips ``__init__``: its methods still read only
    its own zeroed struct and an empty configuration, never through None."""
    core = Core.__new__(Core)
    assert core.is_terminal() and core.legal_actions() == [] and core.chance_outcomes() == []
    with pytest.raises(IllegalActionError, match="game is over"):
        core.apply(0)
    assert core.copy().playout(1) == core.winner
    assert core.hand_size(0) == core.deck_size(1) == 0
    assert "game over" in core_module.describe(core)
    for p in (-1, 0, 1, 2):
        core.info_string(p)
        core.fill_tensor(p, np.zeros(TENSOR, np.float32))
