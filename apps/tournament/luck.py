"""Luck-adjusted results: how much of a game's result its chance events gave,
measured by a frozen value function, and taken out.

A *value function* ``V(core) -> float`` estimates the probability that the
Polish side (side 0) wins from a complete position (the tournament's true
state is complete).  At each chance event of a game (a card drawn, a Rocket
card revealed, a die rolled: a chance node with its outcomes ``o`` and their
probabilities ``p_o``, ``Core.chance_outcomes``), the luck of the sampled
outcome ``a`` for the Polish side is ::

    luck = V(after a) - sum_o p_o V(after o)

and a game's luck ``L`` is the sum over its chance events.  The luck-adjusted
result of the Polish side is its result (1 win, 0 loss) minus ``L``, the German
side's is its result plus ``L``: the two still sum to 1.  This is GNU
Backgammon's luck-adjusted result and the chance term of AIVAT (Burch et al.
2018).  Given everything before it, an event's luck has mean exactly 0 (the
outcome is drawn with the probabilities ``p_o``, so the mean of ``V(after
a)`` is the sum subtracted), so the adjusted result has the raw result's
expectation for ANY fixed ``V``, good or bad; a ``V`` close to the true
winning chances takes out most of the cards' and dice's part of the result,
and the variance with it.  Two conditions make that hold, and the code keeps
them: ``V`` is fixed for the whole match (``tournament.json`` records what
identifies it, and a folder refuses another), and the chance outcomes are
drawn with the probabilities the core states (both chance schemes do:
``tests/test_chance.py``).

Where a chance outcome ends the game, ``V`` is not asked: the position's
value is its result (1 or 0), which any ``V`` would ideally give.  A chance
node with a single outcome has no luck and costs nothing.

The tournament's ``V`` comes from :func:`luck_value` (the one place that
chooses it); tests and scripts may give any callable with an ``identity``
(see :class:`ValueFunction`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Protocol

from bots import load_net, valuenet
from solver import Core
from solver.errors import ParameterError

LUCK_FIELD = "luck_polish"
"""The ``games.csv`` column of a game's luck for the Polish side (with ``--luck``)."""


class ValueFunction(Protocol):
    """What ``--luck`` needs of a value function.

    * ``value(core) -> float``: P(the Polish side wins) from the complete,
      non-terminal position ``core`` (a :class:`solver.Core`, not to be kept
      or changed: a frozen copy);
    * ``value.identity``: a small JSON object naming this function exactly
      (for a weights file: its name and sha256), recorded in
      ``tournament.json`` so that a folder never mixes two functions;
    * optional ``value.batch(cores) -> sequence of floats``: the values of
      several positions at once (the outcomes of one chance node), used
      instead of one call each when present.

    It travels to the worker processes with each game (pickled): a function
    holding large weights should pickle as what loads them (a path and its
    sha256) and keep them loaded once per process.
    """

    identity: dict[str, Any]

    def __call__(self, core: Core) -> float: ...


def identity_of(value: Any) -> dict[str, Any]:
    """``value``'s identity, checked to be a non-empty JSON object of
    strings, numbers and booleans (ParameterError otherwise)."""
    identity = getattr(value, "identity", None)
    if not callable(value) or not isinstance(identity, dict) or not identity:
        raise ParameterError(f"--luck: a value function must be callable with a non-empty "
                             f"'identity' dict, got {type(value).__name__}")
    for key, item in identity.items():
        if not isinstance(key, str) or not isinstance(item, (str, int, float, bool)):
            raise ParameterError(f"--luck: the value function's identity must map names to "
                                 f"strings or numbers, got {key!r}: {item!r}")
    return dict(identity)


def describe(identity: dict[str, Any] | None) -> str:
    """A short text of an identity for messages and reports (a sha256 cut to 12)."""
    if not identity:
        return "none"
    return ", ".join(f"{k}={str(v)[:12] if k == 'sha256' else v}" for k, v in identity.items())


# ---- the luck of one chance event ---------------------------------------------------

def _terminal_value(core: Core) -> float:
    return 1.0 if core.returns()[0] > 0 else 0.0


def outcome_values(core: Core, value: ValueFunction) -> list[tuple[int, float, float]]:
    """``(outcome, probability, V after it)`` for each outcome of the chance
    node ``core``: each outcome applied to a copy of ``core`` (``core`` is not
    changed), a terminal position valued by its result."""
    outcomes = core.chance_outcomes()
    if not outcomes:
        raise ValueError(f"luck: not a chance node (phase {core.phase})")
    after = [core.applied(a) for a, _ in outcomes]
    values: list[float | None] = [_terminal_value(c) if c.is_terminal() else None for c in after]
    open_ = [i for i, v in enumerate(values) if v is None]
    if open_:
        batch = getattr(value, "batch", None)
        found = (list(batch([after[i] for i in open_])) if batch is not None
                 else [value(after[i]) for i in open_])
        if len(found) != len(open_):
            raise ValueError(f"luck: the value function gave {len(found)} values for "
                             f"{len(open_)} positions")
        for i, v in zip(open_, found):
            v = float(v)
            if not math.isfinite(v):
                who = describe(getattr(value, "identity", None))
                raise ValueError(f"luck: the value function gave {v} ({who})")
            values[i] = v
    return [(a, float(p), float(v)) for (a, p), v in zip(outcomes, values)]


