"""Tournaments: progress output, figures, self-play, side balance, Wilson
intervals, and the choice of backend (the Ray run itself is in
test_tournament_ray.py)."""
import io
import json
import re
import sys
from pathlib import Path

import pytest

from apps import tournament as T
from tournament_helpers import cli, rows_of
from solver.errors import ParameterError

ROOT = Path(__file__).resolve().parents[1]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def assert_png(path):
    import matplotlib.image

    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC and len(data) > 1000
    image = matplotlib.image.imread(path)
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
    # not a blank canvas: some pixels differ from the background
    assert image.reshape(-1, image.shape[2]).std(axis=0).max() > 0.01


# ---- Wilson intervals and side balance ----------------------------------------------

def test_wilson_interval():
    lo, hi = T.wilson(6, 10)
    assert lo == pytest.approx(0.3127, abs=1e-4) and hi == pytest.approx(0.8318, abs=1e-4)
    lo, hi = T.wilson(0, 20)
    assert lo == 0 and hi == pytest.approx(0.1611, abs=1e-4)
    assert T.wilson(0, 0) is None
    # the half-width at p = 0.5 and n = 385 is about 5% (the reference tournament's target)
    lo, hi = T.wilson(192.5, 385)
    assert (hi - lo) / 2 == pytest.approx(0.05, abs=0.001)


def _row(game, polish, german, winner_side):
    return {"game": game, "pairing": 0, "deal": game // 2, "polish": polish, "german": german,
            "winner_side": winner_side, "winner": polish if winner_side == "polish" else german}


def test_side_balance_and_head_to_head():
    rows = [_row(i, "a", "b", "polish" if i < 7 else "german") for i in range(10)]
    rows += [_row(10 + i, "b", "a", "polish") for i in range(4)]
    s = T.side_balance(rows)
    assert (s["games"], s["polish_wins"], s["german_wins"]) == (14, 11, 3)
    assert s["polish_ci95"] == pytest.approx(T.wilson(11, 14))
    assert s["german_ci95"] == pytest.approx([1 - s["polish_ci95"][1], 1 - s["polish_ci95"][0]])
    h = T.head_to_head(rows, "a", "b")
    assert (h["games"], h["first_wins"]) == (14, 7) and h["ci95"] == T.wilson(7, 14)
    # deals (game // 2): a scores 2, 2, 2, 1, 0, 0, 0
    assert h["by_pair"]["pairs"] == 7 and h["by_pair"]["pentanomial"] == [3, 0, 1, 0, 3]
    assert h["by_game"]["games"] == 14 and h["by_game"]["score"] == 0.5
    assert T.head_to_head(rows, "a", "c")["games"] == 0


def test_calibration_bins_give_the_ece():
    values = [0.05, 0.15, 0.15, 0.95, 0.95, 0.95, 0.95]
    won = [0, 0, 1, 1, 1, 1, 0]
    c = T.calibration(values, won)
    assert [(b["lo"], b["count"]) for b in c["bins"]] == [(0.0, 1), (0.1, 2), (0.9, 4)]
    assert c["bins"][1]["win_rate"] == 0.5 and c["bins"][2]["mean_value"] == pytest.approx(0.95)
    assert c["ece"] == pytest.approx((0.05 * 1 + 0.35 * 2 + 0.2 * 4) / 7)


# ---- progress ---------------------------------------------------------------------

def test_score_text():
    rows = [_row(1, "a", "b", "polish"), _row(2, "b", "a", "polish"),
            _row(3, "a", "b", "polish")]
    assert T.score_text(["a", "b"], "round-robin", rows) == "a 2-1 b"
    assert T.score_text(["a", "b", "c"], "round-robin", rows) == "a 2/3, b 1/3, c 0/0"
    selfplay = [_row(i, "a", "a", side) for i, side in enumerate(["polish", "german", "polish"])]
    assert T.score_text(["a"], "self-play", selfplay) == "Polish 2-1 German"


def test_line_progress_every_5_percent_with_time_left():
    lines, now = [], [100.0]
    p = T.LineProgress(lines.append, clock=lambda: now[0])
    rows = [_row(i, "a", "b", "polish") for i in range(10)]
    p.start(["a", "b"], "round-robin", 40, rows[:10])       # a resumed run: 10 of 40 done
    assert lines == ["Resuming: 10 of 40 games already played; score a 10-0 b"]
    for i in range(10, 40):
        now[0] += 2.0
        rows.append(_row(i, "a", "b", "german"))
        p.game(f"Finished game {i + 1}", rows)
    progress = [x for x in lines if x.startswith("Progress:")]
    assert len([x for x in lines if x.startswith("Finished game")]) == 30
    # 10/40 is step 5 of 20; steps 6..20 follow, one line each (40 games: every 2)
    assert len(progress) == 15
    # after 12 of 40 (2 played in 4 s), 28 left at 2 s each
    assert progress[0] == ("Progress: 12/40 games (30%), 0:00:04 elapsed, about 0:00:56 "
                           "left; score a 10-2 b")
    assert progress[-1].startswith("Progress: 40/40 games (100%), 0:01:00 elapsed, "
                                   "about 0:00:00 left; score a 10-30 b")


