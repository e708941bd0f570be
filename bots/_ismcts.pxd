# cython: language_level=3
"""The informed playout policy of ``bots._ismcts``, shared with the other
Cython searchers (``bots._oos``): they ``cimport`` it from here instead of
keeping a copy of it."""

from solver._core cimport Config, Rng, State

cdef enum:
    ROLLOUT_RANDOM = 0         # playouts: uniform over the legal actions
    ROLLOUT_INFORMED = 1       # playouts: actions in proportion to _weight
    ROLLOUT_HEURISTIC = 2      # playouts: the heuristic bot's rules (bots._policy), mixed with informed
    ROLLOUT_HEURISTIC_PURE = 3 # playouts: the heuristic bot's rules only

cdef int informed_action(const int* acts, int n, Rng* r) noexcept nogil
cdef int playout(const Config* c, State* s, int* buf, int n, int policy, Rng* r) noexcept nogil
