"""How much narrower is the Elo interval with common random numbers and pairs?

    python benchmarks/crn_width.py                       # the two folders below
    python benchmarks/crn_width.py --sequential A --keyed B --out results/crn-width.json

Reads two tournament folders that played the same match (the same two bots,
seed and number of games) with the two chance schemes of
``apps.tournament.chance``: ``sequential`` (one generator consumed in order,
the scheme before issue 28) and ``keyed`` (common random numbers).  Over the
first P complete deal pairs of each (P the smaller count, so both have the
same number of games), it computes the first bot's score and Elo with 95%
intervals two ways: by game (a binomial over the 2P games, as if the games
were independent: the statistics before pairs) and by pair (the pentanomial
model of ``apps.tournament.stats``), and the ratios of the Elo interval
widths:

* ``target_ratio``: keyed by pair / sequential by game (today's scheme);
  the issue's target is at most 0.75 (1 / 0.75^2 = 1.78 times fewer games
  for the same precision);
* ``crn_ratio``: keyed by pair / sequential by pair (what the keyed chance
  adds to the statistics by pair);
* ``pairs_ratio``: sequential by pair / sequential by game.

``score_ratios`` holds the same three ratios of the score intervals (the Elo
map stretches an interval more the further the score is from 1/2, so the
Elo ratios also carry the two runs' different scores).

Each ratio has a 95% percentile interval from resampling each folder's pairs
with replacement (``--bootstrap`` samples, seeded).  Writes ``--out``.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from apps.tournament.scheduling import LEGACY_CHANCE  # noqa: E402
from apps.tournament.stats import (Z95, elo_of_score, pair_scores,  # noqa: E402
                                   pair_statistics, pentanomial, side_balance,
                                   within_deal_correlation)
from apps.tournament.store import read_games  # noqa: E402

DEFAULT_FOLDERS = {"sequential": ROOT / "results/tournaments/crn-sequential",
                   "keyed": ROOT / "results/tournaments/crn-keyed"}


def load(folder: Path) -> tuple[dict, list[dict]]:
    params = json.loads((folder / "tournament.json").read_text())
    params.setdefault("chance", LEGACY_CHANCE)
    return params, read_games(folder)


def first_pairs(rows: list[dict], a: str, b: str, pairs: int) -> list[dict]:
    """The rows of the first ``pairs`` complete deals (by deal number)."""
    by_deal: dict[int, list[dict]] = {}
    for r in rows:
        by_deal.setdefault(r["deal"], []).append(r)
    complete = [d for d in sorted(by_deal) if len(by_deal[d]) == 2]
    return [r for d in complete[:pairs] for r in sorted(by_deal[d], key=lambda r: r["game"])]


def elo_width_by_game(scores: np.ndarray) -> float:
    """Width of the Elo interval that treats the 2P games as independent
    (binomial: score +- z sqrt(p (1 - p) / games)); ``scores`` are pair scores."""
    games = 2 * len(scores)
    p = scores.sum() / games
    half = Z95 * np.sqrt(p * (1 - p) / games)
    return elo_of_score(min(p + half, 1)) - elo_of_score(max(p - half, 0))


def elo_width_by_pair(scores: np.ndarray) -> float:
    s = pair_statistics(pentanomial(scores.tolist()))
    return s["elo_ci95"][1] - s["elo_ci95"][0]


def describe(rows: list[dict], a: str, b: str) -> dict:
    scores = np.array(pair_scores(rows, a, b))
    by_pair = pair_statistics(pentanomial(scores.tolist()))
    games = 2 * len(scores)
    p = scores.sum() / games
    half = Z95 * np.sqrt(p * (1 - p) / games)
    lo, hi = max(p - half, 0.0), min(p + half, 1.0)
    return {"pairs": len(scores), "games": games, "score": p,
            "pentanomial": by_pair["pentanomial"],
            "by_game": {"score_ci95": [lo, hi], "score_width": hi - lo, "elo": elo_of_score(p),
                        "elo_ci95": [elo_of_score(lo), elo_of_score(hi)],
                        "elo_width": elo_width_by_game(scores)},
            "by_pair": {"score_ci95": by_pair["score_ci95"],
                        "score_width": by_pair["score_ci95"][1] - by_pair["score_ci95"][0],
                        "elo": by_pair["elo"],
                        "elo_ci95": by_pair["elo_ci95"],
                        "elo_width": elo_width_by_pair(scores),
                        "variance_per_pair": by_pair["variance_per_pair"]},
            "within_deal_correlation": within_deal_correlation(rows, a, b),
            "polish_win_rate": side_balance(rows)["polish_win_rate"],
            "mean_moves": float(np.mean([r["moves"] for r in rows]))}


def bootstrap(seq: np.ndarray, keyed: np.ndarray, samples: int, seed: int) -> dict:
    """95% percentile intervals of the three ratios, resampling each folder's
    pairs (a resample where one bot won every game has no width by game and
    is left out)."""
    rng = np.random.default_rng(seed)
    out = {"target_ratio": [], "crn_ratio": [], "pairs_ratio": []}
    for _ in range(samples):
        s = seq[rng.integers(0, len(seq), len(seq))]
        k = keyed[rng.integers(0, len(keyed), len(keyed))]
        seq_game, seq_pair, keyed_pair = (elo_width_by_game(s), elo_width_by_pair(s),
                                          elo_width_by_pair(k))
        if seq_game == 0:           # a resample where one bot won every game
            continue
        out["target_ratio"].append(keyed_pair / seq_game)
        out["crn_ratio"].append(keyed_pair / seq_pair)
        out["pairs_ratio"].append(seq_pair / seq_game)
    return {k: [float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))]
            for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sequential", default=str(DEFAULT_FOLDERS["sequential"]),
                    help="the match folder played with --chance sequential")
    ap.add_argument("--keyed", default=str(DEFAULT_FOLDERS["keyed"]),
                    help="the same match played with --chance keyed")
    ap.add_argument("--bootstrap", type=int, default=2000, help="resamples (default 2000)")
    ap.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    ap.add_argument("--out", default=str(ROOT / "results/crn-width.json"))
    args = ap.parse_args(argv)
    folders = {"sequential": Path(args.sequential), "keyed": Path(args.keyed)}
    loaded = {k: load(f) for k, f in folders.items()}
    for k, (params, _) in loaded.items():
        if params["chance"] != k:
            print(f"--{k}: {folders[k]} was played with --chance {params['chance']}",
                  file=sys.stderr)
            return 2
    same = ("bots", "format", "games", "seed")
    if any(loaded["sequential"][0][k] != loaded["keyed"][0][k] for k in same):
        print("the two folders are not the same match (bots, format, games or seed differ)",
              file=sys.stderr)
        return 2
    a, b = loaded["keyed"][0]["bots"][:2]
    pairs = min(len(pair_scores(rows, a, b)) for _, rows in loaded.values())
    if pairs < 2:
        print("fewer than two complete deal pairs in a folder", file=sys.stderr)
        return 2
    rows = {k: first_pairs(r, a, b, pairs) for k, (_, r) in loaded.items()}
    figures = {k: describe(rows[k], a, b) for k in rows}
    if any(f["score"] in (0, 1) for f in figures.values()):
        print("a bot won every game of a folder: the intervals by game are empty, "
              "there is no width to compare", file=sys.stderr)
        return 2
    seq_game = figures["sequential"]["by_game"]["elo_width"]
    seq_pair = figures["sequential"]["by_pair"]["elo_width"]
    keyed_pair = figures["keyed"]["by_pair"]["elo_width"]
    target = keyed_pair / seq_game
    out = {
        "first": a, "second": b, "pairs": pairs, "games": 2 * pairs,
        "scheduled_games": loaded["keyed"][0]["games"],
        "folders": {k: str(f.relative_to(ROOT)) if f.resolve().is_relative_to(ROOT) else str(f)
                    for k, f in folders.items()},
        "sequential": figures["sequential"], "keyed": figures["keyed"],
        "target_ratio": target, "crn_ratio": keyed_pair / seq_pair,
        "pairs_ratio": seq_pair / seq_game,
        "games_factor": 1 / target ** 2,
        # the same ratios of the score intervals (the Elo map stretches an
        # interval more the further the score is from 1/2)
        "score_ratios": {
            "target_ratio": figures["keyed"]["by_pair"]["score_width"]
            / figures["sequential"]["by_game"]["score_width"],
            "crn_ratio": figures["keyed"]["by_pair"]["score_width"]
            / figures["sequential"]["by_pair"]["score_width"],
            "pairs_ratio": figures["sequential"]["by_pair"]["score_width"]
            / figures["sequential"]["by_game"]["score_width"]},
        "target": 0.75, "target_met": target <= 0.75,
        "ci95": bootstrap(np.array(pair_scores(rows["sequential"], a, b)),
                          np.array(pair_scores(rows["keyed"], a, b)), args.bootstrap,
                          args.seed),
        "bootstrap_samples": args.bootstrap,
        "command": "python benchmarks/crn_width.py " + " ".join(
            argv if argv is not None else sys.argv[1:]),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"{pairs} pairs ({2 * pairs} games) each: Elo interval width sequential by game "
          f"{seq_game:.0f}, sequential by pair {seq_pair:.0f}, keyed by pair {keyed_pair:.0f}")
    print(f"target ratio (keyed by pair / sequential by game) {target:.3f} "
          f"[{out['ci95']['target_ratio'][0]:.3f}, {out['ci95']['target_ratio'][1]:.3f}] "
          f"(target <= 0.75: {'met' if out['target_met'] else 'missed'}); "
          f"CRN alone {out['crn_ratio']:.3f}; pairs alone {out['pairs_ratio']:.3f}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
