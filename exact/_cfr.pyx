# cython: language_level=3
"""Tabular CFR-style solvers and exact best response on an enumerated game.

A game small enough to enumerate (``wildhorn`` variants ``tiny`` and
``small``, or any pyspiel game through :meth:`GameGraph.from_pyspiel`) is
turned into a :class:`GameGraph`: flat C arrays of nodes and edges in
*post-order* (every child has a smaller index than its parent; the root is
the last node).  Solvers then run on those arrays without the GIL.

Built from the Wildhorn core, the graph merges transpositions: two histories
that reach the same full position (the ``State`` struct, its ``moves``
counter aside) share one node, so the graph is a DAG.  This is exact for
everything computed here, because a position's future (legal actions, chance,
returns, information states) depends only on the position and every strategy
is a function of the information state: the value of a node is a function of
the node, and every sum over the histories of an information set becomes a
sum over its nodes of *path sums* (the sum over the paths from the root of
the product of edge weights), which a forward sweep computes.  Positions are
identified by a 128-bit hash of their bytes (two independent 64-bit hashes);
a collision among the ~10^7 positions of ``small`` has probability ~10^-24.

Information sets are keyed by the core's 64-bit ``info_hash`` (or by the
information-state string for a pyspiel game); every node of an information
set must offer the same legal actions, which the builder checks.

Algorithms (all on the same graph):

* **CFR+** (Tammelin 2014): alternating updates, regret matching+, linear
  averaging -- the variant OpenSpiel's ``CFRPlusSolver`` runs.
* **CFR** (Zinkevich et al. 2007), simultaneous updates, for reference.
* **Outcome-sampling MCCFR** (Lanctot et al. 2009): one sampled trajectory per
  iteration, epsilon-on-policy exploration at the update player's nodes,
  importance-weighted regrets, stochastically weighted averaging.
* **External-sampling MCCFR**: the update player's actions all explored,
  chance and the opponent sampled, simple averaging at the opponent's nodes.
* **Best response** exactly as OpenSpiel's ``best_response.BestResponsePolicy``
  computes it (the best-responder picks, at each of its information sets,
  the action maximizing the sum over the set's histories of the
  counterfactual reach times the action's value, ties to the first legal
  action), so :func:`nash_conv` equals OpenSpiel's
  ``exploitability.nash_conv`` -- also when the information state forgets
  (the Wildhorn key is the current view, so recall is imperfect).

Values are returns of player 0 (+1 win, -1 loss in Wildhorn); a Polish win
probability is ``(v + 1) / 2``.
"""

cimport cython
from libc.math cimport fabs
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

import numpy as np

from solver._core cimport (
    NUM_ACTIONS, Config, Core, CoreConfig, Rng, State, apply_action,
    chance_outcomes, current_player, info_hash, is_chance, is_terminal,
    legal_actions, returns_of, rng_seed, rng_unit,
)

cdef enum:
    N_TERMINAL = 0
    N_CHANCE = 1
    N_DECISION = 2


# ---- a 128-bit position hash and a table from it to node indices -------------

cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    x ^= x >> 30
    x *= 0xbf58476d1ce4e5b9ULL
    x ^= x >> 27
    x *= 0x94d049bb133111ebULL
    x ^= x >> 31
    return x


cdef void _hash_state(const State* s, uint64_t* h1, uint64_t* h2) noexcept nogil:
    """Two independent 64-bit hashes of the position's bytes, ``moves`` zeroed
    (a decision counter that nothing else reads)."""
    cdef State t = s[0]
    cdef const uint8_t* b = <const uint8_t*>&t
    cdef size_t n = sizeof(State), i
    cdef uint64_t w, a = 0x9E3779B97F4A7C15ULL, c = 0xC2B2AE3D27D4EB4FULL
    t.moves = 0
    i = 0
    while i + 8 <= n:
        memcpy(&w, b + i, 8)
        a = _mix(a ^ w) + 0x632BE59BD9B4E019ULL
        c = _mix(c + w * 0x9E3779B97F4A7C15ULL) ^ (c >> 17)
        i += 8
    w = 0
    if i < n:
        memcpy(&w, b + i, n - i)
    h1[0] = _mix(a ^ w ^ n)
    h2[0] = _mix(c + w + 0x1234567ULL)


ctypedef struct Table:
    uint64_t* k1               # first hash (0 marks an empty slot)
    uint64_t* k2               # second hash
    int64_t* val               # the value stored (node or information set index)
    int64_t cap                # slots, a power of two
    int64_t size               # keys stored


cdef int _table_init(Table* t, int64_t cap) noexcept nogil:
    t.cap = cap
    t.size = 0
    t.k1 = <uint64_t*>calloc(cap, sizeof(uint64_t))
    t.k2 = <uint64_t*>calloc(cap, sizeof(uint64_t))
    t.val = <int64_t*>calloc(cap, sizeof(int64_t))
    return -1 if t.k1 == NULL or t.k2 == NULL or t.val == NULL else 0


cdef void _table_free(Table* t) noexcept nogil:
    free(t.k1)
    free(t.k2)
    free(t.val)
    t.k1 = NULL
    t.k2 = NULL
    t.val = NULL


cdef int64_t _table_get(const Table* t, uint64_t a, uint64_t b) noexcept nogil:
    cdef int64_t j
    if a == 0:
        a = 1
    j = <int64_t>(a & <uint64_t>(t.cap - 1))
    while t.k1[j]:
        if t.k1[j] == a and t.k2[j] == b:
            return t.val[j]
        j = (j + 1) & (t.cap - 1)
    return -1


cdef int _table_put(Table* t, uint64_t a, uint64_t b, int64_t v) noexcept nogil:
    cdef Table g
    cdef int64_t i, j
    if a == 0:
        a = 1
    if (t.size + 1) * 2 > t.cap:
        if _table_init(&g, t.cap * 2) < 0:
            return -1
        for i in range(t.cap):
            if t.k1[i]:
                j = <int64_t>(t.k1[i] & <uint64_t>(g.cap - 1))
                while g.k1[j]:
                    j = (j + 1) & (g.cap - 1)
                g.k1[j] = t.k1[i]
                g.k2[j] = t.k2[i]
                g.val[j] = t.val[i]
        g.size = t.size
        _table_free(t)
        t[0] = g
    j = <int64_t>(a & <uint64_t>(t.cap - 1))
    while t.k1[j]:
        j = (j + 1) & (t.cap - 1)
    t.k1[j] = a
    t.k2[j] = b
    t.val[j] = v
    t.size += 1
    return 0


