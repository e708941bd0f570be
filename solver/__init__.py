"""wildhorn-solve: a solver and AI opponent for Days of Honor: Operation Wildhorn III.

``import solver`` registers the OpenSpiel game ``wildhorn`` (see
:mod:`solver.game`).  Public surface: :func:`load_card_set`, the game classes,
the core's position and configuration (``Core``, ``CoreConfig``, built in
Cython: ``solver/_core.pxd`` is their C interface), ``decode_action``/
``encode_action``, the tree measures ``playout_stats``/``tree_size``, the value features
``features``/``feature_parts`` (``N_FEATURES`` floats, layout ``FEATURE_VERSION``), the
errors of :mod:`solver.errors`, and the modules ``state_io`` (state files),
``vocabulary`` (the game's words) and ``jsonio`` (bounded, strict JSON input).
"""

__version__ = "0.1.0"

from solver.errors import (  # noqa: E402
    CardSetError,
    IllegalActionError,
    ParameterError,
    SerializationError,
    StateFormatError,
    ValueNetError,
    WildhornError,
)
from solver.cards import load_card_set  # noqa: E402
from solver._core import CARDS_PER_SIDE, Core, CoreConfig, decode_action, encode_action  # noqa: E402,E501
from solver._tree import playout_stats, tree_size  # noqa: E402
from solver._features import FEATURES as N_FEATURES  # noqa: E402
from solver._features import FEATURES_VERSION as FEATURE_VERSION  # noqa: E402
from solver._features import feature_parts, features  # noqa: E402
from solver.game import WildhornGame, WildhornState, make_config  # noqa: E402
from solver import state_io  # noqa: E402,F401  (registers the position checks of deserialize_state)

__all__ = [
    "__version__", "load_card_set", "decode_action", "encode_action", "Core", "CoreConfig",
    "CARDS_PER_SIDE", "playout_stats", "tree_size",
    "N_FEATURES", "FEATURE_VERSION", "features", "feature_parts",
    "WildhornGame", "WildhornState", "make_config", "WildhornError", "CardSetError",
    "IllegalActionError", "ParameterError", "SerializationError", "StateFormatError",
    "ValueNetError",
]
