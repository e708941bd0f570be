"""The positions helper of the tests: seeded random playouts on the core,
whole games of bots through OpenSpiel with every decision checked, and the
spots of a JSON value to mutate (for the input tests)."""

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


def bots_game(state, bots, seed: int) -> list[int]:
    """Plays ``bots`` (one per player) from the pyspiel ``state`` to the end,
    chance drawn from ``random.Random(seed)``; every action a bot chooses
    must be legal where it chooses it (AssertionError naming it).  Returns
    how many decisions with more than one option each player took."""
    rng = random.Random(seed)
    state = state.clone()
    chose = [0, 0]
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            action = rng.choices([a for a, _ in outcomes], [w for _, w in outcomes])[0]
        else:
            player = state.current_player()
            legal = state.legal_actions()
            action = bots[player].step(state)
            assert action in legal, f"player {player} chose {action}, not legal here: {legal}"
            chose[player] += len(legal) > 1
        state.apply_action(action)
    return chose


def spots(node) -> Iterator[tuple]:
    """(container, key) of every value inside the JSON value ``node``."""
    children = node.items() if isinstance(node, dict) else enumerate(node)
    for key, child in list(children):
        yield node, key
        if isinstance(child, (dict, list)):
            yield from spots(child)
