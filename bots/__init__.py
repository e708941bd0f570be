"""Bots for Operation Wildhorn III, named by spec strings.

Every bot implements :class:`bots.base.Bot` (which is a ``pyspiel.Bot``, so
OpenSpiel's tools can drive it) and runs on the Cython core directly.

Bots are named by spec strings such as ``"ismcts:time=1.0,c=1.4"``.  Every
bot and every option is declared once, in :data:`bots.registry.BOTS`, which
drives the parsing (:func:`parse_spec`), the bots' construction
(:func:`make_bot`) and the documentation (:func:`spec_help`, printed by
``wildhorn-solve bots``).
"""

from bots.base import Bot
from bots.registry import BOTS, SEARCH_BOTS, make_bot, parse_spec, spec_help
from solver.errors import BotSpecError

__all__ = ["BOTS", "Bot", "BotSpecError", "SEARCH_BOTS", "make_bot", "parse_spec", "spec_help"]