# ---- the graph ----------------------------------------------------------------

ctypedef struct Graph:
    int64_t n_nodes            # nodes (post-order; the root is n_nodes - 1)
    int64_t n_edges            # edges
    int32_t n_sets             # information sets
    int64_t n_slots            # (information set, action) pairs
    uint8_t* kind              # per node: N_TERMINAL, N_CHANCE or N_DECISION
    int8_t* player             # per node: player to move (decision), else -1
    int64_t* first             # per node: index of its first edge
    int32_t* count             # per node: number of edges
    int32_t* iset              # per node: information set (decision), else -1
    double* util               # per node: return of player 0 (terminal), else 0
    int64_t* child             # per edge: child node
    double* prob               # per edge: chance probability (chance nodes), else 0
    int32_t* action            # per edge: action id
    int8_t* set_player         # per information set: its player
    int32_t* set_count         # per information set: number of actions
    int64_t* set_first         # per information set: its first slot
    int32_t* slot_action       # per slot: action id
    int64_t* member_first      # per information set: first entry in members (n_sets + 1)
    int64_t* members           # nodes of each information set, in node order
    int64_t cap_nodes          # allocated node entries
    int64_t cap_edges          # allocated edge entries
    int64_t cap_sets           # allocated information set entries
    int64_t cap_slots          # allocated slot entries


cdef void _graph_free(Graph* g) noexcept nogil:
    free(g.kind); free(g.player); free(g.first); free(g.count); free(g.iset)
    free(g.util); free(g.child); free(g.prob); free(g.action)
    free(g.set_player); free(g.set_count); free(g.set_first); free(g.slot_action)
    free(g.member_first); free(g.members)
    memset(g, 0, sizeof(Graph))


# ---- growable arrays ---------------------------------------------------------

cdef int64_t _capacity(int64_t cap, int64_t need) noexcept nogil:
    """The capacity, doubled from ``cap`` (at least 1024), that holds ``need``."""
    if cap < 1024:
        cap = 1024
    while cap < need:
        cap *= 2
    return cap


cdef int _realloc(void** p, int64_t n, size_t item) noexcept nogil:
    cdef void* q = realloc(p[0], <size_t>n * item)
    if q == NULL:
        return -1
    p[0] = q
    return 0


cdef int _grow_nodes(Graph* g, int64_t need) noexcept nogil:
    cdef int64_t n
    if need <= g.cap_nodes:
        return 0
    n = _capacity(g.cap_nodes, need)
    if (_realloc(<void**>&g.kind, n, sizeof(uint8_t)) < 0
            or _realloc(<void**>&g.player, n, sizeof(int8_t)) < 0
            or _realloc(<void**>&g.first, n, sizeof(int64_t)) < 0
            or _realloc(<void**>&g.count, n, sizeof(int32_t)) < 0
            or _realloc(<void**>&g.iset, n, sizeof(int32_t)) < 0
            or _realloc(<void**>&g.util, n, sizeof(double)) < 0):
        return -1
    g.cap_nodes = n
    return 0


cdef int _grow_edges(Graph* g, int64_t need) noexcept nogil:
    cdef int64_t n
    if need <= g.cap_edges:
        return 0
    n = _capacity(g.cap_edges, need)
    if (_realloc(<void**>&g.child, n, sizeof(int64_t)) < 0
            or _realloc(<void**>&g.prob, n, sizeof(double)) < 0
            or _realloc(<void**>&g.action, n, sizeof(int32_t)) < 0):
        return -1
    g.cap_edges = n
    return 0


cdef int _grow_sets(Graph* g, int64_t need_sets, int64_t need_slots) noexcept nogil:
    cdef int64_t n
    if need_sets > g.cap_sets:
        n = _capacity(g.cap_sets, need_sets)
        if (_realloc(<void**>&g.set_player, n, sizeof(int8_t)) < 0
                or _realloc(<void**>&g.set_count, n, sizeof(int32_t)) < 0
                or _realloc(<void**>&g.set_first, n, sizeof(int64_t)) < 0):
            return -1
        g.cap_sets = n
    if need_slots > g.cap_slots:
        n = _capacity(g.cap_slots, need_slots)
        if _realloc(<void**>&g.slot_action, n, sizeof(int32_t)) < 0:
            return -1
        g.cap_slots = n
    return 0


cdef int64_t _add_node(Graph* g, int kind, int player, int32_t iset, double util,
                       int n, const int64_t* children, const double* probs,
                       const int* actions) noexcept nogil:
    """Appends a node whose children are already in the graph; returns its index."""
    cdef int64_t v = g.n_nodes, e = g.n_edges
    cdef int i
    if _grow_nodes(g, v + 1) < 0 or _grow_edges(g, e + n) < 0:
        return -1
    g.kind[v] = kind
    g.player[v] = player
    g.first[v] = e
    g.count[v] = n
    g.iset[v] = iset
    g.util[v] = util
    for i in range(n):
        g.child[e + i] = children[i]
        g.prob[e + i] = probs[i] if probs != NULL else 0.0
        g.action[e + i] = actions[i]
    g.n_nodes = v + 1
    g.n_edges = e + n
    return v


cdef int32_t _add_set(Graph* g, int player, int n, const int* actions) noexcept nogil:
    cdef int32_t i = g.n_sets
    cdef int k
    if _grow_sets(g, i + 1, g.n_slots + n) < 0:
        return -1
    g.set_player[i] = player
    g.set_count[i] = n
    g.set_first[i] = g.n_slots
    for k in range(n):
        g.slot_action[g.n_slots + k] = actions[k]
    g.n_slots += n
    g.n_sets = i + 1
    return i


