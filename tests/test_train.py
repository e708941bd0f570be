"""Training the value network (apps.train, ``wildhorn-solve train``): the
playout labels in C, the data chunks (seeded, split by game), the targets,
a tiny run's files, resume after a stop, the refusals, and (slow) the
command killed and repeated, and the Ray backend giving the same data."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import solver  # noqa: F401  (registers the game)
from apps import train as T
from apps.tournament import derive, make_stream
from bots import heuristic_playouts, make_bot, valuenet
from conftest import ROOT, run_cli
from solver import N_FEATURES, features
from solver.errors import WildhornError

pytest.importorskip("sklearn")

DATA = T.DataParams(bot="heuristic", seed=3, positions=4, playouts=4, exact_nodes=2000,
                    chunk_games=3, holdout=0.3)
FIT = T.FitParams(target="exact-first", hidden=(8,), l2=0.01, epochs=3, seed=3)


def _positions(n=6, seed=0):
    """Decision positions of a heuristic game, every 7th, and its last position."""
    game = pyspiel.load_game("wildhorn")
    state = game.new_initial_state()
    chance = make_stream("keyed", seed)
    bots = [make_bot("heuristic", p, p) for p in (0, 1)]
    found, k = [], 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance.sample(state))
            continue
        k += 1
        if k % 7 == 0 and len(found) < n:
            found.append(state.core.copy())
        state.apply_action(bots[state.current_player()].step(state))
    return found, state


# ---- the playout labels -----------------------------------------------------------------

def test_heuristic_playouts_are_seeded_means_that_leave_the_position_alone():
    positions, _ = _positions()
    values = []
    for core in positions:
        before = core.to_bytes()
        v = heuristic_playouts(core, 20, 5)
        assert core.to_bytes() == before
        assert v == heuristic_playouts(core, 20, 5)
        assert 0.0 <= v <= 1.0 and (v * 20) == int(v * 20)
        values.append([heuristic_playouts(core, 20, s) for s in range(4)])
    assert any(len(set(row)) > 1 for row in values)     # the seed matters


def test_a_single_playout_is_a_result_and_a_finished_game_gives_its_own():
    positions, end = _positions()
    assert all(heuristic_playouts(c, 1, s) in (0.0, 1.0) for c in positions for s in range(3))
    won = 1.0 if end.returns()[0] > 0 else 0.0
    assert heuristic_playouts(end.core, 5, 1) == won
    with pytest.raises(ValueError, match="n must be positive"):
        heuristic_playouts(positions[0], 0, 1)


# ---- the data ---------------------------------------------------------------------------

def _arrays(raw: bytes) -> dict[str, np.ndarray]:
    import io

    with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
        return {k: npz[k] for k in npz.files}


def test_a_chunk_is_seeded_and_labelled_position_by_position():
    chunk = T.Chunk(0, 0, 3, DATA)
    a, b = _arrays(T.generate_chunk(chunk)), _arrays(T.generate_chunk(chunk))
    for f in T.FIELDS:
        if not f.endswith("seconds"):
            assert np.array_equal(a[f], b[f], equal_nan=True), f
    n = len(a["game"])
    assert n == 3 * DATA.positions and a["x"].shape == (n, N_FEATURES)
    assert set(a["game"]) == {0, 1, 2}
    for f in ("result", "playouts"):
        assert ((a[f] >= 0) & (a[f] <= 1)).all()
    assert np.isnan(a["root"]).all()                        # the heuristic bot does not search
    exact = a["exact"][np.isfinite(a["exact"])]
    assert ((exact >= 0) & (exact <= 1)).all()
    for g in range(3):                                     # held out by game, not by position
        rows = a["game"] == g
        assert len(set(np.isfinite(a["check"][rows]))) == 1
        assert np.isfinite(a["check"][rows]).all() == T.held_out(DATA.seed, g, DATA.holdout)
        assert len(set(a["result"][rows])) == 1            # one game, one result
    other = _arrays(T.generate_chunk(T.Chunk(0, 0, 3, replace(DATA, seed=4))))
    assert not np.array_equal(a["x"], other["x"])


@pytest.mark.parametrize("variant", ["full", "small", "tiny"])
def test_a_chunks_features_are_those_of_its_positions(variant):
    """Replays game 0 of a chunk (of the variant's game) and finds each
    sampled position's features."""
    data = replace(DATA, variant=variant)
    a = _arrays(T.generate_chunk(T.Chunk(0, 0, 1, data)))
    game = pyspiel.load_game("wildhorn", {"variant": variant})
    state = game.new_initial_state()
    chance = make_stream(data.chance, derive("train-deal", data.seed, 0))
    bots = [make_bot(data.bot, p, derive("train-bot", data.seed, 0, p)) for p in (0, 1)]
    seen = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance.sample(state))
            continue
        seen.append(features(state.core))
        state.apply_action(bots[state.current_player()].step(state))
    for x, k in zip(a["x"], a["move"]):
        assert np.array_equal(x, seen[k])
    assert list(a["move"]) == sorted(set(a["move"]))
    if variant != "full":       # the last-turn solver labels every position of one turn
        assert np.isfinite(a["exact"]).all()


