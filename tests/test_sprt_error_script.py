"""benchmarks/sprt_error.py: the simulated pair scores have the asked Elo
and split share, the SPRT's decisions are counted as the tournament makes
them, a run is seeded, and bad input is a one-line error."""
import csv
import json
import math
from pathlib import Path

import pytest
from tournament_helpers import benchmark_script

from apps.tournament.store import GAME_FIELDS


@pytest.fixture(scope="module")
def script():
    return benchmark_script("sprt_error")


def match(folder: Path, wins_by_deal: list[int]) -> Path:
    """A two-bot match folder: per deal two seat-swapped games, of which the
    first bot won the given count."""
    folder.mkdir()
    (folder / "tournament.json").write_text(json.dumps({"bots": ["a", "b"],
                                                        "games": 2 * len(wins_by_deal)}))
    with open(folder / "games.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(GAME_FIELDS)
        game = 0
        for deal, wins in enumerate(wins_by_deal):
            for k in range(2):
                game += 1
                polish, german = ("a", "b") if k == 0 else ("b", "a")
                winner = "a" if k < wins else "b"
                side = "polish" if winner == polish else "german"
                w.writerow([game, 0, deal, 1000 + deal, polish, german, side, winner,
                            1, 1, 100, 0.1, 0.1, 0])
    return folder


@pytest.mark.parametrize("elo,split", [(0, 0.68), (100, 0.68), (-50, 0.3), (200, 0.1)])
def test_the_distribution_has_the_elo_and_the_split_share(script, elo, split):
    p = script.distribution(elo, split)
    assert sum(p) == pytest.approx(1) and min(p) >= 0
    assert p[1] == p[3] == 0 and p[2] == pytest.approx(split)
    score = (p[2] + 2 * p[4]) / 2
    assert 400 * math.log10(score / (1 - score)) == pytest.approx(elo)


def test_a_split_share_that_leaves_no_room_for_the_score_is_refused(script):
    with pytest.raises(ValueError, match="no pentanomial"):
        script.distribution(150, 0.68)        # at most 66% with 68% split pairs


def test_the_decisions_are_counted_and_seeded(script):
    bounds = {"elo0": 0.0, "elo1": 100.0, "alpha": 0.05, "beta": 0.05}
    a = script.simulate(0.0, 0.68, bounds, runs=40, max_pairs=400, seed=3)
    assert a == script.simulate(0.0, 0.68, bounds, runs=40, max_pairs=400, seed=3)
    assert a["accept_h0"] + a["accept_h1"] + a["undecided"] == pytest.approx(1)
    assert a["wrong"] == a["accept_h1"]               # at elo0 only H1 is wrong
    assert a["early_wrong"] <= a["early_decisions"] <= 40
    far = script.simulate(-300.0, 0.1, bounds, runs=20, max_pairs=400, seed=3)
    assert far["accept_h0"] == 1 and far["wrong"] == 0
    short = script.simulate(50.0, 0.68, bounds, runs=20, max_pairs=1, seed=3)
    assert short["undecided"] == 1 and short["median_pairs"] == 1   # one pair decides nothing


def test_the_split_share_comes_from_the_match(script, tmp_path):
    folder = match(tmp_path / "m", [1, 1, 1, 0, 2, 2, 1, 1])
    share, counts = script.split_share(folder)
    assert counts == [1, 0, 5, 0, 2] and share == pytest.approx(5 / 8)
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "tournament.json").write_text(json.dumps({"bots": ["a", "b"]}))
    with pytest.raises(FileNotFoundError):
        script.split_share(tmp_path / "e")


def test_the_script_writes_its_figures(script, tmp_path, capsys):
    folder = match(tmp_path / "m", [1, 1, 1, 0, 2])
    out = tmp_path / "s.json"
    assert script.main(["--match", str(folder), "--runs", "5", "--elos", "0,50",
                        "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["split_share"] == 0.6 and data["pentanomial"] == [1, 0, 3, 0, 1]
    assert [r["elo"] for r in data["by_elo"]] == [0, 50]
    assert data["command"].startswith("python benchmarks/sprt_error.py --match")


@pytest.mark.parametrize("args,message", [
    (["--sprt", "elo0=0,elo1=x"], "elo1 expects a number"),
    (["--split", "0.99"], "no pentanomial"),
    (["--runs", "0", "--split", "0.5"], "must be at least 1"),
    (["--match", "/nonexistent/folder"], "/nonexistent/folder"),
])
def test_bad_input_is_one_line(script, tmp_path, capsys, args, message):
    assert script.main(args + ["--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err
    assert not (tmp_path / "x.json").exists()