cdef int _same_actions(const Graph* g, int32_t i, int n, const int* actions) noexcept nogil:
    cdef int k
    if g.set_count[i] != n:
        return 0
    for k in range(n):
        if g.slot_action[g.set_first[i] + k] != actions[k]:
            return 0
    return 1


cdef int _index_members(Graph* g) noexcept nogil:
    """Fills member_first/members: the nodes of each information set."""
    cdef int64_t v, total = 0
    cdef int32_t i
    cdef int64_t* fill
    g.member_first = <int64_t*>calloc(g.n_sets + 1, sizeof(int64_t))
    if g.member_first == NULL:
        return -1
    for v in range(g.n_nodes):
        if g.kind[v] == N_DECISION:
            g.member_first[g.iset[v] + 1] += 1
            total += 1
    for i in range(g.n_sets):
        g.member_first[i + 1] += g.member_first[i]
    g.members = <int64_t*>malloc(max(total, 1) * sizeof(int64_t))
    fill = <int64_t*>calloc(g.n_sets + 1, sizeof(int64_t))
    if g.members == NULL or fill == NULL:
        free(fill)
        return -1
    for v in range(g.n_nodes):
        if g.kind[v] == N_DECISION:
            i = g.iset[v]
            g.members[g.member_first[i] + fill[i]] = v
            fill[i] += 1
    free(fill)
    return 0


# ---- building from the core -----------------------------------------------------

ctypedef struct Builder:
    Graph* g                   # the graph being filled
    const Config* c            # game data
    Table nodes                # position hash -> node index
    Table sets                 # information-state hash -> information set index
    State* reps                # a position of each information set (for Python)
    int64_t cap_reps           # allocated entries of reps
    int64_t max_nodes          # give up beyond this many nodes
    int error                  # 0, or 1 out of memory, 2 too big, 3 inconsistent set


cdef int _grow_reps(Builder* b, int64_t need) noexcept nogil:
    cdef int64_t n
    if need <= b.cap_reps:
        return 0
    n = _capacity(b.cap_reps, need)
    if _realloc(<void**>&b.reps, n, sizeof(State)) < 0:
        return -1
    b.cap_reps = n
    return 0


cdef int64_t _build(Builder* b, const State* s) noexcept nogil:
    cdef uint64_t p1, p2, h
    cdef int64_t v, found
    cdef int acts[NUM_ACTIONS]
    cdef double probs[NUM_ACTIONS]
    cdef int64_t kids[NUM_ACTIONS]
    cdef int n, i, p
    cdef int32_t iset = -1
    cdef State child
    if b.error:
        return -1
    _hash_state(s, &p1, &p2)
    found = _table_get(&b.nodes, p1, p2)
    if found >= 0:
        return found
    if is_terminal(s):
        v = _add_node(b.g, N_TERMINAL, -1, -1, returns_of(s, 0), 0, NULL, NULL, NULL)
    elif is_chance(s):
        n = chance_outcomes(b.c, s, acts, probs)
        for i in range(n):
            child = s[0]
            apply_action(b.c, &child, acts[i])
            kids[i] = _build(b, &child)
            if kids[i] < 0:
                return -1
        v = _add_node(b.g, N_CHANCE, -1, -1, 0.0, n, kids, probs, acts)
    else:
        p = current_player(s)
        n = legal_actions(b.c, s, acts)
        h = info_hash(b.c, s, p)
        found = _table_get(&b.sets, h, <uint64_t>p)
        if found >= 0:
            iset = <int32_t>found
            if not _same_actions(b.g, iset, n, acts):
                b.error = 3
                return -1
        else:
            iset = _add_set(b.g, p, n, acts)
            if iset < 0 or _table_put(&b.sets, h, <uint64_t>p, iset) < 0 \
                    or _grow_reps(b, iset + 1) < 0:
                b.error = 1
                return -1
            b.reps[iset] = s[0]
        for i in range(n):
            child = s[0]
            apply_action(b.c, &child, acts[i])
            kids[i] = _build(b, &child)
            if kids[i] < 0:
                return -1
        v = _add_node(b.g, N_DECISION, p, iset, 0.0, n, kids, NULL, acts)
    if v < 0:
        b.error = 1
        return -1
    if v >= b.max_nodes:
        b.error = 2
        return -1
    if _table_put(&b.nodes, p1, p2, v) < 0:
        b.error = 1
        return -1
    return v


