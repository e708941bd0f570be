# cython: language_level=3
"""Interface of the exact last-turn solver (see _endgame.pyx).

An expectimax with alpha-beta bounds over the core's ``State`` (cimported
from solver._core), values being the Polish win probability in [0, 1], and a
transposition table keyed by the complete packed position.
"""

from libc.stdint cimport int16_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from solver._core cimport NCARDS, NUM_ACTIONS, PH_COUNT, Config, State

cdef enum:
    KEY_BYTES = 80             # bytes of a packed position (pack_key)
    BUCKET = 4                 # slots per table bucket (replacement: least work)
    MAX_LEAVES = 40            # outcomes of chained chance steps merged at once (two dice: 36)
    MAX_CHAIN = 2              # chance steps in a row expanded together (an attack's two dice)


ctypedef struct Entry:
    uint64_t hash              # hash of key (0: an empty slot)
    uint8_t key[KEY_BYTES]     # the complete packed position (compared on every hit)
    double lo                  # lower bound on the Polish win probability
    double hi                  # upper bound (lo == hi: exact)
    uint32_t work              # nodes the search below it took (replacement priority)
    int16_t move               # the best action found at a decision node (-1: none), tried first
    uint16_t gen               # the table's generation when written (another: an empty slot)


ctypedef struct Leaf:
    uint64_t hash              # hash of key; 0: the game is over there (value holds the result)
    double p                   # probability of reaching it from the chance node
    double value               # the Polish win probability at the game's end (hash 0)
    int path[MAX_CHAIN]        # the chance outcomes leading to it (-1: none)
    int depth                  # chance steps on the way
    uint8_t key[KEY_BYTES]     # the position's key (pack_key)


ctypedef struct Groups:
    uint8_t order[NCARDS]      # every card slot, group by group (a group: cards whose data are equal)
    uint8_t start[NCARDS + 1]  # group k is order[start[k]:start[k + 1]]
    uint8_t rep[NCARDS]        # per card, the first card of its group (its name in a canonical key)
    int count                  # groups


ctypedef struct Table:
    Entry* slots               # cap entries, in buckets of BUCKET
    int64_t cap                # slots, a power of two (at least BUCKET)
    int64_t used               # slots holding a position
    int64_t probes             # lookups
    int64_t hits               # lookups that found their position
    int64_t stores             # entries written (new or updated)
    int64_t evictions          # positions overwritten by another one
    uint16_t gen               # current generation (a clear starts a new one)


cdef void make_groups(const Config* c, bint merge, Groups* g) noexcept nogil
cdef int pack_key(const Config* c, const State* s, const Groups* g, bint reach,
             uint8_t* out) noexcept nogil
cdef bint in_solvable_region(const Config* c, const State* s) noexcept nogil


cdef class Solver:
    cdef Table table           # the transposition table (kept across solve calls)
    cdef Groups groups         # how cards are keyed: interchangeable ones merged if canonical
    cdef readonly long long nodes      # positions visited by the last solve
    cdef long long max_nodes           # node budget of the current solve (0: none)
    cdef long long next_check          # node count at which the clock is read next
    cdef double deadline               # clock() value past which the solve stops (0: none)
    cdef object clock                  # the time source (a Python callable; tests inject one)
    cdef readonly bint aborted         # 1 if the last solve ran out of its budget
    cdef readonly bint ordering        # 1: the table's remembered best action searched first
    cdef readonly bint bounds          # 1: alpha-beta / star1 cut-offs (0: plain expectimax)
    cdef readonly bint canonical       # 1: positions equal up to swapping identical cards share a key
    cdef readonly bint history         # 1: untried actions ordered by the cut-offs they gave elsewhere
    cdef readonly bint merging         # 1: chained chance steps expanded together, outcomes merged by key
    cdef readonly bint transpositions  # 1: the table looked up and stored (0: every position searched anew)
    cdef readonly bint reach           # 1: a modifier window's margin keyed only as far as the modifiers left can move it
    cdef uint32_t hist[2][PH_COUNT][NUM_ACTIONS]  # per player and step, cut-off weight of each action (this solve)
    cdef readonly long long cutoffs    # cut-offs taken (decision and chance nodes)
    cdef long long step_nodes[PH_COUNT]  # positions visited by the last solve or probe, by step (they add up to nodes)
    cdef void _count(self, const State* s) noexcept nogil
    cdef double _value(self, const Config* c, const State* s, double alpha,
                       double beta) noexcept nogil
    cdef double _chance(self, const Config* c, const State* s, double alpha,
                        double beta) noexcept nogil
    cdef double _decision(self, const Config* c, const State* s, double alpha,
                          double beta, int hint, int* move) noexcept nogil
    cdef double _star1(self, const Config* c, const State* s, double alpha, double beta,
                       int m, const Leaf* leaves, const int* order, const int* acts,
                       const double* probs, double done, double rest) noexcept nogil
    cdef int _expand(self, const Config* c, const State* s, double p, Leaf* leaves, int* n,
                     int depth) noexcept nogil
    cdef void _by_history(self, const State* s, int* order, int first, int m) noexcept nogil
    cdef void _credit(self, const State* s, int action) noexcept nogil
    cdef bint _out_of_budget(self) noexcept nogil
