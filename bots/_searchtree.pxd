# cython: language_level=3
"""The search-tree core shared by the Cython tree searches (``bots._ismcts``,
``bots._oos``): node and edge storage, its growth and node cap, the key
table, the one hash-collision policy, the descent step, the playout entry
point and the informed playout policy, node statistics and memory
accounting.  Both searchers ``cimport`` it; a fix lands once.

Storage.  A node is a ``Node``; its edges (one per legal action, in the
order of ``legal_actions``) lie contiguously in one edge pool.  An edge is a
searcher's own struct whose *first* member is an ``EdgeHead`` (the action
and its visits, which this module reads); the rest is the searcher's
payload (UCB statistics, regrets...).  The pool stores edges of
``Tree.edge_size`` bytes, so no searcher's edge grows to fit another's.
A searcher reads its edges as ``(<Edge*>tree.edges)[i]``; the pool may
move when it grows (``tree_add``), so it re-reads ``tree.edges`` after an
add.

Nodes are keyed by a 64-bit hash of the information state of the player to
move (``tree_key``), kept in an open-addressing ``KeyTable``.

Hash-collision policy (the only one): a node found under a state's key is
that state's information set only if its action list equals the state's
legal actions (same actions, same order).  Otherwise the lookup is a
collision (``NODE_COLLISION``): the iteration stops descending there and
plays out from that state, adding no node and updating nothing at or below
it; ``node_stats`` and the search results treat such a node as absent.
(Two information sets with one key *and* the same legal actions cannot be
told apart; with 64-bit keys that is left to chance.)  ``TreeSearch``
counts the collisions it met in ``collisions``.

Hot paths are ``noexcept nogil`` inline C on the ``Tree`` struct; Python
objects appear only in ``TreeSearch``'s Python-level methods.
"""

from libc.stdint cimport int32_t, uint32_t, uint64_t

from bots._net cimport Net, NetC
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset

from solver._core cimport (
    NUM_ACTIONS, Config, Core, Rng, State, apply_action_n, current_player, info_hash, is_chance,
    is_terminal, legal_actions, resample, sample_chance,
)


cdef enum:
    PATH_CAP = 4096            # tree depth of one iteration at most (a path's length)
    INITIAL_NODES = 1024       # node slots allocated at the start (the pool doubles)
    INITIAL_EDGES = 16384      # edge slots allocated at the start (the pool doubles)
    INITIAL_SLOTS = 2048       # key-table slots at the start, a power of two (doubles)

cdef enum:
    ROLLOUT_RANDOM = 0         # playouts: uniform over the legal actions
    ROLLOUT_INFORMED = 1       # playouts: actions in proportion to _weight (_searchtree.pyx)
    ROLLOUT_HEURISTIC = 2      # playouts: the heuristic bot's rules (bots._policy), mixed with informed
    ROLLOUT_HEURISTIC_PURE = 3 # playouts: the heuristic bot's rules only

cdef enum:
    EVAL_PLAYOUT = 0           # a leaf's value: one playout to the end (its result, 0 or 1)
    EVAL_NET = 1               # the value network's value of the leaf (bots._net.net_value)
    EVAL_MIX = 2               # mix * the network's value + (1 - mix) * one playout's result
    EVAL_TURN = 3              # the playout policy to the end of the turn, then the network's value

cdef enum Lookup:              # what tree_descend found at the next decision
    NODE_FOUND = 0             # the state's node, whose actions are the legal ones
    NODE_ADDED = 1             # no node yet: a new one was added for the state
    NODE_TERMINAL = 2          # the game ended before the next decision
    NODE_FULL = 3              # no node, and the node cap forbids a new one
    NODE_COLLISION = 4         # a node under the state's key has other actions (see above)
    NODE_OUT_OF_MEMORY = 5     # no node, and memory for a new one failed

cdef enum IterationStatus:     # what one search iteration reports
    ITERATION_DONE = 0         # the iteration ran; its winner is in the out-parameter
    ITERATION_OUT_OF_MEMORY = 1  # it stopped: memory for a node failed (nothing updated)


ctypedef struct KeyTable:
    uint64_t* keys             # the key in each slot
    int32_t* index             # the node index in each slot, -1 if empty
    size_t cap                 # slots, a power of two
    size_t size                # keys stored (at most cap / 2)

ctypedef struct Node:
    uint64_t key               # information-state hash of the player to move
    int32_t first              # index of its first edge in the edge pool
    int32_t count              # edges (legal actions)
    uint32_t visits            # iterations through this node
    int32_t player             # player to move here

