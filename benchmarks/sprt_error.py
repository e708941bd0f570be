"""How often does the tournament's SPRT decide wrongly on this game's
matches, and can a decision after a handful of deal pairs be trusted?

    python benchmarks/sprt_error.py

``--sprt`` runs a GSPRT on deal pairs (``apps.tournament.stats.sprt``, as
fishtest's): after each pair it estimates the pair scores' distribution
from the pairs seen so far, a large-sample approximation.  This game has no
drawn games, and most deal pairs split (each bot wins the deal with one of
the two sides), so a match shows long runs of split pairs between few won
or lost ones, and the test can stop after a few pairs: two matches against
``cf2d832`` (the interactive default at 1 s, and with generation 2 of the
network at 0.1 s) stopped after 9.

This script plays the SPRT on simulated pair scores of that shape and counts
its decisions.  The pentanomial (0 / ½ / 1 / 1½ / 2 points for the first bot
over a deal's two games) has no ½ or 1½ (no draws); its share of split pairs
(1) is read from a match folder's games (``--match``, default the 0.1 s
match of the generation-1 default against ``cf2d832``, 100 pairs), and the
lost (0) and won (2) pairs' shares are set so the expected score is the
given Elo.  The pairs are independent and the split share fixed: the
simulation's model, not the game's.  For each true Elo of ``--elos`` (a
list starting with a negative Elo is written ``--elos=-50,0``) it runs
``--runs`` SPRTs (``--sprt``'s bounds; at most ``--max-pairs`` pairs each,
a match's ``--games`` / 2) and writes ``results/sprt-error.json``: the
share of runs accepting H0, accepting H1 and undecided, each with a Wilson
95% interval; the share of wrong decisions (accepting H1 while the Elo is
at most elo0, or H0 while it is at least elo1; none between the two, where
either is allowed); the median number of pairs; and how many runs stopped
within ``--early`` pairs (9), for each hypothesis.

``--replay FOLDER`` (repeatable; default the 100-pair match of generation
2 against ``cf2d832``) runs the same SPRT over a finished match's deal
pairs in deal order, as ``--sprt`` would have during the match: where it
would have stopped, beside the score of all the pairs.  Seeded: the same
command gives the same figures.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import shlex
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from apps.tournament.stats import (PAIR_SCORES, pair_scores, pair_statistics,  # noqa: E402
                                   parse_sprt, pentanomial, sprt, wilson)
from apps.tournament.store import read_games  # noqa: E402
from solver.errors import WildhornError  # noqa: E402

DEFAULT_MATCH = ROOT / "results/tournaments/default-mix-vs-cf2d832-0.1s"
DEFAULT_REPLAY = ROOT / "results/tournaments/default-gen2-vs-cf2d832-0.1s"
DEFAULT_ELOS = (-50.0, 0.0, 50.0, 100.0)
DEFAULT_SPRT = "elo0=0,elo1=100,alpha=0.05,beta=0.05"
MAX_ELO = 1600.0                      # |Elo| beyond this is no score a match can show


def _shown(folder: Path) -> str:
    """``folder`` relative to the repository where it is inside it."""
    folder = folder.resolve()
    return str(folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder)


def match_pairs(folder: Path) -> tuple[str, str, list[float]]:
    """A two-bot match folder's first and second bot and the first bot's
    score over each complete deal, in deal order; OSError if the folder or
    its files cannot be read, ValueError if it is not a two-bot match with a
    complete deal."""
    try:
        params = json.loads((folder / "tournament.json").read_text())
        first, second = params["bots"][:2]
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{folder / 'tournament.json'}: not a two-bot match's "
                         f"parameters") from None
    rows = read_games(folder)
    if not rows:
        raise FileNotFoundError(2, "no games played", str(folder / "games.csv"))
    scores = pair_scores(rows, first, second)
    if not scores:
        raise ValueError(f"{folder}: no deal with both its games played")
    return first, second, scores


def split_share(folder: Path) -> tuple[float, list[int]]:
    """The share of split deal pairs (one point each) over a two-bot match
    folder's complete deals, and its pentanomial (errors: :func:`match_pairs`)."""
    counts = pentanomial(match_pairs(folder)[2])
    return counts[2] / sum(counts), counts


def distribution(elo: float, split: float) -> list[float]:
    """The pentanomial probabilities (0, ½, 1, 1½, 2 points) with no ½ or
    1½, a share ``split`` of 1, and the expected score per game of ``elo``;
    ValueError if no such distribution exists (the split share leaves too
    little room for that score, or either is out of range)."""
    if not (math.isfinite(elo) and abs(elo) <= MAX_ELO):
        raise ValueError(f"Elo {elo}: expected a number within +-{MAX_ELO:g}")
    if not (math.isfinite(split) and 0 <= split <= 1):
        raise ValueError(f"split share {split}: expected a number from 0 to 1")
    score = 1 / (1 + 10 ** (-elo / 400))
    won = score - split / 2             # the mean pair score is 2 won + split = 2 score
    lost = 1 - split - won
    if won < 0 or lost < 0:
        raise ValueError(f"no pentanomial has {split:.3f} split pairs and a score of "
                         f"{score:.3f} (Elo {elo:+g})")
    return [lost, 0.0, split, 0.0, won]


def _interval(k: int, n: int) -> list[float]:
    """The Wilson 95% interval of k/n, to 4 places."""
    return [round(x, 4) for x in wilson(k, n)]


