"""A rule-of-thumb bot: plays Operation Wildhorn III as a sensible human would.

It decides from the current position only (no search, no look-ahead), in a
few microseconds, and is deterministic for a seed: ``random.Random(seed)``
only breaks exact ties between equally scored actions.  It reads only what
its player may know (R25, R26): the table, the fragments, the action under
resolution and its own hand; never the opponent's hand or the order of a
deck.

The rules below are computed in C by ``bots._policy`` (which the searchers'
playouts, priors and opponent model use too): this module asks it for the
tied-best actions, in the order the rules score them, and draws among them
with its own seeded stream.  ``tests/heuristic_oracle.py`` writes the same
rules one by one in Python; the tests hold the two equal.

Every kind of decision point has its rule (``PHASE_NAMES``):

* ``actions`` (main step): every legal action gets a score and the best one
  is taken; passing scores 0, so the bot passes only when nothing useful is
  left.  From high to low: steal (a steal moves the score by two, R17),
  search, Operation Wildhorn III when a thief threatens the Forest, Hidden
  Fragments when only the enemy has a fresh searcher in the Periphery,
  attacks on searchers / stealers (or the units guarding them) at better
  than even odds, Command / High Morale to refresh a searcher or stealer
  that can act at once, Volunteers / Motorized Column when two useful
  actions can be chained, moving searchers to the Periphery, stealers
  towards the enemy home, escorts to where the searchers are, placing
  searchers, then fighters, then Support cards.
* ``escort``: a fresh unit with more bullets takes the place of a
  threatened searcher, stealer or Support card.
* ``ambush``: on a valuable defender, or when the odds are poor.
* ``modifiers``: only when they change the outcome, with the cheapest
  sufficient modifier (Assistance before Good Luck before Bad Luck for the
  acting player; Assistance before Bad Luck before Good Luck for the other);
  when no single one suffices, several are spent only on a steal or an
  attack on a searcher or stealer, and only if together they suffice.
* ``witnesses``: when the search needs 4 or more on the die.
* ``nurses``: for a Unit with 2+ bullets, a searcher or a stealer.
* ``motorcycle``: when the moving unit can act usefully where it arrives.
* ``target``: stealers and searchers first, then the weakest defender.
* ``refresh``: the exhausted unit that can act most usefully.
* ``zone`` as the movement rule, ``number``: hide 2, ``redraw``: only when
  the five cards drawn hold no Unit and it is not the last turn.
"""

from __future__ import annotations

import random
from typing import Any

from bots._policy import heuristic_best
from bots.base import Bot, _core_of

__all__ = ["HeuristicBot"]


class HeuristicBot(Bot):
    """Plays by rules of thumb (see the module docstring)."""

    name = "heuristic"

    def __init__(self, player: int, seed: int = 0):
        super().__init__(player, seed)
        self._rng = random.Random(seed)

    def analyse(self, state: Any) -> dict[str, Any]:
        """The rules' choice at ``state`` (a pyspiel state or a core
        position); ``"tied"``: every action the rules score best, sorted (the
        seeded stream chose ``"action"`` among them), one unless exact ties."""
        best = heuristic_best(_core_of(state))  # ValueError at a chance or terminal node
        action = best[0] if len(best) == 1 else self._rng.choice(best)
        return {"action": action, "policy": {action: 1.0}, "value": None, "tied": sorted(best)}
