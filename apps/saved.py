"""Positions from a saved game (the save of a game record, apps.record:
written by ``wildhorn-solve play`` and the web table): the state.json of one
player's view (``wildhorn-solve export``) and the position advise searches
from it."""

from __future__ import annotations

import json
from typing import Any, NoReturn

from apps.record import FIRST_FORMAT, MAX_SAVE_BYTES
from apps.record import FORMAT as GAME_FORMAT
from apps.record import read_save as read_record
from apps.record import record_from_text
from solver import Core
from solver.jsonio import read_bounded
from solver.errors import ParameterError, StateFormatError, label, quote
from solver.state_io import FORMAT as STATE_FORMAT
from solver.state_io import Position, dumps, position_of, read_position, to_json
from solver.vocabulary import SIDES

GAME_FORMATS = (GAME_FORMAT, FIRST_FORMAT)


def file_format(path: str) -> str | None:
    """The ``format`` of a JSON file (None when it is not a JSON object with
    one); StateFormatError when the file cannot be read."""
    return _read(path)[1]


def _read(path: str) -> tuple[bytes, str | None]:
    """The bytes of ``path``, read once, and its ``format`` (see file_format)."""
    def refuse(why: str) -> NoReturn:
        raise StateFormatError(f"{label(path)}: {why}")

    # a save may be larger than a state file: read at most a save's limit
    raw = read_bounded(path, refuse, MAX_SAVE_BYTES)
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return raw, None
    value = data.get("format") if isinstance(data, dict) else None
    return raw, value if isinstance(value, str) else None


def read_save(path: str) -> tuple[Core, str]:
    """(the full position, the human's side) of a saved game."""
    record = read_record(path)
    return record.core, SIDES[record.human]


def _side(core: Core, side: str | None, path: str) -> int:
    if core.is_terminal():
        raise ParameterError(f"{label(path)}: the saved game is over (winner "
                             f"{SIDES[core.winner]}): there is no position to advise or export")
    if side is None:
        if core.is_chance():
            raise ParameterError(f"{label(path)}: the saved game stopped at a chance event; "
                                 f"name the view with --side polish|german")
        return core.current_player()
    return SIDES.index(side)


def export_view(path: str, side: str | None = None) -> tuple[str, str]:
    """(the state.json text of ``side``'s view, default the side to move, of
    the game saved in ``path``; that side)."""
    raw, fmt = _read(path)
    if fmt not in GAME_FORMATS:
        what = "a state file (it is already a view)" if fmt == STATE_FORMAT else \
            f"a file of format {quote(fmt)}" if fmt else "not a saved game"
        raise StateFormatError(f"{label(path)}: $.format: expected {GAME_FORMAT!r} (a game saved by "
                               f"`wildhorn-solve play --save`), this is {what}")
    core = record_from_text(raw, label(path)).core
    p = _side(core, side, path)
    return dumps(core, p), SIDES[p]


def view_of(core: Core, side: str | None, source: str) -> tuple[dict[str, Any], str]:
    """(the state.json object of ``side``'s view, default the side to move,
    of the position ``core`` of a saved game named ``source``; that side):
    what ``export`` writes, for a game held in memory (the web server)."""
    p = _side(core, side, source)
    return to_json(core, p), SIDES[p]


def load_plays(path: str, seed: int = 0) -> list[tuple[Core, int]]:
    """The opponent's plays of this turn a state file lists (its optional
    ``opponent_plays``), for inference; none for a saved game (its view is
    exported without them).  The file is read once."""
    raw, fmt = _read(path)
    if fmt != STATE_FORMAT:
        return []
    return list(read_position(path, seed, raw=raw).opponent_plays)


def load_position(path: str, seed: int = 0, side: str | None = None) -> Any:
    """The position advise searches (see :func:`position_to_advise`, which
    also gives the opponent's plays)."""
    return position_to_advise(path, seed, side).state


def position_to_advise(path: str, seed: int = 0, side: str | None = None) -> Position:
    """The position advise searches and the opponent's plays it weighs, the
    file read once and checked once: a state.json file (its perspective
    player must be the side to move, and ``side`` if given) with its
    ``opponent_plays``, or a save file of ``play``, seen from the side to
    move (or ``side``) only: its view is exported and read back, so nothing
    that side cannot see is used (and no plays are listed)."""
    raw, fmt = _read(path)
    if fmt in GAME_FORMATS:
        core = record_from_text(raw, label(path)).core
        p = _side(core, side, path)
        if core.is_chance() or core.current_player() != p:
            mover = "chance" if core.is_chance() else SIDES[core.current_player()]
            raise ParameterError(f"--side {SIDES[p]}: in {label(path)} it is {mover} to move, not "
                                 f"{SIDES[p]}; advise the side to move (leave out --side)")
        return position_of(to_json(core, p), seed, source=path)
    if fmt is not None and fmt.startswith("wildhorn-cards/"):
        raise StateFormatError(f"{label(path)}: $.format: this is a card set ({quote(fmt)}), "
                               f"not a position; list it with `wildhorn-solve cards "
                               f"--card-set {label(path)}` or name it in a state file's "
                               f"card_set")
    if fmt is not None and fmt.startswith("wildhorn-state/") and fmt != STATE_FORMAT:
        raise StateFormatError(f"{label(path)}: $.format: a state file of format {quote(fmt)}; this "
                               f"version reads {STATE_FORMAT!r} (and saved games, "
                               f"{GAME_FORMAT!r}): write the file again in that format "
                               f"(`wildhorn-solve schema` prints it)")
    position = read_position(path, seed, raw=raw)
    if side is not None:
        mover = position.state.core.current_player()
        if SIDES[mover] != side:
            raise ParameterError(f"--side {side}: {label(path)} is a position where {SIDES[mover]} "
                                 f"is to move; advise is for the side to move")
    return position
