"""Reading state files: the one read path.

:func:`read_position` reads a file once (bounded, ``solver.jsonio``),
checks it once (structure and schema, then every rules-level check of
:mod:`solver.state_io.checker`, then its ``opponent_plays``) and returns a
:class:`Position`: the position with the opponent's hidden cards drawn with
the seed, whose view it is, and the opponent's plays of the turn.  The other
readers are views of it: :func:`position_of` of a parsed state or its text,
:func:`from_json` / :func:`load` of the position alone,
:func:`opponent_plays` / :func:`load_opponent_plays` of the plays alone.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NoReturn

import pyspiel

from solver._core import NUM_DISTINCT_ACTIONS, Core, encode_action
from solver.jsonio import MAX_FILE_BYTES, loads, read_bounded, read_text_bounded, size_problem
from solver.cards import load_card_set
from solver.errors import ParameterError, StateFormatError, WildhornError, describe_value
from solver.errors import one_line
from solver.errors import label as short_label
from solver.errors import quote as _q
from solver.game import WildhornState, make_config
from solver.state_io.checker import PositionCheck
from solver.state_io.fileformat import SIDES, Problems
from solver.state_io.params import load_game, spiel_params

__all__ = ["Position", "read_position", "position_of", "from_json", "opponent_plays", "load",
           "load_opponent_plays"]

_describe = describe_value
_PASS = encode_action("PASS")
_DECLINE = encode_action("DECLINE")


@dataclass(frozen=True)
class Position:
    """A state read and checked once: the position and the opponent's plays."""

    state: WildhornState
    """The position: the perspective player's information exactly, what that
    player cannot see drawn with the seed (R26)."""
    perspective: str
    """Whose view the state is: "polish" or "german"."""
    opponent_plays: tuple[tuple[Core, int], ...] = ()
    """The state's ``opponent_plays``, checked: per play, the position before
    it (its hidden cards drawn with the seed; only the perspective player's
    view of it is meant to be used) and the action id.  Empty when absent."""