ctypedef struct EdgeHead:      # the first member of every searcher's edge struct
    int32_t action             # action id
    uint32_t visits            # iterations that took (sampled) this action here

ctypedef struct Tree:
    Node* nodes                # the node pool, n_nodes used of cap_nodes
    char* edges                # the edge pool: cap_edges edges of edge_size bytes, n_edges used
    size_t edge_size           # bytes per edge (the searcher's edge struct, EdgeHead first)
    KeyTable table             # information-state key -> node index
    int32_t n_nodes            # nodes in the tree
    int32_t cap_nodes          # node slots allocated
    int32_t n_edges            # edges in the tree
    int32_t cap_edges          # edge slots allocated
    int32_t max_nodes          # the node cap: no node is added past it
    uint64_t key_mask          # ANDed into every key (all ones; a test narrows it to force collisions)
    uint64_t collisions        # lookups that met a colliding node since the last clear

ctypedef struct Leaf:          # how a searcher values the leaf of an iteration
    int mode                   # EVAL_*
    double mix                 # EVAL_MIX: the network's weight (lambda), in [0, 1]
    const Net* net             # the value network (NULL with EVAL_PLAYOUT)
    float* work                # the tree's scratch for the network (net_work_floats), or NULL
    bint dice_expectation      # 1: a die at the leaf averaged over its faces (0: sampled)

ctypedef struct Descent:       # one iteration's way down the tree
    State s                    # the sampled world, as played so far
    int buf[NUM_ACTIONS]       # the options at s (legal actions at a decision)
    int n                      # how many options buf holds
    int depth                  # tree nodes passed (edges taken) so far
    int32_t node               # the node at s, after descent_next returned True
    Lookup found               # what the last lookup found (why the descent ended)


# ---- the key table ----------------------------------------------------------

cdef inline int table_init(KeyTable* t, size_t cap) noexcept nogil:
    """An empty table of ``cap`` slots (a power of two); -1 if memory fails."""
    t.keys = <uint64_t*>malloc(cap * sizeof(uint64_t))
    t.index = <int32_t*>malloc(cap * sizeof(int32_t))
    t.cap = cap
    if t.keys == NULL or t.index == NULL:
        return -1
    table_clear(t)
    return 0


cdef inline void table_clear(KeyTable* t) noexcept nogil:
    memset(t.index, 0xFF, t.cap * sizeof(int32_t))
    t.size = 0


cdef inline void table_free(KeyTable* t) noexcept nogil:
    free(t.keys)
    free(t.index)
    t.keys = NULL
    t.index = NULL


cdef inline size_t table_bytes(const KeyTable* t) noexcept nogil:
    return t.cap * (sizeof(uint64_t) + sizeof(int32_t))


cdef inline int32_t table_find(const KeyTable* t, uint64_t key) noexcept nogil:
    """The node index stored for ``key``, or -1."""
    cdef size_t j = key & (t.cap - 1)
    while t.index[j] >= 0:
        if t.keys[j] == key:
            return t.index[j]
        j = (j + 1) & (t.cap - 1)
    return -1


cdef inline void _table_put(uint64_t* keys, int32_t* index, size_t cap, uint64_t key,
                            int32_t i) noexcept nogil:
    cdef size_t j = key & (cap - 1)
    while index[j] >= 0:
        j = (j + 1) & (cap - 1)
    keys[j] = key
    index[j] = i


cdef inline int table_insert(KeyTable* t, uint64_t key, int32_t i) noexcept nogil:
    """Stores a new ``key`` -> ``i``, doubling the table past half full; -1
    if memory fails."""
    cdef size_t cap = t.cap * 2, j
    cdef uint64_t* nk
    cdef int32_t* ni
    if (t.size + 1) * 2 > t.cap:
        nk = <uint64_t*>malloc(cap * sizeof(uint64_t))
        ni = <int32_t*>malloc(cap * sizeof(int32_t))
        if nk == NULL or ni == NULL:
            free(nk)
            free(ni)
            return -1
        memset(ni, 0xFF, cap * sizeof(int32_t))
        for j in range(t.cap):
            if t.index[j] >= 0:
                _table_put(nk, ni, cap, t.keys[j], t.index[j])
        table_free(t)
        t.keys = nk
        t.index = ni
        t.cap = cap
    _table_put(t.keys, t.index, t.cap, key, i)
    t.size += 1
    return 0


