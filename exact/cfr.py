"""Exact solving of games small enough to enumerate.

The public face of :mod:`exact._cfr` (Cython, on flat C arrays):

* :func:`game_graph` enumerates a game: ``wildhorn`` variants through the
  core, with transpositions merged (``tiny``: 2,322 nodes for 30,155
  histories; ``small``: 131,891 for 1.3*10^8), any other two-player pyspiel
  game (``kuhn_poker``, ``leduc_poker``) through the generic adapter;
* :func:`solve` runs CFR+ (``"cfr+"``, the algorithm of OpenSpiel's
  ``CFRPlusSolver``, iterate for iterate), vanilla ``"cfr"``, outcome sampling
  (``"outcome"``) or external sampling (``"external"``) MCCFR for a number of
  iterations, a time, or until a NashConv target, and records the curve;
* :func:`nash_conv`, :func:`best_response`, :func:`expected_value`: exact
  evaluation of a policy, computed as OpenSpiel's ``exploitability.nash_conv``
  computes it (equal to 1e-9 on ``tiny``, where recall is imperfect);
* :func:`bot_policy`: the policy a search bot would play at every information
  set that matters for NashConv, to measure a bot's exploitability exactly.

A *policy* is a numpy array with one probability per (information set,
legal action) slot of a graph; ``graph.infoset_slots(i)`` gives the slots of
set ``i``, ``graph.to_tabular_policy(game, policy)`` the OpenSpiel policy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from exact._cfr import GameGraph, Solver, best_response, expected_value, nash_conv

__all__ = ["GameGraph", "Solver", "Point", "best_response", "bot_policy",
           "expected_value", "game_graph", "nash_conv", "solve", "win_probability"]

ALGORITHMS = ("cfr+", "cfr", "outcome", "external")


def game_graph(game: Any, max_nodes: int = 200_000_000) -> GameGraph:
    """The enumerated graph of a pyspiel game (wildhorn through its core)."""
    if game.get_type().short_name == "wildhorn":
        return GameGraph.from_core(game.new_initial_state().core, max_nodes=max_nodes)
    return GameGraph.from_pyspiel(game, max_nodes=max_nodes)


def win_probability(graph: GameGraph, policy: np.ndarray) -> float:
    """Player 0's win probability when returns are +1/-1 (Wildhorn: Polish)."""
    return (expected_value(graph, policy) + 1.0) / 2.0


@dataclass
class Point:
    """One point of a convergence curve."""

    iterations: int            # solver iterations done
    seconds: float             # solver wall-clock seconds (evaluation excluded)
    nash_conv: float           # NashConv of the average policy
    value: float               # player 0's expected return under it


def solve(graph: GameGraph, algorithm: str = "cfr+", *, iterations: int | None = None,
          seconds: float | None = None, target: float | None = None,
          checkpoints: int = 40, seed: int = 0, epsilon: float = 0.6,
          first: int = 1) -> tuple[Solver, list[Point]]:
    """Runs ``algorithm`` until ``iterations``, ``seconds`` of solver time or a
    NashConv ``target`` (whichever comes first; at least one must be given)
    and returns the solver and its curve: the average policy evaluated at
    geometrically spaced iteration counts (from ``first``, ``checkpoints / 4``
    evaluations per tenfold increase), and at the end.  Evaluation time is
    not counted in ``seconds``."""
    if iterations is None and seconds is None and target is None:
        raise ValueError("solve: give iterations, seconds or target")
    solver = Solver(graph, algorithm, epsilon=epsilon, seed=seed)
    curve: list[Point] = []
    spent = 0.0
    step_ratio = 10 ** (1.0 / max(checkpoints / 4, 1))
    next_eval = max(first, 1)
    while True:
        todo = next_eval - solver.iterations
        if iterations is not None:
            todo = min(todo, iterations - solver.iterations)
        t0 = time.perf_counter()
        solver.iterate(max(todo, 0))
        spent += time.perf_counter() - t0
        policy = solver.average_policy()
        nc = nash_conv(graph, policy)
        curve.append(Point(solver.iterations, spent, nc, expected_value(graph, policy)))
        if (iterations is not None and solver.iterations >= iterations) \
                or (seconds is not None and spent >= seconds) \
                or (target is not None and nc <= target):
            return solver, curve
        next_eval = max(solver.iterations + 1, int(round(solver.iterations * step_ratio)))


def first_below(curve: list[Point], level: float) -> Point | None:
    """The first point of ``curve`` with NashConv at most ``level``."""
    return next((p for p in curve if p.nash_conv <= level), None)


def bot_policy(graph: GameGraph, policy_of: Callable[[Any, int], dict[int, float]],
               progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, int]:
    """The policy that ``policy_of(core, set_index) -> {action: probability}``
    plays, asked only at the information sets NashConv depends on: those
    reached when one player follows it and the other tries every action
    (for each player in turn).  Elsewhere the policy is uniform, which
    changes neither best response nor on-policy values.  Returns the slot
    policy and how many sets were asked.  Core-built graphs only."""
    a = graph.arrays()
    kind, player, first, count, iset, child = (a["kind"], a["player"], a["first"],
                                               a["count"], a["iset"], a["child"])
    policy = graph.uniform_policy()
    asked: dict[int, np.ndarray] = {}

    def probs(i: int) -> np.ndarray:
        if i not in asked:
            chosen = policy_of(graph.infoset_core(i), i)
            f, n = graph.infoset_slots(i)
            actions = graph.infoset_actions(i)
            row = np.array([float(chosen.get(act, 0.0)) for act in actions])
            total = row.sum()
            if total <= 0 or set(chosen) - set(actions):
                raise ValueError(f"bot policy at information set {i}: "
                                 f"{chosen!r} is not a distribution over {actions}")
            policy[f:f + n] = row / total
            asked[i] = policy[f:f + n]
            if progress is not None:
                progress(len(asked))
        return asked[i]

    root = graph.nodes - 1
    for responder in (0, 1):
        seen = np.zeros(graph.nodes, dtype=bool)
        stack = [root]
        while stack:
            n = stack.pop()
            if seen[n]:
                continue
            seen[n] = True
            if kind[n] == 0:
                continue
            kids = child[first[n]:first[n] + count[n]]
            if kind[n] == 1 or player[n] == responder:
                stack.extend(int(k) for k in kids)
            else:
                p = probs(int(iset[n]))
                stack.extend(int(k) for k, q in zip(kids, p) if q > 0.0)
    return policy, len(asked)
