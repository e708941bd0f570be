"""Helpers shared by the input tests (test_state_io, test_invariants, test_fuzz):
seeded random playouts and the spots of a JSON value to mutate."""

from __future__ import annotations

import random
from collections.abc import Iterator

from solver._core import Core


def playout(cfg, rng: random.Random) -> Iterator[Core]:
    """The positions of one game of ``cfg`` with uniform random decisions and
    chance drawn with its probabilities, from ``rng``: each yielded before
    its move is applied (copy it to keep it)."""
    core = Core(cfg)
    while not core.is_terminal():
        yield core
        if core.is_chance():
            outcomes = core.chance_outcomes()
            action = rng.choices([a for a, _ in outcomes], [w for _, w in outcomes])[0]
        else:
            action = rng.choice(core.legal_actions())
        core.apply(action)


def spots(node) -> Iterator[tuple]:
    """(container, key) of every value inside the JSON value ``node``."""
    children = node.items() if isinstance(node, dict) else enumerate(node)
    for key, child in list(children):
        yield node, key
        if isinstance(child, (dict, list)):
            yield from spots(child)
