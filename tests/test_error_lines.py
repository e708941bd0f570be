"""Error lines (issue 46, point 10): every error line is short, one line, and
names the file (or the option, or the engine's input line) it is about, as a
user meets it: the command run in a subprocess, the engine fed lines."""

from __future__ import annotations

import io
import json

import pytest

from apps import engine
from conftest import run_cli

HUGE = "x" * 100_000
LIMIT = 400           # characters: a line a terminal shows, whatever the input


def _one_short_line(result, *says):
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr[:500]
    assert len(lines) >= 1 and len(lines[-1]) < LIMIT, result.stderr[:500]
    assert all(s in lines[-1] for s in says), lines[-1]
    return lines[-1]


@pytest.mark.slow
def test_bots_separated_by_commas_says_the_separator_is_a_semicolon(tmp_path):
    result = run_cli("tournament", "--bots", "ismcts,heuristic", "--games", "2",
                     "--out", str(tmp_path / "t"))
    line = _one_short_line(result, "--bots", "needs at least two bots, got 1",
                           "separated by ';'")
    assert len(result.stderr.strip().splitlines()) == 1, line
    assert not (tmp_path / "t").exists()


def test_the_engine_answers_a_line_that_is_not_json_in_its_own_words():
    out = io.StringIO()
    engine.serve("random", io.StringIO('hello\n{"type": "hello"}\n[1, 2]\n' + "{" * 100_000
                                       + "\n" + HUGE + "\n"), out)
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["type"] for r in replies] == ["error", "hello", "error", "error", "error"]
    first, _, array, deep, huge = replies
    assert first["message"].startswith("input line 1: not JSON (expecting value at "
                                       "character 1)"), first
    assert "Expecting value: line 1 column 1 (char 0)" not in first["message"]
    assert array["message"] == "input line 3: expected a JSON object, got an array"
    assert deep["message"].startswith("input line 4: not ")
    assert huge["message"].startswith("input line 5: not JSON")
    assert all(len(r["message"]) < LIMIT for r in (first, array, deep, huge))


@pytest.mark.slow
@pytest.mark.parametrize("command", ["advise", "export"])
def test_a_file_that_cannot_be_read_is_named_with_no_json_path(tmp_path, command):
    result = run_cli(command, str(tmp_path / "nothere.json"))
    line = _one_short_line(result, "nothere.json: cannot read the file: No such file")
    assert "$" not in line and len(result.stderr.strip().splitlines()) == 1
    result = run_cli(command, "/dev/zero")
    line = _one_short_line(result, "/dev/zero: cannot read the file: it is a character "
                                   "device, not a regular file")
    assert "$" not in line


@pytest.mark.slow
@pytest.mark.parametrize("command", ["advise", "export"])
@pytest.mark.parametrize("fmt", [HUGE, "wildhorn-state/" + HUGE, "wildhorn-cards/" + HUGE,
                                 "wildhorn-game/" + HUGE])
def test_an_unknown_format_is_not_echoed_whole(tmp_path, command, fmt):
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"format": fmt}))
    result = run_cli(command, str(path))
    _one_short_line(result, "odd.json", "$.format")
    assert len(result.stderr) < LIMIT and "x" * 41 not in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("args", [["tournament", "--bots", "random;heuristic", "--games", "2",
                                   "--format", HUGE],
                                  ["advise", "examples/polish-opening.json", "--time", HUGE],
                                  ["tournament", "--bots", "random;heuristic", "--games", "2",
                                   "--chance", HUGE]])
def test_an_unknown_option_value_is_not_echoed_whole(tmp_path, args):
    result = run_cli(*args, cwd=None)
    line = _one_short_line(result)
    assert len(result.stderr) < 3000 and "x" * 41 not in line, line


def test_messages_echo_a_huge_value_cut():
    from apps.tournament.scheduling import pairings
    from solver.errors import ParameterError, brief
    assert brief("abc") == "'abc'" and brief(HUGE) == repr("x" * 40) + "..."
    with pytest.raises(ParameterError) as err:
        pairings(2, HUGE)
    assert len(str(err.value)) < LIMIT
