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


def test_demo_narrates_through_the_narrator():
    """demo tells the game in the narrator's words (apps.narration, as play and
    serve do), as a spectator: no raw action strings, no hidden card named."""
    import re
    r = run("demo", "--seed", "1")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "[chance]" not in out and "German move to" not in out and "Polish move to" not in out
    for phrase in ("Turn 1 of 4 begins: each player draws 5 cards.", "Polish draws 5 cards.",
                   "Rocket card revealed: ", "Polish places ", "End of turn 1: ",
                   "Game over: "):
        assert phrase in out, phrase
    assert re.search(r"(Attack|Search|Spy|Sturmwind|Defence) die for ", out)
    assert not re.search(r"(Polish|German) draws (PL|DE)\d", out)  # hands stay hidden
    narration = out.split("The final position:")[0]
    assert max(len(line) for line in out.splitlines()) <= 80
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", narration)  # no engine names


# every subcommand, and whether it takes a seed (then its default must be stated)
SUBCOMMANDS = {"demo": "1", "advise": "0", "bots": None, "export": None, "cards": None,
               "schema": None, "random-states": "0", "play": "random", "serve": "random",
               "bench": None, "engine": "0", "tournament": "0", "train": "0"}


def test_every_subcommand_has_a_description_with_its_seed_default():
    from apps.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) == set(SUBCOMMANDS)
    top = run("--help").stdout
    for name, seed in SUBCOMMANDS.items():
        r = run(name, "--help")
        assert r.returncode == 0, (name, r.stderr)
        text = " ".join(r.stdout.split())
        # a description paragraph between the usage and the options
        body = text.split("options:")[0].split(" ", 2)[-1]
        description = sub.choices[name].description
        assert description and len(description) > 60, name
        assert " ".join(description.split())[:40] in text, name
        assert name in top, name
        if seed is not None:
            assert "seed" in description and (
                f"default {seed}" in description or f"defaults to {seed}" in description
                or (seed == "random" and "random one" in description)), (name, description)
        else:
            assert "seed" in description.lower(), name  # says there is none, or how seeds work
        assert body


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


def test_serve_open_says_when_no_browser_could_be_opened(tmp_path):
    """serve --open on a machine without a browser (no display, BROWSER a
    command that fails): a note on stderr with the address, and the server
    goes on serving."""
    import socket
    import time
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(BROWSER="false", PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    proc = subprocess.Popen([sys.executable, "-m", "apps.cli", "serve", "--open", "--port",
                             str(port), "--data", str(tmp_path)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        lines, deadline = [], time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("note: "):
                break
        assert any(x.startswith("note: no browser could be opened here: open "
                                f"http://127.0.0.1:{port}/?token=") and x.endswith(" yourself\n")
                   for x in lines), lines
        assert proc.poll() is None  # still serving
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.parametrize("outcome", [False, "raise"])
def test_open_reports_a_browser_that_fails_or_raises(monkeypatch, capsys, outcome):
    import webbrowser

    from apps.server import app

    def fake_open(address):
        if outcome == "raise":
            raise webbrowser.Error("could not locate runnable browser")
        return outcome

    monkeypatch.setattr(webbrowser, "open", fake_open)
    app._open("http://127.0.0.1:8000/?token=t")
    err = capsys.readouterr().err
    assert err.startswith("note: no browser could be opened here")
    assert err.rstrip().endswith("open http://127.0.0.1:8000/?token=t yourself")
    assert ("could not locate runnable browser" in err) is (outcome == "raise")
    monkeypatch.setattr(webbrowser, "open", lambda address: True)
    app._open("http://127.0.0.1:8000/?token=t")
    assert capsys.readouterr().err == ""