cdef class GameGraph:
    """An enumerated two-player zero-sum game (see the module docstring)."""

    cdef Graph g
    cdef State* reps           # one position per information set (core-built graphs)
    cdef readonly CoreConfig config  # the core's game data (None for a pyspiel graph)
    cdef readonly object set_keys    # information-state strings (pyspiel graphs), else None
    cdef readonly str source   # "core" or "pyspiel"

    def __cinit__(self):
        memset(&self.g, 0, sizeof(Graph))
        self.reps = NULL

    def __dealloc__(self):
        _graph_free(&self.g)
        free(self.reps)

    @staticmethod
    def from_core(Core root, long long max_nodes=200_000_000):
        """Enumerates every position below ``root`` (a core position) with
        transpositions merged.  Raises MemoryError, or ValueError when the
        game has more than ``max_nodes`` positions or two positions with the
        same information state offer different actions."""
        cdef GameGraph gg = GameGraph.__new__(GameGraph)
        cdef Builder b
        cdef int64_t root_index
        memset(&b, 0, sizeof(Builder))
        b.g = &gg.g
        b.c = &root.config.c
        b.max_nodes = max_nodes
        if _table_init(&b.nodes, 1 << 16) < 0 or _table_init(&b.sets, 1 << 12) < 0:
            _table_free(&b.nodes)
            _table_free(&b.sets)
            raise MemoryError("game graph: out of memory")
        try:
            with nogil:
                root_index = _build(&b, &root.s)
                if b.error == 0 and _index_members(&gg.g) < 0:
                    b.error = 1
        finally:
            _table_free(&b.nodes)
            _table_free(&b.sets)
        gg.reps = b.reps
        gg.config = root.config
        gg.source = "core"
        if b.error == 1:
            raise MemoryError("game graph: out of memory")
        if b.error == 2:
            raise ValueError(f"game graph: more than {max_nodes} positions; "
                             "use a smaller variant or raise max_nodes")
        if b.error == 3:
            raise ValueError("game graph: two positions with the same information "
                             "state offer different legal actions")
        return gg

    @staticmethod
    def from_pyspiel(game, long long max_nodes=5_000_000):
        """Enumerates a pyspiel game's tree (a generic, slower adapter for any
        two-player zero-sum game with chance: kuhn_poker, leduc_poker, ...).
        Information sets are keyed by ``information_state_string``."""
        cdef GameGraph gg = GameGraph.__new__(GameGraph)
        if game.num_players() != 2:
            raise ValueError("game graph: a two-player game is needed")
        if max(game.num_distinct_actions(), game.max_chance_outcomes()) > NUM_ACTIONS:
            raise ValueError(f"game graph: at most {NUM_ACTIONS} actions per node")
        set_index: dict = {}
        keys: list = []

        def visit(state):
            if gg.g.n_nodes >= max_nodes:
                raise ValueError(f"game graph: more than {max_nodes} nodes")
            if state.is_terminal():
                return gg._append(N_TERMINAL, -1, -1, state.returns()[0], [], None, [])
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                kids = [visit(state.child(a)) for a, _ in outcomes]
                return gg._append(N_CHANCE, -1, -1, 0.0, kids, [p for _, p in outcomes],
                                  [a for a, _ in outcomes])
            if state.is_simultaneous_node():
                raise ValueError("game graph: simultaneous moves are not supported")
            player = state.current_player()
            legal = state.legal_actions()
            key = state.information_state_string(player)
            iset = set_index.get(key)
            if iset is None:
                iset = gg._new_set(player, legal)
                set_index[key] = iset
                keys.append(key)
            elif gg.infoset_actions(iset) != list(legal):
                raise ValueError(f"game graph: information state {key!r} "
                                 "offers different legal actions")
            kids = [visit(state.child(a)) for a in legal]
            return gg._append(N_DECISION, player, iset, 0.0, kids, None, legal)

        visit(game.new_initial_state())
        if _index_members(&gg.g) < 0:
            raise MemoryError("game graph: out of memory")
        gg.set_keys = tuple(keys)
        gg.source = "pyspiel"
        return gg

    cdef int64_t _append(self, int kind, int player, int32_t iset, double util,
                         list kids, object probs, object acts) except -1:
        cdef int64_t c_kids[NUM_ACTIONS]
        cdef double c_probs[NUM_ACTIONS]
        cdef int c_acts[NUM_ACTIONS]
        cdef int i, n = len(kids)
        for i in range(n):
            c_kids[i] = kids[i]
            c_acts[i] = acts[i]
            c_probs[i] = probs[i] if probs is not None else 0.0
        cdef int64_t v = _add_node(&self.g, kind, player, iset, util, n, c_kids,
                                   c_probs, c_acts)
        if v < 0:
            raise MemoryError("game graph: out of memory")
        return v

    def _new_set(self, int player, legal):
        cdef int c_acts[NUM_ACTIONS]
        cdef int i, n = len(legal)
        for i in range(n):
            c_acts[i] = legal[i]
        cdef int32_t v = _add_set(&self.g, player, n, c_acts)
        if v < 0:
            raise MemoryError("game graph: out of memory")
        return v

    # ---- sizes and views -------------------------------------------------------

    @property
    def nodes(self):
        return self.g.n_nodes

    @property
    def edges(self):
        return self.g.n_edges

    @property
    def infosets(self):
        return self.g.n_sets

    @property
    def slots(self):
        return self.g.n_slots

    def arrays(self):
        """Copies of the node and edge arrays as numpy arrays: ``kind`` (0
        terminal, 1 chance, 2 decision), ``player``, ``first``, ``count``,
        ``iset``, ``util``, ``child``, ``prob``, ``action``."""
        g = self.g
        n, e = g.n_nodes, g.n_edges
        return {
            "kind": np.asarray(<uint8_t[:n]>g.kind).copy() if n else np.zeros(0, np.uint8),
            "player": np.asarray(<int8_t[:n]>g.player).copy() if n else np.zeros(0, np.int8),
            "first": np.asarray(<int64_t[:n]>g.first).copy() if n else np.zeros(0, np.int64),
            "count": np.asarray(<int32_t[:n]>g.count).copy() if n else np.zeros(0, np.int32),
            "iset": np.asarray(<int32_t[:n]>g.iset).copy() if n else np.zeros(0, np.int32),
            "util": np.asarray(<double[:n]>g.util).copy() if n else np.zeros(0),
            "child": np.asarray(<int64_t[:e]>g.child).copy() if e else np.zeros(0, np.int64),
            "prob": np.asarray(<double[:e]>g.prob).copy() if e else np.zeros(0),
            "action": np.asarray(<int32_t[:e]>g.action).copy() if e else np.zeros(0, np.int32),
        }

    def infosets_of(self, int player):
        """The number of information sets of ``player``."""
        cdef int32_t i
        cdef long long k = 0
        for i in range(self.g.n_sets):
            k += self.g.set_player[i] == player
        return k

    def nbytes(self):
        """Bytes held by the graph's arrays."""
        g = self.g
        return int(g.n_nodes * (1 + 1 + 8 + 4 + 4 + 8) + g.n_edges * (8 + 8 + 4)
                   + g.n_sets * (1 + 4 + 8 + 8) + g.n_slots * 4
                   + (g.member_first[g.n_sets] if g.member_first != NULL else 0) * 8)

    def infoset_actions(self, int i):
        """The legal actions of information set ``i``, in slot order."""
        self._check_set(i)
        return [self.g.slot_action[self.g.set_first[i] + k] for k in range(self.g.set_count[i])]

    def infoset_slots(self, int i):
        """``(first slot, number of actions)`` of information set ``i``."""
        self._check_set(i)
        return self.g.set_first[i], self.g.set_count[i]

    def infoset_key(self, int i):
        """The information-state string of set ``i`` (what pyspiel's
        ``information_state_string`` gives for its player)."""
        self._check_set(i)
        if self.set_keys is not None:
            return self.set_keys[i]
        return self.infoset_core(i).info_string(self.g.set_player[i])

    def infoset_core(self, int i):
        """A core position of information set ``i`` (core-built graphs)."""
        cdef Core c
        self._check_set(i)
        if self.reps == NULL:
            raise ValueError("game graph: built from pyspiel, it keeps no core positions")
        c = Core.__new__(Core)
        c.config = self.config
        c.s = self.reps[i]
        return c

    def infoset_index(self):
        """``{information-state string: set index}`` for every set."""
        return {self.infoset_key(i): i for i in range(self.g.n_sets)}

    cdef _check_set(self, int i):
        if i < 0 or i >= self.g.n_sets:
            raise IndexError(f"game graph: information set {i} out of range")

    def uniform_policy(self):
        """A policy (one probability per slot) playing uniformly."""
        out = np.empty(self.g.n_slots, dtype=np.float64)
        cdef int32_t i
        cdef int k
        for i in range(self.g.n_sets):
            for k in range(self.g.set_count[i]):
                out[self.g.set_first[i] + k] = 1.0 / self.g.set_count[i]
        return out

    def policy_from_callable(self, fn):
        """A slot policy from ``fn(set_index) -> {action: probability}``."""
        out = np.zeros(self.g.n_slots, dtype=np.float64)
        for i in range(self.g.n_sets):
            probs = fn(i)
            first = self.g.set_first[i]
            for k in range(self.g.set_count[i]):
                out[first + k] = probs.get(self.g.slot_action[first + k], 0.0)
        return out

    def to_tabular_policy(self, game, policy):
        """An OpenSpiel ``TabularPolicy`` of ``game`` playing the slot policy."""
        from open_spiel.python import policy as os_policy
        tab = os_policy.TabularPolicy(game)
        arr = self._checked_policy(policy)
        for i in range(self.g.n_sets):
            key = self.infoset_key(i)
            row = tab.state_lookup[key]
            tab.action_probability_array[row, :] = 0.0
            first = self.g.set_first[i]
            for k in range(self.g.set_count[i]):
                tab.action_probability_array[row, self.g.slot_action[first + k]] = arr[first + k]
        return tab

    def from_openspiel_policy(self, pol):
        """A slot policy from an OpenSpiel policy (Python ``TabularPolicy`` or
        anything with ``action_probabilities(state)``, read at a
        representative state of each set, or a C++ policy by key)."""
        if hasattr(pol, "state_lookup"):
            def fn(i):
                row = pol.state_lookup[self.infoset_key(i)]
                return {a: float(pol.action_probability_array[row, a])
                        for a in self.infoset_actions(i)}
        else:
            def fn(i):
                return dict(pol.get_state_policy_as_map(self.infoset_key(i))) \
                    if hasattr(pol, "get_state_policy_as_map") else {}
        return self.policy_from_callable(fn)

    def _checked_policy(self, policy):
        arr = np.ascontiguousarray(policy, dtype=np.float64)
        if arr.ndim != 1 or arr.shape[0] != self.g.n_slots:
            raise ValueError(f"policy: expected {self.g.n_slots} slot probabilities, "
                             f"got shape {arr.shape}")
        return arr


