"""A tournament's folder: its files, resume, and the lock that allows one
run per folder.

* ``tournament.json``: the parameters, written at the start; a later run on
  the folder must repeat them (:func:`check_parameters`).  Its ``chance``
  names the chance scheme; a file without it (written before the schemes
  existed) resumes with the legacy ``sequential`` scheme
  (:func:`chance_scheme`).  Its ``luck``, with ``--luck``, identifies the
  value function that measured each game's luck (:func:`check_luck`): a
  folder refuses to go on with another one, or without it, and a folder
  without it refuses ``--luck``.
* ``games.csv`` and ``values.csv``: a row per game and a row per value
  estimate, appended with every byte written (a short write is an error,
  and is undone) and an fsync (:func:`record`): a game's value rows first,
  then its row, which counts them; a full disk raises a one-line error
  naming the file, and the game is not counted.  A torn last line (a kill
  mid-write) is cut off when read back.
* Resume (:func:`resume`): the finished games are read back, each row
  checked against the schedule and in itself (integers, counts of 0 or
  more, finite seconds, a ``winner_side`` and a ``winner`` that is that
  side's bot; a value row's side, move, probability in [0, 1], ``won`` 0 or
  1, its bot the game's on that side and ``won`` the game's result): a
  damaged, hand-edited or foreign row is a one-line error with the file and
  its line number.  ``tournament.json``'s ``chance`` and ``luck`` are
  checked as its own fields (not as the flags).  The value rows of games whose row was never
  written are dropped, and a game whose value rows are fewer than its row
  counts is taken out: both are played again.  With ``--luck`` every row
  holds its game's luck, ``luck_polish``, a column the header of a folder
  without luck does not have.
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
import math
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apps.tournament.luck import LUCK_FIELD, describe
from apps.tournament.scheduling import CHANCE_SCHEMES, DEFAULT_CHANCE, LEGACY_CHANCE
from solver.jsonio import write_all, write_atomic
from solver.errors import FolderInUseError, ParameterError, SerializationError, one_line
from solver.vocabulary import SIDES

GAME_FIELDS = ["game", "pairing", "deal", "deal_seed", "polish", "german", "winner_side",
               "winner", "fragments_polish", "fragments_german", "moves",
               "seconds_per_move_polish", "seconds_per_move_german", "value_rows"]
"""A ``games.csv`` row; ``value_rows`` counts the game's rows in ``values.csv``
(empty in folders written before it existed).  With ``--luck`` a last
column, ``luck_polish`` (:data:`apps.tournament.luck.LUCK_FIELD`), follows."""
VALUE_FIELDS = ["game", "bot", "side", "move", "value", "won"]
LOCK_NAME = "tournament.lock"
COMMAND_LIMIT = 200          # characters of the running command quoted in the refusal
_INT_FIELDS = ("game", "pairing", "deal", "deal_seed", "fragments_polish", "fragments_german",
               "moves")
_TASK_FIELDS = ("pairing", "deal", "deal_seed", "polish", "german")
_SECONDS_FIELDS = ("seconds_per_move_polish", "seconds_per_move_german")


# ---- files ------------------------------------------------------------------------

def _header(path: Path) -> list[str] | None:
    """The column names of an existing CSV file (None if it has none yet)."""
    try:
        with open(path, "rb") as f:
            first = f.readline()
    except FileNotFoundError:
        return None
    if not first.endswith(b"\n"):
        return None
    return next(csv.reader([first.decode("utf-8", "replace")]), None)


def append(path: Path, fields: list[str], rows: list[dict[str, Any]]) -> None:
    """Append rows with one O_APPEND write of every byte, then fsync.  A
    write that cannot finish (a full disk: an error or a short write) is
    undone, the file cut back to where it was, and raises
    SerializationError naming the file.  A file written before a column was
    added keeps its own columns."""
    if not rows:
        return
    buf = io.StringIO()
    header = _header(path)
    writer = csv.DictWriter(buf, header or fields, lineterminator="\n", extrasaction="ignore")
    if header is None:
        writer.writeheader()
    writer.writerows(rows)
    data = buf.getvalue().encode()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as err:
        raise SerializationError(f"{path}: cannot write: {err.strerror or err}") from None
    try:
        size = os.fstat(fd).st_size
        if header is None and size:
            os.ftruncate(fd, 0)    # a header torn by a kill: written again
            size = 0
        try:
            write_all(fd, data, path)
            os.fsync(fd)
        except OSError as err:
            try:
                os.ftruncate(fd, size)
            except OSError:
                pass
            raise SerializationError(f"{path}: cannot write: {err.strerror or err} (the rows "
                                     f"of this game are not recorded; it is played again "
                                     f"when the run is resumed)") from None
    finally:
        os.close(fd)


class _Damaged(Exception):
    """(line number, what is wrong) of a bad row."""


def _number(text: Any, key: str, expected: str, low: float, high: float = math.inf) -> float:
    """A finite number in [low, high] read from a row's field (raises _Damaged)."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not (math.isfinite(value) and low <= value <= high):
        raise _Damaged(f"{key}: expected {expected}, got {one_line(str(text))[:40]!r}")
    return value


