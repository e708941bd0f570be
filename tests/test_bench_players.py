"""``wildhorn-solve bench players`` (apps/bench_players.py): the players'
bot timed on the players' path, its figures and its refusals."""

from __future__ import annotations

import json

import pytest

from apps.bench_players import bench_players, play_one
from bots import BotSpec
from conftest import run_cli


def test_the_figures_count_every_searched_decision():
    data = bench_players("default:iterations=20", decisions=5, seed=3, log=lambda _: None)
    ratio = data["wall_over_budget"]
    assert data["games"] == 1 and ratio["count"] >= 5
    assert ratio["count"] == data["wall_over_budget_solvable"]["count"] \
        + data["wall_over_budget_other"]["count"]
    assert 0 < ratio["median"] <= ratio["p90"] <= ratio["p99"] <= ratio["max"]
    assert data["solvable_decisions"] >= data["solved_exactly"] >= 0
    assert data["command"].startswith("wildhorn-solve bench players --bots default:iterations=20")
    assert "ponder" not in data


def test_a_game_with_the_humans_time_reports_what_pondering_gave():
    """The human's seconds a decision, on a fake clock: the bot ponders each
    of them (a time budget), and each of its next decisions says what the
    ponder left it."""
    ticks = [0.0]

    def clock():
        ticks[0] += 0.001
        return ticks[0]

    rows = play_one(BotSpec.parse("default:time=0.02"), 5, human=1, ponder=0.05, clock=clock)
    after = [r for r in rows if r["ponder"]]
    assert after and all(r["ponder"]["kind"] in ("search", "exact") for r in after)
    assert all(r["pondered_visits"] >= 0 for r in after)


@pytest.mark.slow
def test_the_command_refuses_two_bots_and_writes_its_file(tmp_path):
    bad = run_cli("bench", "players", "--bots", "default;random", "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and "times one bot" in bad.stderr and not (tmp_path / "x").exists()
    out = tmp_path / "bench.json"
    ok = run_cli("bench", "players", "--bots", "default:iterations=10", "--decisions", "3",
                 "--out", str(out), "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(out.read_text())["wall_over_budget"]["count"] >= 3
