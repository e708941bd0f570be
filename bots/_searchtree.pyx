# cython: language_level=3
"""The search-tree core of ``bots._ismcts`` and ``bots._oos`` (see
``_searchtree.pxd`` for the storage and the hash-collision policy): the
informed playout policy and the playout entry point, the heuristic's
preferred edges at a new node, and ``TreeSearch``, the base class that owns
a searcher's tree, its random stream, node statistics and memory
accounting."""

from time import perf_counter as clock

from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, malloc

from bots._net cimport NetC, net_value, net_work_floats
from bots import valuenet
from bots._budget import thread_seed
from bots._net import load_net
from bots._policy cimport heuristic_action, heuristic_ties
from solver._core cimport (
    A_ASSIST, A_ATTACK, A_COMMAND, A_DECLINE, A_ESCORT, A_MOVE, A_PASS, A_PLACE,
    A_PLAY, A_REDRAW, A_SEARCH, A_SELECT_ENEMY, A_SELECT_OWN, A_STEAL, A_VOLUNTEERS,
    A_ZONE, NUM_ACTIONS, Config, Core, Rng, State, apply_action_n, current_player,
    is_chance, is_terminal, legal_actions, rng_below, rng_seed, rng_unit, sample_chance,
)


# ---- the informed playout policy -------------------------------------------

cdef double _weight(int a, int n) noexcept nogil:
    """Relative weight of an action in an informed playout: act rather than
    pass, take fragments first, play modifiers and reactions half the time."""
    if a == A_PASS:
        return 0.5 if n > 1 else 1.0
    if a == A_DECLINE:
        return 2.0
    if a == A_REDRAW:
        return 0.5
    if a >= A_SELECT_ENEMY or (a >= A_ZONE and a < A_PLACE):
        return 1.0
    if a >= A_SELECT_OWN:
        return 1.0
    if a >= A_ESCORT:
        return 2.0
    if a >= A_ASSIST:
        return 1.0
    if a >= A_VOLUNTEERS:
        return 3.0
    if a >= A_COMMAND:
        return 4.0
    if a >= A_STEAL:
        return 20.0
    if a >= A_SEARCH:
        return 20.0
    if a >= A_ATTACK:
        return 6.0
    if a >= A_MOVE:
        return 4.0
    if a >= A_PLAY:
        return 2.0
    return 5.0  # place a card


cdef double _WEIGHTS[NUM_ACTIONS]
for _a in range(NUM_ACTIONS):
    _WEIGHTS[_a] = _weight(_a, 2)  # decisions always offer two or more (R30)


cdef int informed_action(const int* acts, int n, Rng* r) noexcept nogil:
    """An action drawn in proportion to ``_weight``."""
    cdef double total = 0.0, x
    cdef int i
    for i in range(n):
        total += _WEIGHTS[acts[i]]
    x = rng_unit(r) * total
    for i in range(n):
        x -= _WEIGHTS[acts[i]]
        if x < 0.0:
            return acts[i]
    return acts[n - 1]


cdef double HEURISTIC_SHARE = 0.9  # rollout=heuristic: the rest of the decisions are informed


cdef inline int _play(const Config* c, State* s, int* buf, int n, int policy, Rng* r,
                      int last_turn) noexcept nogil:
    """Plays the playout policy from s (``n`` options at s, written to buf,
    as ``apply_action_n`` returns them) to the end of the game or of turn
    ``last_turn``; returns the options at the state reached."""
    cdef int a
    while not is_terminal(s) and s.turn <= last_turn:
        if is_chance(s):
            a = sample_chance(c, s, r)
        elif policy == ROLLOUT_INFORMED:
            a = informed_action(buf, n, r)
        elif policy == ROLLOUT_HEURISTIC_PURE or (
                policy == ROLLOUT_HEURISTIC and rng_unit(r) < HEURISTIC_SHARE):
            a = heuristic_action(c, s, buf, n, r)
        elif policy == ROLLOUT_HEURISTIC:
            a = informed_action(buf, n, r)
        else:
            a = buf[rng_below(r, n)]
        n = apply_action_n(c, s, a, buf)
    return n


cdef int playout(const Config* c, State* s, int* buf, int n, int policy, Rng* r) noexcept nogil:
    """Finishes the game from s (``n`` options at s, written to buf, as
    ``apply_action_n`` returns them); returns the winner."""
    _play(c, s, buf, n, policy, r, 255)     # every turn (s.turn is a uint8)
    return s.winner