def read_rows(path: Path) -> list[dict[str, str]]:
    """The complete rows of a CSV file (a torn last line is cut off); each
    row has ``_line``, its line number.  A file that is not UTF-8 CSV gives
    a SerializationError with the line number."""
    if not path.exists():
        return []
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with open(path, "r+b") as f:
            f.truncate(cut)
        data = data[:cut]
    try:
        text = data.decode()
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise SerializationError(f"{path}:{line}: not UTF-8 text (a damaged file?)") from None
    reader = csv.DictReader(io.StringIO(text))
    rows = []
    try:
        for row in reader:
            row["_line"] = reader.line_num
            rows.append(row)
    except csv.Error as err:
        raise SerializationError(f"{path}:{reader.line_num}: not a CSV row ({err})") from None
    return rows


def _games_row(row: dict[str, Any], tasks: Sequence[Any] | None, seen: set[int],
               luck: bool = False) -> None:
    """Checks and converts one games.csv row in place (raises _Damaged);
    ``luck``: the row must hold its game's luck."""
    missing = [k for k in GAME_FIELDS if k != "value_rows" and not row.get(k)]
    if missing or None in row:
        what = f"missing {', '.join(missing)}" if missing else "extra columns"
        raise _Damaged(f"a damaged row ({what})")
    for key in _INT_FIELDS:
        try:
            row[key] = int(row[key])
        except ValueError:
            raise _Damaged(f"{key}: expected an integer, got {one_line(row[key])[:40]!r}") from None
    counted = row.get("value_rows") or None
    try:
        row["value_rows"] = None if counted is None else int(counted)
    except ValueError:
        raise _Damaged(f"value_rows: expected an integer, got {one_line(counted)[:40]!r}") from None
    if row["game"] < 1:
        raise _Damaged(f"game: expected a game number from 1, got {row['game']}")
    for key in _INT_FIELDS[1:] + ("value_rows",):
        if row[key] is not None and row[key] < 0:
            raise _Damaged(f"{key}: expected a count of 0 or more, got {row[key]}")
    for key in _SECONDS_FIELDS:
        row[key] = _number(row[key], key, "a number of seconds of 0 or more", 0.0)
    side = row["winner_side"]
    if side not in SIDES:
        raise _Damaged(f"winner_side: expected {' or '.join(SIDES)}, got "
                       f"{one_line(side)[:40]!r}")
    if row["winner"] != row[side]:
        raise _Damaged(f"winner: {one_line(row['winner'])[:60]!r} is not the {side} bot of "
                       f"this game ({one_line(row[side])[:60]!r})")
    if LUCK_FIELD in row:
        text = row[LUCK_FIELD]
        try:
            row[LUCK_FIELD] = None if not text else float(text)
        except ValueError:
            row[LUCK_FIELD] = math.nan
        if row[LUCK_FIELD] is not None and not math.isfinite(row[LUCK_FIELD]):
            raise _Damaged(f"{LUCK_FIELD}: expected a number, got {one_line(text)[:40]!r}")
    if luck and row.get(LUCK_FIELD) is None:
        raise _Damaged(f"{LUCK_FIELD}: missing, but this tournament measures each game's luck "
                       f"(--luck)")
    game = row["game"]
    if game in seen:
        raise _Damaged(f"game {game} is recorded twice")
    if tasks is not None:
        if not 1 <= game <= len(tasks):
            raise _Damaged(f"game {game} is not a game of this tournament (it schedules "
                           f"{len(tasks)}): a row of another tournament?")
        task = tasks[game - 1]
        for key in _TASK_FIELDS:
            if row[key] != getattr(task, key):
                raise _Damaged(f"game {game}: {key} {one_line(str(row[key]))[:60]!r}, but this "
                               f"tournament schedules {getattr(task, key)!r}: a row of another "
                               f"tournament?")
    seen.add(game)


