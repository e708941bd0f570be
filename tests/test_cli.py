"""The command line, run as a user runs it (a subprocess)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent


def run(*args, timeout=300):
    return run_cli(*args, timeout=timeout)


def test_help_and_version():
    r = run("--help")
    assert r.returncode == 0 and "demo" in r.stdout and "bench" in r.stdout
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith("wildhorn-solve ")


def test_demo_plays_a_whole_game_deterministically():
    a = run("demo", "--seed", "4")
    b = run("demo", "--seed", "4")
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    assert "game over" in a.stdout and "Winner:" in a.stdout
    c = run("demo", "--seed", "5")
    assert c.stdout != a.stdout


def test_demo_tiny():
    r = run("demo", "--variant", "tiny", "--seed", "2")
    assert r.returncode == 0 and "Winner:" in r.stdout


@pytest.mark.parametrize("args", [["demo", "--seed", "x"], ["bench"], ["bench", "nothing"],
                                  ["frobnicate"], ["demo", "--variant", "huge"]])
def test_bad_arguments_exit_2(args):
    r = run(*args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr


def test_tree_size_of_tiny():
    """The size walker behind ``bench variants``, on tiny (small takes a minute)."""
    from solver._core import Core
    from solver._tree import tree_size
    from solver.game import make_config
    r = tree_size(Core(make_config({"variant": "tiny"})))
    assert r["complete"] and r["histories"] > 10_000
    assert r["infosets"][0] > 100 and r["infosets"][1] > 100
    assert 0.0 < r["uniform_polish_win"] < 1.0


def test_unwritable_output_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("keep me")
    r = run("random-states", "--count", "1", "--out", str(blocker / "sub"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert blocker.read_text() == "keep me"


@pytest.mark.parametrize("args", [["schema"], ["advise", "examples/polish-opening.json",
                                               "--iterations", "20"]])
def test_a_closed_stdout_ends_quietly_with_141(args):
    """``advise ... | head`` once head has gone: no "error: Broken pipe", exit 141."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the command writes
    try:
        r = subprocess.run([sys.executable, "-m", "apps.cli", *args], stdout=write_end,
                           stderr=subprocess.PIPE, text=True, timeout=300, cwd=ROOT)
    finally:
        os.close(write_end)
    assert r.returncode == 141, r.stderr
    assert r.stderr == ""
