"""``advise`` reads its file once and checks it once (issue 27): the one read
path of ``solver.state_io`` (``read_position``) gives the position and the
opponent's plays together, and ``apps.saved.position_to_advise`` reads a
state file or a saved game once to tell them apart and load it."""

from __future__ import annotations

import builtins
import io
import json
import os
from pathlib import Path

import pytest

import solver  # noqa: F401  (registers the game)
from apps import cli
from apps.saved import load_plays, load_position, position_to_advise
from solver import state_io
from solver.jsonio import MAX_FILE_BYTES
from solver.errors import StateFormatError
from solver.state_io.checker import PositionCheck
from test_advise import _saved_game
from test_inference import plays_game, state_file


@pytest.fixture(scope="module")
def plays_file(tmp_path_factory) -> Path:
    """A state file whose opponent_plays lists two plays of this turn."""
    state, viewer, plays = plays_game()
    path = tmp_path_factory.mktemp("plays") / "state.json"
    path.write_text(json.dumps(state_file(state, viewer, plays)), encoding="utf-8")
    return path


class _Counts:
    """Opens of one file (``os.open``, ``open``) and position checks."""

    def __init__(self, monkeypatch, path: Path) -> None:
        self.opens = 0
        self.checks = 0
        target = os.path.realpath(path)
        real_os_open, real_open, real_check = os.open, builtins.open, PositionCheck.check

        def same(name) -> bool:
            return isinstance(name, (str, bytes, os.PathLike)) and \
                os.path.realpath(os.fsdecode(name)) == target

        def os_open(name, *args, **kwargs):
            self.opens += same(name)
            return real_os_open(name, *args, **kwargs)

        def open_(name, *args, **kwargs):
            self.opens += same(name)
            return real_open(name, *args, **kwargs)

        def check(checker):
            self.checks += 1
            return real_check(checker)

        monkeypatch.setattr(os, "open", os_open)
        monkeypatch.setattr(builtins, "open", open_)
        monkeypatch.setattr(io, "open", open_)
        monkeypatch.setattr(PositionCheck, "check", check)


def _advise(path: Path, capsys) -> dict:
    status = cli.main(["advise", str(path), "--iterations", "60", "--seed", "2", "--json",
                       "--no-responses", "--bot", "ismcts:inference=heuristic,threads=1"])
    out = capsys.readouterr()
    assert status == 0, out.err
    return json.loads(out.out)


def test_advise_reads_and_checks_a_state_file_with_plays_once(plays_file, monkeypatch, capsys):
    plays = len(json.loads(plays_file.read_text())["opponent_plays"])
    assert plays == 2
    counts = _Counts(monkeypatch, plays_file)
    answer = _advise(plays_file, capsys)
    assert counts.opens == 1
    # the state and the position before each play, each checked once
    assert counts.checks == 1 + plays
    assert answer["stats"]["belief_worlds"] > 0   # the plays were weighed


def test_advise_reads_a_saved_game_once(tmp_path, monkeypatch, capsys):
    path, core = _saved_game(tmp_path)
    counts = _Counts(monkeypatch, path)
    answer = _advise(path, capsys)
    assert counts.opens == 1
    assert answer["recommended_id"] in core.legal_actions()


def test_the_one_read_gives_what_the_separate_readers_give(plays_file):
    data = json.loads(plays_file.read_text())
    position = state_io.read_position(plays_file, seed=5)
    assert position.perspective == data["perspective"]
    p = state_io.SIDES.index(data["perspective"])
    alone = state_io.from_json(data, seed=5)
    assert position.state.core == alone.core
    assert position.state.information_state_string(p) == alone.information_state_string(p)
    separate = state_io.opponent_plays(data, seed=5)
    assert [a for _, a in position.opponent_plays] == [a for _, a in separate]
    assert [b for b, _ in position.opponent_plays] == [b for b, _ in separate]
    # the apps' readers are views of the same read
    assert load_position(str(plays_file), seed=5).core == position.state.core
    assert [a for _, a in load_plays(str(plays_file), seed=5)] == [a for _, a in separate]
    assert position_to_advise(str(plays_file), seed=5).opponent_plays == position.opponent_plays


def test_bytes_read_already_are_bounded_like_a_read(tmp_path):
    """A file read by the caller (up to a save's size) and longer than a
    state file may be is refused with the words a read of it would give."""
    path = tmp_path / "big.json"
    path.write_bytes(b" " * (MAX_FILE_BYTES + 1))
    with pytest.raises(StateFormatError) as by_read:
        state_io.read_position(path)
    with pytest.raises(StateFormatError) as given:
        state_io.read_position(path, raw=path.read_bytes())
    assert str(given.value) == str(by_read.value)
    assert f"more than the {MAX_FILE_BYTES} read at most" in str(given.value)