def read_games(out: Path, tasks: Sequence[Any] | None = None,
               luck: bool = False) -> list[dict[str, Any]]:
    """The rows of ``games.csv`` in game order, checked (against the
    schedule ``tasks`` if given; with ``luck``, each must hold its game's
    luck): a damaged or foreign row gives a one-line SerializationError with
    its line number."""
    path = out / "games.csv"
    rows = read_rows(path)
    seen: set[int] = set()
    for row in rows:
        try:
            _games_row(row, tasks, seen, luck)
        except _Damaged as err:
            raise SerializationError(f"{path}:{row['_line']}: {err} (repair or remove the "
                                     f"line, or use another --out)") from None
    return sorted(rows, key=lambda r: r["game"])


def _value_row(row: dict[str, str]) -> None:
    """Checks one values.csv row (raises _Damaged); its fields stay text."""
    if None in row or any(row.get(k) is None for k in VALUE_FIELDS):
        raise _Damaged("a damaged row (wrong number of columns)")
    for key, low in (("game", 1), ("move", 0)):
        try:
            number = int(row[key])
        except ValueError:
            raise _Damaged(f"{key}: expected an integer, got "
                           f"{one_line(row[key])[:40]!r}") from None
        if number < low:
            raise _Damaged(f"{key}: expected an integer of {low} or more, got {number}")
    if row["side"] not in SIDES:
        raise _Damaged(f"side: expected {' or '.join(SIDES)}, got {one_line(row['side'])[:40]!r}")
    _number(row["value"], "value", "a probability in [0, 1]", 0.0, 1.0)
    if row["won"] not in ("0", "1"):
        raise _Damaged(f"won: expected 0 or 1, got {one_line(row['won'])[:40]!r}")


def _value_rows(out: Path, games: dict[int, dict[str, Any]] | None = None
                ) -> list[dict[str, str]]:
    """The rows of ``values.csv``, each checked; with ``games`` (the checked
    rows of games.csv by game), a value row of a recorded game must be one
    of its bots' on its side, and ``won`` must agree with the game's winner."""
    path = out / "values.csv"
    rows = read_rows(path)
    for row in rows:
        try:
            _value_row(row)
            game = games.get(int(row["game"])) if games is not None else None
            if game is not None:
                side = row["side"]
                if row["bot"] != game[side]:
                    raise _Damaged(f"bot: {one_line(row['bot'])[:60]!r} is not the {side} bot "
                                   f"of game {game['game']} ({one_line(game[side])[:60]!r})")
                if int(row["won"]) != int(game["winner_side"] == side):
                    raise _Damaged(f"won: {row['won']}, but game {game['game']} was won by the "
                                   f"{game['winner_side']} side")
        except _Damaged as err:
            raise SerializationError(f"{path}:{row['_line']}: {err} (repair or remove the "
                                     f"line, or use another --out)") from None
    return rows


def _clean(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != "_line"}


