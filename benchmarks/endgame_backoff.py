"""Does backing off the exact solver's share pay at 0.1 s a move?

    python benchmarks/endgame_backoff.py

Reads two seat-swapped matches of ``ismcts:time=0.1,endgame=exact`` against
``ismcts:time=0.1,endgame=off``, played on the same deals (seed 40, keyed
common random numbers, 100 pairs each):

* ``results/tournaments/endgame-exact-vs-off-0.1s-keyed``: before the
  back-off, every attempt had half of the move;
* ``results/tournaments/endgame-backoff-vs-off-0.1s-keyed``: with it
  (``bots.base.ENDGAME_BACKOFF``: after an attempt that does not finish the
  next one gets half the share, down to a sixteenth of the move);

and writes ``results/endgame-backoff.json``: each match's score and Elo by
deal pair (``apps.tournament.stats.pair_statistics``), and the change from
the first to the second on the deals both completed: the exact bot's mean
score per deal pair in each match, the mean change with a 95% interval from a
bootstrap of the deals (each deal's two pairs of games resampled together,
since both matches dealt it alike), and the Elo difference of the two
scores with its bootstrap interval.  A deal numbered alike in both folders
but dealt from another seed is refused: the folders are not the same deals.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from apps.tournament.stats import (elo_of_score, pair_scores_by_deal,  # noqa: E402
                                   pair_statistics, pentanomial)
from apps.tournament.store import read_games  # noqa: E402

MATCHES = {"fixed_half": ROOT / "results/tournaments/endgame-exact-vs-off-0.1s-keyed",
           "backoff": ROOT / "results/tournaments/endgame-backoff-vs-off-0.1s-keyed"}
SAMPLES = 10_000


def by_deal(folder: Path) -> tuple[str, dict[tuple[int, int], float], dict[tuple[int, int], int]]:
    """The first bot's spec, its score (0, 1 or 2) over each complete deal,
    and each deal's seed; FileNotFoundError if the folder has no games."""
    params = json.loads((folder / "tournament.json").read_text())
    first, second = params["bots"][:2]
    rows = read_games(folder)
    if not rows:
        raise FileNotFoundError(2, "no games played", str(folder / "games.csv"))
    seeds = {(r["pairing"], r["deal"]): r["deal_seed"] for r in rows}
    return first, pair_scores_by_deal(rows, first, second), seeds


def compare(matches: dict[str, Path]) -> dict:
    """The figures above from ``matches["fixed_half"]`` and
    ``matches["backoff"]`` (FileNotFoundError if one has no games,
    ValueError if they are not the same deals)."""
    out: dict = {"matches": {}}
    scores, seeds = {}, {}
    for name, folder in matches.items():
        first, scores[name], seeds[name] = by_deal(folder)
        shown = folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder
        out["matches"][name] = {"folder": str(shown), "first_bot": first,
                                "pairs": len(scores[name]),
                                "by_pair": pair_statistics(pentanomial(scores[name].values()))}
    common = sorted(set(scores["fixed_half"]) & set(scores["backoff"]))
    if not common:
        raise FileNotFoundError(2, "no deal completed in both matches", str(matches["backoff"]))
    other = [k for k in common if seeds["fixed_half"][k] != seeds["backoff"][k]]
    if other:
        raise ValueError(f"deal {other[0][1]} of pairing {other[0][0]} was dealt from another "
                         f"seed in each folder: not the same deals")
    a = np.array([scores["fixed_half"][k] for k in common]) / 2
    b = np.array([scores["backoff"][k] for k in common]) / 2
    rng = np.random.default_rng(40)
    picks = rng.integers(0, len(common), size=(SAMPLES, len(common)))
    elo = np.vectorize(elo_of_score)
    diff = (b - a)[picks].mean(axis=1)
    elo_diff = elo(b[picks].mean(axis=1)) - elo(a[picks].mean(axis=1))
    out["common_pairs"] = len(common)
    out["score_fixed_half"] = float(a.mean())
    out["score_backoff"] = float(b.mean())
    out["score_change"] = float((b - a).mean())
    out["score_change_ci95_bootstrap"] = [float(q) for q in np.quantile(diff, [0.025, 0.975])]
    out["elo_change"] = float(elo_of_score(b.mean()) - elo_of_score(a.mean()))
    out["elo_change_ci95_bootstrap"] = [float(q) for q in np.quantile(elo_diff, [0.025, 0.975])]
    out["correlation_of_pair_scores"] = float(np.corrcoef(a, b)[0, 1]) \
        if a.std() > 0 and b.std() > 0 else None
    return out


def main() -> int:
    try:
        out = compare(MATCHES)
    except FileNotFoundError as error:
        print(f"{error.filename}: {error.strerror or 'missing'} (play the match first: "
              "its README)", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    out["command"] = "python benchmarks/endgame_backoff.py"
    path = ROOT / "results/endgame-backoff.json"
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