# ---- evaluation: expected values, best response, NashConv ----------------------------

cdef double _expected(const Graph* g, const double* pol, double* v) noexcept nogil:
    """Values of player 0 of every node under ``pol``; returns the root's."""
    cdef int64_t n, e
    cdef double x
    cdef int32_t k
    for n in range(g.n_nodes):
        if g.kind[n] == N_TERMINAL:
            v[n] = g.util[n]
        elif g.kind[n] == N_CHANCE:
            x = 0.0
            for k in range(g.count[n]):
                e = g.first[n] + k
                x += g.prob[e] * v[g.child[e]]
            v[n] = x
        else:
            x = 0.0
            for k in range(g.count[n]):
                e = g.first[n] + k
                x += pol[g.set_first[g.iset[n]] + k] * v[g.child[e]]
            v[n] = x
    return v[g.n_nodes - 1]


cdef void _cf_reach(const Graph* g, const double* pol, int player, double* reach) noexcept nogil:
    """Path sums of the product of chance and opponent probabilities
    (``player``'s own edges weigh 1): the counterfactual reach of each node
    for ``player``, summed over the histories the node merges."""
    cdef int64_t n, e
    cdef int32_t k
    cdef double r, w
    memset(reach, 0, g.n_nodes * sizeof(double))
    reach[g.n_nodes - 1] = 1.0
    n = g.n_nodes - 1
    while n >= 0:
        r = reach[n]
        if r != 0.0 and g.kind[n] != N_TERMINAL:
            for k in range(g.count[n]):
                e = g.first[n] + k
                if g.kind[n] == N_CHANCE:
                    w = g.prob[e]
                elif g.player[n] == player:
                    w = 1.0
                else:
                    w = pol[g.set_first[g.iset[n]] + k]
                reach[g.child[e]] += r * w
        n -= 1


ctypedef struct BR:
    const Graph* g             # the game
    const double* pol          # the fixed strategy of the opponent (slots)
    int player                 # the best responder
    double* reach              # counterfactual reach of each node
    double* value              # memoized node values for the responder (player 0 sign)
    uint8_t* done              # 1 once value[n] is known
    int32_t* choice            # per information set: chosen slot offset, -1 unknown


cdef int32_t _br_choice(BR* b, int32_t i) noexcept nogil:
    """OpenSpiel's best_response_action: the first legal action maximizing
    sum over the set's nodes of reach * value(child)."""
    cdef const Graph* g = b.g
    cdef int64_t m, node, e
    cdef int32_t k, best = 0
    cdef double x, best_x = 0.0, sign = 1.0 if b.player == 0 else -1.0
    if b.choice[i] >= 0:
        return b.choice[i]
    for k in range(g.set_count[i]):
        x = 0.0
        for m in range(g.member_first[i], g.member_first[i + 1]):
            node = g.members[m]
            e = g.first[node] + k
            x += b.reach[node] * sign * _br_value(b, g.child[e])
        if k == 0 or x > best_x:
            best_x = x
            best = k
    b.choice[i] = best
    return best


