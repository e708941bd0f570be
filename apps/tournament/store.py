"""A tournament's folder: its files, resume, and the lock that allows one
run per folder.

* ``tournament.json``: the parameters, written at the start; a later run on
  the folder must repeat them (:func:`check_parameters`).  Its ``chance``
  names the chance scheme; a file without it (written before the schemes
  existed) resumes with the legacy ``sequential`` scheme
  (:func:`chance_scheme`).
* ``games.csv`` and ``values.csv``: a row per game and a row per value
  estimate, appended with one ``os.write`` and an fsync (:func:`record`);
  a torn last line (a kill mid-write) is cut off when read back.
* Resume (:func:`resume`): the finished games are read back and the value
  rows of games whose row was never written are dropped (they are replayed).
* ``summary.json``, ``standings.md`` and the figures are replaced
  atomically (:func:`write_atomic`).
* :class:`FolderLock`: an exclusive ``flock`` on ``tournament.lock`` while a
  run lasts.  The OS releases it when the run ends or is killed, so a killed
  run's folder can be resumed at once; a second run on a busy folder is
  refused with the pid, start time and command of the running one.
"""

from __future__ import annotations

import csv
import datetime
import fcntl
import io
import json
import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apps.tournament.scheduling import DEFAULT_CHANCE, LEGACY_CHANCE
from solver.errors import FolderInUseError, ParameterError, one_line

GAME_FIELDS = ["game", "pairing", "deal", "deal_seed", "polish", "german", "winner_side",
               "winner", "fragments_polish", "fragments_german", "moves",
               "seconds_per_move_polish", "seconds_per_move_german"]
VALUE_FIELDS = ["game", "bot", "side", "move", "value", "won"]
LOCK_NAME = "tournament.lock"
COMMAND_LIMIT = 200          # characters of the running command quoted in the refusal


# ---- files ------------------------------------------------------------------------

def append(path: Path, fields: list[str], rows: list[dict[str, Any]]) -> None:
    """Append rows with one os.write on an O_APPEND descriptor, then fsync."""
    if not rows:
        return
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fields, lineterminator="\n")
    new = not path.exists() or path.stat().st_size == 0
    if new:
        writer.writeheader()
    writer.writerows(rows)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, buf.getvalue().encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def read_rows(path: Path) -> list[dict[str, str]]:
    """The complete rows of a CSV file (a torn last line is cut off)."""
    if not path.exists():
        return []
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with open(path, "r+b") as f:
            f.truncate(cut)
        data = data[:cut]
    return list(csv.DictReader(io.StringIO(data.decode())))


def read_games(out: Path) -> list[dict[str, Any]]:
    rows = read_rows(out / "games.csv")
    for row in rows:
        for key in ("game", "pairing", "deal", "deal_seed", "fragments_polish",
                    "fragments_german", "moves"):
            row[key] = int(row[key])
    return sorted(rows, key=lambda r: r["game"])



def _recorded(outdir: Path) -> dict[str, Any] | None:
    """The parameters in ``tournament.json`` (None for a new folder); a file
    written before the chance schemes existed used the legacy scheme."""
    pfile = outdir / "tournament.json"
    if not pfile.exists():
        return None
    try:
        old = json.loads(pfile.read_text())
    except ValueError:
        raise ParameterError(f"{pfile}: not readable JSON") from None
    if not isinstance(old, dict):
        raise ParameterError(f"{pfile}: expected a JSON object")
    old.setdefault("chance", LEGACY_CHANCE)
    return old


def chance_scheme(outdir: Path, requested: str | None) -> str:
    """The chance scheme of the tournament in ``outdir``: the recorded one
    (``requested``, if given, must agree), or for a new folder ``requested``
    or the default."""
    old = _recorded(outdir)
    if old is None:
        return requested or DEFAULT_CHANCE
    if requested is not None and requested != old["chance"]:
        raise ParameterError(f"{outdir} holds a tournament played with --chance "
                             f"{old['chance']}, not {requested}: repeat its command or use "
                             f"another --out")
    return old["chance"]


def check_parameters(outdir: Path, params: dict[str, Any]) -> None:
    """Write ``tournament.json``, or check that the one there holds ``params``."""
    pfile = outdir / "tournament.json"
    old = _recorded(outdir)
    if old is not None:
        diff = [k for k in params if old.get(k) != params[k]]
        if diff:
            raise ParameterError(f"{outdir} holds a tournament with other parameters "
                                 f"({', '.join(diff)} differ): repeat its command or use "
                                 f"another --out")
    else:
        write_atomic(pfile, json.dumps(params, indent=2) + "\n")


