"""How much of a game's result does the luck of its deal decide?

    python benchmarks/luck_share.py --bot heuristic --deals 400
    python benchmarks/luck_share.py --bot ismcts:iterations=100 --deals 100

The ceiling of what common random numbers can do for a match.  Each deal
(a deal seed) is played twice by the same bot on both sides, with other bot
seeds in the second game, under each chance scheme of
``apps.tournament.chance``.  The correlation of the Polish side's result in
the two games of a deal is the share of the result's variance that the
deal's luck decides (an intra-class correlation): with the ``keyed`` scheme
both games get the same cards and dice for as long as the same events
happen, so it measures the luck the keyed scheme can share; with
``sequential`` only the luck before the games differ.  In a seat-swapped
pair of two bots of similar strength the within-deal correlation of one
bot's results is at best about minus this share, and the pair's variance
``2 var (1 + rho)``, so the Elo interval can narrow at most by
``sqrt(1 - share)``.  Writes ``--out`` (default
``results/luck-share-BOT.json``, the spec's ``:``, ``=`` and ``,`` made ``-``).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import solver  # noqa: E402,F401
from apps.tournament.chance import SCHEMES, make_stream  # noqa: E402
from apps.tournament.scheduling import derive  # noqa: E402
from apps.tournament.stats import Z95  # noqa: E402
from bots import make_bot  # noqa: E402


def polish_wins(game, spec: str, deal_seed: int, replay: int, scheme: str) -> int:
    """1 if Polish wins the deal's game with bot seeds of ``replay``."""
    bots = [make_bot(spec, p, derive("luck", deal_seed, replay, p)) for p in (0, 1)]
    stream = make_stream(scheme, deal_seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(stream.sample(state))
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return int(state.returns()[0] > 0)


def share(pairs: np.ndarray) -> dict:
    """The correlation of the two replays' results, with a 95% interval
    (Fisher's z), and the Polish win rate."""
    n = len(pairs)
    r = float(np.corrcoef(pairs[:, 0], pairs[:, 1])[0, 1]) if pairs.std(axis=0).min() > 0 \
        else None
    ci = None
    if r is not None and n > 3 and abs(r) < 1:
        z, half = np.arctanh(r), Z95 / np.sqrt(n - 3)
        ci = [float(np.tanh(z - half)), float(np.tanh(z + half))]
    return {"deals": n, "luck_share": r, "luck_share_ci95": ci,
            "polish_win_rate": float(pairs.mean()),
            "width_ratio_floor": None if r is None else float(np.sqrt(max(1 - r, 0)))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bot", default="heuristic", help="the bot on both sides")
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--schemes", default=",".join(SCHEMES),
                    help="the chance schemes to measure (default: both)")
    ap.add_argument("--out", help="output file")
    args = ap.parse_args(argv)
    if args.deals < 4:
        print("--deals: expected at least 4", file=sys.stderr)
        return 2
    schemes = [s for s in args.schemes.split(",") if s]
    if not schemes or any(s not in SCHEMES for s in schemes):
        print(f"--schemes: expected some of {', '.join(SCHEMES)}", file=sys.stderr)
        return 2
    game = pyspiel.load_game("wildhorn")
    out = {"bot": args.bot, "seed": args.seed, "schemes": {},
           "command": "python benchmarks/luck_share.py " + " ".join(
               argv if argv is not None else sys.argv[1:])}
    t0 = time.time()
    for scheme in schemes:
        results = np.array([[polish_wins(game, args.bot, derive("deal", args.seed, d), r, scheme)
                             for r in (0, 1)] for d in range(args.deals)])
        out["schemes"][scheme] = share(results)
        print(f"{scheme}: {out['schemes'][scheme]}", flush=True)
    out["seconds"] = round(time.time() - t0, 1)
    name = re.sub(r"[:=,]", "-", args.bot)
    path = Path(args.out or ROOT / f"results/luck-share-{name}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
