"""Shared helpers for the tournament tests: the CLI run as a user runs it,
and the rows of a games.csv."""

import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, timeout=120):
    """``wildhorn-solve tournament ARGS`` in a subprocess, from the repository root."""
    return subprocess.run([sys.executable, "-m", "apps.cli", "tournament", *args],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def rows_of(folder):
    """The rows of ``folder/games.csv`` as dicts."""
    with open(Path(folder) / "games.csv", newline="") as f:
        return list(csv.DictReader(f))