# ---- the games played so far ------------------------------------------------------

@dataclass
class Played:
    """The finished games of a folder: their rows (game order) and value rows."""
    rows: list[dict[str, Any]] = field(default_factory=list)
    values: list[dict[str, str]] = field(default_factory=list)

    def ids(self) -> set[int]:
        return {r["game"] for r in self.rows}

    def add(self, result: dict[str, Any]) -> None:
        """A game's result (as :func:`record` wrote it) joins the played games."""
        self.rows.append(result["row"])
        self.values.extend({k: str(v) for k, v in x.items()} for x in result["values"])

    def reload(self, outdir: Path) -> None:
        """Read the games back from the files (after a Ctrl-C, which may have
        come between writing a game's row and keeping it here)."""
        self.rows = read_games(outdir)
        done = self.ids()
        self.values = [v for v in read_rows(outdir / "values.csv") if int(v["game"]) in done]


def resume(outdir: Path) -> Played:
    """The games finished in ``outdir``; ``values.csv`` is rewritten without
    the values of games whose row was never written (they are replayed)."""
    played = Played()
    played.reload(outdir)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, VALUE_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(played.values)
    write_atomic(outdir / "values.csv", buf.getvalue())
    return played


def record(outdir: Path, result: dict[str, Any]) -> None:
    """Append a finished game: its value rows first, then its row (the row is
    what marks the game done)."""
    append(outdir / "values.csv", VALUE_FIELDS, result["values"])
    append(outdir / "games.csv", GAME_FIELDS, [result["row"]])


# ---- one run per folder -----------------------------------------------------------

_HELD: dict[int, int] = {}     # lock descriptor -> pid of the process that took it


def close_inherited_locks() -> None:
    """In a forked worker process: close the lock descriptors inherited from
    the run, so that a worker outliving a killed run does not keep its folder
    locked.  (Ray's and spawned workers do not inherit them: Python opens
    descriptors non-inheritable.)"""
    for fd, pid in list(_HELD.items()):
        if pid != os.getpid():
            del _HELD[fd]
            try:
                os.close(fd)
            except OSError:
                pass


def _command() -> str:
    text = one_line(shlex.join(getattr(sys, "orig_argv", None) or sys.argv))
    return text if len(text) <= COMMAND_LIMIT else text[:COMMAND_LIMIT] + "..."


def _holder(fd: int) -> str:
    """The running run's pid, start time and command, as it wrote them."""
    try:
        info = json.loads(os.pread(fd, 4096, 0).decode())
        return (f"pid {int(info['pid'])}, started {one_line(str(info['started']))}, "
                f"command: {one_line(str(info['command']))[:COMMAND_LIMIT + 3]}")
    except (OSError, ValueError, KeyError, TypeError):
        return "a run that has not written its details yet"


class FolderLock:
    """``with FolderLock(folder):`` holds an exclusive lock on the folder
    (created if needed) or raises :class:`FolderInUseError` naming the run
    that holds it.  The lock is an ``flock`` on ``folder/tournament.lock``,
    which holds the owner's pid, start time and command while it runs and is
    removed at the end; after a kill the OS releases the lock and the file is
    left behind, and the next run takes it over."""

    def __init__(self, folder: Path | str):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self.fd: int | None = None

    def __enter__(self) -> "FolderLock":
        self.folder.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise FolderInUseError(f"{self.folder} is in use by another tournament run "
                                       f"({holder}): let it finish or stop it, or use "
                                       f"another --out") from None
            except BaseException:
                os.close(fd)
                raise
            # the file may have been removed (and made anew) by a run that
            # ended between our open and flock: then lock the file there now
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        self.fd = fd
        _HELD[fd] = os.getpid()
        started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        info = json.dumps({"pid": os.getpid(), "started": started, "command": _command()})
        os.ftruncate(fd, 0)
        os.pwrite(fd, (info + "\n").encode(), 0)
        return self

    def __exit__(self, *exc: Any) -> None:
        fd, self.fd = self.fd, None
        if fd is None:
            return
        _HELD.pop(fd, None)
        try:
            os.unlink(self.path)       # while locked: no other run holds this file
        except FileNotFoundError:
            pass
        os.close(fd)                   # releases the lock