cdef double leaf_value(const Leaf* leaf, const Config* c, State* s, int* buf, int n, int policy,
                       Rng* r) noexcept nogil:
    """The Polish side's (side 0's) win probability at an iteration's leaf
    ``s`` (``n`` options, in buf), as ``leaf.mode`` says: a playout's result
    (0 or 1), the network's value (a die about to be rolled averaged over its
    faces), their mix, or the network's value at the end of the turn played
    by the playout policy.  ``s`` may be played on."""
    cdef double v
    if leaf.mode == EVAL_PLAYOUT:
        return 1.0 if playout(c, s, buf, n, policy, r) == 0 else 0.0
    if leaf.mode == EVAL_TURN:
        _play(c, s, buf, n, policy, r, s.turn)
        return net_value(leaf.net, c, s, leaf.work, r, leaf.dice_expectation)
    v = net_value(leaf.net, c, s, leaf.work, r, leaf.dice_expectation)
    if leaf.mode == EVAL_NET:
        return v
    return leaf.mix * v + (1.0 - leaf.mix) * (
        1.0 if playout(c, s, buf, n, policy, r) == 0 else 0.0)


EVALS = {"playout": EVAL_PLAYOUT, "net": EVAL_NET, "mix": EVAL_MIX, "turn": EVAL_TURN}

ROLLOUTS = {"informed": ROLLOUT_INFORMED, "random": ROLLOUT_RANDOM,
            "heuristic": ROLLOUT_HEURISTIC, "heuristic-pure": ROLLOUT_HEURISTIC_PURE}