def expectation(values: Sequence[tuple[int, float, float]]) -> float:
    """``sum_o p_o V(after o)`` of :func:`outcome_values`."""
    return math.fsum(p * v for _, p, v in values)


def outcome_lucks(core: Core, value: ValueFunction) -> list[tuple[int, float, float]]:
    """``(outcome, probability, luck)`` for each outcome of the chance node
    ``core``: what each outcome would give the Polish side (their mean, by
    the probabilities, is 0)."""
    values = outcome_values(core, value)
    mean = expectation(values)
    return [(a, p, v - mean) for a, p, v in values]


def event_luck(core: Core, action: int, value: ValueFunction) -> float:
    """The Polish side's luck when the chance node ``core`` gives ``action``."""
    for a, _, luck in outcome_lucks(core, value):
        if a == action:
            return luck
    raise ValueError(f"luck: {action} is not an outcome of this {core.phase} node")


class LuckMeter:
    """The luck of one game so far: :meth:`observe` each chance event before
    its outcome is applied."""

    def __init__(self, value: ValueFunction):
        self.value = value
        self.total = 0.0      # the Polish side's luck
        self.events = 0       # chance events with more than one outcome

    def observe(self, core: Core, action: int) -> float:
        """Adds the luck of ``action`` at the chance node ``core``; returns it."""
        if len(core.chance_outcomes()) < 2:
            return 0.0
        luck = event_luck(core, action, self.value)
        self.total += luck
        self.events += 1
        return luck


def adjusted_results(polish_won: bool | int, luck_polish: float) -> tuple[float, float]:
    """(Polish, German) luck-adjusted results of a game: ``result - luck`` for
    the Polish side, ``result + luck`` for the German side (summing to 1)."""
    won = float(bool(polish_won))
    return won - luck_polish, (1.0 - won) + luck_polish


# ---- value functions -------------------------------------------------------------------

@dataclass(frozen=True)
class ScoreValue:
    """A value function of the score alone: ``sigmoid(scale * (fp - fg - 1/2))``
    with ``fp``, ``fg`` the fragments the Polish and German sides hold now
    (R22: more fragments wins, a tie goes to the German side).  A weak control
    variate (it knows nothing of the cards and the turn), unbiased like any
    fixed function; a cheap one for tests (the tournament's is the value
    network, :func:`default_value`)."""

    scale: float = 1.0

    @property
    def identity(self) -> dict[str, Any]:
        return {"function": "score-logistic", "scale": self.scale}

    def __call__(self, core: Core) -> float:
        polish, german = core.scores()
        return 1.0 / (1.0 + math.exp(-self.scale * (polish - german - 0.5)))


class NetValue:
    """The value network (``bots.valuenet``, evaluated in C by ``bots.NetC``)
    as a luck value function: the network's P(Polish wins) at a complete
    position, with the file's name and sha256 as its identity.  It pickles
    as the path and the digest (the weights are loaded once per process, and
    a worker whose file differs refuses it), so a tournament's worker
    processes, or Ray's, evaluate the same network."""

    def __init__(self, path: str | Path | None = None, sha256: str | None = None):
        source = valuenet.default() if path is None else valuenet.load(path)
        if source.variant != valuenet.DEFAULT_VARIANT:
            raise ParameterError(f"--luck: the value network {source.path} was trained on "
                                 f"variant {source.variant}; a tournament plays the full game")
        if sha256 is not None and source.sha256 != sha256:
            raise ParameterError(f"--luck: the value network {source.path} is not the one this "
                                 f"match was started with (sha256 {source.sha256[:12]}, expected "
                                 f"{sha256[:12]})")
        self.path = str(source.path)
        self.sha256 = source.sha256
        self._net = load_net(source)

    @property
    def identity(self) -> dict[str, Any]:
        return {"function": "value-net", "file": Path(self.path).name, "sha256": self.sha256}

    def __call__(self, core: Core) -> float:
        return self._net.evaluate_core(core)

    def batch(self, cores: Sequence[Core]) -> list[float]:
        return [self._net.evaluate_core(c) for c in cores]

    def __reduce__(self):
        return (NetValue, (self.path, self.sha256))


def default_value() -> ValueFunction:
    """The value function of ``wildhorn-solve tournament --luck``: the
    packaged value network (``bots/data/value_net.npz``, :class:`NetValue`);
    a one-line error if it is missing.  A folder played with another
    function (an earlier network, or the score's logistic of the first
    version) refuses to resume with it."""
    return NetValue()


def luck_value(luck: Any) -> ValueFunction | None:
    """What a tournament's ``luck`` argument measures with: None for no luck
    (None or False), :func:`default_value` for True, the network in that
    file for a path (``--luck FILE``: a folder started under an earlier
    packaged network continues with that network's file, the same identity),
    else ``luck`` itself, a :class:`ValueFunction`."""
    if luck is None or luck is False:
        return None
    if luck is True:
        return default_value()
    if isinstance(luck, (str, Path)):
        return NetValue(luck)
    return luck
