"""benchmarks/parallel_vs_doubling.py on two made-up matches: the scores,
Elo differences, the ratio and the margin of issue 21's target follow
from the games, and a folder without games is an error, not a figure."""
import csv
import json
import math
from pathlib import Path

import pytest
from tournament_helpers import benchmark_script


@pytest.fixture(scope="module")
def script():
    return benchmark_script("parallel_vs_doubling")


def match(folder: Path, first: str, second: str, wins_by_deal: list[int]) -> Path:
    """A match folder: per deal two games, of which the first bot won the given count."""
    folder.mkdir()
    (folder / "tournament.json").write_text(json.dumps({"bots": [first, second],
                                                        "games": 2 * len(wins_by_deal)}))
    with open(folder / "games.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["game", "deal", "winner"])
        game = 0
        for deal, wins in enumerate(wins_by_deal):
            for k in range(2):
                game += 1
                w.writerow([game, deal, first if k < wins else second])
    return folder


def test_figures_follow_from_the_games(script, tmp_path):
    par = match(tmp_path / "p", "a2", "a1", [2, 1, 1, 1] * 25)     # 125 of 200
    dbl = match(tmp_path / "d", "b2", "b1", [2, 2, 1, 1] * 25)     # 150 of 200
    out = script.compare({"parallel": par, "doubling": dbl})
    p, d = out["matches"]["parallel"], out["matches"]["doubling"]
    assert (p["wins"], p["games"], d["wins"], d["games"]) == (125, 200, 150, 200)
    assert p["finished"] and p["scheduled"] == 200
    assert p["elo"] == pytest.approx(400 * math.log10(125 / 75))
    assert p["by_pair"]["pairs"] == 100 and p["by_pair"]["pentanomial"] == [0, 0, 75, 0, 25]
    assert p["by_pair"]["score"] == pytest.approx(0.625)
    assert d["by_pair"]["pentanomial"] == [0, 0, 50, 0, 50]
    assert d["elo"] == pytest.approx(400 * math.log10(150 / 50))
    assert out["ratio"] == pytest.approx(p["elo"] / d["elo"])
    assert out["margin_elo"] == pytest.approx(p["elo"] - 0.8 * d["elo"])
    assert out["target_met"] is False           # 89 Elo against 0.8 x 191
    lo, hi = out["margin_elo_ci95_bootstrap"]
    assert lo < out["margin_elo"] < hi
    same = script.compare({"parallel": dbl, "doubling": dbl})
    assert same["ratio"] == pytest.approx(1.0) and same["target_met"] is True


def test_a_folder_without_games_is_refused(script, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError):
        script.compare({"parallel": tmp_path / "empty", "doubling": tmp_path / "empty"})
    header_only = match(tmp_path / "h", "a", "b", [])
    full = match(tmp_path / "f", "a", "b", [1] * 10)
    with pytest.raises(FileNotFoundError, match="no games played"):
        script.compare({"parallel": full, "doubling": header_only})


def test_an_unfinished_match_says_so(script, tmp_path):
    full = match(tmp_path / "f", "a", "b", [1, 2] * 10)
    part = match(tmp_path / "p", "a", "b", [2, 1] * 10)
    (part / "tournament.json").write_text(json.dumps({"bots": ["a", "b"], "games": 400}))
    out = script.compare({"parallel": full, "doubling": part})
    assert out["matches"]["parallel"]["finished"]
    assert not out["matches"]["doubling"]["finished"]
    assert out["matches"]["doubling"]["scheduled"] == 400


def test_keyed_reads_the_keyed_folders_and_writes_its_own_file(script, tmp_path, monkeypatch):
    """``--keyed`` compares the two matches replayed with keyed chance and
    writes results/parallel-vs-doubling-keyed.json, leaving the old file."""
    par = match(tmp_path / "p", "a2", "a1", [2, 1] * 10)
    dbl = match(tmp_path / "d", "b2", "b1", [1, 1] * 10)
    monkeypatch.setattr(script, "MATCHES_KEYED", {"parallel": par, "doubling": dbl})
    monkeypatch.setattr(script, "MATCHES", {"parallel": tmp_path / "none", "doubling": tmp_path / "none"})
    monkeypatch.setattr(script, "ROOT", tmp_path)
    (tmp_path / "results").mkdir()
    assert script.main(["--keyed"]) == 0
    out = json.loads((tmp_path / "results/parallel-vs-doubling-keyed.json").read_text())
    assert out["command"].endswith("--keyed")
    assert out["matches"]["parallel"]["wins"] == 30 and out["matches"]["doubling"]["wins"] == 20
    assert not (tmp_path / "results/parallel-vs-doubling.json").exists()
    assert script.main([]) == 2                 # the old folders are missing here
