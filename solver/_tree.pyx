# cython: language_level=3
"""Exact tree walks over the core (cimports its .pxd): the size of a variant.

``tree_size`` visits every history of a game (chance outcomes expanded) and
counts nodes, terminal histories and the distinct information states of each
player at that player's decision nodes.
"""

from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free

from solver._core cimport (Config, State, Rng, NUM_ACTIONS, legal_actions,
                           apply_action_n, sample_chance, rng_seed, rng_below,
                           chance_outcomes, apply_action, is_chance,
                           is_terminal, current_player, info_hash)
from solver._core cimport CoreConfig, Core


ctypedef struct HashSet:
    uint64_t* slots            # open addressing; 0 marks an empty slot
    size_t cap                 # a power of two
    size_t size                # keys stored


cdef int _set_grow(HashSet* h) noexcept nogil:
    cdef size_t old_cap = h.cap, i, j
    cdef uint64_t* old = h.slots
    cdef uint64_t k
    h.cap = old_cap * 2
    h.slots = <uint64_t*>calloc(h.cap, sizeof(uint64_t))
    if h.slots == NULL:
        return -1
    for i in range(old_cap):
        k = old[i]
        if k:
            j = k & (h.cap - 1)
            while h.slots[j]:
                j = (j + 1) & (h.cap - 1)
            h.slots[j] = k
    free(old)
    return 0


cdef int _set_add(HashSet* h, uint64_t k) noexcept nogil:
    cdef size_t j
    if k == 0:
        k = 1
    if (h.size + 1) * 2 > h.cap:
        if _set_grow(h) < 0:
            return -1
    j = k & (h.cap - 1)
    while h.slots[j]:
        if h.slots[j] == k:
            return 0
        j = (j + 1) & (h.cap - 1)
    h.slots[j] = k
    h.size += 1
    return 0


ctypedef struct Counts:
    long long nodes            # every history, chance and terminal included
    long long terminals        # terminal histories
    long long decisions        # player decision nodes
    long long cap              # stop after this many nodes
    double polish_value        # Polish win probability under uniform play
    HashSet sets[2]            # information states seen per player


cdef double _walk(const Config* c, const State* s, Counts* k) noexcept nogil:
    """Visits the subtree; returns the Polish win probability under uniform
    random play (a cheap check value)."""
    cdef int acts[NUM_ACTIONS]
    cdef double probs[NUM_ACTIONS]
    cdef int n, i, p
    cdef State child
    cdef double v = 0.0
    k.nodes += 1
    if k.nodes > k.cap:
        return 0.0
    if is_terminal(s):
        k.terminals += 1
        return 1.0 if s.winner == 0 else 0.0
    if is_chance(s):
        n = chance_outcomes(c, s, acts, probs)
        for i in range(n):
            child = s[0]
            apply_action(c, &child, acts[i])
            v += probs[i] * _walk(c, &child, k)
        return v
    p = current_player(s)
    k.decisions += 1
    _set_add(&k.sets[p], info_hash(c, s, p))
    n = legal_actions(c, s, acts)
    for i in range(n):
        child = s[0]
        apply_action(c, &child, acts[i])
        v += _walk(c, &child, k) / n
    return v


def tree_size(Core root, long long cap=10**9):
    """Counts of the full game tree below ``root``; ``complete`` is False
    when the walk stopped at ``cap`` nodes."""
    cdef Counts k
    cdef int p
    cdef double v
    k.nodes = 0
    k.terminals = 0
    k.decisions = 0
    k.cap = cap
    for p in range(2):
        k.sets[p].cap = 1 << 16
        k.sets[p].size = 0
        k.sets[p].slots = <uint64_t*>calloc(k.sets[p].cap, sizeof(uint64_t))
    try:
        with nogil:
            v = _walk(&root.config.c, &root.s, &k)
        return {"histories": k.nodes, "terminal_histories": k.terminals,
                "decision_nodes": k.decisions,
                "infosets": [k.sets[0].size, k.sets[1].size],
                "uniform_polish_win": v, "complete": k.nodes <= cap}
    finally:
        free(k.sets[0].slots)
        free(k.sets[1].slots)


def playout_stats(Core root, int games, seed):
    """Plays ``games`` uniformly random games from ``root`` in C.

    Returns the decisions and chance events applied (``transitions``: the
    nodes pyspiel would see), all state changes including the automatic
    moves of R29/R30 (``steps``), Polish wins and seconds.
    """
    from time import perf_counter
    cdef Rng r
    cdef State s
    cdef int buf[NUM_ACTIONS]
    cdef int n, i, a
    cdef long long transitions = 0, steps = 0, polish = 0
    cdef const Config* c = &root.config.c
    rng_seed(&r, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
    t0 = perf_counter()
    with nogil:
        for i in range(games):
            s = root.s
            n = 0
            while not is_terminal(&s):
                if is_chance(&s):
                    a = sample_chance(c, &s, &r)
                else:
                    if n == 0:
                        n = legal_actions(c, &s, buf)
                    a = buf[rng_below(&r, n)]
                n = apply_action_n(c, &s, a, buf)
                if is_chance(&s):
                    n = 0
                transitions += 1
            steps += s.moves - root.s.moves
            polish += s.winner == 0
    return {"transitions": transitions, "steps": steps, "polish_wins": polish,
            "seconds": perf_counter() - t0}