def test_progress_for_picks_a_bar_only_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert isinstance(T.progress_for(io.StringIO()), T.LineProgress)
    assert isinstance(T.progress_for(Tty()), T.BarProgress)


def test_bar_progress_prints_the_game_lines_and_the_score(tmp_path):
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=200, color_system=None)
    T.run(["random", "heuristic"], games=4, out=str(tmp_path), progress=T.BarProgress(console))
    text = buf.getvalue()
    rows = rows_of(tmp_path)
    heuristic_wins = sum(r["winner"] == "heuristic" for r in rows)
    for r in rows:
        assert f"Finished game {r['game']} (random vs heuristic, random " in text
    assert f"random {4 - heuristic_wins}-{heuristic_wins} heuristic" in text
    assert "4/4" in text


@pytest.mark.slow
def test_cli_without_a_terminal_prints_plain_progress_lines(tmp_path):
    r = cli("--bots", "random;heuristic", "--games", "6", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout                      # no terminal control codes
    lines = r.stdout.splitlines()
    finished = [x for x in lines if x.startswith("Finished game")]
    assert len(finished) == 6
    pattern = re.compile(r"Finished game (\d+) \(random vs heuristic, random (Polish|German)\): "
                         r"(1-0|0-1), fragments \d+-\d+, \d+ moves$")
    assert all(pattern.match(x) for x in finished), finished
    progress = [x for x in lines if x.startswith("Progress:")]
    assert len(progress) == 6 and progress[-1].startswith("Progress: 6/6 games (100%)")
    wins = sum(row["winner"] == "heuristic" for row in rows_of(tmp_path))
    assert progress[-1].endswith(f"score random {6 - wins}-{wins} heuristic")


# ---- figures ------------------------------------------------------------------------

@pytest.mark.slow
def test_figures_are_written_and_are_images(tmp_path):
    r = cli("--bots", "random;heuristic;ismcts:iterations=10", "--games", "2",
            "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    for name in ("ratings.png", "calibration.png"):
        assert_png(tmp_path / name)
    md = (tmp_path / "standings.md").read_text()
    assert "![ratings](ratings.png)" in md and "![calibration](calibration.png)" in md
    summary = json.loads((tmp_path / "summary.json").read_text())
    bins = summary["bots"]["ismcts:iterations=10"]["calibration"]["bins"]
    assert sum(b["count"] for b in bins) == \
        summary["bots"]["ismcts:iterations=10"]["calibration"]["estimates"]


def test_no_calibration_figure_without_estimates(tmp_path):
    summary = T.run(["random", "heuristic"], games=2, out=str(tmp_path), echo=lambda _: None)
    assert summary["games"] == 2
    assert_png(tmp_path / "ratings.png")
    assert not (tmp_path / "calibration.png").exists()
    assert "calibration.png" not in (tmp_path / "standings.md").read_text()


# ---- self-play ----------------------------------------------------------------------

@pytest.mark.slow
def test_self_play_gives_every_game_its_own_deal(tmp_path):
    tasks = T.schedule(["heuristic"], "self-play", 5, seed=2)
    assert [t.game for t in tasks] == [1, 2, 3, 4, 5]
    assert len({t.deal_seed for t in tasks}) == 5
    assert all(t.polish == t.german == "heuristic" for t in tasks)
    r = cli("--bots", "ismcts:iterations=5", "--format", "self-play", "--games", "5",
            "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert re.search(r"Finished game 1 \(ismcts:iterations=5 self-play\): (Polish|German) won, "
                     r"fragments \d+-\d+, \d+ moves", r.stdout)
    rows = rows_of(tmp_path)
    polish = sum(x["winner_side"] == "polish" for x in rows)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["sides"]["polish_wins"] == polish and summary["sides"]["games"] == 5
    assert summary["sides"]["polish_ci95"] == pytest.approx(T.wilson(polish, 5))
    b = summary["bots"]["ismcts:iterations=5"]
    assert b["games"] == 5 and b["win_rate"] is None
    assert b["win_rate_polish"] == pytest.approx(polish / 5)
    assert b["calibration"]["estimates"] > 0
    assert not (tmp_path / "ratings.png").exists()
    assert_png(tmp_path / "calibration.png")
    md = (tmp_path / "standings.md").read_text()
    assert "Self-play" in md and "| Polish |" in md


# ---- bad input ----------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["--bots", "random;heuristic", "--format", "self-play", "--games", "2"], "exactly one bot"),
    (["--bots", "random", "--format", "self-play", "--games", "0"], "--games"),
    (["--bots", "random;heuristic", "--games", "2", "--address", "auto"], "--address"),
    (["--bots", "random;heuristic", "--games", "2", "--backend", "dask"], "--backend"),
])
def test_bad_input_exits_2(tmp_path, args, message):
    r = cli(*args, "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "out" / "games.csv").exists()


def test_ray_backend_without_ray_is_a_parameter_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)      # import ray now fails
    with pytest.raises(ParameterError, match="ray is not installed"):
        T.run(["random", "heuristic"], games=2, out=str(tmp_path), backend="ray")
    assert not (tmp_path / "games.csv").exists()
