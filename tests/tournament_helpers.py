"""Shared helpers for the tournament tests: the CLI run as a user runs it,
a script of benchmarks/ loaded as a module, a made-up two-bot match folder,
the rows of a games.csv,
tables without their timing columns, and waiting
for a state of a running tournament without any bound on how fast it gets
there (a generous cap only turns a hang into a failure)."""

import csv
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HANG_CAP = 600.0        # seconds: far beyond any normal run, even on a loaded machine
TIMING = ("seconds_per_move_polish", "seconds_per_move_german")


def cli(*args, timeout=HANG_CAP):
    """``wildhorn-solve tournament ARGS`` in a subprocess, from the repository root."""
    return subprocess.run([sys.executable, "-m", "apps.cli", "tournament", *args],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def benchmark_script(name):
    """``benchmarks/NAME.py`` loaded as a module (the scripts are not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def paired_match(folder, wins_by_deal, first="a", second="b", seed0=1000):
    """A made-up two-bot match folder: per deal two seat-swapped games, of
    which ``first`` won the given count (0, 1 or 2); deal k dealt from
    ``seed0 + k``."""
    from apps.tournament.store import GAME_FIELDS
    folder = Path(folder)
    folder.mkdir()
    (folder / "tournament.json").write_text(json.dumps({"bots": [first, second],
                                                        "games": 2 * len(wins_by_deal)}))
    with open(folder / "games.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(GAME_FIELDS)
        game = 0
        for deal, wins in enumerate(wins_by_deal):
            for k in range(2):
                game += 1
                polish, german = (first, second) if k == 0 else (second, first)
                winner = first if k < wins else second
                side = "polish" if winner == polish else "german"
                w.writerow([game, 0, deal, seed0 + deal, polish, german, side, winner,
                            1, 1, 100, 0.1, 0.1, 0])
    return folder


def rows_of(folder):
    """The rows of ``folder/games.csv`` as dicts."""
    with open(Path(folder) / "games.csv", newline="") as f:
        return list(csv.DictReader(f))


def table(path, drop=TIMING):
    """The rows of a CSV file without the wall-clock columns."""
    with open(path, newline="") as f:
        return [{k: v for k, v in row.items() if k not in drop} for row in csv.DictReader(f)]


def without_seconds(rows):
    """Rows without their wall-clock fields, in game order (comparable across runs)."""
    return sorted((tuple((k, v) for k, v in r.items() if k not in TIMING) for r in rows),
                  key=lambda r: int(r[0][1]))


def games_written(folder):
    """Complete game rows in ``folder/games.csv`` so far (0 before the file exists)."""
    path = Path(folder) / "games.csv"
    return max(path.read_text().count("\n") - 1, 0) if path.exists() else 0


def wait_for(condition, what, proc=None, cap=HANG_CAP):
    """Poll ``condition()`` until it is true.  Fails if ``proc`` ends first
    or after ``cap`` seconds (a hang, not a speed check)."""
    deadline = time.monotonic() + cap
    while not condition():
        assert proc is None or proc.poll() is None, f"the run ended before {what}"
        assert time.monotonic() < deadline, f"no {what} after {cap:.0f} s: hung?"
        time.sleep(0.05)


def forked_children(pid):
    """Pids of the processes forked by ``pid`` that run its own command line
    (the local backend's workers; not helpers started with exec).  Linux only."""
    try:
        own = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == pid and Path(f"/proc/{entry}/cmdline").read_bytes() == own:
                found.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return found


def alive(pid):
    """True while ``pid`` runs (a zombie counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
