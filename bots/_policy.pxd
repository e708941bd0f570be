# cython: language_level=3
"""The heuristic bot's rules (bots.heuristic) in C, as a playout policy for
the Cython searchers (see _policy.pyx)."""

from solver._core cimport Config, Rng, State

cdef int heuristic_ties(const Config* c, const State* s, const int* legal, int n,
                        int* out) noexcept nogil
cdef int heuristic_action(const Config* c, const State* s, const int* legal, int n,
                          Rng* r) noexcept nogil
