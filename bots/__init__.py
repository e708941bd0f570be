"""Bots for Operation Wildhorn III, named by spec strings.

Every bot implements :class:`bots.base.Bot` (which is a ``pyspiel.Bot``, so
OpenSpiel's tools can drive it) and runs on the Cython core directly.

Bots are named by spec strings such as ``"ismcts:time=1.0,c=1.4"``.  Every
bot and every option is declared once, in :data:`bots.registry.BOTS`, which
drives the parsing (:func:`parse_spec`), the bots' construction
(:func:`make_bot`) and the documentation (:func:`spec_help`, printed by
``wildhorn-solve bots``).  The value network a search may use at its leaves
(``eval=net|mix|turn``): its file in :mod:`bots.valuenet`, in C as a
:class:`NetC` (:func:`load_net`: one copy per file and process).
"""

from bots import _budget
from bots._budget import bias_needed
from bots._inference import POOL, Observations
from bots._ismcts import ISMCTS
from bots._labels import ROLLOUT as LABEL_ROLLOUT, heuristic_playouts
from bots._net import NetC, load_net
from bots._oos import OOS
from bots._searchtree import time_playouts
from bots.base import Bot, SearchBot
from bots.registry import (BOTS, DEFAULT_SPEC, SEARCH_BOTS, check_for_players, make_bot, parse_spec,
                           spec_help)
from bots.spec import BotSpec
from solver.errors import BotSpecError

__all__ = ["BOTS", "Bot", "BotSpec", "BotSpecError", "budget_clock", "ISMCTS", "LABEL_ROLLOUT", "NetC", "OOS",
           "DEFAULT_SPEC", "Observations", "POOL", "SEARCH_BOTS", "SearchBot", "bias_needed", "check_for_players",
           "heuristic_playouts", "load_net", "make_bot", "parse_spec", "report_progress",
           "spec_help", "time_playouts"]


def budget_clock() -> float:
    """The searches' clock (``bots._budget.clock``, which tests replace): a
    host's deadline read on it agrees with the searches' own."""
    return _budget.clock()


def report_progress(callback) -> None:
    """Calls ``callback(n)`` with every ``n`` iterations a search in this
    process has done (None: stop); the web server's search processes set it
    to show an analysis's progress."""
    _budget.progress = callback
