"""The tournament store on a full disk, damaged folders, a huge --games and
a killed run (issue 29).

* every write is checked: a full disk (a real 1 MB tmpfs where root may
  mount one, else ``os.write`` failing or writing short) stops the run with a
  one-line error naming the file, and never leaves a game counted whose
  value rows are cut; the resumed run ends with the files of an
  uninterrupted one;
* resume plays again a game whose value rows are fewer than its row counts;
* a damaged or foreign ``games.csv`` row is a one-line error with its line
  number, never a traceback;
* the schedule is lazy (``--games 10**8`` builds nothing up front);
* the workers of a killed run exit.
"""

from __future__ import annotations

import csv
import errno
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from apps import tournament as T
from apps.tournament import runner as tournament_runner
from apps.tournament.scheduling import Schedule
from solver import jsonio
from solver.errors import SerializationError, WildhornError
from tournament_helpers import ROOT, alive, cli, forked_children, wait_for, without_seconds
from conftest import small_disk

BOTS = ["random", "ismcts:iterations=10"]   # the search reports values: value rows
GAMES = 4


def _run(out, **kw):
    return T.run(BOTS, games=GAMES, out=str(out), seed=3, progress=T.LineProgress(lambda _: None),
                 **kw)


def _rows(path):
    if not Path(path).exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _values_by_game(folder):
    count = {}
    for v in _rows(Path(folder) / "values.csv"):
        count[int(v["game"])] = count.get(int(v["game"]), 0) + 1
    return count


def _consistent(folder, reference):
    """Every game in games.csv has all its value rows (as many as in the
    uninterrupted run), and no other game has any."""
    rows = _rows(Path(folder) / "games.csv")
    count, whole = _values_by_game(folder), _values_by_game(reference)
    for r in rows:
        assert count.get(int(r["game"]), 0) == whole.get(int(r["game"]), 0), r["game"]
    assert set(count) <= {int(r["game"]) for r in rows}
    return rows


