"""How often does the tournament's SPRT decide wrongly on this game's
matches, and can a decision after a handful of deal pairs be trusted?

    python benchmarks/sprt_error.py

``--sprt`` runs a GSPRT on deal pairs (``apps.tournament.stats.sprt``, as
fishtest's): after each pair it estimates the pair scores' distribution
from the pairs seen so far, a large-sample approximation.  This game has no
drawn games, and most deal pairs split (each bot wins the deal with one of
the two sides), so a match shows long runs of split pairs between few won
or lost ones, and the test can stop after a few pairs: the matches of the
interactive default against ``cf2d832`` stopped after 9 at 1 s and at 0.1 s.

This script plays the SPRT on simulated pair scores of that shape and counts
its decisions.  The pentanomial (0 / ½ / 1 / 1½ / 2 points for the first bot
over a deal's two games) has no ½ or 1½ (no draws); its share of split pairs
(1) is read from a match folder's games (``--match``, default the 0.1 s
match of the generation-1 default against ``cf2d832``, 100 pairs), and the
lost (0) and won (2) pairs' shares are set so the expected score is the
given Elo.  For each true Elo of ``--elos`` it runs ``--runs`` SPRTs
(``--sprt``'s bounds; at most ``--max-pairs`` pairs each, as a match's
``--games``) and writes ``results/sprt-error.json``: the share of runs
accepting H0, accepting H1 and undecided, each with a Wilson 95% interval;
the median number of pairs; the share of runs that stop within 9 pairs
(``--early``) and how many of those decide wrongly.  A decision is wrong
when it accepts H1 while the Elo is at most elo0, or H0 while it is at least
elo1 (between the two, either is allowed).  Seeded: the same command gives
the same figures.
"""
from __future__ import annotations

import argparse
import json
import random
import shlex
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from apps.tournament.stats import (PAIR_SCORES, parse_sprt, pentanomial,  # noqa: E402
                                   pair_scores, sprt, wilson)
from apps.tournament.store import read_games  # noqa: E402
from solver.errors import ParameterError  # noqa: E402

DEFAULT_MATCH = ROOT / "results/tournaments/default-mix-vs-cf2d832-0.1s"
DEFAULT_ELOS = (-50.0, 0.0, 50.0, 100.0)
DEFAULT_SPRT = "elo0=0,elo1=100,alpha=0.05,beta=0.05"


def split_share(folder: Path) -> tuple[float, list[int]]:
    """The share of split deal pairs (one point each) over a two-bot match
    folder's complete deals, and its pentanomial; FileNotFoundError if it
    has no games, ValueError if it has no complete deal."""
    params = json.loads((folder / "tournament.json").read_text())
    first, second = params["bots"][:2]
    rows = read_games(folder)
    if not rows:
        raise FileNotFoundError(2, "no games played", str(folder / "games.csv"))
    counts = pentanomial(pair_scores(rows, first, second))
    if not sum(counts):
        raise ValueError(f"{folder}: no deal with both its games played")
    return counts[2] / sum(counts), counts


def distribution(elo: float, split: float) -> list[float]:
    """The pentanomial probabilities (0, ½, 1, 1½, 2 points) with no ½ or
    1½, a share ``split`` of 1, and the expected score per game of ``elo``;
    ValueError if no such distribution exists (the split share leaves too
    little room for that score)."""
    score = 1 / (1 + 10 ** (-elo / 400))
    won = score - split / 2             # the mean pair score is 2 won + split = 2 score
    lost = 1 - split - won
    if not 0 <= split <= 1 or won < 0 or lost < 0:
        raise ValueError(f"no pentanomial has {split:.3f} split pairs and a score of "
                         f"{score:.3f} (Elo {elo:+g})")
    return [lost, 0.0, split, 0.0, won]


