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
