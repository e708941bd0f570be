"""The errors of wildhorn-solve: every error the package raises is defined here.

All of them derive from :class:`WildhornError`, itself a :class:`ValueError`,
and carry a one-line message that says what was wrong and where.
"""

from __future__ import annotations

import json
import re

__all__ = [
    "WildhornError",
    "CardSetError",
    "IllegalActionError",
    "SerializationError",
    "StateFormatError",
    "ParameterError",
    "BotSpecError",
    "FolderInUseError",
    "RequestError",
    "UnknownGameError",
    "StaleActionError",
    "ValueNetError",
]


class WildhornError(ValueError):
    """Base class of every wildhorn-solve error; its message is one line."""


class CardSetError(WildhornError):
    """A card-set file cannot be read or breaks a rule (R28), or a card is unknown."""


class IllegalActionError(WildhornError):
    """An action was requested that is not legal in the current state."""


class SerializationError(WildhornError):
    """Saved data (a game record or a snapshot) cannot be written or read back."""


class StateFormatError(WildhornError):
    """A state given from outside (text or arrays) is malformed or inconsistent."""


class ParameterError(WildhornError):
    """An argument of a public function is out of range or of the wrong type."""


class ValueNetError(WildhornError):
    """A value network's weights file cannot be read or is refused (format,
    shapes, feature version, values); see bots/valuenet.py."""


class BotSpecError(ParameterError):
    """A bot spec string names an unknown bot or a bad option."""


class FolderInUseError(WildhornError):
    """An output folder is held by another running process (a tournament's lock)."""


class RequestError(WildhornError):
    """A request to the web server (``wildhorn-solve serve``) is malformed;
    ``status`` is the HTTP status it is answered with."""

    status = 400


class UnknownGameError(RequestError):
    """A request names a game the server does not hold."""

    status = 404


class PositionError(RequestError):
    """A position sent to the server's analysis board is refused by the state
    checker; ``path`` is the JSON path its message names (``$.table[2].zone``)."""

    status = 422

    def __init__(self, message: str, path: str = "$"):
        super().__init__(message)
        self.path = path


class UnknownAnalysisError(RequestError):
    """A request names an analysis of the board the server does not hold."""

    status = 404


class StaleActionError(RequestError):
    """An action was sent for a position the game has already left (a double click)."""

    status = 409


class BusyError(RequestError):
    """The server's queue of searches is full: try again when one is done."""

    status = 429


# ---- message helpers: every error message is one printable line ------------

_TEXT_LIMIT = 40


def one_line(text: str) -> str:
    """``text`` with every non-printable character (newlines included) escaped."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in text)


_LABEL_LIMIT = 160


def label(name: object) -> str:
    """A file name for the head of a message: one line, and a name longer
    than 160 characters shortened in the middle (its folder and its end)."""
    text = one_line(str(name))
    if len(text) > _LABEL_LIMIT:
        half = _LABEL_LIMIT // 2
        return text[:half] + "..." + text[-half:]
    return text


def quote(text: object) -> str:
    """A string as JSON writes it, on one line: ``"PL99"``; a text longer than
    40 characters is cut there and ``...`` follows, so no message echoes a
    huge value whole."""
    text = str(text)
    if len(text) > _TEXT_LIMIT:
        return one_line(json.dumps(text[:_TEXT_LIMIT], ensure_ascii=False)) + "..."
    return one_line(json.dumps(text, ensure_ascii=False))


def brief(value: object) -> str:
    """``repr(value)`` for a message, on one line and cut at 40 characters
    (``'abc'``; a longer text ``'xxxx...'...``), so that no message echoes a
    huge argument whole."""
    if isinstance(value, str) and len(value) > _TEXT_LIMIT:
        return one_line(repr(value[:_TEXT_LIMIT])) + "..."
    text = one_line(repr(value))
    return text if len(text) <= _TEXT_LIMIT else text[:_TEXT_LIMIT] + "..."


def describe_value(value: object) -> str:
    """A short one-line rendering of a JSON value for error messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, int) and abs(value) >= 10**_TEXT_LIMIT:
        return "a huge integer"
    return one_line(repr(value))[:_TEXT_LIMIT]


_RULING = re.compile(r"\b([RD])([1-9][0-9]?)[a-g]?\b")


def with_rulings_pointer(message: str) -> str:
    """``message`` with where to read the rulings it cites, still one line.

    ``"... Periphery only (R16)"`` becomes ``"... Periphery only (R16)
    [R16: see docs/rules.md]"``; a message citing no ruling is returned as
    it is.  The rulings R1..R30 and the decisions D1..D6 are the headings of
    docs/rules.md.
    """
    cited: list[str] = []
    for side, number in _RULING.findall(message):
        name = f"{side}{int(number)}"
        if (side == "R" and int(number) <= 30 or side == "D" and int(number) <= 6) \
                and name not in cited:
            cited.append(name)
    if not cited:
        return message
    return f"{message} [{', '.join(cited)}: see docs/rules.md]"