cdef double _br_value(BR* b, int64_t n) noexcept nogil:
    """Value (for player 0) of node ``n`` when the responder best-responds."""
    cdef const Graph* g = b.g
    cdef int64_t e
    cdef int32_t k
    cdef double x = 0.0, p
    if b.done[n]:
        return b.value[n]
    if g.kind[n] == N_TERMINAL:
        x = g.util[n]
    elif g.kind[n] == N_CHANCE:
        for k in range(g.count[n]):
            e = g.first[n] + k
            if g.prob[e] > 0.0:
                x += g.prob[e] * _br_value(b, g.child[e])
    elif g.player[n] == b.player:
        k = _br_choice(b, g.iset[n])
        x = _br_value(b, g.child[g.first[n] + k])
    else:
        for k in range(g.count[n]):
            e = g.first[n] + k
            p = b.pol[g.set_first[g.iset[n]] + k]
            if p > 0.0:
                x += p * _br_value(b, g.child[e])
    b.value[n] = x
    b.done[n] = 1
    return x


cdef double _best_response(const Graph* g, const double* pol, int player,
                           int32_t* choice) noexcept nogil:
    """The best responder's value (its own sign) at the root; fills
    ``choice`` (slot offset per information set; -1 where never needed)."""
    cdef BR b
    cdef double v
    cdef int32_t i
    b.g = g
    b.pol = pol
    b.player = player
    b.reach = <double*>malloc(g.n_nodes * sizeof(double))
    b.value = <double*>malloc(g.n_nodes * sizeof(double))
    b.done = <uint8_t*>calloc(g.n_nodes, 1)
    b.choice = choice
    for i in range(g.n_sets):
        choice[i] = -1
    _cf_reach(g, pol, player, b.reach)
    v = _br_value(&b, g.n_nodes - 1)
    free(b.reach)
    free(b.value)
    free(b.done)
    return v if player == 0 else -v


def expected_value(GameGraph graph, policy):
    """Player 0's expected return when both players follow ``policy``."""
    arr = graph._checked_policy(policy)
    cdef double[::1] p = arr
    cdef double* v = <double*>malloc(max(graph.g.n_nodes, 1) * sizeof(double))
    cdef double out
    if v == NULL:
        raise MemoryError
    with nogil:
        out = _expected(&graph.g, &p[0], v)
    free(v)
    return out


def best_response(GameGraph graph, policy, int player):
    """``(value, choices)``: the best responder's expected return against
    ``policy`` and its action per information set (``{set: action}`` for the
    sets it decided).  Same computation as OpenSpiel's BestResponsePolicy."""
    arr = graph._checked_policy(policy)
    cdef double[::1] p = arr
    cdef int32_t* choice = <int32_t*>malloc(max(graph.g.n_sets, 1) * sizeof(int32_t))
    cdef double v
    if player not in (0, 1):
        raise ValueError("best response: player is 0 or 1")
    with nogil:
        v = _best_response(&graph.g, &p[0], player, choice)
    out = {i: graph.g.slot_action[graph.g.set_first[i] + choice[i]]
           for i in range(graph.g.n_sets)
           if choice[i] >= 0 and graph.g.set_player[i] == player}
    free(choice)
    return v, out


def nash_conv(GameGraph graph, policy):
    """Sum over players of (best-response value - on-policy value), as
    OpenSpiel's ``exploitability.nash_conv`` computes it."""
    arr = graph._checked_policy(policy)
    cdef double[::1] p = arr
    cdef int32_t* choice = <int32_t*>malloc(max(graph.g.n_sets, 1) * sizeof(int32_t))
    cdef double* v = <double*>malloc(max(graph.g.n_nodes, 1) * sizeof(double))
    cdef double br0, br1, on0
    with nogil:
        br0 = _best_response(&graph.g, &p[0], 0, choice)
        br1 = _best_response(&graph.g, &p[0], 1, choice)
        on0 = _expected(&graph.g, &p[0], v)
    free(choice)
    free(v)
    return (br0 - on0) + (br1 + on0)


# ---- the solvers -------------------------------------------------------------------

cdef enum:
    ALG_CFR_PLUS = 0
    ALG_CFR = 1
    ALG_OUTCOME = 2
    ALG_EXTERNAL = 3

_ALGORITHMS = {"cfr+": ALG_CFR_PLUS, "cfr": ALG_CFR, "outcome": ALG_OUTCOME,
               "external": ALG_EXTERNAL}


cdef inline void _match(const Graph* g, const double* regret, double* out, int32_t i) noexcept nogil:
    """Regret matching at set ``i``: positive regrets normalized, else uniform."""
    cdef int64_t f = g.set_first[i]
    cdef int32_t k, n = g.set_count[i]
    cdef double total = 0.0
    for k in range(n):
        if regret[f + k] > 0.0:
            total += regret[f + k]
    for k in range(n):
        if total > 0.0:
            out[f + k] = regret[f + k] / total if regret[f + k] > 0.0 else 0.0
        else:
            out[f + k] = 1.0 / n


