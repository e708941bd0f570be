"""benchmarks/net_compare.py: networks graded on one training run's held-out
positions, with differences paired by position and clustered by game."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tournament_helpers import benchmark_script
from solver import N_FEATURES

pytest.importorskip("sklearn")

from bots import valuenet  # noqa: E402
from test_train import _run  # noqa: E402


def test_each_network_is_graded_on_the_runs_held_out_positions(tmp_path, capsys):
    bench = benchmark_script("net_compare")
    out = tmp_path / "gen"
    summary, _ = _run(out)
    half = tmp_path / "half.npz"              # 0.5 everywhere: Brier exactly 0.25
    valuenet.write(half, [np.zeros((N_FEATURES, 1))], [np.array([0.5])], output="clip",
                   meta={})
    own = str(out / "value_net.npz")
    report_path = tmp_path / "compare.json"
    assert bench.main(["--data", str(out), "--nets", f"{own},{own},{half}",
                       "--out", str(report_path)]) == 0
    report = json.loads(report_path.read_text())
    assert report["positions"] == summary["positions"]["held_out"]
    assert report["target"] == summary["fit"]["target"]
    assert report["estimates"]["playouts_16"]["brier"] == summary["calibration"]["playouts_16"]["brier"]
    assert set(report["estimates"]) == {"target (exact-first)", "playouts_16"}
    first, same, flat = report["nets"]
    # the run's own network: train.json's figures, found again on the same rows
    assert first["brier"] == summary["calibration"]["net"]["brier"]
    assert first["ece"] == summary["calibration"]["net"]["ece"]
    assert first["loss_root"] == pytest.approx(summary["held_out_loss"], abs=2e-6)
    assert first["sha256"] == summary["sha256"]
    # a network against itself: no difference, and an interval of width 0
    gain = same["better_than_first"]["brier"]
    assert gain["mean"] == 0.0 and gain["ci95"] == [0.0, 0.0]
    assert flat["brier"] == 0.25
    diff = flat["better_than_first"]["brier"]
    assert diff["mean"] == pytest.approx(first["brier"] - 0.25, abs=1e-5)
    assert diff["ci95"][0] < diff["mean"] < diff["ci95"][1]
    assert 1 < diff["clusters"] <= 9
    assert not any(r["seen"] for r in report["nets"])
    assert "held-out positions" in capsys.readouterr().out


def test_a_network_that_added_the_folders_data_is_flagged(tmp_path, capsys):
    bench = benchmark_script("net_compare")
    first, later = tmp_path / "gen1", tmp_path / "gen2"
    _run(first)
    _run(later, add_data=[str(first)])          # saw all of gen1's games, held-out too
    report_path = tmp_path / "compare.json"
    nets = f"{first / 'value_net.npz'},{later / 'value_net.npz'}"
    assert bench.main(["--data", str(first), "--nets", nets, "--out", str(report_path)]) == 0
    assert [r["seen"] for r in json.loads(report_path.read_text())["nets"]] == [False, True]
    assert "trained on these positions" in capsys.readouterr().out
    assert bench.main(["--data", str(later), "--nets", nets, "--out", str(report_path)]) == 0
    assert [r["seen"] for r in json.loads(report_path.read_text())["nets"]] == [False, False]


def test_clustered_mean_counts_a_games_positions_as_one():
    bench = benchmark_script("net_compare")
    values = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    by_game = bench.clustered_mean(values, np.array([0, 0, 0, 1, 1, 1]))
    by_position = bench.clustered_mean(values, np.arange(6))
    assert by_game["mean"] == by_position["mean"] == 0.5
    assert by_game["clusters"] == 2 and by_position["clusters"] == 6
    width = lambda r: r["ci95"][1] - r["ci95"][0]  # noqa: E731
    assert width(by_game) > width(by_position)
    assert bench.clustered_mean(values, np.zeros(6))["ci95"] is None


def test_a_folder_without_a_finished_run_is_refused_in_one_line(tmp_path, capsys):
    bench = benchmark_script("net_compare")
    assert bench.main(["--data", str(tmp_path), "--nets", "x.npz"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --data") and "\n" not in err
