"""benchmarks/sprt_error.py: the simulated pair scores have the asked Elo
and split share, the SPRT's decisions are counted as the tournament makes
them, a run is seeded, and bad input is a one-line error."""
import json
import math
from pathlib import Path

import pytest
from tournament_helpers import benchmark_script, paired_match


@pytest.fixture(scope="module")
def script():
    return benchmark_script("sprt_error")


def match(folder: Path, wins_by_deal: list[int]) -> Path:
    """A match folder of "a" against "b" (``paired_match``)."""
    return paired_match(folder, wins_by_deal)


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
    for elo, split in ((float("nan"), 0.5), (-1e6, 0.5), (0, float("nan")), (0, 1.5)):
        with pytest.raises(ValueError, match="expected a number"):
            script.distribution(elo, split)


BOUNDS = {"elo0": 0.0, "elo1": 100.0, "alpha": 0.05, "beta": 0.05}


def test_the_decisions_are_counted_and_seeded(script):
    a = script.simulate(0.0, 0.68, BOUNDS, runs=40, max_pairs=400, seed=3)
    assert a == script.simulate(0.0, 0.68, BOUNDS, runs=40, max_pairs=400, seed=3)
    assert a != script.simulate(0.0, 0.68, BOUNDS, runs=40, max_pairs=400, seed=4)
    assert a["wrong_decision"] == "H1" and a["wrong"] == a["accept_h1"] > 0
    far = script.simulate(-300.0, 0.1, BOUNDS, runs=20, max_pairs=400, seed=3)
    assert far["accept_h0"] == 1 and far["wrong"] == 0
    short = script.simulate(50.0, 0.68, BOUNDS, runs=20, max_pairs=1, seed=3)
    assert short["undecided"] == 1 and short["median_pairs"] == 1   # one pair decides nothing
    assert short["wrong"] is None and short["wrong_ci95"] is None   # between elo0 and elo1


def test_at_elo1_accepting_h0_is_wrong_and_early_stops_are_by_hypothesis(script):
    """At Elo +100 the wrong decision is H0, and an early stop for it is
    counted as an early wrong one (the docs' early-stop figures)."""
    b = script.simulate(100.0, 0.68, BOUNDS, runs=200, max_pairs=400, seed=1)
    assert b["wrong_decision"] == "H0" and b["wrong"] == b["accept_h0"] > 0
    assert b["early_wrong"] == b["early_h0"] > 0
    every = script.simulate(100.0, 0.68, BOUNDS, runs=200, max_pairs=400, seed=1, early=400)
    decided = round(200 * (every["accept_h0"] + every["accept_h1"]))
    assert every["early_h0"] + every["early_h1"] == decided     # --early covers every stop
    assert every["early_h0"] == round(200 * every["accept_h0"])
    none = script.simulate(100.0, 0.68, BOUNDS, runs=200, max_pairs=400, seed=1, early=1)
    assert none["early_h0"] == none["early_h1"] == 0           # one pair never decides


def test_the_split_share_comes_from_the_match(script, tmp_path):
    folder = match(tmp_path / "m", [1, 1, 1, 0, 2, 2, 1, 1])
    share, counts = script.split_share(folder)
    assert counts == [1, 0, 5, 0, 2] and share == pytest.approx(5 / 8)
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "tournament.json").write_text(json.dumps({"bots": ["a", "b"]}))
    with pytest.raises(FileNotFoundError):
        script.split_share(tmp_path / "e")


def test_a_replay_stops_where_the_match_would_have(script, tmp_path):
    """The SPRT over a finished match's pairs in deal order: a lost pair and
    eight split ones stop it for H0 after 9 pairs, as in the 0.1 s match
    against cf2d832, whatever the pairs after them."""
    folder = match(tmp_path / "m", [0] + [1] * 8 + [2] * 20)
    r = script.replay(folder, BOUNDS)
    assert r["pairs"] == 29 and r["first"] == "a"
    assert r["sprt"]["result"] == "H0" and r["sprt"]["pairs"] == 9
    assert r["sprt"]["pentanomial"] == [1, 0, 8, 0, 0]
    assert r["all_pairs"]["pentanomial"] == [1, 0, 8, 0, 20]


def test_the_script_writes_its_figures(script, tmp_path, capsys):
    folder = match(tmp_path / "m", [1, 1, 1, 0, 2])
    out = tmp_path / "s.json"
    assert script.main(["--match", str(folder), "--runs", "5", "--elos=-50,0,50",
                        "--replay", str(folder), "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["split_share"] == 0.6 and data["pentanomial"] == [1, 0, 3, 0, 1]
    assert [r["elo"] for r in data["by_elo"]] == [-50, 0, 50]
    assert [r["pairs"] for r in data["replays"]] == [5]
    assert data["command"].startswith("python benchmarks/sprt_error.py --match")
    assert "--elos=-50,0,50" in data["command"]


@pytest.mark.parametrize("args,message", [
    (["--sprt", "elo0=0,elo1=x"], "elo1 expects a number"),
    (["--split", "0.99"], "no pentanomial"),
    (["--runs", "0", "--split", "0.5"], "must be at least 1"),
    (["--match", "/nonexistent/folder"], "/nonexistent/folder"),
    (["--split", "0.5", "--elos=-50,x"], "expected numbers separated by commas"),
    (["--split", "0.5", "--elos", "nan"], "expected a number within"),
])
def test_bad_input_is_one_line(script, tmp_path, capsys, args, message):
    assert script.main(args + ["--replay", "none", "--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
    assert not (tmp_path / "x.json").exists()


def test_bad_folders_and_outputs_are_one_line(script, tmp_path, capsys):
    one = tmp_path / "one"
    one.mkdir()
    (one / "tournament.json").write_text(json.dumps({"bots": ["a"]}))
    a_file = tmp_path / "file"
    a_file.write_text("x")
    good = match(tmp_path / "m", [1, 1, 0])
    for args, message in ((["--match", str(one)], "not a two-bot match"),
                          (["--match", str(a_file)], str(a_file)),
                          (["--match", str(good), "--replay", str(one)], "not a two-bot match"),
                          (["--match", str(good), "--out", str(a_file / "x.json")], str(a_file))):
        assert script.main(args + ["--runs", "2"] +
                           ([] if "--out" in args else ["--out", str(tmp_path / "x.json")])) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and "\n" not in err
    assert not (tmp_path / "x.json").exists() and a_file.read_text() == "x"
