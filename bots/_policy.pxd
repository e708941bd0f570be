# cython: language_level=3
"""The heuristic bot's rules (bots.heuristic) in C: the bot's choice, and
the Cython searchers' playout policy, prior and opponent model (see
_policy.pyx)."""

from solver._core cimport Config, Rng, State

# The actions the rules score best at decision node s (``legal``: its ``n``
# legal actions, ascending), written to ``out`` (room for ``n``) in the order
# the rules score them; returns their count (1 unless exact ties).
cdef int heuristic_ties(const Config* c, const State* s, const int* legal, int n,
                        int* out) noexcept nogil
# One of those actions, exact ties broken with ``r`` (not drawn from otherwise).
cdef int heuristic_action(const Config* c, const State* s, const int* legal, int n,
                          Rng* r) noexcept nogil
