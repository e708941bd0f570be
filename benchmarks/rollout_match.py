"""Which ISMCTS playout policy is stronger?  A seat-swapped match.

    python benchmarks/rollout_match.py --games 100 --iterations 300

Plays ``--games`` games (each deal twice, sides swapped, same chance seed)
between ``ismcts:rollout=informed`` and ``ismcts:rollout=random`` at the same
iteration budget, and writes results/rollout-match.json with the score and a
95% interval.  ``--chance`` picks the chance scheme of the tournaments
(``apps.tournament.chance``: ``keyed``, the default, gives each side the
same cards and dice in a deal's two games; ``sequential`` is the scheme of
the results written before it existed); the file records it.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import pyspiel

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import solver  # noqa: E402,F401
from apps.tournament.chance import DEFAULT_SCHEME, SCHEMES, make_stream  # noqa: E402
from bots import make_bot  # noqa: E402


def play(game, specs, seed, prepare=None, chance=DEFAULT_SCHEME):
    """One game; specs[p] plays player p (``prepare(bots)``, if given, may
    adjust the bots first); the chance outcomes follow the scheme ``chance``
    on ``seed``; returns the winner."""
    bots = [make_bot(specs[p], p, seed * 2 + p) for p in (0, 1)]
    if prepare is not None:
        prepare(bots)
    stream = make_stream(chance, seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(stream.sample(state))
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return 0 if state.returns()[0] > 0 else 1


def match(game, a, b, games, seed, label, prepare=None, chance=DEFAULT_SCHEME):
    """``games`` games of ``a`` against ``b`` (each deal twice, sides swapped,
    same chance seed; ``prepare(side of a)``, if given, is the ``prepare``
    of that game), a progress line after each deal.  Returns a's wins, the
    games and, per side of a, [wins, games] under ``{label}_as_polish`` and
    ``{label}_as_german``."""
    wins, played = 0, 0
    by_side = {f"{label}_as_polish": [0, 0], f"{label}_as_german": [0, 0]}
    for deal in range(games // 2):
        deal_seed = seed * 100003 + deal
        for side in (0, 1):
            specs = [a, b] if side == 0 else [b, a]
            won = play(game, specs, deal_seed,
                       None if prepare is None else prepare(side), chance) == side
            wins += won
            played += 1
            row = by_side[f"{label}_as_polish" if side == 0 else f"{label}_as_german"]
            row[0] += won
            row[1] += 1
        print(f"{played} games, {label} won {wins}", file=sys.stderr, flush=True)
    return wins, played, by_side


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chance", choices=SCHEMES, default=DEFAULT_SCHEME,
                    help="chance scheme (default keyed: common random numbers)")
    ap.add_argument("--out", default="results/rollout-match.json")
    args = ap.parse_args(argv)
    game = pyspiel.load_game("wildhorn")
    a = f"ismcts:iterations={args.iterations},rollout=informed"
    b = f"ismcts:iterations={args.iterations},rollout=random"
    t0 = time.time()
    score, games, by_side = match(game, a, b, args.games, args.seed, "informed",
                                  chance=args.chance)
    p = score / games
    half = 1.96 * math.sqrt(p * (1 - p) / games)
    out = {"informed_score": p, "ci95": [max(0, p - half), min(1, p + half)],
           "games": games, "iterations_per_move": args.iterations, "by_side": by_side,
           "chance": args.chance,
           "stronger": "informed" if p - half > 0.5 else "random" if p + half < 0.5 else "undecided",
           "seconds": round(time.time() - t0, 1), "command": " ".join(["python", *sys.argv])}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
