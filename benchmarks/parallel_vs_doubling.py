"""Is parallel search worth what doubling one thread's time is worth?

    python benchmarks/parallel_vs_doubling.py
    python benchmarks/parallel_vs_doubling.py --keyed

Reads two seat-swapped matches at 0.1 s per move (issue 21):

* ``results/tournaments/threads2-vs-1-0.1s``: ``ismcts:time=0.1,threads=2``
  against ``ismcts:time=0.1`` (``--jobs 1``, so the two threads have the
  machine's two cores);
* ``results/tournaments/doubling-0.2-vs-0.1s``: ``ismcts:time=0.2`` against
  ``ismcts:time=0.1``, one thread each (``--jobs 2``: a core per game);

and writes ``results/parallel-vs-doubling.json``: each match's score with a
95% Wilson interval and its Elo difference 400 log10(p / (1 - p)); the
ratio Elo(parallel) / Elo(doubling) (when doubling's is positive); and the
target, Elo(parallel) >= 0.8 Elo(doubling), as a margin in Elo with a 95%
interval from a bootstrap of the deals (each deal's two seat-swapped games
resampled together, the two matches independently), which is defined
whatever the signs.  ``target_met`` is the point estimate's verdict;
``share_of_resamples_meeting_target`` says how sure it is.  The per-match
intervals (Wilson) treat the games as independent; the margin's bootstrap
keeps each deal's pair together.  Each match records the games its
``tournament.json`` scheduled beside those played, and whether its run
is finished (no ``tournament.lock`` left and every game played), and its
score and Elo by deal pair (``by_pair``: the pentanomial model over the
complete deals, ``apps.tournament.stats.pair_statistics``).

``--keyed`` reads the same two questions asked again with keyed common
random numbers (issue 28, item 7): ``threads2-vs-1-0.1s-keyed`` and
``doubling-0.2-vs-0.1s-keyed``, and writes
``results/parallel-vs-doubling-keyed.json``.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from apps.tournament.stats import elo_of_score, pair_statistics, pentanomial, wilson  # noqa: E402

MATCHES = {"parallel": ROOT / "results/tournaments/threads2-vs-1-0.1s",
           "doubling": ROOT / "results/tournaments/doubling-0.2-vs-0.1s"}
MATCHES_KEYED = {"parallel": ROOT / "results/tournaments/threads2-vs-1-0.1s-keyed",
                 "doubling": ROOT / "results/tournaments/doubling-0.2-vs-0.1s-keyed"}
TARGET = 0.8
SAMPLES = 10_000


elo = elo_of_score


def deal_scores(folder: Path) -> tuple[str, int, np.ndarray, np.ndarray]:
    """The first bot's name, the games scheduled, and per deal (pairing and
    deal) the first bot's wins and the games; FileNotFoundError if the
    folder has no games."""
    params = json.loads((folder / "tournament.json").read_text())
    first = params["bots"][0]
    wins: dict[tuple[str, str], list[int]] = {}
    with open(folder / "games.csv", newline="") as f:
        for row in csv.DictReader(f):
            w = wins.setdefault((row.get("pairing", ""), row["deal"]), [0, 0])
            w[0] += row["winner"] == first
            w[1] += 1
    if not wins:
        raise FileNotFoundError(2, "no games played", str(folder / "games.csv"))
    return (first, int(params["games"]), np.array([w[0] for w in wins.values()]),
            np.array([w[1] for w in wins.values()]))


def compare(matches: dict[str, Path]) -> dict:
    """The figures above from the folders ``matches["parallel"]`` and
    ``matches["doubling"]`` (FileNotFoundError if one has no games)."""
    out: dict = {"target_ratio": TARGET, "matches": {}}
    rng = np.random.default_rng(21)
    boot = {}
    for name, folder in matches.items():
        bot, scheduled, w, g = deal_scores(folder)
        k, n = int(w.sum()), int(g.sum())
        lo, hi = wilson(k, n)
        shown = folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder
        out["matches"][name] = {"folder": str(shown), "first_bot": bot,
                                "games": n, "scheduled": scheduled,
                                "finished": n >= scheduled and not (folder / "tournament.lock").exists(),
                                "wins": k, "score": k / n, "score_ci95": [lo, hi],
                                "elo": elo(k / n), "elo_ci95": [elo(lo), elo(hi)],
                                "by_pair": pair_statistics(pentanomial(w[g == 2].astype(float)))}
        picks = rng.integers(0, len(w), size=(SAMPLES, len(w)))
        boot[name] = np.vectorize(elo)(w[picks].sum(axis=1) / g[picks].sum(axis=1))
    par, dbl = out["matches"]["parallel"]["elo"], out["matches"]["doubling"]["elo"]
    # the target, Elo(parallel) >= 0.8 Elo(doubling), as a margin: defined
    # whatever the signs, unlike the ratio
    margins = boot["parallel"] - TARGET * boot["doubling"]
    out["ratio"] = par / dbl if dbl > 0 else None
    out["margin_elo"] = par - TARGET * dbl
    out["margin_elo_ci95_bootstrap"] = [float(q) for q in np.quantile(margins, [0.025, 0.975])]
    out["share_of_resamples_meeting_target"] = float((margins >= 0).mean())
    out["target_met"] = bool(out["margin_elo"] >= 0)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keyed", action="store_true",
                        help="the matches replayed with keyed chance (issue 28)")
    args = parser.parse_args(argv)
    try:
        out = compare(MATCHES_KEYED if args.keyed else MATCHES)
    except FileNotFoundError as error:
        print(f"{error.filename}: {error.strerror or 'missing'} (play the match first: "
              "its README)", file=sys.stderr)
        return 2
    out["command"] = "python benchmarks/parallel_vs_doubling.py" + (" --keyed" if args.keyed else "")
    path = ROOT / ("results/parallel-vs-doubling-keyed.json" if args.keyed
                   else "results/parallel-vs-doubling.json")
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
