"""Tournament statistics, as pure functions of the games: Bradley-Terry
ratings with bootstrap intervals, likelihood of superiority, statistics by
pair (the pentanomial model: score, Elo and normalized Elo with intervals,
the GSPRT on pairs, the correlation within a deal), Wilson intervals,
calibration of value estimates, side balance, head to head, the
luck-adjusted scores of a match played with ``--luck``
(:func:`luck_summary`, see :mod:`apps.tournament.luck`), and
:func:`analyse`, the summary of a tournament's games.

Nothing here reads or writes files (``benchmarks/reference_tournament.py``
reuses these functions on the games of several tournaments).
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import numpy as np

from apps.tournament.luck import LUCK_FIELD
from apps.tournament.scheduling import derive
from solver.errors import ParameterError, brief
from solver.vocabulary import SIDES

ELO_PER_NAT = 400 / math.log(10)
BOOTSTRAP_SAMPLES = 1000
Z95 = 1.959963984540054


# ---- ratings ---------------------------------------------------------------------

def bradley_terry(wins: np.ndarray, iterations: int = 100) -> np.ndarray:
    """Elo ratings (mean 0) maximising the Bradley-Terry likelihood of the
    win matrix ``wins[i, j]`` (games i won against j), by Newton's method.
    The maximum is finite only when every bot has a chain of wins to every
    other it is connected to; otherwise callers add a prior (see ratings)."""
    n = len(wins)
    games = wins + wins.T
    r = np.zeros(n)
    for _ in range(iterations):
        p = 1 / (1 + np.exp(r[None, :] - r[:, None]))          # p[i, j] = P(i beats j)
        grad = (wins - games * p).sum(axis=1)
        w = games * p * (1 - p)
        hess = w - np.diag(w.sum(axis=1))
        step = np.linalg.lstsq(hess[1:, 1:], -grad[1:], rcond=None)[0]
        r[1:] += step
        r -= r.mean()
        if np.max(np.abs(step)) < 1e-12:
            break
    return r * ELO_PER_NAT


def _separated(wins: np.ndarray) -> bool:
    """True when the maximum likelihood is infinite: the directed 'won a game
    against' graph is not strongly connected."""
    n = len(wins)
    reach = (wins > 0) | np.eye(n, dtype=bool)
    for _ in range(n):
        reach = reach | ((reach.astype(int) @ reach.astype(int)) > 0)
    return not reach.all()


def ratings(wins: np.ndarray) -> tuple[np.ndarray, bool]:
    """Elo ratings; when the maximum likelihood is infinite (a bot unbeaten or
    winless), one virtual draw (half a win each way) is added to every pair
    that played.  Returns (elo, prior_added)."""
    wins = np.asarray(wins, dtype=float)
    if _separated(wins):
        played = (wins + wins.T) > 0
        return bradley_terry(wins + 0.5 * played), True
    return bradley_terry(wins), False


def bootstrap_intervals(units: Sequence[np.ndarray], seed: int,
                        samples: int = BOOTSTRAP_SAMPLES) -> np.ndarray:
    """95% percentile intervals (n x 2) of the Elo ratings, resampling the
    units (one win matrix per deal of a pairing: its two games) with
    replacement."""
    stack = np.stack(units)
    rng = np.random.default_rng(seed)
    out = np.empty((samples, stack.shape[1]))
    for b in range(samples):
        counts = np.bincount(rng.integers(0, len(stack), len(stack)), minlength=len(stack))
        out[b] = ratings(np.tensordot(counts, stack, axes=1))[0]
    return np.percentile(out, [2.5, 97.5], axis=0).T


def los(wins: float, losses: float) -> float | None:
    """Likelihood of superiority, Phi((W-L)/sqrt(W+L)) as cutechess-cli."""
    if wins + losses == 0:
        return None
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses))))


# ---- SPRT ----------------------------------------------------------------------

