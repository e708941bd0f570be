# cython: language_level=3
"""Training labels in C: the mean result of heuristic playouts from a
position (``heuristic_playouts``), the low-noise first target of the value
network (``wildhorn-solve train``, apps.train).

The playouts are the searchers' own (``_searchtree.playout``) with the
searchers' default policy, ``rollout=heuristic`` (the heuristic bot's rules
in C at 90% of the decisions, informed at the rest): the value a search's
leaf gets from one playout, averaged over ``n``, so a network trained on it
stands in for exactly what the search computes at its leaves.
"""

from libc.stdint cimport uint64_t

from bots._searchtree cimport ROLLOUT_HEURISTIC, playout
from solver._core cimport (
    NUM_ACTIONS, Config, Core, Rng, State, is_chance, is_terminal, legal_actions, rng_seed,
)

ROLLOUT = "heuristic"   # the policy of the playouts (bots.registry's rollout=heuristic)


cdef int polish_wins(const Config* c, const State* start, int n, Rng* r) noexcept nogil:
    """How many of ``n`` playouts from ``start`` the Polish side (0) wins."""
    cdef State s
    cdef int buf[NUM_ACTIONS]
    cdef int i, k, wins = 0
    for i in range(n):
        s = start[0]
        k = 0
        if not is_chance(&s) and not is_terminal(&s):
            k = legal_actions(c, &s, buf)
        if playout(c, &s, buf, k, ROLLOUT_HEURISTIC, r) == 0:
            wins += 1
    return wins


def heuristic_playouts(Core core, n, seed):
    """The Polish side's mean result over ``n`` heuristic playouts from
    ``core`` (a complete position, left unchanged), seeded by ``seed``: the
    same seed gives the same value.  A finished game gives its result."""
    cdef int count = n
    cdef Rng r
    cdef int wins
    if count <= 0:
        raise ValueError(f"heuristic_playouts: n must be positive, got {n}")
    if is_terminal(&core.s):
        return 1.0 if core.s.winner == 0 else 0.0
    rng_seed(&r, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
    with nogil:
        wins = polish_wins(&core.config.c, &core.s, count, &r)
    return wins / <double>count