def informed_playout(Core state, seed):
    """Plays the informed playout policy to the end (in place); returns the winner."""
    cdef Rng r
    cdef int buf[NUM_ACTIONS]
    cdef int n = 0
    rng_seed(&r, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
    if state.frozen:
        raise ValueError("frozen position; use copy()")
    if not is_chance(&state.s) and not is_terminal(&state.s):
        n = legal_actions(&state.config.c, &state.s, buf)
    return playout(&state.config.c, &state.s, buf, n, ROLLOUT_INFORMED, &r)


def time_playouts(list cores, str rollout, int repeats, seed):
    """Seconds to play ``repeats`` playouts of policy ``rollout`` from each
    position of ``cores`` in C, and the Polish wins (benchmarks/net_speed.py
    sets them against the value network's evaluations)."""
    cdef Rng r
    cdef State s
    cdef Core core
    cdef int buf[NUM_ACTIONS]
    cdef int k, n, policy = ROLLOUTS[rollout]
    cdef long long wins = 0
    rng_seed(&r, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
    start = clock()
    for core in cores:
        with nogil:
            for k in range(repeats):
                s = core.s
                n = 0
                if not is_chance(&s) and not is_terminal(&s):
                    n = legal_actions(&core.config.c, &s, buf)
                wins += playout(&core.config.c, &s, buf, n, policy, &r) == 0
    return clock() - start, wins


cdef int preferred_edges(const Config* c, const State* s, const int* acts, int n,
                         int* out) noexcept nogil:
    """The positions in ``acts`` (so the edge offsets at a new node) of the
    actions the heuristic bot prefers at ``s``, in ``out``; returns their
    count.  bots._policy reads only the information of the player to move,
    so one world of an information set decides for all of them."""
    cdef int pref[NUM_ACTIONS]
    cdef int j, k, count = 0, n_pref = heuristic_ties(c, s, acts, n, pref)
    for j in range(n_pref):
        for k in range(n):
            if acts[k] == pref[j]:
                out[count] = k
                count += 1
                break
    return count


# ---- the base of the searchers ---------------------------------------------

cdef class TreeSearch:
    """What ISMCTS and OOS share at the Python level: the tree's lifetime,
    its node cap, node statistics (``node_stats``) and memory accounting,
    summed over the trees of a root-parallel search (this one and
    ``helpers``).  Subclasses call ``_init_tree`` from ``__init__``, set
    ``helpers``, and define ``_edge_rows`` and ``_row_stats``."""

    def __cinit__(self):
        self.tree.nodes = NULL
        self.tree.edges = NULL
        self.tree.table.keys = NULL
        self.tree.table.index = NULL
        self.tree.n_nodes = 0
        self.tree.collisions = 0
        self.helpers = []
        self.leaf.mode = EVAL_PLAYOUT
        self.leaf.mix = 0.0
        self.leaf.net = NULL
        self.leaf.work = NULL
        self.leaf.dice_expectation = True
        self.eval = "playout"

    def __dealloc__(self):
        tree_free(&self.tree)
        free(self.leaf.work)

    def check_net(self, Core root):
        """Refuses (a one-line ValueNetError naming the file) a value network
        trained on another game than ``root``'s: its values would be of
        another game (bots.valuenet.check_game).  Nothing to check with
        eval=playout."""
        if self.net is not None:
            valuenet.check_game(self.net.source, root.config)

    cdef void _init_leaf(self, str eval, double mix, net) except *:
        """How leaves are valued: ``eval`` (see EVALS), ``mix`` the network's
        weight with eval=mix, ``net`` the network (a NetC, a ValueNet, a
        file's path, or None: the packaged one), loaded unless
        eval=playout; this tree gets its own scratch for it."""
        if eval not in EVALS:
            raise ValueError(f"eval: expected one of {', '.join(EVALS)}, got {eval!r}")
        if not 0.0 <= mix <= 1.0:
            raise ValueError(f"lambda must be in [0, 1], got {mix}")
        self.eval = eval
        self.leaf.mode = EVALS[eval]
        self.leaf.mix = mix
        if eval == "playout":
            return
        self.net = net if isinstance(net, NetC) else load_net(net)
        self.leaf.net = &self.net.net
        free(self.leaf.work)
        self.leaf.work = <float*>malloc(net_work_floats(self.leaf.net) * sizeof(float))
        if self.leaf.work == NULL:
            raise MemoryError()

    cdef void _init_tree(self, size_t edge_size, int max_nodes, seed) except *:
        """Allocates the tree (edges of ``edge_size`` bytes, node cap
        ``max_nodes``) and seeds the random stream."""
        rng_seed(&self.rng, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
        tree_free(&self.tree)
        if tree_init(&self.tree, edge_size, max_nodes) < 0:
            raise MemoryError()

    def reseed(self, seed):
        """Seeds the random stream of every tree again (tree ``k`` with
        ``bots._budget.thread_seed(seed, k)``, as a new searcher seeded
        ``seed``): a bot kept for a game keys each decision's stream by the
        decision, so a game loaded from a save goes on as the unbroken one."""
        cdef TreeSearch t
        cdef int k
        for k, t in enumerate(self._trees()):
            rng_seed(&t.rng, <uint64_t>(int(thread_seed(seed, k)) & 0xFFFFFFFFFFFFFFFF))

    @property
    def mix(self):
        """eval=mix: the network's weight (the option lambda)."""
        return self.leaf.mix

    @property
    def max_nodes(self):
        """The node cap (past it, iterations play out from the frontier)."""
        return self.tree.max_nodes

    @property
    def collisions(self):
        """Lookups since the trees were last cleared that met a node of
        another action list under the state's key (see _searchtree.pxd)."""
        cdef TreeSearch t
        cdef long long n = 0
        for t in self._trees():
            n += t.tree.collisions
        return n

    @property
    def tree_size(self):
        """Nodes in the trees now."""
        cdef TreeSearch t
        cdef long long n = 0
        for t in self._trees():
            n += t.tree.n_nodes
        return n

    def memory_bytes(self):
        """Bytes allocated for the trees (nodes, edges, key tables)."""
        cdef TreeSearch t
        cdef size_t n = 0
        for t in self._trees():
            n += tree_bytes(&t.tree)
        return n

    cdef list _trees(self):
        """This tree and the helpers' (one thread: this one)."""
        return [self] + self.helpers

    cdef int32_t _state_node(self, Core state):
        """The tree node of ``state``'s player to move, or -1 (none, not a
        decision, or a hash collision)."""
        cdef int32_t node
        cdef int acts[NUM_ACTIONS]
        cdef int n
        if is_terminal(&state.s) or is_chance(&state.s):
            return -1
        node = table_find(&self.tree.table, tree_key(&self.tree, &state.config.c, &state.s,
                                                     current_player(&state.s)))
        if node < 0:
            return -1
        n = legal_actions(&state.config.c, &state.s, acts)
        return node if tree_matches(&self.tree, node, acts, n) else -1

    cdef list _edge_rows(self, int32_t node):
        """Per edge of ``node``, in the legal actions' order, [action, visits,
        the searcher's additive statistic] (ISMCTS: wins; OOS: the average
        strategy's sum)."""
        raise NotImplementedError

    cdef list _row_stats(self, list rows):
        """The ``actions`` of ``node_stats`` from the summed rows (a dict each)."""
        raise NotImplementedError

    cdef tuple _merged(self, Core state):
        """The node of ``state``'s player to move summed over the trees:
        (node visits, ``_edge_rows`` summed), or None if no tree holds it.
        One tree: that tree's figures."""
        cdef TreeSearch t
        cdef int32_t node
        cdef long long visits = 0
        merged = None
        for t in self._trees():
            node = t._state_node(state)
            if node < 0:
                continue
            visits += t.tree.nodes[node].visits
            rows = t._edge_rows(node)
            if merged is None:
                merged = rows
            else:  # the same legal actions, in the same order (the collision policy)
                for row, more in zip(merged, rows):
                    row[1] += more[1]
                    row[2] += more[2]
        return None if merged is None else (visits, merged)

    def node_stats(self, Core state):
        """Statistics of the node of ``state``'s player to move, summed over
        the trees, or None if no tree holds it (used to read recommended
        replies later in an action's resolution)."""
        found = self._merged(state)
        if found is None:
            return None
        return {"player": current_player(&state.s), "visits": found[0],
                "actions": self._row_stats(found[1])}

    # ---- test hooks: force a hash collision --------------------------------

    def _set_key_bits(self, int bits):
        """Keeps only the low ``bits`` bits of every key (64: all), so that
        information sets collide; for tests of the collision policy."""
        self.tree.key_mask = 0xFFFFFFFFFFFFFFFF if bits >= 64 else (<uint64_t>1 << bits) - 1

    def _plant_node(self, Core state, actions):
        """Inserts a node under the key of ``state``'s player to move with
        edges for ``actions`` (any list), as a colliding information set
        would; returns its index.  For tests of the collision policy."""
        cdef int acts[NUM_ACTIONS]
        cdef int k, n = len(actions)
        cdef int32_t node
        if n > NUM_ACTIONS or is_terminal(&state.s) or is_chance(&state.s):
            raise ValueError("plant a node at a decision, with at most NUM_ACTIONS actions")
        for k in range(n):
            acts[k] = actions[k]
        p = current_player(&state.s)
        node = tree_add(&self.tree, tree_key(&self.tree, &state.config.c, &state.s, p),
                        p, acts, n)
        if node < 0:
            raise MemoryError()
        return node

    def _set_dice(self, str dice):
        """"expect" (the default): a die about to be rolled at a leaf is
        valued as the expectation of the network over its faces; "sample":
        one face drawn, for benchmarks/net_speed.py's comparison.  Not a bot
        option."""
        cdef TreeSearch t
        if dice not in ("expect", "sample"):
            raise ValueError(f"dice: expected expect or sample, got {dice!r}")
        for t in self._trees():
            t.leaf.dice_expectation = dice == "expect"

    def _leaf_value(self, Core state, int policy):
        """``leaf_value`` at a copy of ``state`` from this search's random
        stream, with the playout policy ``policy`` (ROLLOUT_*); for tests."""
        cdef Core s = state.copy()
        cdef int buf[NUM_ACTIONS]
        cdef int n = 0
        if not is_chance(&s.s) and not is_terminal(&s.s):
            n = legal_actions(&s.config.c, &s.s, buf)
        return leaf_value(&self.leaf, &s.config.c, &s.s, buf, n, policy, &self.rng)

    def _lookup(self, Core state):
        """What a descent would find at the decision ``state``: "found",
        "added", "full" or "collision" (adding the node if new)."""
        cdef int acts[NUM_ACTIONS]
        cdef int32_t node
        cdef int n
        if is_terminal(&state.s) or is_chance(&state.s):
            raise ValueError("look up a decision")
        n = legal_actions(&state.config.c, &state.s, acts)
        found = tree_lookup(&self.tree, &state.config.c, &state.s, acts, n, &node)
        return {NODE_FOUND: "found", NODE_ADDED: "added", NODE_FULL: "full",
                NODE_COLLISION: "collision", NODE_OUT_OF_MEMORY: "out of memory"}[found]