def test_the_held_out_share_is_drawn_by_game():
    share = np.mean([T.held_out(1, g, 0.1) for g in range(5000)])
    assert 0.08 < share < 0.12


def test_the_targets_take_the_first_label_that_exists():
    nan = np.nan
    rows = {"result": np.array([1, 0, 1], np.float32),
            "playouts": np.array([0.5, 0.25, 0.75], np.float32),
            "exact": np.array([nan, 0.125, nan], np.float32),
            "root": np.array([0.625, nan, nan], np.float32)}
    assert T.target_of(rows, "result").tolist() == [1, 0, 1]
    assert T.target_of(rows, "playouts").tolist() == [0.5, 0.25, 0.75]
    assert T.target_of(rows, "exact-first").tolist() == [0.5, 0.125, 0.75]
    assert T.target_of(rows, "root-first").tolist() == [0.625, 0.25, 0.75]


# ---- a tiny run -------------------------------------------------------------------------

def _run(out: Path, games=9, data=DATA, fit=FIT, **kw):
    lines = []
    progress = T.Progress(_Sink(lines))
    return T.train(str(out), games, data, fit, progress=progress, command="test", **kw), lines


class _Sink:
    def __init__(self, lines):
        self.lines = lines

    def isatty(self):
        return False

    def write(self, text):
        self.lines.append(text)

    def flush(self):
        pass


def _net_arrays(path):
    net = valuenet.load(path)
    return [np.array(a) for a in net.weights + net.biases], net.meta