class _Reader(Problems):
    """Reads one state: its text, and the game it names."""

    def parse(self, text: str | bytes) -> Any:
        """The JSON value of ``text`` (bytes are UTF-8, a BOM allowed)."""
        if isinstance(text, (bytes, bytearray)):
            try:
                text = bytes(text).decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                self.fail("$", f"not valid JSON: not UTF-8 text (byte {exc.start})")
        if len(text) > MAX_FILE_BYTES:
            self.fail("$", f"the text has {len(text)} characters, more than the {MAX_FILE_BYTES} "
                      "read at most")
        try:
            data = loads(text)
        except json.JSONDecodeError as exc:
            self.fail("$", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
        except (ValueError, RecursionError) as exc:
            self.fail("$", f"not valid JSON: {exc}")
        return data

    def game(self, data: dict, base_dir: Path | None) -> pyspiel.Game:
        """The game of the state's ``game`` and ``card_set`` keys (a relative
        card set path is looked for in ``base_dir``)."""
        source = data.get("card_set", "default")
        if source != "default" and base_dir is not None and not os.path.isabs(source):
            source = str(base_dir / source)
        params = spiel_params(data.get("game", {}), source)
        if source != "default":
            try:
                load_card_set(source)
            except WildhornError as err:
                self.fail("$.card_set", f"cannot use this card set: {err}")
        try:
            make_config(params)
            return load_game(params)
        except WildhornError as err:
            text = str(err).removeprefix("wildhorn: ")
            name, _, rest = text.partition(":")
            written = data.get("game", {})
            name = {"fragments": "start_fragments"}.get(name, name)  # the core's word
            if name in written and rest.strip():
                self.fail(f"$.game.{name}", rest.strip())
            # A key the file does not have: the card set gave the value.
            if source != "default":
                self.fail("$.card_set", f"this card set does not fit the game: {text}")
            self.fail("$.game" if written else "$", text)


# --------------------------------------------------------------------------
# The one read path
# --------------------------------------------------------------------------


def position_of(obj: Any, seed: int = 0, *, source: str = "state",
                base_dir: str | os.PathLike | None = None) -> Position:
    """Checks a state once and returns its :class:`Position`.

    ``obj`` is a parsed state (dict) or its JSON text.  The position holds the
    perspective player's information exactly; what that player cannot see,
    the opponent's hand among the opponent's unseen cards (every unseen
    START card in it, R26) and, while it is secret, the Polish redraw
    decision (R5), is drawn uniformly with ``seed`` (``Core.resample``); the
    position before the i-th opponent play with ``seed + i + 1``.
    ``source`` names the input in error messages; ``base_dir`` is where a
    relative ``card_set`` path is looked for.  Raises StateFormatError.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ParameterError(f"seed: expected an integer, got {seed!r}")
    r = _Reader(source)
    data = r.parse(obj) if isinstance(obj, (str, bytes, bytearray)) else obj
    r.structure(data)
    game = r.game(data, None if base_dir is None else Path(base_dir))
    core = PositionCheck(r, data, game.core_config).position(seed)
    plays = _opponent_plays(r, data, game, core, seed)
    return Position(game.state_from_core(core), data["perspective"], tuple(plays))


def read_position(source: str | os.PathLike | IO, seed: int = 0, *,
                  raw: bytes | None = None) -> Position:
    """The :class:`Position` of a state file (a path or an open file), read
    once and checked once; errors name the file.  A relative ``card_set``
    path is read relative to the file's folder.

    ``raw``: the bytes of the file at the path ``source`` when the caller has
    read them already (``apps.saved`` reads a file once to tell a saved game
    from a state file); more than a state file may hold is refused as a
    read would refuse it."""
    if hasattr(source, "read"):
        if raw is not None:
            raise ParameterError("read_position: raw is the bytes of a path, not of an open file")
        name = getattr(source, "name", None)
        label = name if isinstance(name, str) else "state"
        text = read_text_bounded(source, lambda why: _file_error(str(label), why))
        base = Path(name).parent if isinstance(name, str) else None
    else:
        if not isinstance(source, (str, os.PathLike)):
            raise ParameterError(f"load: expected a path or a file, got {type(source).__name__}")
        label = os.fspath(source)
        if raw is None:
            text = read_bounded(source, lambda why: _file_error(str(label), why))
        else:
            too_large = size_problem(len(raw), MAX_FILE_BYTES)
            if too_large is not None:
                _file_error(str(label), too_large)
            text = raw
        base = Path(source).parent
    if not isinstance(text, (str, bytes, bytearray)):
        raise ParameterError("load: the file gave neither text nor bytes")
    return position_of(text, seed, source=str(label), base_dir=base)


def _file_error(name: str, why: str) -> NoReturn:
    """A file that cannot be read (no JSON path: nothing of it was parsed)."""
    raise StateFormatError(f"{short_label(name)}: {one_line(why)}")


def from_json(obj: Any, seed: int = 0, *, source: str = "state",
              base_dir: str | os.PathLike | None = None) -> WildhornState:
    """Checks a state and returns a pyspiel state of its game consistent with
    it: the position of :func:`position_of` (same arguments)."""
    return position_of(obj, seed, source=source, base_dir=base_dir).state


def opponent_plays(obj: Any, seed: int = 0, *, source: str = "state",
                   base_dir: str | os.PathLike | None = None) -> list[tuple[Core, int]]:
    """The state's optional ``opponent_plays``, checked (see
    :attr:`Position.opponent_plays`); empty when the key is absent."""
    return list(position_of(obj, seed, source=source, base_dir=base_dir).opponent_plays)


def load(source: str | os.PathLike | IO, seed: int = 0) -> WildhornState:
    """``from_json`` of a file (a path or an open file); errors name the file.

    A relative ``card_set`` path is read relative to the file's folder.
    """
    return read_position(source, seed).state


def load_opponent_plays(path: str | os.PathLike, seed: int = 0) -> list[tuple[Core, int]]:
    """``opponent_plays`` of a state file (errors name the file)."""
    return list(read_position(path, seed).opponent_plays)


def _opponent_plays(r: _Reader, data: dict, game: pyspiel.Game, core: Core,
                    seed: int) -> list[tuple[Core, int]]:
    """Checks ``data["opponent_plays"]`` against the state (``core``)."""
    out: list[tuple[Core, int]] = []
    viewer = SIDES.index(data["perspective"])
    opponent = 1 - viewer
    for i, item in enumerate(data.get("opponent_plays", [])):
        where = f"$.opponent_plays[{i}]"
        before = item["before"]
        sub = _Reader(f"{r.label}: {where}.before")
        sub.structure(before)
        for key in ("card_set", "game", "perspective", "turn"):
            if before.get(key) != data.get(key):
                r.fail(f"{where}.before.{key}", f"expected {_describe(data.get(key))}, the "
                       f"state's own, got {_describe(before.get(key))}")
        if "opponent_plays" in before:
            r.fail(f"{where}.before.opponent_plays", "a position before a play has no plays of "
                   "its own (list every play of the turn in the state's opponent_plays)")
        if before.get("to_move") != SIDES[opponent]:
            r.fail(f"{where}.before.to_move", f"expected {_q(SIDES[opponent])}: a play is the "
                   f"opponent's decision, got {_describe(before.get('to_move'))}")
        if before.get("step") in ("redraw", "rocket"):
            r.fail(f"{where}.before.step", "expected a step of the action step: the plays "
                   "weighed are those of the turn's actions")
        position = PositionCheck(sub, before, game.core_config).position(seed + i + 1)
        text = item["action"]
        action = next((a for a in range(NUM_DISTINCT_ACTIONS)
                       if position.action_string(opponent, a) == text), None)
        if action is None:
            r.fail(f"{where}.action", f"no action of {SIDES[opponent]} reads {_describe(text)}")
        if action in (_PASS, _DECLINE):
            r.fail(f"{where}.action", "passes and declines are not written, only plays (R29: "
                   "a decline is private)")
        out.append((position, action))
    return out