cdef inline int grow_array(void** p, int32_t* cap, size_t need, size_t elem) noexcept nogil:
    """Doubles the array ``*p`` of ``*cap`` elements of ``elem`` bytes until
    it holds ``need``; -1 if memory fails (``*p`` is then unchanged)."""
    cdef size_t n = <size_t>cap[0]
    cdef void* q
    if need <= n:
        return 0
    while n < need:
        n *= 2
    q = realloc(p[0], n * elem)
    if q == NULL:
        return -1
    p[0] = q
    cap[0] = <int32_t>n
    return 0


# ---- the tree ---------------------------------------------------------------

cdef inline int tree_init(Tree* t, size_t edge_size, int max_nodes) noexcept nogil:
    """An empty tree of edges of ``edge_size`` bytes and node cap
    ``max_nodes``; -1 if memory fails (``tree_free`` still frees it)."""
    t.edge_size = edge_size
    t.max_nodes = max_nodes
    t.key_mask = 0xFFFFFFFFFFFFFFFF
    t.cap_nodes = INITIAL_NODES
    t.cap_edges = INITIAL_EDGES
    t.nodes = <Node*>malloc(INITIAL_NODES * sizeof(Node))
    t.edges = <char*>malloc(INITIAL_EDGES * edge_size)
    if t.nodes == NULL or t.edges == NULL or table_init(&t.table, INITIAL_SLOTS) < 0:
        return -1
    tree_clear(t)
    return 0


cdef inline void tree_clear(Tree* t) noexcept nogil:
    """Forgets every node (the memory stays allocated)."""
    t.n_nodes = 0
    t.n_edges = 0
    t.collisions = 0
    table_clear(&t.table)


cdef inline void tree_free(Tree* t) noexcept nogil:
    free(t.nodes)
    free(t.edges)
    table_free(&t.table)
    t.nodes = NULL
    t.edges = NULL


cdef inline size_t tree_bytes(const Tree* t) noexcept nogil:
    """Bytes allocated for nodes, edges and the key table."""
    return (t.cap_nodes * sizeof(Node) + t.cap_edges * t.edge_size
            + table_bytes(&t.table))


cdef inline EdgeHead* tree_edge(const Tree* t, int32_t e) noexcept nogil:
    """The shared head of edge ``e`` (an index into the edge pool)."""
    return <EdgeHead*>(t.edges + <size_t>e * t.edge_size)


cdef inline uint64_t tree_key(const Tree* t, const Config* c, const State* s,
                              int player) noexcept nogil:
    """The key of ``player``'s information state at ``s``."""
    return info_hash(c, s, player) & t.key_mask


cdef inline int32_t tree_add(Tree* t, uint64_t key, int player, const int* acts,
                             int n) noexcept nogil:
    """A new node for ``key`` with one zeroed edge per action of ``acts``
    (in that order); -1 if memory fails."""
    cdef int32_t i = t.n_nodes
    cdef int k
    if grow_array(<void**>&t.nodes, &t.cap_nodes, i + 1, sizeof(Node)) < 0 \
            or grow_array(<void**>&t.edges, &t.cap_edges, t.n_edges + n, t.edge_size) < 0 \
            or table_insert(&t.table, key, i) < 0:
        return -1
    t.n_nodes += 1
    t.nodes[i].key = key
    t.nodes[i].first = t.n_edges
    t.nodes[i].count = n
    t.nodes[i].visits = 0
    t.nodes[i].player = player
    memset(t.edges + <size_t>t.n_edges * t.edge_size, 0, <size_t>n * t.edge_size)
    for k in range(n):
        tree_edge(t, t.n_edges + k).action = acts[k]
    t.n_edges += n
    return i


cdef inline bint tree_matches(const Tree* t, int32_t node, const int* acts,
                              int n) noexcept nogil:
    """True if the node's edges are exactly ``acts`` (else a hash collision)."""
    cdef int k
    if t.nodes[node].count != n:
        return False
    for k in range(n):
        if tree_edge(t, t.nodes[node].first + k).action != acts[k]:
            return False
    return True


cdef inline Lookup tree_lookup(Tree* t, const Config* c, const State* s, const int* acts,
                               int n, int32_t* node) noexcept nogil:
    """The node of the decision ``s`` (legal actions ``acts``) in ``*node``,
    added if new and the cap allows: the collision policy, in one place."""
    cdef int p = current_player(s)
    cdef uint64_t key = tree_key(t, c, s, p)
    node[0] = table_find(&t.table, key)
    if node[0] >= 0:
        if tree_matches(t, node[0], acts, n):
            return NODE_FOUND
        t.collisions += 1
        return NODE_COLLISION
    if t.n_nodes >= t.max_nodes:
        return NODE_FULL
    node[0] = tree_add(t, key, p, acts, n)
    return NODE_ADDED if node[0] >= 0 else NODE_OUT_OF_MEMORY


