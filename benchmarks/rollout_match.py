"""Which ISMCTS playout policy is stronger?  A seat-swapped match.

    python benchmarks/rollout_match.py --games 100 --iterations 300

Plays ``--games`` games (each deal twice, sides swapped, same chance seed)
between ``ismcts:rollout=informed`` and ``ismcts:rollout=random`` at the same
iteration budget, and writes results/rollout-match.json with the score and a
95% interval.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

import pyspiel

import solver  # noqa: F401
from bots import make_bot


def play(game, specs, seed, prepare=None):
    """One game; specs[p] plays player p (``prepare(bots)``, if given, may
    adjust the bots first); returns the winner."""
    bots = [make_bot(specs[p], p, seed * 2 + p) for p in (0, 1)]
    if prepare is not None:
        prepare(bots)
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return 0 if state.returns()[0] > 0 else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="results/rollout-match.json")
    args = ap.parse_args(argv)
    game = pyspiel.load_game("wildhorn")
    a = f"ismcts:iterations={args.iterations},rollout=informed"
    b = f"ismcts:iterations={args.iterations},rollout=random"
    score, games, t0 = 0.0, 0, time.time()
    by_side = {"informed_as_polish": [0, 0], "informed_as_german": [0, 0]}
    for deal in range(args.games // 2):
        seed = args.seed * 100003 + deal
        for informed_side in (0, 1):
            specs = [a, b] if informed_side == 0 else [b, a]
            winner = play(game, specs, seed)
            won = winner == informed_side
            score += won
            games += 1
            key = "informed_as_polish" if informed_side == 0 else "informed_as_german"
            by_side[key][0] += won
            by_side[key][1] += 1
        print(f"{games} games, informed {score}/{games}", file=sys.stderr, flush=True)
    p = score / games
    half = 1.96 * math.sqrt(p * (1 - p) / games)
    out = {"informed_score": p, "ci95": [max(0, p - half), min(1, p + half)],
           "games": games, "iterations_per_move": args.iterations, "by_side": by_side,
           "stronger": "informed" if p - half > 0.5 else "random" if p + half < 0.5 else "undecided",
           "seconds": round(time.time() - t0, 1), "command": " ".join(["python", *sys.argv])}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
