"""Bounded and strict input (issue 22, items 3, 4, 6): game parameters,
echoed text, the bounded reader."""

from __future__ import annotations

import os

import pyspiel
import pytest

from solver.jsonio import MAX_FILE_BYTES, find_problem, loads, read_bounded
from solver.errors import ParameterError, describe_value, quote
from solver.game import WildhornGame, check_params


@pytest.mark.parametrize("name, value", [
    ("turns", -5), ("turns", 0), ("turns", 9), ("turns", 2**31), ("turns", 4.0), ("turns", True),
    ("draw", -2), ("draw", 24), ("dice", 0), ("dice", 61), ("redraw", 5), ("redraw", -2),
    ("card_set", 3), ("card_set", "\u0000"), ("rockets", "1;2;x"), ("setup", "PL01"),
    ("start_fragments", "forest:1.0"), ("variant", "huge"), ("colour", "red"),
    ("setup", "PL01:" + "x" * 4000), ("setup", "x" * 4000 + ":hand"), ("cards", "y" * 4000),
    ("variant", "v" * 4000),
])
def test_bad_game_parameters_are_one_line_parameter_errors(name, value):
    with pytest.raises(ParameterError) as info:
        WildhornGame({name: value})
    message = str(info.value)
    assert "\n" not in message and name.split("_")[0] in message, message
    assert len(message) < 200, message


@pytest.mark.parametrize("name, value", [("turns", -5), ("draw", -2), ("redraw", 5),
                                         ("turns", 2**31), ("dice", -2**63), ("turns", 10**30)])
def test_pyspiel_load_game_refuses_them_too(name, value):
    # Beyond 32 bits pybind11's own conversion used to fail first, with a
    # RuntimeError naming nothing; the game's wrapper checks before it.
    with pytest.raises(ParameterError, match=rf"^wildhorn: {name}: expected an integer"):
        pyspiel.load_game("wildhorn", {name: value})
    with pytest.raises(ParameterError, match=rf"^wildhorn: {name}: expected an integer"):
        pyspiel.load_game(f"wildhorn({name}={value})")


def test_pyspiel_load_game_wrapper_passes_everything_else_through():
    assert pyspiel.load_game("wildhorn(turns=2,draw=3)").core_config.turns == 2
    assert pyspiel.load_game("wildhorn", {"turns": 3}).core_config.turns == 3
    game = pyspiel.load_game("wildhorn")
    assert str(pyspiel.load_game(str(game))) == str(game)
    assert pyspiel.load_game("kuhn_poker").num_players() == 2
    assert pyspiel.load_game("leduc_poker", {"players": 3}).num_players() == 3
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game("no_such_game")


def test_good_game_parameters_pass():
    assert check_params({"turns": 2, "draw": -1, "redraw": 0, "variant": "tiny"}) == {
        "turns": 2, "draw": -1, "redraw": 0, "variant": "tiny"}
    assert WildhornGame({"turns": 2, "draw": 3}).core_config.turns == 2


def test_echoed_text_is_cut():
    assert len(quote("k" * 10_000_000)) < 50
    assert len(describe_value("k" * 10_000)) < 50
    assert describe_value(2.0) == "2.0"


def test_numbers_nan_infinity_and_overflow_are_not_json():
    for text in ('{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}', '{"a": 1e999}'):
        with pytest.raises(ValueError):
            loads(text)
    assert loads('{"a": 2.0, "b": 2}') == {"a": 2.0, "b": 2}


def test_find_problem_in_document_order():
    assert find_problem(loads('{"a": [1, 2], "b": {"c": 1}}')) is None
    assert find_problem(loads('{"a": 1, "a": 2}')) == (["a"], "duplicate key in the same object")
    parts, message = find_problem({"x": [{"y": list(range(65))}]})
    assert parts == ["x", 0, "y"] and "at most 64 items" in message
    nested: list = []
    for _ in range(20):
        nested = [nested]
    assert "nested" in find_problem(nested)[1]


def _fail(message):
    raise ParameterError(message)


def test_read_bounded(tmp_path):
    small = tmp_path / "small"
    small.write_bytes(b"x" * 10)
    assert read_bounded(small, _fail) == b"x" * 10
    big = tmp_path / "big"
    big.write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    with pytest.raises(ParameterError, match="more than the 1000000"):
        read_bounded(big, _fail)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, kind in ((fifo, r"a pipe \(FIFO\)"), ("/dev/zero", "a character device"),
                       (tmp_path, "a folder")):
        with pytest.raises(ParameterError, match=f"it is {kind}, not a regular file"):
            read_bounded(path, _fail)
    with pytest.raises(ParameterError, match="NUL"):
        read_bounded("a\u0000b", _fail)
    with pytest.raises(ParameterError, match="No such file"):
        read_bounded(tmp_path / "missing", _fail)