def _same_as(folder, reference):
    assert without_seconds(_rows(Path(folder) / "games.csv")) == \
        without_seconds(_rows(Path(reference) / "games.csv"))
    key = lambda v: tuple(v.values())  # noqa: E731
    assert sorted(map(key, _rows(Path(folder) / "values.csv"))) == \
        sorted(map(key, _rows(Path(reference) / "values.csv")))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run."""
    out = tmp_path_factory.mktemp("reference")
    _run(out)
    assert len(_rows(out / "games.csv")) == GAMES and sum(_values_by_game(out).values()) > 0
    return out


def test_a_games_row_counts_its_value_rows(reference):
    count = _values_by_game(reference)
    assert [int(r["value_rows"]) for r in _rows(reference / "games.csv")] == \
        [count.get(g, 0) for g in range(1, GAMES + 1)]


# ---- a full disk ------------------------------------------------------------------

class _FailingOs:
    """``os`` for solver.jsonio (the store's writer) whose ``write`` lets
    ``budget`` bytes through, then fails with ENOSPC, or (``short``) takes
    nothing, as a full disk does."""

    def __init__(self, budget, short):
        self.budget, self.short = budget, short

    def __getattr__(self, name):
        return getattr(os, name)

    def write(self, fd, data):
        if self.budget <= 0:
            if self.short:
                return 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        n = os.write(fd, bytes(data[:self.budget]))
        self.budget -= n
        return n


@pytest.mark.parametrize("budget, short", [(3000, False), (5000, True), (700, False)])
def test_a_full_disk_stops_the_run_naming_the_file_and_resume_completes(
        monkeypatch, tmp_path, reference, budget, short):
    out = tmp_path / "run"
    monkeypatch.setattr(jsonio, "os", _FailingOs(budget, short))
    with pytest.raises(SerializationError) as err:
        _run(out)
    message = str(err.value)
    assert "\n" not in message and "No space left on device" in message
    assert str(out / "values.csv") in message or str(out / "games.csv") in message, message
    assert len(_consistent(out, reference)) < GAMES    # no game counted with its values cut
    monkeypatch.undo()
    _run(out)
    _consistent(out, reference)
    _same_as(out, reference)


@pytest.fixture
def tmpfs(tmp_path):
    """A mounted 1 MB tmpfs (room for the reports once the disk is freed)."""
    with small_disk(tmp_path, "1m", "the monkeypatched full-disk test") as folder:
        yield folder


def test_a_full_tmpfs_stops_the_run_and_resume_completes(tmpfs, reference):
    out = tmpfs / "run"
    out.mkdir()
    filler = tmpfs / "filler"
    with open(filler, "wb", buffering=0) as f:   # fill the disk, then free 4 pages
        try:
            while f.write(b"\0" * 4096):
                pass
        except OSError as err:
            assert err.errno == errno.ENOSPC
    os.truncate(filler, max(0, filler.stat().st_size - 4 * 4096))
    args = ["--bots", ";".join(BOTS), "--games", str(GAMES), "--seed", "3", "--out", str(out)]
    r = cli(*args)
    assert r.returncode == 2, r.stdout + r.stderr
    line = r.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line, r.stderr
    assert "No space left on device" in line and str(out) in line, line
    if (out / "games.csv").exists():
        assert len(_consistent(out, reference)) < GAMES
    filler.unlink()
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    _consistent(out, reference)
    _same_as(out, reference)


# ---- resume repairs a game whose value rows are incomplete ------------------------

def test_resume_plays_again_a_game_whose_value_rows_were_cut(tmp_path, reference):
    out = tmp_path / "run"
    _run(out)
    values = _rows(out / "values.csv")
    game2 = [v for v in values if v["game"] == "2"]
    assert len(game2) > 1
    kept = [v for v in values if v not in game2[len(game2) // 2:]]   # half of game 2's rows cut
    with open(out / "values.csv", "w", newline="") as f:
        w = csv.DictWriter(f, T.VALUE_FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(kept)
    lines = []
    summary = T.run(BOTS, games=GAMES, out=str(out), seed=3, progress=T.LineProgress(lines.append))
    assert summary["games"] == GAMES
    assert sum("Finished game" in line for line in lines) == 1   # game 2, played again
    _consistent(out, reference)
    _same_as(out, reference)


# ---- damaged and foreign rows -------------------------------------------------------

def _damage(folder, line_no, change):
    path = Path(folder) / "games.csv"
    lines = path.read_bytes().split(b"\n")
    lines[line_no - 1] = change(lines[line_no - 1], lines)
    path.write_bytes(b"\n".join(lines))


@pytest.mark.parametrize("line_no, change, words", [
    (3, lambda b, _: b.replace(b",", b",x", 1), "pairing: expected an integer"),
    (2, lambda b, _: b[:5] + b"\xff\xfe" + b[5:], "not UTF-8"),
    (4, lambda b, _: b.rsplit(b",", 6)[0], "damaged row"),
    (3, lambda b, lines: lines[1], "game 1 is recorded twice"),
    (5, lambda b, _: b"21" + b[b.index(b","):], "not a game of this tournament (it schedules 4)"),
    (2, lambda b, _: b.replace(b"random", b"heuristic", 1), "a row of another tournament"),
])
def test_a_damaged_or_foreign_row_is_one_line_with_its_line_number(tmp_path, reference,
                                                                   line_no, change, words):
    out = tmp_path / "run"
    out.mkdir()
    for name in ("games.csv", "values.csv", "tournament.json"):
        (out / name).write_bytes((reference / name).read_bytes())
    _damage(out, line_no, change)
    with pytest.raises(WildhornError) as err:
        _run(out)
    message = str(err.value)
    assert f"games.csv:{line_no}: " in message and words in message, message
    assert "\n" not in message


def test_a_damaged_row_through_the_command_is_one_line_exit_2(tmp_path, reference):
    out = tmp_path / "run"
    out.mkdir()
    for name in ("games.csv", "values.csv", "tournament.json"):
        (out / name).write_bytes((reference / name).read_bytes())
    _damage(out, 3, lambda b, _: b.replace(b",", b",x", 1))
    r = cli("--bots", ";".join(BOTS), "--games", str(GAMES), "--seed", "3", "--out", str(out))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "games.csv:3: " in r.stderr


# ---- a lazy schedule ----------------------------------------------------------------

def test_the_schedule_of_a_hundred_million_games_is_lazy(monkeypatch, tmp_path):
    tasks = T.schedule(BOTS, "round-robin", 10**8, seed=1)
    assert isinstance(tasks, Schedule) and not isinstance(tasks, list)
    assert len(tasks) == 10**8
    assert tasks[-1] == tasks.task(10**8) and tasks[-1].game == 10**8
    small = T.schedule(BOTS, "round-robin", 6, seed=1)
    assert list(small) == [tasks[i] for i in range(6)]   # the same games, computed on demand
    seen = {}

    def play(pending, played, *args):
        seen["pending"] = pending
        seen["first"] = [next(pending) for _ in range(3)]
        return False

    monkeypatch.setattr(tournament_runner, "play", play)
    T.run(BOTS, games=10**8, out=str(tmp_path / "big"), seed=1,
          progress=T.LineProgress(lambda _: None))
    assert isinstance(seen["pending"], Iterator) and not hasattr(seen["pending"], "__len__")
    assert [t.game for t in seen["first"]] == [1, 2, 3]


# ---- the workers of a killed run ------------------------------------------------------

@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux only)")
def test_the_workers_of_a_killed_run_exit(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "apps.cli", "tournament", "--bots",
                             "ismcts:iterations=200000;random", "--games", "8", "--jobs", "2",
                             "--out", str(tmp_path / "run")], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    workers = []
    try:
        wait_for(lambda: len(forked_children(proc.pid)) >= 2, "two workers", proc, cap=120)
        workers = forked_children(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)        # the run only; its workers are left alone
        proc.wait()
        wait_for(lambda: not any(alive(w) for w in workers), "the workers' exit", cap=60)
    finally:
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# ---- hand-edited files (issue 46 point 19) ------------------------------------------

def _edit_csv(folder, name, field, value, line=2):
    """Set ``field`` of the row on ``line`` of ``name`` to ``value``."""
    path = Path(folder) / name
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        header, rows = reader.fieldnames, list(reader)
    rows[line - 2][field] = value
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def _edit_json(folder, change):
    path = Path(folder) / "tournament.json"
    if callable(change):
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data))
    else:
        path.write_text(change)


HAND_EDITS = [
    # the five that were tracebacks
    ("games.csv", "winner", "nobody", "winner: 'nobody' is not the german bot of this game"),
    ("games.csv", "seconds_per_move_polish", "fast", "seconds_per_move_polish: expected a "
                                                     "number of seconds"),
    ("values.csv", "value", "high", "value: expected a probability in [0, 1], got 'high'"),
    ("tournament.json", "luck", "value-net", "tournament.json: luck: expected the value "
                                             "function's identity"),
    ("tournament.json", None, '{"bots": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "tournament.json: not readable JSON (nested too deeply)"),
    # the nine that were accepted silently
    ("games.csv", "winner", "random", "winner: 'random' is not the german bot of this game"),
    ("games.csv", "winner_side", "zzz", "winner_side: expected polish or german, got 'zzz'"),
    ("games.csv", "fragments_polish", "-3", "fragments_polish: expected a count of 0 or more"),
    ("games.csv", "seconds_per_move_german", "nan", "seconds_per_move_german: expected a "
                                                    "number of seconds of 0 or more, got 'nan'"),
    ("values.csv", "value", "NaN", "value: expected a probability in [0, 1], got 'NaN'"),
    ("values.csv", "value", "1e308", "value: expected a probability in [0, 1], got '1e308'"),
    ("values.csv", "won", "7", "won: expected 0 or 1, got '7'"),
    ("values.csv", "won", "0", "won: 0, but game 1 was won by the german side"),
    ("values.csv", "bot", "oos", "bot: 'oos' is not the german bot of game 1"),
    # a bad chance is the file's field, not a flag nobody gave
    ("tournament.json", "chance", "dice", "tournament.json: chance: expected one of "
                                          "sequential, keyed, got \"dice\""),
]


def _hand_edited(tmp_path, reference, name, field, value):
    out = tmp_path / "run"
    out.mkdir(parents=True)
    for each in ("games.csv", "values.csv", "tournament.json"):
        (out / each).write_bytes((reference / each).read_bytes())
    if name == "tournament.json":
        _edit_json(out, value if field is None else (lambda d: d.update({field: value})))
    else:
        _edit_csv(out, name, field, value)
    return out


@pytest.mark.parametrize("name, field, value, words", HAND_EDITS,
                         ids=[f"{n}-{f}-{v[:8]}" for n, f, v, _ in HAND_EDITS])
def test_every_row_of_a_hand_edited_folder_is_checked_when_read(tmp_path, reference, name,
                                                                 field, value, words):
    """Each edit is a one-line error naming the file (and the line, for a
    CSV row), the folder's files as they were."""
    out = _hand_edited(tmp_path, reference, name, field, value)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(WildhornError) as err:
        _run(out)
    message = str(err.value)
    where = f"{name}:2: " if name != "tournament.json" else "tournament.json: "
    assert where in message and words in message, message
    assert "\n" not in message and "--chance" not in message
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name in before} == before


@pytest.mark.slow
def test_the_former_tracebacks_through_the_command_are_one_line_exit_2(tmp_path, reference):
    for k, (name, field, value, words) in enumerate(HAND_EDITS[:5] + HAND_EDITS[-1:]):
        out = _hand_edited(tmp_path / str(k), reference, name, field, value)
        r = cli("--bots", ";".join(BOTS), "--games", str(GAMES), "--seed", "3", "--out",
                str(out))
        assert r.returncode == 2 and "Traceback" not in r.stderr, (name, field, r.stderr[-400:])
        assert len(r.stderr.strip().splitlines()) == 1 and words in r.stderr, r.stderr