def test_a_tiny_run_writes_the_network_and_its_figures(tmp_path):
    out = tmp_path / "gen"
    summary, lines = _run(out, install=True, install_path=tmp_path / "installed.npz")
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "data", "loss.png",
                                                    "train.json", "value_net.npz"]
    assert sorted(p.name for p in (out / "data").iterdir()) == [
        "chunk-00000.npz", "chunk-00001.npz", "chunk-00002.npz", "fit-checkpoint.npz",
        "params.json"]
    net = valuenet.load(out / "value_net.npz")
    assert net.sizes == (N_FEATURES, 8, 1) and net.output == "clip"
    assert net.meta["seed"] == 3 and net.meta["games"] == 9 and net.meta["command"] == "test"
    assert (tmp_path / "installed.npz").read_bytes() == (out / "value_net.npz").read_bytes()
    on_disk = json.loads((out / "train.json").read_text())
    assert on_disk == json.loads(json.dumps(summary))
    pos = summary["positions"]
    assert pos["train"] + pos["held_out"] == 9 * DATA.positions and pos["held_out"] > 0
    cal = summary["calibration"]
    assert cal["positions"] == pos["held_out"]
    for k in ("net", "playouts_16", "playouts_1"):
        assert 0 <= cal[k]["brier"] <= 1 and 0 <= cal[k]["ece"] <= 1 and cal[k]["microseconds"] > 0
    curve = summary["held_out_loss_curve"]
    assert len(curve) == summary["epochs_run"] <= FIT.epochs
    assert summary["held_out_loss"] == min(curve) == curve[summary["best_epoch"] - 1]
    assert (out / "loss.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "test" in (out / "README.md").read_text()
    assert any("games: 9/9" in line for line in lines)


def test_a_stopped_run_continues_to_the_same_network(tmp_path):
    whole, _ = _run(tmp_path / "whole", fit=replace(FIT, epochs=4))
    part = tmp_path / "part"
    _run(part, games=6, fit=replace(FIT, epochs=2))      # stopped after 6 games, 2 epochs
    os.unlink(part / "data" / "chunk-00001.npz")         # and a chunk lost
    again, _ = _run(part, fit=replace(FIT, epochs=4))
    a, meta_a = _net_arrays(tmp_path / "whole" / "value_net.npz")
    b, meta_b = _net_arrays(part / "value_net.npz")
    assert all(np.array_equal(x, y) for x, y in zip(a, b)) and meta_a == meta_b
    for key in ("train_loss", "held_out_loss_curve", "positions"):
        assert whole[key] == again[key]


def test_the_checkpoint_holds_no_pickle_and_continues_the_fit_exactly(tmp_path):
    """Issue 46, point 21: the checkpoint is arrays and JSON (read with
    allow_pickle=False), and a fit continued from it after each epoch is the
    fit run in one go."""
    whole, _ = _run(tmp_path / "whole", games=6, fit=replace(FIT, epochs=4))
    part = tmp_path / "part"
    for epochs in (1, 2, 3, 4):                      # stopped after every epoch
        again, _ = _run(part, games=6, fit=replace(FIT, epochs=epochs))
    a, _ = _net_arrays(tmp_path / "whole" / "value_net.npz")
    b, _ = _net_arrays(part / "value_net.npz")
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert again["held_out_loss_curve"] == whole["held_out_loss_curve"]
    checkpoint = part / "data" / T.CHECKPOINT
    with np.load(checkpoint, allow_pickle=False) as npz:
        assert all(npz[k].dtype.kind in "fU" for k in npz.files)
    assert b"pickle" not in checkpoint.read_bytes() and not any(
        p.suffix == ".pkl" for p in part.rglob("*"))


def test_a_planted_pickle_checkpoint_is_never_unpickled(tmp_path):
    """Issue 46, point 21: a pickle planted as the checkpoint of an earlier
    version (fit-checkpoint.pkl) runs no code when the command continues the
    folder: it is left alone, said to be ignored in one line, and the fit
    starts again, to the same network as a fresh folder's."""
    import pickle
    fresh, _ = _run(tmp_path / "fresh", games=6)
    out = tmp_path / "gen"
    _run(out, games=3)
    (out / "data" / T.CHECKPOINT).unlink()
    ran = tmp_path / "the-pickle-ran"

    class Planted:
        def __reduce__(self):
            return (open, (str(ran), "w"))

    planted = out / "data" / "fit-checkpoint.pkl"
    planted.write_bytes(pickle.dumps({"key": None, "x": Planted()}))
    summary, lines = _run(out, games=6)
    assert not ran.exists() and planted.exists()
    said = [line for line in "".join(lines).splitlines() if "fit-checkpoint.pkl" in line]
    assert len(said) == 1 and "never read" in said[0] and "ignored" in said[0], lines
    assert summary["held_out_loss_curve"] == fresh["held_out_loss_curve"]
    # a checkpoint .npz that holds a pickled object is not loaded either
    with np.load(out / "data" / T.CHECKPOINT, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["state"] = np.array([Planted()], dtype=object)
    with open(out / "data" / T.CHECKPOINT, "wb") as f:
        np.savez(f, **arrays)
    again, _ = _run(out, games=6)
    assert not ran.exists() and again["held_out_loss_curve"] == fresh["held_out_loss_curve"]


def _shard_damages(folder):
    """(name, damage to data/chunk-00001.npz) as issue 46, point 22 lists them."""
    shard = folder / "data" / "chunk-00001.npz"
    good = shard.read_bytes()

    def truncated():
        shard.write_bytes(good[:len(good) // 2])

    def empty():
        shard.write_bytes(b"")

    def other_width():
        with np.load(shard, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        arrays["x"] = arrays["x"][:, :-3]
        with open(shard, "wb") as f:
            np.savez(f, **arrays)

    def other_rows():
        with np.load(shard, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        arrays["result"] = arrays["result"][:-1]
        with open(shard, "wb") as f:
            np.savez(f, **arrays)

    def pickled():
        with np.load(shard, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        arrays["x"] = np.array([None], dtype=object)
        with open(shard, "wb") as f:
            np.savez(f, **arrays)

    return {"truncated": truncated, "empty": empty, "other-width": other_width,
            "other-rows": other_rows, "pickled": pickled}


@pytest.mark.parametrize("damage", ["truncated", "empty", "other-width", "other-rows",
                                    "pickled"])
def test_a_damaged_shard_is_one_line_naming_it_and_nothing_is_lost(tmp_path, damage):
    out = tmp_path / "gen"
    _run(out, games=6)
    _shard_damages(out)[damage]()
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(T.TrainError) as err:
        _run(out, games=6)
    message = str(err.value)
    assert "\n" not in message and message.startswith(str(out / "data" / "chunk-00001.npz"))
    assert "a broken data shard" in message and "delete it" in message, message
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()
             and p.name != T.LOCK}
    assert after == {k: v for k, v in before.items() if k.name != T.LOCK}


@pytest.mark.slow
def test_the_command_on_a_truncated_shard_says_so_in_one_line(tmp_path):
    out = tmp_path / "gen"
    r = run_cli("train", "--out", str(out), *TINY)
    assert r.returncode == 0, r.stderr
    _shard_damages(out)["truncated"]()
    r = run_cli("train", "--out", str(out), *TINY)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert "chunk-00001.npz: a broken data shard" in lines[0] and "delete it" in lines[0]


def test_a_params_file_nested_deep_is_one_line(tmp_path):
    """Issue 46, point 22: a params.json nested 100,000 deep is refused in
    one line (it gave a RecursionError), and kept."""
    _run(tmp_path, games=3)
    params = tmp_path / "data" / "params.json"
    params.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(T.TrainError) as err:
        _run(tmp_path, games=3)
    assert str(err.value).startswith(str(params)) and "\n" not in str(err.value)
    assert params.read_text() == "[" * 100_000 + "]" * 100_000


def test_a_folder_keeps_its_data_parameters(tmp_path):
    _run(tmp_path, games=3)
    with pytest.raises(T.TrainError, match="playouts=4, not 8"):
        _run(tmp_path, games=3, data=replace(DATA, playouts=8))
    with pytest.raises(T.TrainError, match="variant='full', not 'tiny'"):
        _run(tmp_path, games=3, data=replace(DATA, variant="tiny"))


@pytest.mark.parametrize("text, message", [
    ("[1", r"not readable \(JSONDecodeError\)"),
    ("[]", "expected a JSON object, got list"),
    ('{"bot": "random"}', "no field 'chance'"),
])
def test_a_folder_whose_params_file_is_broken_is_refused_and_kept(tmp_path, text, message):
    _run(tmp_path, games=3)
    params = tmp_path / "data" / "params.json"
    params.write_text(text)
    before = {p.name: p.read_bytes() for p in (tmp_path / "data").iterdir()}
    with pytest.raises(T.TrainError, match=message):
        _run(tmp_path, games=6)
    assert {p.name: p.read_bytes() for p in (tmp_path / "data").iterdir()} == before


@pytest.mark.parametrize("change, message", [
    ({"chunk_games": "3"}, "chunk_games must be int, got '3'"),
    ({"chunk_games": 0}, "chunk_games must be >= 1, got 0"),
    ({"seed": True}, "seed must be int, got True"),
    ({"holdout": None}, "holdout must be float, got None"),
    ({"extra": 1}, "an unknown field 'extra'"),
])
def test_a_params_file_is_checked_field_by_field(tmp_path, change, message):
    path = tmp_path / "params.json"
    path.write_text(json.dumps({**asdict(DATA), **change}))
    with pytest.raises(T.TrainError, match=message):
        T.read_params(path)
    path.write_text(json.dumps(asdict(DATA)))
    assert T.read_params(path) == DATA


def test_a_folder_made_before_the_variant_option_is_of_the_full_game(tmp_path):
    _run(tmp_path, games=3)
    params = tmp_path / "data" / "params.json"
    old = json.loads(params.read_text())
    del old["variant"]
    params.write_text(json.dumps(old))
    _run(tmp_path, games=3)                            # continues: the same data
    with pytest.raises(T.TrainError, match="variant='full', not 'small'"):
        _run(tmp_path, games=3, data=replace(DATA, variant="small"))


def test_a_run_on_a_variant_records_it_in_the_network(tmp_path):
    from solver.game import make_config

    out = tmp_path / "tiny"
    summary, _ = _run(out, games=6, data=replace(DATA, variant="tiny"))
    net = valuenet.load(out / "value_net.npz")
    assert net.variant == "tiny" and net.meta["game"] == "wildhorn(variant=tiny)"
    assert summary["variant"] == "tiny" and summary["data"]["variant"] == "tiny"
    assert "`wildhorn(variant=tiny)` (the network is for that game only" in \
        (out / "README.md").read_text()
    assert valuenet.load(tmp_path / "tiny" / "value_net.npz").variant == "tiny"
    valuenet.check_game(net, make_config({"variant": "tiny"}))
    with pytest.raises(WildhornError, match="trained on variant tiny"):
        valuenet.check_game(net, make_config({"variant": "small"}))
    assert summary["positions"]["exact_labels"] == 6 * DATA.positions
    full, _ = _run(tmp_path / "full", games=3)
    assert full["variant"] == "full"
    assert valuenet.load(tmp_path / "full" / "value_net.npz").variant == "full"


def test_an_earlier_generations_data_joins_the_training_rows(tmp_path):
    """--add-data: every position of the earlier run (its held-out games
    too) is a training row; the held-out rows, and so the check, stay this
    run's; the network differs from the run without it, and the figures say
    what was added."""
    earlier, _ = _run(tmp_path / "earlier", games=6)
    alone, _ = _run(tmp_path / "alone", games=6, data=replace(DATA, seed=6))
    both, _ = _run(tmp_path / "both", games=6, data=replace(DATA, seed=6),
                   add_data=[str(tmp_path / "earlier")])
    added = 6 * DATA.positions
    assert both["positions"]["added"] == added and alone["positions"]["added"] == 0
    assert both["positions"]["train"] == alone["positions"]["train"] + added
    assert both["positions"]["held_out"] == alone["positions"]["held_out"]
    for k in ("brier", "ece"):      # the check: the same held-out positions and labels
        assert both["calibration"]["playouts_16"][k] == alone["calibration"]["playouts_16"][k]
    assert both["added_data"] == [{"folder": str(tmp_path / "earlier"), "games": 6,
                                   "positions": added, "bot": "heuristic", "seed": 3}]
    assert both["positions"]["exact_labels"] == alone["positions"]["exact_labels"] + \
        earlier["positions"]["exact_labels"]
    a, _ = _net_arrays(tmp_path / "alone" / "value_net.npz")
    b, meta = _net_arrays(tmp_path / "both" / "value_net.npz")
    assert not all(np.array_equal(x, y) for x, y in zip(a, b))
    assert meta["added_data"] == both["added_data"]
    assert f"{added} positions of 6 games of `heuristic` from `{tmp_path / 'earlier'}`" in \
        (tmp_path / "both" / "README.md").read_text()
    # the same command again: the same network (the fit's checkpoint is of these rows)
    again, _ = _run(tmp_path / "both", games=6, data=replace(DATA, seed=6),
                    add_data=[str(tmp_path / "earlier")])
    c, _ = _net_arrays(tmp_path / "both" / "value_net.npz")
    assert all(np.array_equal(x, y) for x, y in zip(b, c))
    for key in ("positions", "added_data", "train_loss", "held_out_loss_curve"):
        assert again[key] == both[key]


def test_added_data_is_refused_before_any_game_when_it_cannot_serve(tmp_path):
    _run(tmp_path / "earlier", games=3)
    tiny = tmp_path / "tiny"
    _run(tiny, games=3, data=replace(DATA, variant="tiny"))
    unfinished = tmp_path / "unfinished"
    _run(unfinished, games=3)
    (unfinished / "train.json").unlink()
    lost = tmp_path / "lost"
    _run(lost, games=6)
    (lost / "data" / "chunk-00001.npz").unlink()
    listed = tmp_path / "listed"
    _run(listed, games=3)
    (listed / "data" / "params.json").write_text("[]")
    uncounted = tmp_path / "uncounted"          # train.json's games a string
    _run(uncounted, games=3)
    summary = json.loads((uncounted / "train.json").read_text())
    (uncounted / "train.json").write_text(json.dumps(dict(summary, games="3")))
    out = tmp_path / "new"
    for folder, message in ((out, "that is --out itself"),
                            (tiny, "its data has variant='tiny', this run 'full'"),
                            (unfinished, "not a finished training folder"),
                            (tmp_path / "nowhere", "not a finished training folder"),
                            (uncounted, "train.json's games is '3', not a count"),
                            (lost, "chunk-00001.npz: a broken data shard"),
                            (listed, "params.json: expected a JSON object, got list")):
        with pytest.raises(T.TrainError, match=message):
            _run(out, games=3, add_data=[str(folder)])
        assert not out.exists(), folder      # nothing played, nothing written
    with pytest.raises(WildhornError, match="the same folder twice"):
        _run(out, games=3, add_data=[str(tmp_path / "earlier")] * 2)


def test_dropped_feature_parts_are_never_seen(tmp_path, monkeypatch):
    """--drop-features: the fit sees zeros in the parts' columns and the file
    has zero weights there, so no value of those features moves the output;
    train.json and the README say which; a fit without it keeps its old key
    and summary (the checkpoint of a folder made before the option serves)."""
    drop = ("cards", "pending")
    cols = T.dropped_columns(drop)
    parts = dict(solver.feature_parts())
    assert len(cols) == parts["cards"] + parts["pending"]
    assert cols[0] == 0 and cols[parts["cards"] - 1] == parts["cards"] - 1
    assert cols[-1] == N_FEATURES - parts["moves"] - 1      # pending is the last but one part
    plain, _ = _run(tmp_path / "gen", games=6)
    assert "drop" not in plain["fit"]
    plain_files = _comparable(tmp_path / "gen")
    (w_plain, *_), _ = _net_arrays(tmp_path / "gen" / "value_net.npz")
    assert np.any(w_plain[cols] != 0)
    # the checkpoint's key is the one of a fit made before the option
    with np.load(tmp_path / "gen" / "data" / T.CHECKPOINT, allow_pickle=False) as npz:
        assert set(json.loads(str(npz["state"][()]))["key"]) == {
            "target", "hidden", "l2", "seed", "rows", "held_out", "y"}
    # the same folder, the same data: the fit sees zeros there, and does not
    # take the plain fit's checkpoint
    seen = []
    real_fit = T.fit

    def spy(out, x, y, hx, hy, params, progress):
        kept = np.setdiff1d(np.arange(N_FEATURES), cols)
        seen.append((bool(np.all(x[:, cols] == 0)), bool(np.all(hx[:, cols] == 0)),
                     bool(np.any(x[:, kept] != 0))))
        return real_fit(out, x, y, hx, hy, params, progress)
    monkeypatch.setattr(T, "fit", spy)
    summary, _ = _run(tmp_path / "gen", games=6, fit=replace(FIT, drop=drop))
    monkeypatch.undo()
    assert seen == [(True, True, True)]
    assert summary["held_out_loss_curve"] != plain["held_out_loss_curve"]
    assert summary["fit"]["drop"] == list(drop)
    net = valuenet.load(tmp_path / "gen" / "value_net.npz")
    assert net.meta["drop_features"] == list(drop)
    assert np.all(np.asarray(net.weights[0])[cols] == 0)
    keep = np.setdiff1d(np.arange(N_FEATURES), cols)
    assert np.any(np.asarray(net.weights[0])[keep] != 0)
    cores, _ = _positions()
    x = np.stack([features(core) for core in cores]).astype(np.float32)
    noisy = x.copy()
    noisy[:, cols] = np.random.default_rng(0).random((len(x), len(cols)))
    assert np.array_equal(net.evaluate(x), net.evaluate(noisy))
    shifted = x.copy()
    shifted[:, keep] += 1.0
    assert not np.array_equal(net.evaluate(x), net.evaluate(shifted))
    readme = (tmp_path / "gen" / "README.md").read_text()
    assert "feature parts dropped (`--drop-features`" in readme
    # through the API too, a part must be a part
    with pytest.raises(WildhornError, match="'cards,pending' is not a feature part"):
        _run(tmp_path / "api", games=3, fit=replace(FIT, drop=("cards,pending",)))
    assert not (tmp_path / "api").exists()
    # the parts in any order are one fit
    assert T.parse_drop("pending,cards") == drop
    # and back: the plain fit again gives the plain files
    again, _ = _run(tmp_path / "gen", games=6)
    (w_again, *_), _ = _net_arrays(tmp_path / "gen" / "value_net.npz")
    assert np.array_equal(w_again, w_plain) and "drop" not in again["fit"]
    assert _comparable(tmp_path / "gen") == plain_files


@pytest.mark.parametrize("args, message", [
    (["--hidden", "64,x"], "--hidden: expected layer widths"),
    (["--games", "0"], "--games: expected an integer >= 1, got 0"),
    (["--holdout", "0.7"], "--holdout: expected a share between 0 and 0.5"),
    (["--bot", "nosuchbot"], "nosuchbot"),
    (["--address", "auto"], "--address: only with --backend ray"),
    (["--variant", "huge"], "--variant: expected one of full, tiny, small, got 'huge'"),
    (["--add-data", "nowhere"], "--add-data nowhere: not a finished training folder"),
    (["--drop-features", "cards,wings"], "--drop-features: 'wings' is not a feature part"),
    (["--drop-features", "cards,cards"], "--drop-features: a part named twice"),
    (["--drop-features", "cards,"], "--drop-features: '' is not a feature part"),
    (["--drop-features", ","], "--drop-features: '' is not a feature part"),
    (["--drop-features", ",".join(n for n, _ in solver.feature_parts())],
     "--drop-features: every part dropped leaves the network nothing"),
])
def test_bad_options_are_refused_in_one_line(tmp_path, args, message):
    out = tmp_path / "gen"
    r = run_cli("train", "--out", str(out), *args)
    assert r.returncode == 2 and message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert not out.exists()


# ---- the command, end to end --------------------------------------------------------

TINY = ["--games", "8", "--chunk-games", "2", "--positions", "3", "--playouts", "4",
        "--hidden", "8", "--epochs", "3", "--holdout", "0.3", "--seed", "2"]


def _comparable(folder: Path) -> dict:
    summary = json.loads((folder / "train.json").read_text())
    for key in ("command", "timings", "sha256", "calibration"):
        summary.pop(key)
    return summary


@pytest.mark.slow
def test_the_command_killed_and_repeated_gives_the_same_files(tmp_path):
    done = tmp_path / "done"
    r = run_cli("train", "--out", str(done), *TINY, "--jobs", "2")
    assert r.returncode == 0, r.stderr
    assert "held-out loss" in r.stdout and "Brier" in r.stdout
    killed = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "apps.cli", "train", "--out", str(killed),
                             *TINY], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while not (killed / "data" / "chunk-00001.npz").exists() and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (killed / "train.json").exists()
    r = run_cli("train", "--out", str(killed), *TINY)
    assert r.returncode == 0, r.stderr
    a, meta_a = _net_arrays(done / "value_net.npz")
    b, meta_b = _net_arrays(killed / "value_net.npz")
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert {k: v for k, v in meta_a.items() if k != "command"} == \
        {k: v for k, v in meta_b.items() if k != "command"}
    assert _comparable(done) == _comparable(killed)


@pytest.mark.slow
def test_the_ray_backend_makes_the_same_data(tmp_path):
    pytest.importorskip("ray")
    args = ["--games", "4", "--chunk-games", "2", "--positions", "2", "--playouts", "2",
            "--hidden", "4", "--epochs", "1", "--holdout", "0.4", "--seed", "3"]
    local, ray = tmp_path / "local", tmp_path / "ray"
    assert run_cli("train", "--out", str(local), *args).returncode == 0
    r = run_cli("train", "--out", str(ray), *args, "--backend", "ray", "--jobs", "2")
    assert r.returncode == 0, r.stderr
    for i in range(2):
        a = np.load(local / "data" / f"chunk-0000{i}.npz")
        b = np.load(ray / "data" / f"chunk-0000{i}.npz")
        for f in ("x", "game", "move", "result", "playouts", "exact", "check"):
            assert np.array_equal(a[f], b[f], equal_nan=True)


def test_a_folder_in_training_refuses_a_second_run(tmp_path):
    from apps.tournament import FolderLock

    with FolderLock(tmp_path, T.LOCK, "training"):
        with pytest.raises(WildhornError, match="in use by another training run"):
            _run(tmp_path, games=3)
    assert not (tmp_path / T.LOCK).exists()


def test_the_label_noise_is_the_playout_means_variance():
    rows = {"playouts": np.array([0.5, 0.25, 1.0], np.float32),
            "exact": np.array([np.nan, 0.3, np.nan], np.float32)}
    assert T.label_noise(rows, "playouts", 5) == pytest.approx(
        (0.25 / 4 + 0.1875 / 4 + 0) / 3, abs=1e-6)
    assert T.label_noise(rows, "exact-first", 5) == pytest.approx((0.25 / 4) / 3, abs=1e-6)
    assert T.label_noise(rows, "root-first", 5) is None