cdef inline Lookup tree_descend(Tree* t, const Config* c, State* s, int* buf, int* n,
                                Rng* r, int32_t* node) noexcept nogil:
    """Samples chance events at ``s`` up to the next decision (``*n`` and
    buf follow its options), then looks its node up (``tree_lookup``)."""
    while is_chance(s):
        n[0] = apply_action_n(c, s, sample_chance(c, s, r), buf)
    if is_terminal(s):
        return NODE_TERMINAL
    return tree_lookup(t, c, s, buf, n[0], node)


cdef inline void descent_ready(Descent* d, const Config* c) noexcept nogil:
    """Readies an iteration's descent from the world in ``d.s``: its options."""
    d.n = 0
    if not is_chance(&d.s) and not is_terminal(&d.s):
        d.n = legal_actions(c, &d.s, d.buf)
    d.depth = 0
    d.found = NODE_FOUND


cdef inline void descent_start(Descent* d, const Config* c, const State* root, int searcher,
                               Rng* r) noexcept nogil:
    """Starts an iteration: a full state sampled for the searcher's
    information at ``root``, with its options."""
    d.s = root[0]
    resample(c, &d.s, searcher, r)
    descent_ready(d, c)


cdef inline void descent_start_known(Descent* d, const Config* c, const State* root) noexcept nogil:
    """Starts an iteration at ``root`` as it truly is, nothing resampled: the
    searcher sees the opponent's hand (the benchmark-only oracle of
    ``ismcts-oracle``, an upper bound on what inference could give)."""
    d.s = root[0]
    descent_ready(d, c)


cdef inline bint descent_next(Descent* d, Tree* t, const Config* c, Rng* r) noexcept nogil:
    """Goes on to the iteration's next tree node (``d.node``, ``d.found``
    says if new); False when the descent ends: after the one node an
    iteration adds, at the path cap, at the end of the game, at the node
    cap, at a hash collision (then play out from ``d.s``) or when memory
    fails (``d.found == NODE_OUT_OF_MEMORY``)."""
    if d.found == NODE_ADDED or d.depth >= PATH_CAP:
        return False
    d.found = tree_descend(t, c, &d.s, d.buf, &d.n, r, &d.node)
    return d.found == NODE_FOUND or d.found == NODE_ADDED


cdef inline void descent_take(Descent* d, const Config* c, int action) noexcept nogil:
    """Takes ``action`` at the current node."""
    d.depth += 1
    d.n = apply_action_n(c, &d.s, action, d.buf)


# ---- defined in _searchtree.pyx ---------------------------------------------

cdef int informed_action(const int* acts, int n, Rng* r) noexcept nogil
cdef int playout(const Config* c, State* s, int* buf, int n, int policy, Rng* r) noexcept nogil
cdef double leaf_value(const Leaf* leaf, const Config* c, State* s, int* buf, int n, int policy,
                       Rng* r) noexcept nogil
cdef int preferred_edges(const Config* c, const State* s, const int* acts, int n,
                         int* out) noexcept nogil


cdef class TreeSearch:
    """The base of the tree searchers: owns the tree and the random stream."""
    cdef Tree tree                 # nodes, edges, key table, node cap
    cdef Rng rng                   # the search's random stream (seeded)
    cdef readonly int rollout      # ROLLOUT_*: the playout policy past the tree
    cdef readonly double prior     # weight of the heuristic's choices at a new node (0: none)
    cdef Leaf leaf                 # how an iteration's leaf is valued (eval, lambda, the network)
    cdef readonly str eval         # the leaf's value: "playout", "net", "mix" or "turn"
    cdef readonly NetC net         # the value network (None with eval=playout)
    cdef list helpers              # root parallelisation: trees 1..threads-1, searchers of one thread
    cdef void _init_tree(self, size_t edge_size, int max_nodes, seed) except *
    cdef void _init_leaf(self, str eval, double mix, net) except *
    cdef int32_t _state_node(self, Core state)
    cdef list _trees(self)
    cdef list _edge_rows(self, int32_t node)
    cdef list _row_stats(self, list rows)
    cdef tuple _merged(self, Core state)
