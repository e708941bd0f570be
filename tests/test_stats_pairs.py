"""Statistics by deal pair (apps.tournament.stats): pentanomial counts,
score/Elo intervals from the variance over pairs, the GSPRT on pairs, the
correlation within a deal."""

from __future__ import annotations

import math

import numpy as np
import pytest

from apps import tournament as T


def _rows(results):
    """Rows of a two-bot match: ``results`` holds a's result (1 win, 0 loss)
    in each game, two games per deal, a Polish in the first."""
    rows = []
    for g, won in enumerate(results):
        deal, swap = divmod(g, 2)
        polish, german = ("a", "b") if swap == 0 else ("b", "a")
        winner = "a" if won else "b"
        rows.append({"game": g + 1, "pairing": 0, "deal": deal, "polish": polish,
                     "german": german, "winner": winner,
                     "winner_side": "polish" if winner == polish else "german"})
    return rows


def test_pairs_count_complete_deals_only():
    rows = _rows([1, 1, 1, 0, 0, 0, 1])             # the last deal is half played
    assert T.pair_scores(rows, "a", "b") == [2.0, 1.0, 0.0]
    assert T.pair_scores(rows, "b", "a") == [0.0, 1.0, 2.0]
    assert T.pentanomial([2.0, 1.0, 0.0, 1.0, 0.5]) == [1, 1, 2, 0, 1]
    assert T.pair_scores(rows, "a", "c") == []


def test_pair_scores_by_deal_keys_each_complete_deal():
    """The same scores keyed by (pairing, deal), in deal order, so that two
    matches dealt alike can be compared deal by deal."""
    rows = _rows([1, 1, 1, 0, 0, 0, 1])
    rows.reverse()                                    # the order of the rows does not matter
    by_deal = T.pair_scores_by_deal(rows, "a", "b")
    assert by_deal == {(0, 0): 2.0, (0, 1): 1.0, (0, 2): 0.0}
    assert list(by_deal) == [(0, 0), (0, 1), (0, 2)]
    assert list(by_deal.values()) == T.pair_scores(rows, "a", "b")


def test_pair_statistics_by_hand():
    counts = [10, 0, 50, 0, 40]                       # 100 pairs
    s = T.pair_statistics(counts)
    assert s["pairs"] == 100 and s["score"] == pytest.approx(0.65)
    x = np.array([0, 0.25, 0.5, 0.75, 1.0])
    w = np.array([10, 1e-3, 50, 1e-3, 40])
    centre = (w * x).sum() / w.sum()
    var = (w * (x - centre) ** 2).sum() / w.sum()
    assert s["variance_per_pair"] == pytest.approx(var)
    half = T.Z95 * math.sqrt(var / 100)
    assert s["score_ci95"] == pytest.approx([0.65 - half, 0.65 + half], rel=1e-4)
    elo = lambda p: 400 * math.log10(p / (1 - p))   # noqa: E731
    assert s["elo"] == pytest.approx(elo(0.65), rel=1e-4)
    assert s["elo_ci95"] == pytest.approx([elo(0.65 - half), elo(0.65 + half)], rel=1e-3)
    assert s["nelo"] == pytest.approx((0.65 - 0.5) / math.sqrt(2 * var) * 800 / math.log(10),
                                      rel=1e-4)
    assert T.pair_statistics([0] * 5)["score"] is None


def test_pairs_narrow_the_interval_only_when_the_games_of_a_deal_are_anticorrelated():
    rng = np.random.default_rng(1)
    independent = rng.random((4000, 2)) < 0.6         # a's results, games independent
    scores = independent.sum(axis=1).astype(float).tolist()
    by_pair = T.pair_statistics(T.pentanomial(scores))
    by_game = T.game_statistics(int(independent.sum()), independent.size)
    width = lambda s: s["score_ci95"][1] - s["score_ci95"][0]   # noqa: E731
    assert width(by_pair) == pytest.approx(width(by_game), rel=0.05)
    # each deal favours a side: a wins as that side and loses as the other
    split = T.pair_statistics(T.pentanomial([1.0] * 3000 + [2.0] * 1000))
    assert width(split) < 0.75 * width(T.game_statistics(5000, 8000))


def test_within_deal_correlation():
    assert T.within_deal_correlation(_rows([1, 0, 0, 1] * 10), "a", "b") == pytest.approx(-1)
    assert T.within_deal_correlation(_rows([1, 1, 0, 0] * 10), "a", "b") == pytest.approx(1)
    assert T.within_deal_correlation(_rows([1, 1] * 10), "a", "b") is None


def test_gsprt_llr_agrees_with_the_normal_approximation_on_large_samples():
    counts = [240, 0, 500, 0, 260]                   # a score near s0 and s1
    n, mu = 1000, 0.51
    x = np.array([0, 0.25, 0.5, 0.75, 1.0])
    w = np.array([240, 1e-3, 500, 1e-3, 260])
    c = (w * x).sum() / w.sum()
    var = (w * (x - c) ** 2).sum() / w.sum()
    s0, s1 = 1 / (1 + 10 ** (-0 / 400)), 1 / (1 + 10 ** (-10 / 400))
    approx = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert T.gsprt_llr(counts, 0, 10) == pytest.approx(approx, rel=0.05)
    assert T.gsprt_llr([400, 0, 500, 0, 100], 0, 10) < 0 < T.gsprt_llr([100, 0, 500, 0, 400], 0, 10)
    # one pair cannot decide: the likelihood ratio of a single observation stays small
    assert abs(T.gsprt_llr([0, 0, 0, 0, 1], 0, 100)) < 1


def test_the_runner_sprt_looks_at_complete_deals_only():
    rows = _rows([1, 1] * 30 + [1])                   # the last game opens a deal
    from apps.tournament.runner import sprt_state
    s = sprt_state(["a", "b"], {"elo0": 0, "elo1": 200, "alpha": 0.05, "beta": 0.05}, rows)
    assert s["result"] == "H1" and s["games"] == 2 * s["pairs"] <= 60
