"""The exact last-turn solver: its public face (the search is :mod:`exact._endgame`).

From a position of the last turn after its draw and V-2 steps, with both
decks empty, nobody holds a secret (R26): the game is one of perfect
information with dice, and an expectimax gives the exact win probability
of every action.  :func:`solvable` says whether a position is there (see
``exact/_endgame.pyx`` for what "solvable" is made of), :func:`solve`
solves it within a node and time budget::

    from exact.endgame import solvable, solve
    if solvable(core):
        result = solve(core, max_seconds=1.0)
        if result.complete:
            print(result.best, result.value, [a.value for a in result.actions])

Values are win probabilities of the player to move, read from the core's
terminal returns (ties go to the German, R22).  A :class:`Solution` that is
``complete`` is exact; an incomplete one says so, and gives the rows it did
finish (every row it gives is exact when ``every_action`` is on).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from exact._endgame import Solver, key_bytes, solvable as _solvable
from solver import Core

__all__ = ["ActionValue", "Solution", "Solver", "solvable", "solve", "key_bytes",
           "DEFAULT_TABLE_ENTRIES"]

DEFAULT_TABLE_ENTRIES = 1 << 19   # transposition-table slots (112 bytes each: 56 MiB)


def _core_of(state: Any) -> Core:
    return state.core if hasattr(state, "core") else state


def solvable(state: Any) -> bool:
    """True if the position (a core or a pyspiel state) is in the solvable
    region: the last turn past its draw, redraw and V-2 steps, both decks
    empty, not yet over.  Only there is anything claimed exact."""
    core = _core_of(state)
    return not core.is_terminal() and _solvable(core)


@dataclass(frozen=True)
class ActionValue:
    """One option at the root: ``lo``/``hi`` bound the win probability of
    the player to move after it (``exact``: ``lo == hi == value``); at a
    chance root, ``probability`` is the outcome's."""

    action: int
    value: float               # lo == hi when exact; else the bound that proves it no better
    lo: float
    hi: float
    exact: bool
    probability: float | None = None


@dataclass(frozen=True)
class Solution:
    """The result of :func:`solve`.

    ``complete``: the budget sufficed, so ``best``, ``value`` and every
    exact row are exact.  ``player``: the player to move (-1 at a chance
    node); ``value``: that player's win probability under perfect play (at
    a chance node, the Polish one); ``polish``: the Polish win probability.
    ``nodes``: positions the search visited; ``probes``/``hits``: lookups
    of the transposition table and those that found their position.
    """

    complete: bool
    player: int
    actions: tuple[ActionValue, ...]
    best: int | None
    value: float | None
    polish: float | None
    nodes: int
    seconds: float
    probes: int
    hits: int
    cutoffs: int

    @property
    def hit_rate(self) -> float:
        return self.hits / self.probes if self.probes else 0.0

    def optimal(self, tolerance: float = 1e-9) -> tuple[int, ...]:
        """The actions whose exact value is within ``tolerance`` of the best."""
        if not self.complete or self.value is None:
            return ()
        return tuple(a.action for a in self.actions
                     if a.exact and a.value >= self.value - tolerance)

    def value_of(self, action: int) -> float | None:
        """The exact value of ``action`` (None if not exact or not solved)."""
        row = next((a for a in self.actions if a.action == action), None)
        return row.value if row is not None and row.exact else None


def solve(state: Any, max_nodes: int = 0, max_seconds: float = 0.0, *,
          every_action: bool = True, solver: Solver | None = None,
          keep_table: bool = False, clock: Callable[[], float] | None = None,
          table_entries: int = DEFAULT_TABLE_ENTRIES) -> Solution:
    """Solves a position of the solvable region (a core or a pyspiel state)
    within ``max_nodes`` positions and ``max_seconds`` (0: no limit; the
    time on ``clock``, by default ``time.perf_counter``).

    ``every_action``: each action's exact value (otherwise only the best
    action's, the others proved no better: cheaper, enough to play).
    ``solver``: a :class:`Solver` to reuse (its table is cleared first
    unless ``keep_table``: the table holds bounds on positions' own values,
    valid from any root, so a bot keeps it from move to move); by default
    a new one with ``table_entries`` slots and ``clock``.
    Raises ValueError outside the solvable region."""
    core = _core_of(state)
    if not solvable(core):
        raise ValueError("endgame: the position is not in the solvable region (the last turn "
                         "after its V-2 step, both decks empty): hidden information remains")
    clock = clock or time.perf_counter
    if solver is None:
        solver = Solver(table_entries=table_entries, clock=clock)
    elif not keep_table:
        solver.clear()
    t0 = time.perf_counter()
    complete, rows, nodes = solver.solve(core, max_nodes=max_nodes, max_seconds=max_seconds,
                                         every_action=every_action)
    seconds = time.perf_counter() - t0
    player = core.current_player()
    german = player == 1
    probs = dict(core.chance_outcomes()) if player == -1 else {}
    actions = []
    for action, lo, hi in rows:
        if german:
            lo, hi = 1.0 - hi, 1.0 - lo
        exact = lo == hi
        # a bound row's value is its upper bound: the most it can be worth
        actions.append(ActionValue(action, hi, lo, hi, exact, probs.get(action)))
    best = value = polish = None
    if complete:
        if player == -1:
            polish = sum(probs[a.action] * a.value for a in actions)
            value = polish
        else:
            top = max(a.value for a in actions if a.exact)
            best = next(a.action for a in actions if a.exact and a.value == top)
            value = top
            polish = 1.0 - top if german else top
    st = solver.table_stats()
    return Solution(complete, player, tuple(actions), best, value, polish, nodes, seconds,
                    st["probes"], st["hits"], solver.cutoffs)
