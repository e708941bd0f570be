"""Where a game's chance outcomes come from: a *chance stream*, one per game,
made from the deal seed.

Two schemes (``tournament.json`` records which one a tournament uses, as
``"chance"``; a folder written before the key existed uses ``sequential``):

``sequential`` (the scheme before issue 28)
    ``random.Random(deal_seed)`` consumed in order: the k-th chance event of
    the game takes the k-th draw of one generator.  Once the two games of a
    deal diverge, every later card and die differs.

``keyed`` (common random numbers, the default)
    Every chance event is drawn from a stream keyed by *what it is*, not by
    when it happens:

    * a side's deck: the deck is shuffled once, by ``derive("deck", seed,
      side, epoch)``, when the side first draws (epoch 0), and each draw
      takes the next card of that order.  When the deck holds other cards
      than that order has left (a redraw sent cards back, R5), it is
      shuffled anew with the next epoch (a redraw's reshuffle is keyed by
      the side and the redraw);
    * the Rocket deck: shuffled once by ``derive("rockets", seed, 0)``;
      each reveal takes the next card;
    * a die: ``derive("die", seed, side, k)`` for the k-th die (from 0)
      that ``side`` rolls in the game (the attacker's die is the actor's,
      the defender's die the other side's, R15d).

    Sampling stays exact: a shuffled deck dealt from the top gives each draw
    uniformly over the cards left, and each die is uniform and independent
    (``tests/test_chance.py`` checks every chance node's outcome with a
    probability integral transform).  The two seat-swapped games of a deal
    then give each *side* the same cards and dice for as long as the same
    events happen, so the luck cancels within the pair.

Interchangeable cards (R27) are one chance outcome (the core names it by the
lowest-numbered card of the class left in the deck), so a deck's order is
kept as the order of the cards' classes.

Nothing here depends on the bots or the backend; the tournament's games
(:mod:`apps.tournament.execution`), ``benchmarks/rollout_match.py`` and
``benchmarks/scaling.py`` (through the tournament runner) use it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, Protocol

from apps.tournament.scheduling import (CHANCE_SCHEMES, DEFAULT_CHANCE, LEGACY_CHANCE,
                                        derive)
from solver.cards import CARDS_PER_SIDE, load_card_set
from solver.errors import ParameterError, brief
from solver.vocabulary import PHASES

SCHEMES = CHANCE_SCHEMES
DEFAULT_SCHEME = DEFAULT_CHANCE   # what a new tournament uses
LEGACY_SCHEME = LEGACY_CHANCE     # what a folder without "chance" in tournament.json used

_DRAW, _ROCKET, _ROLL = "draw", "rocket", "roll"
assert {_DRAW, _ROCKET, _ROLL} <= set(PHASES), "a chance step the core does not name"


class ChanceStream(Protocol):
    def sample(self, state: Any) -> int:
        """The outcome (an action id) of the chance node ``state``."""


def check_scheme(scheme: str) -> str:
    if scheme not in SCHEMES:
        raise ParameterError(f"--chance: expected one of {', '.join(SCHEMES)}, got {brief(scheme)}")
    return scheme


def make_stream(scheme: str, seed: int) -> ChanceStream:
    """The chance stream of one game: ``scheme`` (see :data:`SCHEMES`) from ``seed``."""
    return {"sequential": SequentialChance, "keyed": KeyedChance}[check_scheme(scheme)](seed)


class SequentialChance:
    """``random.Random(seed)`` consumed in order (the scheme before keyed)."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def sample(self, state: Any) -> int:
        actions, probs = zip(*state.chance_outcomes())
        return self.rng.choices(actions, probs)[0]


@dataclass
class _Order:
    """A shuffled deck: the classes (or Rocket values) in dealing order."""
    epoch: int         # how many times this deck was shuffled before this order
    items: list[int]   # the order
    dealt: int = 0     # items dealt so far

    def left(self) -> Counter:
        return Counter(self.items[self.dealt:])

    def deal(self) -> int:
        item = self.items[self.dealt]
        self.dealt += 1
        return item


_CLASSES: dict[str, list[int]] = {}


def card_classes(core: Any) -> list[int]:
    """Each global card slot's interchangeability class (R27) in the card set
    of ``core`` (cached by card-set path)."""
    path = core.config.key[0]
    classes = _CLASSES.get(path)
    if classes is None:
        classes = _CLASSES[path] = list(load_card_set(path).to_core_arrays()["hand_class"])
    return classes


class KeyedChance:
    """Each chance event drawn from a stream keyed by what it is (module doc)."""

    def __init__(self, seed: int):
        self.seed = seed
        self.decks: list[_Order | None] = [None, None]   # per side
        self.rockets: _Order | None = None
        self.rolls = [0, 0]                              # dice rolled so far, per side

    def sample(self, state: Any) -> int:
        core = getattr(state, "core", state)     # a pyspiel state or a Core
        outcomes = [a for a, _ in state.chance_outcomes()]
        phase = core.phase
        if phase == _DRAW:
            action = self._draw(core, outcomes)
        elif phase == _ROCKET:
            action = self._rocket(core, outcomes)
        elif phase == _ROLL:
            action = self._die(core, outcomes)
        else:
            raise RuntimeError(f"keyed chance: unknown chance step {phase!r}")
        if action not in outcomes:
            raise RuntimeError(f"keyed chance: {action} is not an outcome of the {phase} "
                               f"node ({outcomes})")
        return action

    # ---- the three kinds of chance event ---------------------------------------------

    def _draw(self, core: Any, outcomes: list[int]) -> int:
        """The next card of the side's shuffled deck (reshuffled, with the
        next epoch, when the deck holds other cards than the order has left)."""
        side = core.draw_info()["side"]
        classes = card_classes(core)
        deck = sorted(core.cards_at("deck", side))
        order = self.decks[side]
        if order is None or order.left() != Counter(classes[g] for g in deck):
            epoch = 0 if order is None else order.epoch + 1
            items = [classes[g] for g in deck]
            random.Random(derive("deck", self.seed, side, epoch)).shuffle(items)
            order = self.decks[side] = _Order(epoch, items)
        cls = order.deal()
        by_class = {classes[side * CARDS_PER_SIDE + a]: a for a in outcomes}
        return by_class[cls]

    def _rocket(self, core: Any, outcomes: list[int]) -> int:
        """The next card of the shuffled Rocket deck (values: equal values are one outcome)."""
        values = list(core.config.rockets)
        hidden = Counter(values) - Counter(core.rockets_revealed)
        order = self.rockets
        if order is None or order.left() != hidden:
            epoch = 0 if order is None else order.epoch + 1
            items = sorted(hidden.elements())
            random.Random(derive("rockets", self.seed, epoch)).shuffle(items)
            order = self.rockets = _Order(epoch, items)
        value = order.deal()
        return next(k for k in outcomes if values[k] == value)

    def _die(self, core: Any, outcomes: list[int]) -> int:
        """The side's k-th die: the actor rolls the first die of an action,
        the defender (the other side) the second die of an attack (R15d)."""
        pending = core.pending
        side = pending["actor"] if not pending["dice"] else 1 - pending["actor"]
        k = self.rolls[side]
        self.rolls[side] += 1
        if outcomes != list(range(len(outcomes))):
            raise RuntimeError(f"keyed chance: a die's outcomes are not 0..n-1: {outcomes}")
        return random.Random(derive("die", self.seed, side, k)).randrange(len(outcomes))
