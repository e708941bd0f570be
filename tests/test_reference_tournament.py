"""benchmarks/reference_tournament.py: the plan, the bot list, and the
balance report's maths on synthetic games."""
import csv
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from apps import tournament as T
from tournament_helpers import benchmark_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "reference_tournament.py"


@pytest.fixture(scope="module")
def ref():
    return benchmark_script("reference_tournament")


def test_bot_list_and_plan(ref):
    assert ref.BOTS == ref.bots_for(ref.TIME_PER_MOVE)
    bots = ref.bots_for(0.5)
    assert bots == {"ismcts": "ismcts:time=0.5", "oos": "oos:time=0.5", "heuristic": "heuristic",
                    "random": "random", "openspiel-ismcts": "openspiel-ismcts:time=0.5"}
    assert [s["name"] for s in ref.plan(bots)] == [
        "ismcts-vs-openspiel-ismcts", "ismcts-vs-heuristic", "heuristic-vs-random",
        "openspiel-ismcts-vs-heuristic", "oos-vs-ismcts", "oos-vs-heuristic", "self-play",
        "ismcts-self-play", "oos-self-play"]
    # a bot left out of the dict leaves out its stages
    without = {k: v for k, v in bots.items() if k != "oos"}
    assert all("oos" not in s["name"] for s in ref.plan(without))


def test_game_counts_give_5_percent_intervals(ref):
    stages = {s["name"]: s for s in ref.plan(ref.bots_for(0.02))}
    for name, p in [("ismcts-vs-openspiel-ismcts", 0.80), ("ismcts-vs-heuristic", 0.75),
                    ("heuristic-vs-random", 0.90)]:
        n = stages[name]["games"]
        assert n % 2 == 0
        half = T.Z95 * math.sqrt(0.25 / n)      # the widest interval, at a rate of 50%
        assert 0.049 < half <= 0.05, (name, n, half)
        assert T.Z95 * math.sqrt(p * (1 - p) / n) < half
    n = stages["self-play"]["games"]
    assert T.Z95 * math.sqrt(0.25 / n) <= 0.05
    small = {s["name"]: s["games"] for s in ref.plan(ref.bots_for(0.02), scale=0.01)}
    assert all(g >= 1 for g in small.values()) and small["heuristic-vs-random"] == 4


def test_estimate_follows_the_cost_model(ref):
    bots = {"ismcts": "ismcts:time=0.1", "random": "random"}
    stages = [{"name": "x", "bots": ["ismcts:time=0.1", "random"], "games": 10},
              {"name": "self-play", "bots": None, "games": 4}]
    per_game_x = 89 * (1.05 * 0.1 + 5e-5) + 0.01
    per_game_sp = 89 * 2 * 1.05 * 0.1 + 0.01
    assert ref.estimate_seconds(stages, bots, jobs=2) == \
        pytest.approx((10 * per_game_x + 4 * per_game_sp) / 2)


# ---- the report on synthetic games --------------------------------------------------

I, O, H, R, S = ("ismcts:time=0.02", "openspiel-ismcts:time=0.02", "heuristic", "random",
                 "oos:time=0.02")


def _write_stage(folder, games, values=()):
    """games: (polish, german, winner_side); values: (game, bot, side, value, won)."""
    folder.mkdir(parents=True)
    with open(folder / "games.csv", "w", newline="") as f:
        w = csv.DictWriter(f, T.GAME_FIELDS)
        w.writeheader()
        for i, (pol, ger, side) in enumerate(games, 1):
            w.writerow({"game": i, "pairing": 0, "deal": (i - 1) // 2, "deal_seed": i,
                        "polish": pol, "german": ger, "winner_side": side,
                        "winner": pol if side == "polish" else ger, "fragments_polish": 5,
                        "fragments_german": 3, "moves": 100, "seconds_per_move_polish": 0.0,
                        "seconds_per_move_german": 0.0})
    with open(folder / "values.csv", "w", newline="") as f:
        w = csv.DictWriter(f, T.VALUE_FIELDS)
        w.writeheader()
        for game, bot, side, value, won in values:
            w.writerow({"game": game, "bot": bot, "side": side, "move": 1, "value": value,
                        "won": won})


