"""Does breaking UCB ties at random (as OpenSpiel's is_mcts.cc does) change
ISMCTS's play?  A seeded, seat-swapped match against the old tie-break.

    python benchmarks/tie_break.py --games 100 --iterations 300 --seed 7

Plays ``--games`` games (each deal twice, sides swapped, same chance seed)
between ``ismcts:iterations=N`` as it is (ties drawn from the search's
seeded stream) and the same bot whose searcher gives ties to the first tied
legal action, the rule before random tie-breaking (``ISMCTS._set_tie_break
("first")``, a searcher hook, not a bot option).  Writes
results/tie-break.json with the new rule's score and its 95% Wilson
interval.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pyspiel

import solver  # noqa: F401
from apps.tournament import wilson
from rollout_match import play  # the seeded game loop (run from the repository root)


def old_rule_on(side):
    """A ``prepare`` for rollout_match.play: the old tie-break on ``side``."""
    return lambda bots: bots[side].search_engine._set_tie_break("first")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default="results/tie-break.json")
    args = ap.parse_args(argv)
    game = pyspiel.load_game("wildhorn")
    spec = f"ismcts:iterations={args.iterations}"
    wins, games, t0 = 0, 0, time.time()
    by_side = {"random_ties_as_polish": [0, 0], "random_ties_as_german": [0, 0]}
    for deal in range(args.games // 2):
        seed = args.seed * 100003 + deal
        for new_side in (0, 1):
            won = play(game, [spec, spec], seed, old_rule_on(1 - new_side)) == new_side
            wins += won
            games += 1
            key = "random_ties_as_polish" if new_side == 0 else "random_ties_as_german"
            by_side[key][0] += won
            by_side[key][1] += 1
        print(f"{games} games, random ties won {wins}", file=sys.stderr, flush=True)
    out = {"bot": spec, "games": games, "random_ties_wins": wins,
           "random_ties_score": wins / games, "ci95_wilson": wilson(wins, games),
           "by_side": by_side, "seconds": round(time.time() - t0, 1),
           "command": " ".join(["python", *sys.argv])}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
