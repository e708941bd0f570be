"""wildhorn-solve: a solver and AI opponent for Days of Honor: Operation Wildhorn III.

``import solver`` registers the OpenSpiel game ``wildhorn`` (see
:mod:`solver.game`).  Public surface: :func:`load_card_set`, the game classes,
``decode_action``/``encode_action`` and the errors of :mod:`solver.errors`.
"""

__version__ = "0.1.0"

from solver.errors import (  # noqa: E402
    CardSetError,
    IllegalActionError,
    ParameterError,
    SerializationError,
    StateFormatError,
    WildhornError,
)
from solver.cards import load_card_set  # noqa: E402
from solver._core import decode_action, encode_action  # noqa: E402
from solver.game import WildhornGame, WildhornState, make_config  # noqa: E402
from solver import state_io  # noqa: E402,F401  (registers the position checks of deserialize_state)

__all__ = [
    "__version__", "load_card_set", "decode_action", "encode_action",
    "WildhornGame", "WildhornState", "make_config", "WildhornError", "CardSetError",
    "IllegalActionError", "ParameterError", "SerializationError", "StateFormatError",
]