def _won_by(first, second, wins, games):
    """games alternating sides, ``first`` winning the first ``wins`` of them."""
    out = []
    for g in range(games):
        pol, ger = (first, second) if g % 2 == 0 else (second, first)
        winner = first if g < wins else second
        out.append((pol, ger, "polish" if winner == pol else "german"))
    return out


def test_balance_report_from_synthetic_games(ref, tmp_path):
    bots = {"ismcts": I, "heuristic": H, "random": R, "openspiel-ismcts": O}
    stages = ref.plan(bots, scale=0.01)
    base = tmp_path / "reference"
    # ismcts 17 of 20 against OpenSpiel (85%: pass, but the interval reaches below 80%)
    # with estimates: 0.9 in games it won (ECE contribution 0.1), 0.3 in lost ones
    _write_stage(base / "ismcts-vs-openspiel-ismcts", _won_by(I, O, 17, 20),
                 [(g, I, "polish" if g % 2 else "german", 0.9 if g <= 17 else 0.3,
                   int(g <= 17)) for g in range(1, 21)])
    # ismcts 14 of 20 against heuristic (70%: fail)
    _write_stage(base / "ismcts-vs-heuristic", _won_by(I, H, 14, 20),
                 [(1, I, "polish", 0.95, 1), (2, I, "german", 0.95, 1)])
    # heuristic 200 of 200 against random (pass, decided)
    _write_stage(base / "heuristic-vs-random", _won_by(H, R, 200, 200))
    # self-play of ismcts: Polish 30 of 50; 10 estimates of 0.9, 6 of them won
    _write_stage(base / "self-play", [(I, I, "polish")] * 30 + [(I, I, "german")] * 20,
                 [(g, I, "polish", 0.9, int(g <= 6)) for g in range(1, 11)])
    report = ref.write_report(tmp_path, base, bots, stages, I, seed=0, time_per_move=0.02)

    sp = report["self_play"]
    assert (sp["bot"], sp["games"], sp["polish_wins"]) == (I, 50, 30)
    assert sp["polish_win_rate"] == 0.6 and sp["german_win_rate"] == pytest.approx(0.4)
    assert sp["polish_ci95"] == pytest.approx([0.4618, 0.7239], abs=1e-4)   # Wilson 30/50
    assert sp["german_ci95"] == pytest.approx([1 - 0.7239, 1 - 0.4618], abs=1e-4)

    t = {x["name"]: x for x in report["targets"]}
    a = t["ismcts-beats-openspiel-ismcts"]
    assert (a["games"], a["wins"], a["value"]) == (20, 17, 0.85)
    assert a["ci95"] == pytest.approx(T.wilson(17, 20))
    assert a["passed"] is True and a["decided"] is False and a["status"] == "pass"
    b = t["ismcts-beats-heuristic"]
    assert (b["value"], b["passed"], b["status"]) == (0.7, False, "fail")
    c = t["heuristic-beats-random"]
    assert (c["value"], c["passed"], c["decided"]) == (1.0, True, True)
    # the target is measured on self-play: 10 estimates of 0.9, 6 won
    e = t["ismcts-calibrated"]
    assert e["estimates"] == 10 and e["value"] == pytest.approx(0.3)
    assert e["passed"] is False
    # the table by opponent: the two pairings, itself, all games
    cal = {c["opponent"]: c for c in report["calibration"]}
    assert list(cal) == [O, H, "itself", "all games"]
    # against OpenSpiel: bins 0.9 (17, all won), 0.3 (3, all lost)
    assert cal[O]["estimates"] == 20
    assert cal[O]["ece"] == pytest.approx((17 * 0.1 + 3 * 0.3) / 20)
    assert cal[H]["ece"] == pytest.approx(0.05) and cal["itself"]["ece"] == pytest.approx(0.3)
    assert cal["all games"]["estimates"] == 32
    # pooled, bin [0.9, 1): 17 + 2 + 6 won of 29 at a mean of (27 * 0.9 + 2 * 0.95) / 29
    assert cal["all games"]["ece"] == pytest.approx(
        (abs(27 * 0.9 + 2 * 0.95 - 25) + 3 * 0.3) / 32)
    assert t["oos-calibrated"]["status"] == "not run" and t["oos-calibrated"]["passed"] is None
    assert report["all_passed"] is False and report["targets_not_run"] == ["oos-calibrated"]
    assert report["games"] == {"ismcts-vs-openspiel-ismcts": 20, "ismcts-vs-heuristic": 20,
                               "heuristic-vs-random": 200, "self-play": 50}

    saved = json.loads((tmp_path / "balance.json").read_text())
    assert saved == json.loads(json.dumps(report))
    md = (tmp_path / "balance.md").read_text()
    assert "| Polish | 30 | 60.0% | [46.2%, 72.4%] |" in md
    assert "| ismcts-beats-heuristic | 70.0% |" in md and "FAIL" in md
    assert f"| `{I}` | itself | 10 | " in md and "ECE <= 0.050 (self-play)" in md
    assert "PASS (interval spans the threshold)" in md
    # the combined standings cover the four bots of the pairings
    summary = json.loads((base / "summary.json").read_text())
    assert set(summary["bots"]) == {I, O, H, R} and summary["games"] == 240
    assert (base / "ratings.png").read_bytes()[:4] == b"\x89PNG"


