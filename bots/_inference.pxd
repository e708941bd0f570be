# cython: language_level=3
"""Opponent-hand inference for the tree searchers (see _inference.pyx)."""

from bots._searchtree cimport Descent
from solver._core cimport Config, Rng, State

ctypedef struct Record:        # one public event the viewer saw, this turn
    State m                    # the position just before it, masked to the viewer's view
    int action                 # the action (a chance outcome, the viewer's or the opponent's play)
    int opponent               # 1: the opponent's play (never a pass or decline), weighed with
                               # the decisions it had before the next record; 2: a play known
                               # alone (advise's opponent_plays), weighed alone; 0: other
    int hand                   # the opponent's hand size then (public)

ctypedef struct Beliefs:       # weighted worlds of one search (n == 0: uniform resampling)
    State* worlds              # n sampled worlds
    double* cum                # cumulative weights (cum[n - 1] the total)
    int n                      # worlds in the pool
    int cap                    # slots allocated

cdef void mask_state(const Config* c, State* s, int viewer) noexcept nogil
cdef double world_loglik(const Config* c, const State* world, const Record* recs, int nrec,
                         int viewer, double trust) noexcept nogil
cdef void descent_start_beliefs(Descent* d, const Config* c, const State* root, int searcher,
                                const Beliefs* b, Rng* r) noexcept nogil
cdef void beliefs_free(Beliefs* b) noexcept nogil


cdef class Observations:
    """The public events a viewer saw (the searchers' input for inference)."""
    cdef Record* recs
    cdef int n, cap
    cdef readonly int viewer
    cdef readonly object config
    cdef int _append(self, const State* s, int action, int opponent) except -1


cdef int beliefs_build(Beliefs* b, const Config* c, const State* root, int searcher,
                       Observations obs, double trust, int size, Rng* r) except -1