def parse_sprt(text: str) -> dict[str, float]:
    """``"elo0=0,elo1=10,alpha=0.05,beta=0.05"`` -> dict (defaults as shown)."""
    out = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
    for item in filter(None, (x.strip() for x in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or key not in out:
            raise ParameterError(f"--sprt: unknown item {item!r} (keys: elo0, elo1, alpha, beta)")
        try:
            out[key] = float(value)
        except ValueError:
            raise ParameterError(f"--sprt: {key} expects a number, got {brief(value)}") from None
    if not out["elo1"] > out["elo0"]:
        raise ParameterError("--sprt: elo1 must be greater than elo0")
    for key in ("alpha", "beta"):
        if not 0 < out[key] < 0.5:
            raise ParameterError(f"--sprt: {key} must be between 0 and 0.5")
    return out


PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)   # a pair's score: a bot's points over a deal's two games
REGULARIZER = 1e-3                         # stands for an empty class in a variance (as fishtest)


def pair_scores(rows: Sequence[dict[str, Any]], a: str, b: str) -> list[float]:
    """``a``'s score over each complete deal (both games played) of its
    pairing with ``b``, in deal order: 0, 1 or 2 here (a game has a winner),
    0.5 and 1.5 would be a draw and a decisive game."""
    return list(pair_scores_by_deal(rows, a, b).values())


def pair_scores_by_deal(rows: Sequence[dict[str, Any]], a: str, b: str
                        ) -> dict[tuple[int, int], float]:
    """:func:`pair_scores` keyed by (pairing, deal), in deal order: for
    comparing two matches dealt alike, deal by deal."""
    by_deal: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for r in rows:
        if {r["polish"], r["german"]} == {a, b} and a != b:
            by_deal.setdefault((r["pairing"], r["deal"]), []).append(r)
    return {key: float(sum(r["winner"] == a for r in games))
            for key, games in sorted(by_deal.items()) if len(games) == 2}


def pentanomial(scores: Iterable[float]) -> list[int]:
    """How many pairs scored 0, 1/2, 1, 3/2 and 2."""
    counts = [0] * len(PAIR_SCORES)
    for s in scores:
        counts[PAIR_SCORES.index(s)] += 1
    return counts


def _moments(counts: Sequence[float]) -> tuple[int, float, float]:
    """(pairs, mean score per game, variance of a pair's mean score per game)
    of pentanomial counts.  In the variance an empty class counts
    REGULARIZER, so that a lopsided sample does not claim a zero variance."""
    n = int(sum(counts))
    x = [s / 2 for s in PAIR_SCORES]
    mu = sum(c * xi for c, xi in zip(counts, x)) / n if n else 0.5
    reg = [c if c > 0 else REGULARIZER for c in counts]
    centre = sum(c * xi for c, xi in zip(reg, x)) / sum(reg)
    var = sum(c * (xi - centre) ** 2 for c, xi in zip(reg, x)) / sum(reg)
    return n, mu, var


def pair_statistics(counts: Sequence[int], z: float = Z95) -> dict[str, Any]:
    """Score, Elo and normalized Elo of the pentanomial ``counts``, each with
    its 95% interval from the variance over pairs (the pentanomial model of
    fishtest: the two games of a deal are one observation):
    score +- z sqrt(var / pairs), mapped to Elo by 400 log10(s / (1 - s));
    normalized Elo (s - 1/2) / sqrt(2 var) x 800 / ln 10."""
    n, mu, var = _moments(counts)
    out: dict[str, Any] = {"pairs": n, "pentanomial": list(counts)}
    if n == 0:
        return {**out, "score": None, "score_ci95": None, "elo": None, "elo_ci95": None,
                "nelo": None, "nelo_ci95": None, "variance_per_pair": None}
    half = z * math.sqrt(var / n)
    lo, hi = max(mu - half, 0.0), min(mu + half, 1.0)
    sigma = math.sqrt(2 * var)                 # a game's standard deviation, as fishtest
    nelo = 2 * ELO_PER_NAT / sigma
    return {**out, "score": mu, "score_ci95": [lo, hi], "variance_per_pair": var,
            "elo": elo_of_score(mu), "elo_ci95": [elo_of_score(lo), elo_of_score(hi)],
            "nelo": nelo * (mu - 0.5), "nelo_ci95": [nelo * (mu - 0.5 - half),
                                                     nelo * (mu - 0.5 + half)]}


def game_statistics(wins: int, games: int, z: float = Z95) -> dict[str, Any]:
    """Score and Elo with the intervals that treat every game as independent
    (a binomial, score +- z sqrt(p (1 - p) / games)): what the statistics
    before pairs gave, kept for comparison."""
    if games == 0:
        return {"games": 0, "score": None, "score_ci95": None, "elo": None, "elo_ci95": None}
    p = wins / games
    half = z * math.sqrt(p * (1 - p) / games)
    lo, hi = max(p - half, 0.0), min(p + half, 1.0)
    return {"games": games, "score": p, "score_ci95": [lo, hi], "elo": elo_of_score(p),
            "elo_ci95": [elo_of_score(lo), elo_of_score(hi)]}


def within_deal_correlation(rows: Sequence[dict[str, Any]], a: str, b: str) -> float | None:
    """Pearson correlation of ``a``'s results in the two games of each
    complete deal (first game against second); None when either game's
    results do not vary.  Negative: the deal's luck favoured a side, so it
    helped each bot once and cancels within the pair."""
    by_deal: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for r in rows:
        if {r["polish"], r["german"]} == {a, b} and a != b:
            by_deal.setdefault((r["pairing"], r["deal"]), []).append(r)
    pairs = [sorted(g, key=lambda r: r["game"]) for g in by_deal.values() if len(g) == 2]
    if len(pairs) < 2:
        return None
    x = np.array([[float(r["winner"] == a) for r in g] for g in pairs])
    if x[:, 0].std() == 0 or x[:, 1].std() == 0:
        return None
    return float(np.corrcoef(x[:, 0], x[:, 1])[0, 1])


def _constrained_mle(x: Sequence[float], p: Sequence[float], s: float) -> list[float]:
    """The distribution on the scores ``x`` nearest the empirical ``p`` (by
    likelihood) whose mean is ``s``: p_i / (1 + lam (x_i - s)), with lam
    found by bisection (the mean of the result decreases with lam)."""
    d = [xi - s for xi in x]
    lo, hi = -1 / max(d), -1 / min(d)          # the denominators stay positive inside
    for _ in range(200):
        lam = (lo + hi) / 2
        if sum(pi * di / (1 + lam * di) for pi, di in zip(p, d)) > 0:
            lo = lam
        else:
            hi = lam
    lam = (lo + hi) / 2
    q = [pi / (1 + lam * di) for pi, di in zip(p, d)]
    total = sum(q)
    return [qi / total for qi in q]


def gsprt_llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (Elo = elo1) against H0 (Elo = elo0) over
    pentanomial counts: the generalized SPRT on pairs, as fishtest's
    (the pentanomial distributions of the largest likelihood whose mean score
    is s0 and s1, s = 1 / (1 + 10^(-elo/400)); an empty class counts
    REGULARIZER)."""
    n = sum(counts)
    if n == 0:
        return 0.0
    reg = [c if c > 0 else REGULARIZER for c in counts]
    p = [c / sum(reg) for c in reg]
    x = [sc / 2 for sc in PAIR_SCORES]
    q0 = _constrained_mle(x, p, 1 / (1 + 10 ** (-elo0 / 400)))
    q1 = _constrained_mle(x, p, 1 / (1 + 10 ** (-elo1 / 400)))
    return n * sum(pi * math.log(b / a) for pi, a, b in zip(p, q0, q1))


def sprt(scores: Iterable[float], elo0: float, elo1: float, alpha: float,
         beta: float) -> dict[str, Any]:
    """The SPRT (GSPRT on pairs) over a stream of pair scores (the first
    bot's points in each deal, :data:`PAIR_SCORES`), looked at after each
    pair and stopping at the first crossing of a bound: it never decides
    between the two games of a deal."""
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    counts = [0] * len(PAIR_SCORES)
    llr, result = 0.0, None
    for score in scores:
        counts[PAIR_SCORES.index(score)] += 1
        llr = gsprt_llr(counts, elo0, elo1)
        if llr >= upper:
            result = "H1"
            break
        if llr <= lower:
            result = "H0"
            break
    pairs = sum(counts)
    return {"llr": llr, "lower": lower, "upper": upper, "pairs": pairs, "games": 2 * pairs,
            "pentanomial": counts, "result": result,
            "elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta}


# ---- calibration ------------------------------------------------------------------

def calibration(values: Sequence[float], won: Sequence[int], bins: int = 10) -> dict[str, Any]:
    """Brier score, expected calibration error (equal-width bins) and the
    reliability diagram's bins (the non-empty ones: their range, count, mean
    estimate and observed win rate)."""
    v = np.asarray(values, dtype=float)
    y = np.asarray(won, dtype=float)
    if len(v) == 0:
        return {"estimates": 0, "brier": None, "ece": None, "bins": []}
    idx = np.minimum((v * bins).astype(int), bins - 1)
    table = [{"lo": b / bins, "hi": (b + 1) / bins, "count": int((idx == b).sum()),
              "mean_value": float(v[idx == b].mean()), "win_rate": float(y[idx == b].mean())}
             for b in range(bins) if (idx == b).any()]
    ece = sum(abs(t["mean_value"] - t["win_rate"]) * t["count"] for t in table) / len(v)
    return {"estimates": int(len(v)), "brier": float(np.mean((v - y) ** 2)),
            "ece": float(ece), "bins": table}


def elo_of_score(p: float) -> float:
    """The Elo difference 400 log10(p / (1 - p)) of a score p, clipped away
    from 0 and 1 (to +-1600)."""
    p = min(max(p, 1e-4), 1 - 1e-4)
    return ELO_PER_NAT * math.log(p / (1 - p))


def wilson(k: float, n: float, z: float = Z95) -> list[float] | None:
    """Wilson score interval (95% by default) of a proportion k/n."""
    if n <= 0:
        return None
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [max(0.0, centre - half), min(1.0, centre + half)]


def side_balance(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """How often each side won, with 95% Wilson intervals."""
    n = len(rows)
    k = sum(r["winner_side"] == "polish" for r in rows)
    ci = wilson(k, n)
    return {"games": n, "polish_wins": k, "german_wins": n - k,
            "polish_win_rate": k / n if n else None,
            "polish_ci95": ci,
            "german_win_rate": (n - k) / n if n else None,
            "german_ci95": None if ci is None else [1 - ci[1], 1 - ci[0]]}


def head_to_head(rows: Sequence[dict[str, Any]], a: str, b: str) -> dict[str, Any]:
    """a's score against b over their games, with a 95% Wilson interval."""
    games = [r for r in rows if {r["polish"], r["german"]} == {a, b} and a != b]
    k = sum(r["winner"] == a for r in games)
    n = len(games)
    return {"first": a, "second": b, "games": n, "first_wins": k,
            "first_win_rate": k / n if n else None, "ci95": wilson(k, n),
            "by_pair": pair_statistics(pentanomial(pair_scores(rows, a, b))),
            "by_game": game_statistics(k, n),
            "within_deal_correlation": within_deal_correlation(rows, a, b)}


# ---- the summary of a tournament's games ------------------------------------------

def analyse(bots: Sequence[str], rows: Sequence[dict[str, Any]], seed: int,
            value_rows: Sequence[dict[str, str]] = ()) -> dict[str, Any]:
    """Ratings, intervals, LOS, per-side win rates and calibration of the games."""
    n = len(bots)
    index = {b: i for i, b in enumerate(bots)}
    wins = np.zeros((n, n))
    units: dict[tuple[int, int], np.ndarray] = {}
    per_bot = {b: {"games": 0, "wins": 0, "polish_games": 0, "polish_wins": 0,
                   "german_games": 0, "german_wins": 0, "seconds": 0.0, "sides": 0}
               for b in bots}
    for row in rows:
        w, lo = index[row["winner"]], index[row["german"] if row["winner"] == row["polish"]
                                             else row["polish"]]
        wins[w, lo] += 1
        unit = units.setdefault((row["pairing"], row["deal"]), np.zeros((n, n)))
        unit[w, lo] += 1
        self_play = row["polish"] == row["german"]
        for side in SIDES:
            stats = per_bot[row[side]]
            won = (row["winner_side"] == side) if self_play else (row["winner"] == row[side])
            if not self_play or side == "polish":
                stats["games"] += 1
                stats["wins"] += row["winner"] == row[side]
            stats[f"{side}_games"] += 1
            stats[f"{side}_wins"] += won
            stats["seconds"] += float(row[f"seconds_per_move_{side}"])
            stats["sides"] += 1
    out: dict[str, Any] = {"games": len(rows), "bots": {}}
    if n == 1:   # self-play: no ratings
        elo, prior, ci = np.zeros(1), False, np.zeros((1, 2))
    elif rows:
        elo, prior = ratings(wins)
        ci = bootstrap_intervals(list(units.values()), derive("bootstrap", seed) % 2**32)
    else:
        elo, prior, ci = np.zeros(n), False, np.zeros((n, 2))
    out["prior_draws_added"] = prior
    by_bot_values: dict[str, tuple[list[float], list[int]]] = {b: ([], []) for b in bots}
    for v in value_rows:
        if v["bot"] in by_bot_values:
            by_bot_values[v["bot"]][0].append(float(v["value"]))
            by_bot_values[v["bot"]][1].append(int(v["won"]))
    for i, b in enumerate(bots):
        s = per_bot[b]
        out["bots"][b] = {
            "elo": round(float(elo[i]), 1),
            "elo_ci95": [round(float(ci[i, 0]), 1), round(float(ci[i, 1]), 1)],
            "games": s["games"], "wins": s["wins"],
            "win_rate": s["wins"] / s["games"] if s["games"] and n > 1 else None,
            "win_rate_polish": s["polish_wins"] / s["polish_games"] if s["polish_games"] else None,
            "win_rate_german": s["german_wins"] / s["german_games"] if s["german_games"] else None,
            "mean_seconds_per_move": s["seconds"] / s["sides"] if s["sides"] else None,
            "calibration": calibration(*by_bot_values[b]),
        }
    out["wins"] = {a: {b: int(wins[i, j]) for j, b in enumerate(bots) if i != j}
                   for i, a in enumerate(bots)}
    out["los"] = {a: {b: los(wins[i, j], wins[j, i]) for j, b in enumerate(bots) if i != j}
                  for i, a in enumerate(bots)}
    out["sides"] = side_balance(rows)
    out["head_to_head"] = [head_to_head(rows, bots[i], bots[j])
                           for i in range(n) for j in range(i + 1, n)
                           if any({r["polish"], r["german"]} == {bots[i], bots[j]} for r in rows)]
    out["pairs"] = sum(h["by_pair"]["pairs"] for h in out["head_to_head"])
    return out


# ---- luck-adjusted scores (a match played with --luck) -----------------------------

def luck_of(row: dict[str, Any], bot: str) -> float:
    """The luck of ``bot``'s side in the game ``row``: the row's luck for the
    Polish side (``luck_polish``), negated when ``bot`` plays German."""
    luck = float(row[LUCK_FIELD])
    return luck if row["polish"] == bot else -luck


def adjusted_result(row: dict[str, Any], bot: str) -> float:
    """``bot``'s luck-adjusted result in a game of two bots: its result (1
    win, 0 loss) minus its luck (the two sides' adjusted results sum to 1)."""
    return float(row["winner"] == bot) - luck_of(row, bot)


def luck_pair_scores(rows: Sequence[dict[str, Any]], a: str,
                     b: str) -> list[tuple[float, float]]:
    """``(raw, adjusted)`` score of ``a`` over each complete deal of its
    pairing with ``b``, in deal order: the sum of its two results, and of
    its two luck-adjusted results."""
    by_deal: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for r in rows:
        if {r["polish"], r["german"]} == {a, b} and a != b:
            by_deal.setdefault((r["pairing"], r["deal"]), []).append(r)
    return [(float(sum(r["winner"] == a for r in games)),
             math.fsum(adjusted_result(r, a) for r in games))
            for _, games in sorted(by_deal.items()) if len(games) == 2]


def mean_interval(x: Sequence[float], z: float = Z95) -> dict[str, Any]:
    """The mean of ``x`` with its normal 95% interval ``mean +- z sqrt(var /
    n)`` (``var`` the sample variance, ``ddof=1``); None where undefined."""
    v = np.asarray(x, dtype=float)
    n = len(v)
    if n == 0:
        return {"n": 0, "mean": None, "ci95": None, "variance": None}
    mean = float(v.mean())
    if n < 2:
        return {"n": n, "mean": mean, "ci95": None, "variance": None}
    var = float(v.var(ddof=1))
    half = z * math.sqrt(var / n)
    return {"n": n, "mean": mean, "ci95": [mean - half, mean + half], "variance": var}


def variance_ratio(raw: Sequence[float], adjusted: Sequence[float], seed: int,
                   samples: int = BOOTSTRAP_SAMPLES) -> tuple[float | None, list[float] | None]:
    """``var(adjusted) / var(raw)`` over the same units, with a 95% percentile
    bootstrap interval (the units resampled with replacement, a resample
    whose raw scores do not vary left out): (None, None) when the raw scores
    do not vary."""
    x, y = np.asarray(raw, dtype=float), np.asarray(adjusted, dtype=float)
    n = len(x)
    if n < 2 or x.var() == 0:
        return None, None
    ratio = float(y.var(ddof=1) / x.var(ddof=1))
    idx = np.random.default_rng(seed).integers(0, n, (samples, n))
    vx, vy = x[idx].var(axis=1, ddof=1), y[idx].var(axis=1, ddof=1)
    keep = vx > 0
    ci = np.percentile(vy[keep] / vx[keep], [2.5, 97.5]).tolist() if keep.any() else None
    return ratio, ci


def _clipped_elo(p: float | None, ci: list[float] | None) -> dict[str, Any]:
    """Elo of a score and of its interval's ends (scores clipped to [0, 1])."""
    if p is None:
        return {"elo": None, "elo_ci95": None}
    return {"elo": elo_of_score(p),
            "elo_ci95": None if ci is None else [elo_of_score(min(max(c, 0.0), 1.0))
                                                 for c in ci]}


def luck_figures(raw: Sequence[float], adjusted: Sequence[float], seed: int,
                 z: float = Z95) -> dict[str, Any]:
    """Raw and luck-adjusted scores per game over the same units (a unit's
    score per game: a deal pair's score over 2, or one game's result), each
    mean with its 95% interval over the units and its Elo, the variance of a
    unit's score both ways and their ratio (adjusted / raw) with a bootstrap
    interval.  The ratio is the share of games the adjusted score needs for
    the raw score's precision."""
    r, a = mean_interval(raw, z), mean_interval(adjusted, z)
    ratio, ratio_ci = variance_ratio(raw, adjusted, seed)
    out = {"units": r["n"],
           "score": a["mean"], "score_ci95": a["ci95"],
           **_clipped_elo(a["mean"], a["ci95"]),
           "raw_score": r["mean"], "raw_score_ci95": r["ci95"]}
    raw_elo = _clipped_elo(r["mean"], r["ci95"])
    out.update({"raw_elo": raw_elo["elo"], "raw_elo_ci95": raw_elo["elo_ci95"],
                "variance_raw": r["variance"], "variance_adjusted": a["variance"],
                "variance_ratio": ratio, "variance_ratio_ci95": ratio_ci})
    return out


def luck_adjusted(pairs: Sequence[tuple[float, float]], seed: int,
                  z: float = Z95) -> dict[str, Any]:
    """The luck-adjusted statistics by deal pair of :func:`luck_pair_scores`:
    a pair's adjusted score is the sum of the bot's two adjusted results;
    the score per game (a pair's over 2) with its 95% interval over pairs,
    its Elo with the interval mapped, the raw score the same way (the same
    normal interval, for a like-for-like comparison), and the variance ratio
    (adjusted pair-score variance over raw; :func:`luck_figures`)."""
    raw = [p[0] / 2 for p in pairs]
    adjusted = [p[1] / 2 for p in pairs]
    out = luck_figures(raw, adjusted, seed, z)
    out["pairs"] = out.pop("units")
    return out


def luck_check(rows: Sequence[dict[str, Any]], z: float = Z95) -> dict[str, Any]:
    """The mean luck of the Polish side per game with its 95% interval: each
    chance event's luck has mean 0 whatever the bots do, so an interval far
    from 0 points at a chance stream that does not draw with the stated
    probabilities, or a value function that changed (``zero_inside``)."""
    m = mean_interval([float(r[LUCK_FIELD]) for r in rows], z)
    return {"games": m["n"], "mean": m["mean"], "ci95": m["ci95"],
            "zero_inside": None if m["ci95"] is None else m["ci95"][0] <= 0 <= m["ci95"][1]}


def luck_summary(bots: Sequence[str], fmt: str, rows: Sequence[dict[str, Any]], seed: int,
                 identity: dict[str, Any]) -> dict[str, Any]:
    """summary.json's ``luck_adjusted`` block: the value function, the luck
    check (:func:`luck_check`), and for each head to head the first bot's
    luck-adjusted statistics by deal pair (:func:`luck_adjusted`), or in
    self-play the Polish side's raw and adjusted win rates by game."""
    out: dict[str, Any] = {"value": identity, "games": len(rows),
                           "luck_polish": luck_check(rows)}
    if fmt == "self-play":
        raw = [float(r["winner_side"] == "polish") for r in rows]
        adjusted = [w - float(r[LUCK_FIELD]) for w, r in zip(raw, rows)]
        figures = luck_figures(raw, adjusted, derive("luck", seed) % 2**32)
        figures["games"] = figures.pop("units")
        out["self_play_polish"] = figures
        return out
    out["head_to_head"] = []
    for i, a in enumerate(bots):
        for b in bots[i + 1:]:
            pairs = luck_pair_scores(rows, a, b)
            if pairs:
                out["head_to_head"].append(
                    {"first": a, "second": b,
                     **luck_adjusted(pairs, derive("luck", seed, a, b) % 2**32)})
    return out
