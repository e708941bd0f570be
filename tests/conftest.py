"""Shared fixtures and helpers: games and configurations built once per
session, the fake clock, the web server's client, and the one runner of the
command line (:func:`run_cli`)."""
import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pyspiel
import pytest

import bots._budget
import solver  # noqa: F401  (registers the game)
from solver.game import make_config


ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args: str, input: str | None = None, timeout: float = 300,
            cwd: str | os.PathLike | None = None, module: str = "apps.cli"):
    """``wildhorn-solve ARGS`` as a user runs it: a child process (this
    checkout's code first on its path), its output captured as text; the
    CompletedProcess.  ``input``: what is typed (None: nothing, the input
    closed)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run([sys.executable, "-m", module, *args], input=input or "",
                          capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)


@pytest.fixture(scope="session")
def full_game():
    return pyspiel.load_game("wildhorn")


@pytest.fixture(scope="session")
def tiny_game():
    return pyspiel.load_game("wildhorn(variant=tiny)")


@pytest.fixture(scope="session")
def small_game():
    return pyspiel.load_game("wildhorn(variant=small)")


@pytest.fixture(scope="session")
def full_config():
    return make_config()


class FakeClock:
    """A clock that advances ``step`` seconds each time it is read."""

    def __init__(self, step: float = 0.01):
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.now += self.step
        self.reads += 1
        return self.now


@pytest.fixture
def fake_clock(monkeypatch):
    """The searches' budget loop (bots._budget) reads a fake clock: time
    budgets are then tested by counting, never against wall-clock bounds."""
    clock = FakeClock()
    monkeypatch.setattr(bots._budget, "clock", clock)
    return clock


@pytest.fixture
def client(tmp_path):
    """The web server's app in a TestClient (no network), its games saved in
    a data folder of its own, with small search caps (150 iterations, one
    search at a time)."""
    from starlette.testclient import TestClient

    from apps.server.app import create_app
    from apps.server.games import Limits

    with TestClient(create_app(tmp_path / "data", Limits(max_iterations=150,
                                                         max_searches=1))) as c:
        yield c


@contextlib.contextmanager
def small_disk(tmp_path, size: str, covered_by: str):
    """A folder on a mounted tmpfs of ``size`` (as ``mount -o size=``),
    unmounted afterwards; the test skips, naming ``covered_by`` (the test
    that covers the same code without a real disk), where root may not mount."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip(f"mounting a tmpfs needs root (CI runs as root); {covered_by} covers "
                    f"the same code")
    folder = tmp_path / "small-disk"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"this machine does not let root mount a tmpfs: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)