cdef class Solver:
    """A tabular solver on a :class:`GameGraph`.

    ``algorithm``: ``"cfr+"`` (default), ``"cfr"``, ``"outcome"`` (outcome
    sampling, exploration ``epsilon``) or ``"external"`` (external sampling).
    ``iterate(n)`` runs n iterations (for the sampling solvers an iteration
    is one update of each player); ``average_policy()`` and
    ``current_policy()`` return slot probabilities.  Seeded: the same seed
    and iterations give the same policy.
    """

    cdef readonly GameGraph graph
    cdef readonly str algorithm
    cdef int alg
    cdef readonly double epsilon
    cdef readonly long long iterations
    cdef double* regret        # cumulative regret per slot
    cdef double* avg           # cumulative average-strategy weight per slot
    cdef double* cur           # current strategy per slot
    cdef double* v             # per node: value scratch
    cdef double* cf            # per node: counterfactual reach scratch
    cdef double* own           # per node: own reach scratch
    cdef double* cf1           # per node: player 1's counterfactual reach (vanilla CFR)
    cdef double* own1          # per node: player 1's own reach (vanilla CFR)
    cdef Rng rng

    def __cinit__(self):
        self.regret = NULL
        self.avg = NULL
        self.cur = NULL
        self.v = NULL
        self.cf = NULL
        self.own = NULL
        self.cf1 = NULL
        self.own1 = NULL

    def __init__(self, GameGraph graph, str algorithm="cfr+", double epsilon=0.6, seed=0):
        if algorithm not in _ALGORITHMS:
            raise ValueError(f"solver: algorithm is one of {', '.join(_ALGORITHMS)}, "
                             f"got {algorithm!r}")
        if not 0.0 < epsilon <= 1.0:
            raise ValueError("solver: epsilon must be in (0, 1]")
        self.graph = graph
        self.algorithm = algorithm
        self.alg = _ALGORITHMS[algorithm]
        self.epsilon = epsilon
        self.iterations = 0
        cdef int64_t slots = max(graph.g.n_slots, 1), nodes = max(graph.g.n_nodes, 1)
        self.regret = <double*>calloc(slots, sizeof(double))
        self.avg = <double*>calloc(slots, sizeof(double))
        self.cur = <double*>calloc(slots, sizeof(double))
        if self.alg <= ALG_CFR:
            self.v = <double*>malloc(nodes * sizeof(double))
            self.cf = <double*>malloc(nodes * sizeof(double))
            self.own = <double*>malloc(nodes * sizeof(double))
            if self.v == NULL or self.cf == NULL or self.own == NULL:
                raise MemoryError("solver: out of memory")
        if self.alg == ALG_CFR:
            self.cf1 = <double*>malloc(nodes * sizeof(double))
            self.own1 = <double*>malloc(nodes * sizeof(double))
            if self.cf1 == NULL or self.own1 == NULL:
                raise MemoryError("solver: out of memory")
        if self.regret == NULL or self.avg == NULL or self.cur == NULL:
            raise MemoryError("solver: out of memory")
        cdef int32_t i
        for i in range(graph.g.n_sets):
            _match(&graph.g, self.regret, self.cur, i)
        rng_seed(&self.rng, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))

    def __dealloc__(self):
        free(self.regret)
        free(self.avg)
        free(self.cur)
        free(self.v)
        free(self.cf)
        free(self.own)
        free(self.cf1)
        free(self.own1)

    def nbytes(self):
        """Bytes of the solver's own tables (the graph aside)."""
        n = 3 * self.graph.g.n_slots * 8
        if self.alg <= ALG_CFR:
            n += (3 if self.alg == ALG_CFR_PLUS else 5) * self.graph.g.n_nodes * 8
        return n

    def iterate(self, long long n=1):
        """Runs ``n`` iterations."""
        cdef long long t
        with nogil:
            for t in range(n):
                self.iterations += 1
                if self.alg == ALG_CFR_PLUS:
                    self._full_half(0, 1, self.iterations)
                    self._full_half(1, 1, self.iterations)
                elif self.alg == ALG_CFR:
                    self._full_both()
                elif self.alg == ALG_OUTCOME:
                    self._outcome(0)
                    self._outcome(1)
                else:
                    self._external_root(0)
                    self._external_root(1)
        return self

    # -- full traversal ------------------------------------------------------

    cdef void _reaches(self, int player) noexcept nogil:
        """cf: counterfactual reach for ``player``; own: its own reach."""
        cdef const Graph* g = &self.graph.g
        cdef int64_t n, e
        cdef int32_t k
        cdef double w
        _cf_reach(g, self.cur, player, self.cf)
        memset(self.own, 0, g.n_nodes * sizeof(double))
        self.own[g.n_nodes - 1] = 1.0
        n = g.n_nodes - 1
        while n >= 0:
            if self.own[n] != 0.0 and g.kind[n] != N_TERMINAL:
                for k in range(g.count[n]):
                    e = g.first[n] + k
                    if g.kind[n] == N_DECISION and g.player[n] == player:
                        w = self.cur[g.set_first[g.iset[n]] + k]
                    else:
                        w = 1.0
                    self.own[g.child[e]] += self.own[n] * w
            n -= 1

    cdef void _accumulate(self, int player, double weight) noexcept nogil:
        """Backward sweep: node values, then ``player``'s regrets and
        average-strategy weights (``weight`` times own reach)."""
        cdef const Graph* g = &self.graph.g
        cdef int64_t n, e, f
        cdef int32_t k
        cdef double sign = 1.0 if player == 0 else -1.0, x, r
        _expected(g, self.cur, self.v)
        for n in range(g.n_nodes):
            if g.kind[n] != N_DECISION or g.player[n] != player:
                continue
            f = g.set_first[g.iset[n]]
            r = self.cf[n]
            x = self.own[n] * weight
            for k in range(g.count[n]):
                e = g.first[n] + k
                if r != 0.0:
                    self.regret[f + k] += r * sign * (self.v[g.child[e]] - self.v[n])
                if x != 0.0:
                    self.avg[f + k] += x * self.cur[f + k]

    cdef void _rematch(self, int player, bint plus) noexcept nogil:
        cdef const Graph* g = &self.graph.g
        cdef int32_t i, k
        cdef int64_t f
        for i in range(g.n_sets):
            if g.set_player[i] != player:
                continue
            if plus:
                f = g.set_first[i]
                for k in range(g.set_count[i]):
                    if self.regret[f + k] < 0.0:
                        self.regret[f + k] = 0.0
            _match(g, self.regret, self.cur, i)

    cdef void _full_half(self, int player, bint plus, long long t) noexcept nogil:
        self._reaches(player)
        self._accumulate(player, <double>t if plus else 1.0)
        self._rematch(player, plus)

    cdef void _full_both(self) noexcept nogil:
        cdef const Graph* g = &self.graph.g
        # both players' reaches under the same current strategy, then both updates
        self._reaches(1)
        memcpy(self.cf1, self.cf, g.n_nodes * sizeof(double))
        memcpy(self.own1, self.own, g.n_nodes * sizeof(double))
        self._reaches(0)
        self._accumulate(0, 1.0)
        memcpy(self.cf, self.cf1, g.n_nodes * sizeof(double))
        memcpy(self.own, self.own1, g.n_nodes * sizeof(double))
        self._accumulate(1, 1.0)
        self._rematch(0, False)
        self._rematch(1, False)

    # -- outcome sampling ------------------------------------------------------

    cdef double _outcome(self, int update) noexcept nogil:
        """One outcome-sampling episode for ``update`` (Lanctot et al. 2009,
        as OpenSpiel's outcome_sampling_mccfr.py): returns the sampled value.
        Iterative: the path is walked down, then updates are applied on the
        way back up."""
        cdef const Graph* g = &self.graph.g
        cdef int64_t path[4096]
        cdef int32_t taken[4096]
        cdef double my_r[4096]
        cdef double opp_r[4096]
        cdef double samp_r[4096]
        cdef double sp_taken[4096]
        cdef int depth = 0, d
        cdef int64_t n = g.n_nodes - 1, f, e
        cdef int32_t k, cnt, i, a
        cdef double my = 1.0, opp = 1.0, samp = 1.0, x, total, u, sp, value, child_value
        cdef double cf_action, cf_value
        # down
        while g.kind[n] != N_TERMINAL and depth < 4096:
            cnt = g.count[n]
            x = rng_unit(&self.rng)
            if g.kind[n] == N_CHANCE:
                a = cnt - 1
                total = 0.0
                for k in range(cnt):
                    total += g.prob[g.first[n] + k]
                    if x < total:
                        a = k
                        break
                e = g.first[n] + a
                opp *= g.prob[e]
                samp *= g.prob[e]
                n = g.child[e]
                continue
            i = g.iset[n]
            f = g.set_first[i]
            a = -1
            total = 0.0
            for k in range(cnt):
                if g.player[n] == update:
                    sp = self.epsilon / cnt + (1.0 - self.epsilon) * self.cur[f + k]
                else:
                    sp = self.cur[f + k]
                if sp > 0.0:
                    a = k                   # rounding: fall back on the last possible action
                total += sp
                if x < total and sp > 0.0:
                    break
            if g.player[n] == update:
                sp = self.epsilon / cnt + (1.0 - self.epsilon) * self.cur[f + a]
            else:
                sp = self.cur[f + a]
            path[depth] = n
            taken[depth] = a
            my_r[depth] = my
            opp_r[depth] = opp
            samp_r[depth] = samp
            sp_taken[depth] = sp
            depth += 1
            if g.player[n] == update:
                my *= self.cur[f + a]
            else:
                opp *= self.cur[f + a]
            samp *= sp
            n = g.child[g.first[n] + a]
        value = g.util[n] if update == 0 else -g.util[n]
        child_value = value
        # up
        d = depth - 1
        while d >= 0:
            n = path[d]
            i = g.iset[n]
            f = g.set_first[i]
            cnt = g.count[n]
            a = taken[d]
            # baseline-free estimate: child value / sampling prob on the taken action
            u = child_value / sp_taken[d]
            value = self.cur[f + a] * u
            if g.player[n] == update:
                cf_value = value * opp_r[d] / samp_r[d]
                for k in range(cnt):
                    cf_action = (u if k == a else 0.0) * opp_r[d] / samp_r[d]
                    self.regret[f + k] += cf_action - cf_value
                for k in range(cnt):
                    self.avg[f + k] += my_r[d] * self.cur[f + k] / samp_r[d]
            child_value = value
            d -= 1
        # current strategies of the visited sets follow their new regrets
        for d in range(depth):
            _match(g, self.regret, self.cur, g.iset[path[d]])
        return child_value

    # -- external sampling -------------------------------------------------------

    cdef double _external_root(self, int update) noexcept nogil:
        return self._external(self.graph.g.n_nodes - 1, update)

    cdef double _external(self, int64_t n, int update) noexcept nogil:
        cdef const Graph* g = &self.graph.g
        cdef int32_t k, cnt = g.count[n], i, a
        cdef int64_t f, e
        cdef double x, total, value
        cdef double vals[NUM_ACTIONS]
        if g.kind[n] == N_TERMINAL:
            return g.util[n] if update == 0 else -g.util[n]
        x = rng_unit(&self.rng)
        if g.kind[n] == N_CHANCE:
            a = cnt - 1
            total = 0.0
            for k in range(cnt):
                total += g.prob[g.first[n] + k]
                if x < total:
                    a = k
                    break
            return self._external(g.child[g.first[n] + a], update)
        i = g.iset[n]
        f = g.set_first[i]
        _match(g, self.regret, self.cur, i)
        if g.player[n] != update:
            for k in range(cnt):
                self.avg[f + k] += self.cur[f + k]
            a = cnt - 1
            total = 0.0
            for k in range(cnt):
                total += self.cur[f + k]
                if x < total:
                    a = k
                    break
            return self._external(g.child[g.first[n] + a], update)
        value = 0.0
        for k in range(cnt):
            vals[k] = self._external(g.child[g.first[n] + k], update)
        _match(g, self.regret, self.cur, i)
        for k in range(cnt):
            value += self.cur[f + k] * vals[k]
        for k in range(cnt):
            self.regret[f + k] += vals[k] - value
        return value

    # -- results -------------------------------------------------------------------

    def average_policy(self):
        """The average strategy (slot probabilities; uniform where never reached)."""
        out = np.empty(self.graph.g.n_slots, dtype=np.float64)
        cdef double[::1] o = out
        cdef const Graph* g = &self.graph.g
        cdef int32_t i, k
        cdef int64_t f
        cdef double total
        for i in range(g.n_sets):
            f = g.set_first[i]
            total = 0.0
            for k in range(g.set_count[i]):
                total += self.avg[f + k]
            for k in range(g.set_count[i]):
                o[f + k] = self.avg[f + k] / total if total > 0.0 else 1.0 / g.set_count[i]
        return out

    def current_policy(self):
        """The current (regret-matching) strategy."""
        out = np.empty(self.graph.g.n_slots, dtype=np.float64)
        cdef double[::1] o = out
        cdef int64_t s
        for s in range(self.graph.g.n_slots):
            o[s] = self.cur[s]
        return out
