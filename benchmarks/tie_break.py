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
from rollout_match import match  # the seeded, seat-swapped game loop (run from the repository root)


def old_rule_on_other(new_side):
    """A ``prepare`` for rollout_match.play: the old tie-break on the side
    that is not ``new_side``."""
    return lambda bots: bots[1 - new_side].search_engine._set_tie_break("first")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default="results/tie-break.json")
    args = ap.parse_args(argv)
    game = pyspiel.load_game("wildhorn")
    spec = f"ismcts:iterations={args.iterations}"
    t0 = time.time()
    # the bot with random ties is "a"; the old rule goes on the other side
    wins, games, by_side = match(game, spec, spec, args.games, args.seed, "random_ties",
                                 old_rule_on_other)
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