def simulate(elo: float, split: float, bounds: dict[str, float], runs: int, max_pairs: int,
             seed: int, early: int = 9) -> dict:
    """``runs`` SPRTs on pair scores drawn from :func:`distribution`; the
    figures of the module's docstring for one true Elo."""
    rng = random.Random(seed)
    weights = distribution(elo, split)
    decided = {"H0": 0, "H1": 0, None: 0}
    lengths, early_runs, early_wrong, wrong = [], 0, 0, 0
    for _ in range(runs):
        scores = rng.choices(PAIR_SCORES, weights=weights, k=max_pairs)
        r = sprt(scores, bounds["elo0"], bounds["elo1"], bounds["alpha"], bounds["beta"])
        decided[r["result"]] += 1
        lengths.append(r["pairs"])
        bad = (r["result"] == "H1" and elo <= bounds["elo0"]) or \
              (r["result"] == "H0" and elo >= bounds["elo1"])
        wrong += bad
        if r["result"] is not None and r["pairs"] <= early:
            early_runs += 1
            early_wrong += bad
    return {"elo": elo, "pentanomial_probabilities": [round(w, 4) for w in weights],
            "runs": runs,
            "accept_h0": decided["H0"] / runs, "accept_h0_ci95": wilson(decided["H0"], runs),
            "accept_h1": decided["H1"] / runs, "accept_h1_ci95": wilson(decided["H1"], runs),
            "undecided": decided[None] / runs,
            "wrong": wrong / runs, "wrong_ci95": wilson(wrong, runs),
            "median_pairs": statistics.median(lengths),
            "stopped_within_early": early_runs / runs,
            "early_decisions": early_runs, "early_wrong": early_wrong,
            "early_wrong_share": early_wrong / early_runs if early_runs else None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--match", default=str(DEFAULT_MATCH),
                    help="match folder whose share of split deal pairs is used")
    ap.add_argument("--split", type=float,
                    help="the share of split pairs itself (instead of --match's)")
    ap.add_argument("--sprt", default=DEFAULT_SPRT, help=f"the test (default {DEFAULT_SPRT})")
    ap.add_argument("--elos", default=",".join(f"{e:g}" for e in DEFAULT_ELOS),
                    help="true Elo differences simulated, comma-separated")
    ap.add_argument("--runs", type=int, default=1000, help="SPRTs per Elo (default 1000)")
    ap.add_argument("--max-pairs", type=int, default=400,
                    help="pairs at most per SPRT, as a match's --games / 2 (default 400)")
    ap.add_argument("--early", type=int, default=9,
                    help="a decision within this many pairs counts as early (default 9)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "results/sprt-error.json"))
    args = ap.parse_args(argv)
    t0 = time.time()
    try:
        bounds = parse_sprt(args.sprt)
        elos = [float(e) for e in args.elos.split(",") if e.strip()]
        if args.runs < 1 or args.max_pairs < 1 or args.early < 1 or not elos:
            raise ValueError("--runs, --max-pairs and --early must be at least 1, "
                             "--elos not empty")
        source: dict = {}
        if args.split is not None:
            split = args.split
            source = {"split": split}
        else:
            split, counts = split_share(Path(args.match))
            shown = Path(args.match).resolve()
            shown = shown.relative_to(ROOT) if shown.is_relative_to(ROOT) else shown
            source = {"match": str(shown), "pentanomial": counts}
        rows = [simulate(e, split, bounds, args.runs, args.max_pairs, args.seed + k,
                         args.early) for k, e in enumerate(elos)]
    except (ValueError, ParameterError) as error:
        print(f"sprt_error: {error}", file=sys.stderr)
        return 2
    except FileNotFoundError as error:
        print(f"sprt_error: {error.filename}: {error.strerror or 'missing'}", file=sys.stderr)
        return 2
    out = {"command": shlex.join(["python", "benchmarks/sprt_error.py",
                                  *(argv if argv is not None else sys.argv[1:])]),
           "sprt": bounds, "split_share": round(split, 4), **source,
           "max_pairs": args.max_pairs, "early_pairs": args.early, "seed": args.seed,
           "by_elo": rows, "seconds": round(time.time() - t0, 1)}
    for r in rows:
        print(f"Elo {r['elo']:+5g}: H0 {r['accept_h0']:.3f}, H1 {r['accept_h1']:.3f}, "
              f"undecided {r['undecided']:.3f}, median {r['median_pairs']} pairs, "
              f"{r['early_decisions']} decided within {args.early} pairs "
              f"({r['early_wrong']} wrongly)")
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
