"""A corpus of state files from seeded random games, at varied decision
points (``wildhorn-solve random-states``; the tests' and benchmarks' inputs)."""

from __future__ import annotations

import os
import random
from pathlib import Path

from solver._core import Core
from solver.errors import ParameterError
from solver.game import make_config
from solver.state_io.writer import dump

__all__ = ["write_random_states"]

# Chance of writing a state at a decision of each step (write_random_states):
# common steps rarely, rare windows often, so the files cover every kind.
_WRITE_CHANCE = {"actions": 0.02, "modifiers": 0.08, "redraw": 0.25, "zone": 0.1,
                 "refresh": 0.25}
_WRITE_CHANCE_DEFAULT = 0.4


def write_random_states(count: int, seed: int, out_dir: str | os.PathLike,
                        params: dict | None = None) -> list[Path]:
    """Writes ``count`` state files from seeded random games; returns their paths.

    Games of ``params`` (default: the rulebook game) are played with uniform
    random decisions and chance drawn with its probabilities, all from
    ``random.Random(seed)``.  At a decision point a file is written, from the
    view of the side to move, with a probability that favours the rarer
    steps (windows, redraw) over the common action step, so the files cover
    every kind of decision.  Files are ``state-0000.json`` ... in
    ``out_dir`` (created if needed); the same seed gives the same files.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ParameterError(f"count: expected a non-negative integer, got {count!r}")
    rng = random.Random(seed)
    cfg = make_config(params)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    games = 0
    while len(paths) < count:
        games += 1
        if games > 1000 + 10 * count:
            raise ParameterError("write_random_states: these games have no decision points")
        core = Core(cfg)
        while not core.is_terminal() and len(paths) < count:
            if core.is_chance():
                outcomes = core.chance_outcomes()
                action = rng.choices([a for a, _ in outcomes], [w for _, w in outcomes])[0]
            else:
                if rng.random() < _WRITE_CHANCE.get(core.phase, _WRITE_CHANCE_DEFAULT):
                    path = out / f"state-{len(paths):04d}.json"
                    dump(core, core.current_player(), path)
                    paths.append(path)
                action = rng.choice(core.legal_actions())
            core.apply(action)
    return paths
