"""OOS against ISMCTS: iterations per second from the opening and from a
mid-game position, measured in the same run on the same positions.

    python benchmarks/oos_speed.py [--iterations 20000] [--repeats 3] [--out results/bench-oos.json]

Prints one JSON object and writes it to ``--out``.  Every rate is a median
over repeats (one seed each); compare the ratio, not the absolute numbers,
on a shared machine.  Also reports OOS's nodes and memory at the end of one
search of ``--iterations``.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys

import pyspiel

import solver  # noqa: F401  (registers the game)
from bots import ISMCTS, OOS
from apps.bench import _meta, _midgame, _opening, write_json


def rate(make, core, iterations: int, repeats: int) -> tuple[float, dict]:
    """Median iterations per second of ``make(seed).search`` over repeats, and the last stats."""
    rates = []
    for seed in range(repeats):
        stats = make(seed).search(core, iterations=iterations)
        rates.append(stats["iterations"] / stats["seconds"])
    return statistics.median(rates), stats


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default="results/bench-oos.json")
    args = ap.parse_args(argv)
    game = pyspiel.load_game("wildhorn")
    positions = {"opening": _opening(game, 1).core, "midgame": _midgame(game, 1).core}
    out = {"meta": _meta(), "iterations": args.iterations, "repeats": args.repeats}
    for where, core in positions.items():
        # informed playouts for both, as when results/bench-oos.json was written
        # (the defaults are now heuristic playouts: benchmarks/rollout_speed.py)
        oos, ostats = rate(lambda s: OOS(seed=s, rollout="informed"), core, args.iterations,
                           args.repeats)
        ism, _ = rate(lambda s: ISMCTS(seed=s, rollout="informed"), core, args.iterations,
                      args.repeats)
        out[f"oos_iters_per_s_{where}"] = round(oos)
        out[f"ismcts_iters_per_s_{where}"] = round(ism)
        out[f"oos_over_ismcts_{where}"] = round(oos / ism, 3)
        out[f"oos_nodes_{where}"] = ostats["nodes"]
        out[f"oos_memory_bytes_{where}"] = ostats["memory_bytes"]
    out["notes"] = ("OOS and ISMCTS with informed playouts and otherwise their defaults (OOS epsilon 0.3, baselines; "
                    "ISMCTS c 1.4, informed playouts), both from the same positions: the first "
                    "decision of seed 1 and a turn 2-3 main-step decision of a seeded random game")
    print(json.dumps(out, indent=2))
    write_json(out, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