def simulate(elo: float, split: float, bounds: dict[str, float], runs: int, max_pairs: int,
             seed: int, early: int = 9) -> dict:
    """``runs`` SPRTs on pair scores drawn from :func:`distribution`; the
    figures of the module's docstring for one true Elo."""
    rng = random.Random(seed)
    weights = distribution(elo, split)
    decided = {"H0": 0, "H1": 0, None: 0}
    early_by = {"H0": 0, "H1": 0}
    lengths = []
    for _ in range(runs):
        scores = rng.choices(PAIR_SCORES, weights=weights, k=max_pairs)
        r = sprt(scores, bounds["elo0"], bounds["elo1"], bounds["alpha"], bounds["beta"])
        decided[r["result"]] += 1
        lengths.append(r["pairs"])
        if r["result"] is not None and r["pairs"] <= early:
            early_by[r["result"]] += 1
    wrong = "H1" if elo <= bounds["elo0"] else "H0" if elo >= bounds["elo1"] else None
    return {"elo": elo, "pentanomial_probabilities": [round(w, 4) for w in weights],
            "runs": runs,
            "accept_h0": decided["H0"] / runs, "accept_h0_ci95": _interval(decided["H0"], runs),
            "accept_h1": decided["H1"] / runs, "accept_h1_ci95": _interval(decided["H1"], runs),
            "undecided": decided[None] / runs,
            "wrong_decision": wrong,
            "wrong": None if wrong is None else decided[wrong] / runs,
            "wrong_ci95": None if wrong is None else _interval(decided[wrong], runs),
            "median_pairs": statistics.median(lengths),
            "early_h0": early_by["H0"], "early_h1": early_by["H1"],
            "stopped_within_early": (early_by["H0"] + early_by["H1"]) / runs,
            "early_wrong": None if wrong is None else early_by[wrong]}


def replay(folder: Path, bounds: dict[str, float]) -> dict:
    """The SPRT over a finished match's deal pairs in deal order: where it
    would have stopped, and the score over all the pairs."""
    first, second, scores = match_pairs(folder)
    r = sprt(scores, bounds["elo0"], bounds["elo1"], bounds["alpha"], bounds["beta"])
    return {"folder": _shown(folder), "first": first, "second": second,
            "pairs": len(scores),
            "sprt": {k: r[k] for k in ("result", "pairs", "llr", "pentanomial")},
            "all_pairs": pair_statistics(pentanomial(scores))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--match", default=str(DEFAULT_MATCH),
                    help="match folder whose share of split deal pairs is used")
    ap.add_argument("--split", type=float,
                    help="the share of split pairs itself (instead of --match's)")
    ap.add_argument("--replay", action="append", metavar="FOLDER",
                    help="a finished match to run the SPRT over, pair by pair (repeatable; "
                         f"default {_shown(DEFAULT_REPLAY)}; 'none' for none)")
    ap.add_argument("--sprt", default=DEFAULT_SPRT, help=f"the test (default {DEFAULT_SPRT})")
    ap.add_argument("--elos", default=",".join(f"{e:g}" for e in DEFAULT_ELOS),
                    help="true Elo differences simulated, comma-separated "
                         "(--elos=-50,0 when the first is negative)")
    ap.add_argument("--runs", type=int, default=1000, help="SPRTs per Elo (default 1000)")
    ap.add_argument("--max-pairs", type=int, default=400,
                    help="pairs at most per SPRT, a match's --games / 2 (default 400)")
    ap.add_argument("--early", type=int, default=9,
                    help="a decision within this many pairs counts as early (default 9)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "results/sprt-error.json"))
    args = ap.parse_args(argv)
    t0 = time.time()
    path = Path(args.out)
    try:
        bounds = parse_sprt(args.sprt)
        try:
            elos = [float(e) for e in args.elos.split(",") if e.strip()]
        except ValueError:
            raise ValueError(f"--elos: expected numbers separated by commas, "
                             f"got {args.elos!r}") from None
        if args.runs < 1 or args.max_pairs < 1 or args.early < 1 or not elos:
            raise ValueError("--runs, --max-pairs and --early must be at least 1, "
                             "--elos not empty")
        if args.split is not None:
            split, source = args.split, {"split": args.split}
        else:
            split, counts = split_share(Path(args.match))
            source = {"match": _shown(Path(args.match)), "pentanomial": counts}
        for e in elos:
            distribution(e, split)                 # every Elo checked before the long part
        folders = [Path(f) for f in (args.replay or [str(DEFAULT_REPLAY)]) if f != "none"]
        replays = [replay(f, bounds) for f in folders]
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = [simulate(e, split, bounds, args.runs, args.max_pairs, args.seed + k,
                         args.early) for k, e in enumerate(elos)]
        out = {"command": shlex.join(["python", "benchmarks/sprt_error.py",
                                      *(argv if argv is not None else sys.argv[1:])]),
               "sprt": bounds, "split_share": round(split, 4), **source,
               "max_pairs": args.max_pairs, "early_pairs": args.early, "seed": args.seed,
               "by_elo": rows, "replays": replays, "seconds": round(time.time() - t0, 1)}
        path.write_text(json.dumps(out, indent=2) + "\n")
    except (ValueError, WildhornError) as error:
        print(f"sprt_error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        where = error.filename or args.out
        print(f"sprt_error: {where}: {error.strerror or error}", file=sys.stderr)
        return 2
    for r in rows:
        print(f"Elo {r['elo']:+5g}: H0 {r['accept_h0']:.3f}, H1 {r['accept_h1']:.3f}, "
              f"undecided {r['undecided']:.3f}, median {r['median_pairs']} pairs; within "
              f"{args.early} pairs {r['early_h0']} stopped for H0, {r['early_h1']} for H1")
    for r in replays:
        print(f"{r['folder']}: the SPRT would have said {r['sprt']['result']} after "
              f"{r['sprt']['pairs']} of {r['pairs']} pairs; all pairs Elo "
              f"{r['all_pairs']['elo']:+.0f}")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