def _recorded(outdir: Path) -> dict[str, Any] | None:
    """The parameters in ``tournament.json`` (None for a new folder); a file
    written before the chance schemes existed used the legacy scheme."""
    pfile = outdir / "tournament.json"
    if not pfile.exists():
        return None
    try:
        old = json.loads(pfile.read_bytes().decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise ParameterError(f"{pfile}: not readable JSON") from None
    except RecursionError:
        raise ParameterError(f"{pfile}: not readable JSON (nested too deeply)") from None
    if not isinstance(old, dict):
        raise ParameterError(f"{pfile}: expected a JSON object")
    old.setdefault("chance", LEGACY_CHANCE)
    # the fields read as values (the others are only compared with the
    # command's): a bad one is the file's error, not a flag's
    if old["chance"] not in CHANCE_SCHEMES:
        raise ParameterError(f"{pfile}: chance: expected one of {', '.join(CHANCE_SCHEMES)}, "
                             f"got {one_line(json.dumps(old['chance']))[:60]} (repair the "
                             f"file, or use another --out)")
    luck = old.get("luck")
    if luck is not None and not (isinstance(luck, dict) and luck and all(
            isinstance(k, str) and isinstance(v, (str, int, float, bool))
            for k, v in luck.items())):
        raise ParameterError(f"{pfile}: luck: expected the value function's identity (an "
                             f"object of names and values) or null, got "
                             f"{one_line(json.dumps(luck))[:60]} (repair the file, or use "
                             f"another --out)")
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


def check_luck(outdir: Path, identity: dict[str, Any] | None) -> None:
    """Refuse to go on with a folder whose games measured their luck with
    another value function than ``identity`` (None: without ``--luck``), or
    not at all: its luck would mix two control variates, or be missing."""
    old = _recorded(outdir)
    if old is None or old.get("luck") == identity:
        return
    recorded = old.get("luck")
    if recorded is None:
        raise ParameterError(f"{outdir} holds a tournament played without --luck (its games "
                             f"have no luck recorded): repeat its command without --luck, or "
                             f"use another --out")
    if identity is None:
        raise ParameterError(f"{outdir} holds a tournament played with --luck (value "
                             f"function: {describe(recorded)}): repeat its command with --luck")
    hint = (" (--luck FILE names a network file, an earlier packaged one included)"
            if recorded.get("function") == "value-net" else "")
    raise ParameterError(f"{outdir} holds a tournament whose luck was measured by another value "
                         f"function ({describe(recorded)}, not {describe(identity)}): one "
                         f"match takes one control variate; continue it with that one{hint} "
                         f"or use another --out")


def check_networks(outdir: Path, networks: dict[str, dict[str, str]],
                   unrecorded: dict[str, dict[str, str]]) -> None:
    """Refuse to go on with a folder whose bots valued their leaves with
    another network than ``networks`` gives them now (by spec: the file's
    name and sha256, :func:`apps.tournament.runner.bot_networks`): a match
    of two networks is two bots under one name.  A folder written before
    the record existed is taken to have used ``unrecorded`` (what the
    runner knows of those builds; a spec it does not name is not checked)."""
    old = _recorded(outdir)
    if old is None:
        return
    pfile = outdir / "tournament.json"
    if "networks" in old:
        was = old["networks"]
        if not isinstance(was, dict) or not all(
                isinstance(v, dict) and isinstance(v.get("sha256"), str) for v in was.values()):
            raise ParameterError(f"{pfile}: 'networks' must map each bot spec to an object "
                                 f"with its network's file and sha256")
    else:
        was = unrecorded
    for spec, now in networks.items():
        before = was.get(spec)
        if before is not None and before["sha256"] != now["sha256"]:
            raise ParameterError(f"{outdir} holds a tournament whose bot {spec[:60]!r} valued "
                                 f"its leaves with the network {before.get('file')} (sha256 "
                                 f"{before['sha256'][:12]}), not this one ({now['sha256'][:12]}): "
                                 f"continue it with the build that began it, or use another "
                                 f"--out")


def check_parameters(outdir: Path, params: dict[str, Any]) -> None:
    """Write ``tournament.json``, or check that the one there holds ``params``
    (its ``networks`` are :func:`check_networks`'s)."""
    pfile = outdir / "tournament.json"
    old = _recorded(outdir)
    if old is not None:
        diff = [k for k in params if k != "networks" and old.get(k) != params[k]]
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

    def reload(self, outdir: Path, tasks: Sequence[Any] | None = None,
               luck: bool = False) -> list[int]:
        """Read the games back from the files (after a Ctrl-C, which may have
        come between writing a game's row and keeping it here).  A game whose
        value rows are not all there (``value_rows`` counts them) is left out,
        to be played again; returns those games.  ``luck``: each row must hold
        its game's luck."""
        rows = read_games(outdir, tasks, luck)
        values = [_clean(v) for v in _value_rows(outdir, {r["game"]: r for r in rows})]
        count: dict[int, int] = {}
        for v in values:
            count[int(v["game"])] = count.get(int(v["game"]), 0) + 1
        torn = [r["game"] for r in rows
                if r["value_rows"] is not None and count.get(r["game"], 0) != r["value_rows"]]
        self.rows = [_clean(r) for r in rows if r["game"] not in torn]
        done = self.ids()
        self.values = [v for v in values if int(v["game"]) in done]
        return torn


def _csv_text(fields: list[str], rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fields, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def resume(outdir: Path, tasks: Sequence[Any] | None = None, luck: bool = False) -> Played:
    """The games finished in ``outdir`` (checked against the schedule
    ``tasks``).  ``values.csv`` is rewritten without the values of games
    whose row was never written, and a game whose value rows are incomplete
    (a full disk cut them) is taken out of ``games.csv`` too: both are
    played again.  ``luck``: each row must hold its game's luck."""
    played = Played()
    torn = played.reload(outdir, tasks, luck)
    if torn:
        header = _header(outdir / "games.csv") or GAME_FIELDS
        write_atomic(outdir / "games.csv", _csv_text(header, played.rows))
    write_atomic(outdir / "values.csv", _csv_text(VALUE_FIELDS, played.values))
    return played


def record(outdir: Path, result: dict[str, Any]) -> None:
    """Append a finished game: its value rows first, then its row, which
    counts them (the row is what marks the game done).  Each write is
    checked: a full disk raises SerializationError naming the file, and the
    game is not counted: when its row cannot be written, its value rows are
    taken back too, so the folder holds no value rows of a game not done
    (resume would drop them, but a reader of the folder meanwhile would
    count them)."""
    result["row"]["value_rows"] = len(result["values"])
    values = outdir / "values.csv"
    before = values.stat().st_size if values.exists() else None
    append(values, VALUE_FIELDS, result["values"])
    fields = GAME_FIELDS + [LUCK_FIELD] if LUCK_FIELD in result["row"] else GAME_FIELDS
    try:
        append(outdir / "games.csv", fields, [result["row"]])
    except SerializationError:
        try:
            if before is None:
                values.unlink(missing_ok=True)
            else:
                os.truncate(values, before)
        except OSError:
            pass    # resume drops them (rows of a game without its row)
        raise


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
    """The running run's pid, start time and command (or the address a
    server gave, :class:`FolderLock`'s ``about``), as it wrote them."""
    try:
        info = json.loads(os.pread(fd, 4096, 0).decode())
        where = (f"at {one_line(str(info['address']))[:COMMAND_LIMIT]}" if "address" in info
                 else f"command: {one_line(str(info['command']))[:COMMAND_LIMIT + 3]}")
        return f"pid {int(info['pid'])}, started {one_line(str(info['started']))}, {where}"
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return "a run that has not written its details yet"


class FolderLock:
    """``with FolderLock(folder):`` holds an exclusive lock on the folder
    (created if needed) or raises :class:`FolderInUseError` naming the run
    that holds it.  The lock is an ``flock`` on ``folder/tournament.lock``,
    which holds the owner's pid, start time and command while it runs and is
    removed at the end; after a kill the OS releases the lock and the file is
    left behind, and the next run takes it over.  ``name`` is the lock
    file's name and ``what`` the kind of run in the refusal (``wildhorn-solve
    train`` locks its folder with ``train.lock``, "training run";
    ``wildhorn-solve serve`` its data folder with ``serve.lock``, "server"),
    ``advice`` what the refusal suggests; ``about`` is written beside the pid
    (a server's ``address``, named in the refusal instead of the command)."""

    def __init__(self, folder: Path | str, name: str = LOCK_NAME, what: str = "tournament run",
                 advice: str = "let it finish or stop it, or use another --out",
                 about: dict[str, str] | None = None):
        self.folder = Path(folder)
        self.path = self.folder / name
        self.what = what
        self.advice = advice
        self.about = dict(about or {})
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
                raise FolderInUseError(f"{self.folder} is in use by another {self.what} "
                                       f"({holder}): {self.advice}") from None
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
        info = json.dumps({"pid": os.getpid(), "started": started, "command": _command(),
                           **self.about})
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
