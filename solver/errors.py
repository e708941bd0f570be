"""The errors of wildhorn-solve: every error the package raises is defined here.

All of them derive from :class:`WildhornError`, itself a :class:`ValueError`,
and carry a one-line message that says what was wrong and where.
"""

from __future__ import annotations

__all__ = [
    "WildhornError",
    "CardSetError",
    "IllegalActionError",
    "SerializationError",
    "StateFormatError",
    "ParameterError",
    "RequestError",
    "UnknownGameError",
    "StaleActionError",
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


class RequestError(WildhornError):
    """A request to the web server (``wildhorn-solve serve``) is malformed;
    ``status`` is the HTTP status it is answered with."""

    status = 400


class UnknownGameError(RequestError):
    """A request names a game the server does not hold."""

    status = 404


class StaleActionError(RequestError):
    """An action was sent for a position the game has already left (a double click)."""

    status = 409


# ---- message helpers: every error message is one printable line ------------

_TEXT_LIMIT = 40


def one_line(text: str) -> str:
    """``text`` with every non-printable character (newlines included) escaped."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in text)


def quote(text: object) -> str:
    """A string as JSON writes it, on one line: ``"PL99"``."""
    import json

    return one_line(json.dumps(str(text), ensure_ascii=False))


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
        if len(value) > _TEXT_LIMIT:
            return quote(value[:_TEXT_LIMIT]) + "..."
        return quote(value)
    if isinstance(value, int) and abs(value) >= 10**_TEXT_LIMIT:
        return "a huge integer"
    return one_line(repr(value))