def test_all_targets_pass_when_every_measure_meets_them(ref, tmp_path):
    bots = {"ismcts": I, "heuristic": H, "random": R, "openspiel-ismcts": O, "oos": S}
    stages = ref.plan(bots, scale=0.01)
    base = tmp_path / "reference"
    # estimates in the pairings are far off; only self-play counts for the targets
    _write_stage(base / "ismcts-vs-openspiel-ismcts", _won_by(I, O, 9, 10),
                 [(g, I, "polish", 0.1, 1) for g in range(1, 11)])
    _write_stage(base / "ismcts-vs-heuristic", _won_by(I, H, 8, 10))
    _write_stage(base / "heuristic-vs-random", _won_by(H, R, 10, 10))
    _write_stage(base / "oos-vs-ismcts", _won_by(S, I, 5, 10),
                 [(g, S, "german", 0.9, 0) for g in range(1, 5)])
    _write_stage(base / "self-play", [(I, I, "polish"), (I, I, "german")] * 5,
                 [(g, I, "polish", 0.5, g % 2) for g in range(1, 11)])
    _write_stage(base / "oos-self-play", [(S, S, "polish"), (S, S, "german")],
                 [(g, S, "german", 0.25, int(g <= 1)) for g in range(1, 5)])
    report = ref.write_report(tmp_path, base, bots, stages, I, seed=0, time_per_move=0.02)
    t = {x["name"]: x for x in report["targets"]}
    assert t["ismcts-calibrated"]["value"] == pytest.approx(0.0)
    assert t["oos-calibrated"]["value"] == pytest.approx(0.0) and t["oos-calibrated"]["passed"]
    assert report["all_passed"] is True and report["targets_not_run"] == []
    assert report["self_play"]["games"] == 10
    cal = {(c["bot"], c["opponent"]): c["ece"] for c in report["calibration"]}
    assert cal[(I, O)] == pytest.approx(0.9) and cal[(S, I)] == pytest.approx(0.9)


@pytest.mark.slow
def test_tiny_reference_run_end_to_end(tmp_path):
    """The whole pipeline at a tiny scale (2-4 games a stage, 2 ms a move)."""
    r = subprocess.run([sys.executable, str(SCRIPT), "--time", "0.002", "--scale", "0.005",
                        "--out", str(tmp_path / "ref"), "--report-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Estimated run time: about" in r.stdout
    assert r.stdout.index("Estimated run time") < r.stdout.index("Finished game 1")
    report = json.loads((tmp_path / "balance.json").read_text())
    assert report["self_play"]["games"] >= 1 and report["self_play"]["bot"] in report["bots"].values()
    assert {t["name"] for t in report["targets"]} >= {"ismcts-beats-heuristic",
                                                      "heuristic-beats-random"}
    assert (tmp_path / "balance.md").read_text().startswith("# Balance report")
    for stage in ("ismcts-vs-heuristic", "heuristic-vs-random", "self-play"):
        assert (tmp_path / "ref" / stage / "games.csv").exists()
    assert (tmp_path / "ref" / "standings.md").exists()
    # a different scale on the same folders is refused with one line
    r = subprocess.run([sys.executable, str(SCRIPT), "--time", "0.002", "--scale", "0.01",
                        "--out", str(tmp_path / "ref"), "--report-dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
