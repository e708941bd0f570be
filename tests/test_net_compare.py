"""benchmarks/net_compare.py: networks graded on one training run's held-out
positions, with differences paired by position and clustered by game."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace

import numpy as np
import pytest

from tournament_helpers import benchmark_script
from solver import N_FEATURES

pytest.importorskip("sklearn")

from bots import valuenet  # noqa: E402
from test_train import DATA, FIT, _run  # noqa: E402


def _flat(path, value=0.5):
    """A network that answers ``value`` everywhere."""
    valuenet.write(path, [np.zeros((N_FEATURES, 1))], [np.array([value])], output="clip",
                   meta={})
    return str(path)


def test_each_network_is_graded_on_the_runs_held_out_positions(tmp_path, capsys):
    bench = benchmark_script("net_compare")
    out = tmp_path / "gen"
    summary, _ = _run(out)
    half = _flat(tmp_path / "half.npz")              # Brier exactly 0.25
    own = str(out / "value_net.npz")
    report_path = tmp_path / "compare.json"
    assert bench.main(["--data", str(out), "--nets", f"{own},{own},{half}",
                       "--out", str(report_path)]) == 0
    report = json.loads(report_path.read_text())
    assert report["positions"] == summary["positions"]["held_out"]
    assert report["target"] == summary["fit"]["target"]
    playouts = report["estimates"]["playouts_16"]
    assert playouts["brier"] == summary["calibration"]["playouts_16"]["brier"]
    assert set(report["estimates"]) == {"target (exact-first)", "playouts_16"}
    first, same, flat = report["nets"]
    # the run's own network: train.json's figures, found again on the same rows
    assert first["brier"] == summary["calibration"]["net"]["brier"]
    assert first["ece"] == summary["calibration"]["net"]["ece"]
    assert first["loss_target"] == pytest.approx(summary["held_out_loss"], abs=2e-6)
    assert first["sha256"] == summary["sha256"]
    # a network against itself: no difference, and an interval of width 0
    gain = same["better_than_first"]["brier"]
    assert gain["mean"] == 0.0 and gain["ci95"] == [0.0, 0.0]
    assert flat["brier"] == 0.25
    diff = flat["better_than_first"]["brier"]
    assert diff["mean"] == pytest.approx(first["brier"] - 0.25, abs=1e-5)
    assert diff["ci95"][0] < diff["mean"] < diff["ci95"][1]
    assert 1 < diff["clusters"] <= 9
    # the run's own estimates against the first network, paired the same way
    assert playouts["better_than_first"]["brier"]["mean"] == pytest.approx(
        first["brier"] - playouts["brier"], abs=1e-5)
    assert not any(r["seen"] for r in report["nets"])
    assert "held-out positions" in capsys.readouterr().out


def test_a_network_that_added_the_runs_data_is_flagged_from_any_folder(tmp_path, capsys):
    bench = benchmark_script("net_compare")
    first, later = tmp_path / "gen1", tmp_path / "gen2"
    _run(first)
    _run(later, data=replace(DATA, seed=7), fit=replace(FIT, seed=7),
         add_data=[str(first)])                  # saw all of gen1's games, held-out too
    copy = tmp_path / "copy"                     # the same data under another name
    shutil.copytree(first, copy)
    nets = f"{first / 'value_net.npz'},{later / 'value_net.npz'}"
    report_path = tmp_path / "compare.json"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cwd = os.getcwd()
    try:
        os.chdir(elsewhere)
        for data in (first, copy):
            assert bench.main(["--data", str(data), "--nets", nets,
                               "--out", str(report_path)]) == 0
            seen = [r["seen"] for r in json.loads(report_path.read_text())["nets"]]
            assert seen == [False, True]
        assert bench.main(["--data", str(later), "--nets", nets, "--out", str(report_path)]) == 0
        assert [r["seen"] for r in json.loads(report_path.read_text())["nets"]] == [False, False]
    finally:
        os.chdir(cwd)
    assert "trained on these positions" in capsys.readouterr().out


def test_clustered_mean_counts_a_games_positions_as_one():
    bench = benchmark_script("net_compare")
    values = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    by_game = bench.clustered_mean(values, np.array([0, 0, 0, 1, 1, 1]))
    by_position = bench.clustered_mean(values, np.arange(6))
    assert by_game["mean"] == by_position["mean"] == 0.5
    assert by_game["clusters"] == 2 and by_position["clusters"] == 6
    # two clusters of sums 3 and 0, size 3 each: var = 2 (1.5^2 + 1.5^2) / 36 = 1/4
    assert by_game["ci95"] == pytest.approx([0.5 - bench.Z95 * 0.5, 0.5 + bench.Z95 * 0.5])
    # six clusters of one: var = 6/5 * 6 * 0.25 / 36 = 0.05
    assert by_position["ci95"] == pytest.approx([0.5 - bench.Z95 * 0.05 ** 0.5,
                                                 0.5 + bench.Z95 * 0.05 ** 0.5])
    assert bench.clustered_mean(values, np.zeros(6))["ci95"] is None


@pytest.mark.parametrize("change, message", [
    (lambda s: s.update(games="9"), "train.json's games is '9', not a count"),
    (lambda s: s.update(games=0), "train.json's games is 0, not a count"),
    (lambda s: s["fit"].update(target="elo"), "train.json's target 'elo' is not one of"),
    (lambda s: s.pop("fit"), "not a finished training folder"),
])
def test_a_broken_train_json_is_refused_in_one_line(tmp_path, capsys, change, message):
    bench = benchmark_script("net_compare")
    out = tmp_path / "gen"
    summary, _ = _run(out)
    change(summary)
    (out / "train.json").write_text(json.dumps(summary))
    assert bench.main(["--data", str(out), "--nets", str(out / "value_net.npz")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --data") and message in err and "\n" not in err


def test_bad_arguments_are_refused_in_one_line_and_write_nothing(tmp_path, capsys):
    bench = benchmark_script("net_compare")
    cases = [(["--data", str(tmp_path), "--nets", "x.npz"], "not a finished training folder"),
             (["--data", str(tmp_path), "--nets", ","], "no network file named"),
             (["--data", str(tmp_path), "--nets", "x.npz", "--out",
               str(tmp_path / "no" / "such.json")], "no such folder")]
    for argv, message in cases:
        assert bench.main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and "\n" not in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []
