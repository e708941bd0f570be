# cython: language_level=3
"""Information-set Monte Carlo tree search on the core (cimports solver._core).

Cowling, Powley and Whitehouse (2012), as OpenSpiel's ``is_mcts.cc`` does it:
every iteration samples a full state consistent with the searcher's
information (``resample``), then descends a tree whose nodes are keyed by
the *information state of the player to move* (a 64-bit hash of the core's
key), so the searcher's own nodes gather statistics over all worlds and the
opponent's nodes over the worlds where the opponent knows the same.
Selection is UCB with availability counts: an action's parent count is the
number of iterations in which it was legal at that node.  Chance events are
sampled.  One node is added per iteration; a playout finishes the game.

Rewards are wins (1) and losses (0) of the node's player, so a mean is a win
probability.  Everything per iteration runs in C without the GIL and without
Python objects.
"""

cimport cython
from libc.math cimport log, sqrt
from libc.stdint cimport int16_t, int32_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

from bots._budget import run_budget, win_probabilities
from bots._keytable cimport (
    KeyTable, grow_array, table_bytes, table_clear, table_find, table_free, table_init,
    table_insert,
)
from bots._policy cimport heuristic_action, heuristic_ties
from solver._core cimport (
    A_ASSIST, A_ATTACK, A_COMMAND, A_DECLINE, A_ESCORT, A_MOVE, A_NUMBER,
    A_PASS, A_PLACE, A_PLAY, A_REDRAW, A_SEARCH, A_SELECT_ENEMY, A_SELECT_OWN,
    A_STEAL, A_VOLUNTEERS, A_ZONE, NUM_ACTIONS, Config, Core, Rng, State,
    apply_action_n, current_player, info_hash, is_chance, is_terminal,
    legal_actions, resample, rng_below, rng_next, rng_seed, rng_unit,
    sample_chance,
)

ctypedef struct Edge:
    int32_t action             # action id
    uint32_t visits            # iterations that took this action here
    uint32_t avail             # iterations in which it was legal here
    int32_t preferred          # 1 if the heuristic prefers it here (set when prior > 0)
    double wins                # wins of the node's player after it


ctypedef struct Node:
    uint64_t key               # information-state hash of the player to move
    int32_t first              # index of its first edge in the edge pool
    int32_t count              # edges (legal actions)
    uint32_t visits            # iterations through this node
    int32_t player             # player to move here


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


cdef int playout(const Config* c, State* s, int* buf, int n, int policy, Rng* r) noexcept nogil:
    """Finishes the game from s (``n`` options at s, written to buf, as
    ``apply_action_n`` returns them); returns the winner."""
    cdef int a
    while not is_terminal(s):
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
    return s.winner


ROLLOUTS = {"informed": ROLLOUT_INFORMED, "random": ROLLOUT_RANDOM,
             "heuristic": ROLLOUT_HEURISTIC, "heuristic-pure": ROLLOUT_HEURISTIC_PURE}


# ---- the search ----------------------------------------------------------------

cdef class ISMCTS:
    """An ISMCTS searcher for one game configuration.

    ``uct_c``: exploration constant; ``max_nodes``: the node cap that bounds
    memory (past it, iterations run playouts from the frontier without adding
    nodes); ``rollout``: "informed", "random", "heuristic" (the heuristic
    bot's rules, bots._policy, at 90% of the playout decisions, informed at
    the rest) or "heuristic-pure"; ``prior``: the weight of the progressive
    bias toward the actions the heuristic bot prefers at a node (it reads
    only the information of the player to move, so the bias is the same in
    every world of an information set), ``prior / (visits + 1)`` added to
    their UCB score and those actions tried first; it fades as the visits
    grow, and 0 turns it off; ``seed``: the searcher's random stream (same
    seed and iteration budget, same result).
    """
    cdef Node* nodes
    cdef Edge* edges
    cdef KeyTable table            # information-state key -> node index
    cdef int32_t n_nodes, cap_nodes, n_edges, cap_edges
    cdef readonly int max_nodes
    cdef readonly double uct_c
    cdef readonly int rollout
    cdef readonly double prior     # progressive-bias weight toward the heuristic's choices (0: none)
    cdef Rng rng
    cdef readonly long long worlds
    cdef long long wins            # iterations of the current search won by the searcher

    def __cinit__(self):
        self.nodes = NULL
        self.edges = NULL
        self.table.keys = NULL
        self.table.index = NULL

    def __init__(self, double uct_c=1.4, int max_nodes=1_000_000, str rollout="heuristic",
                 seed=0, double prior=3.0):
        if max_nodes < 1:
            raise ValueError("max_nodes must be at least 1")
        if not prior >= 0.0:
            raise ValueError(f"prior must be at least 0, got {prior}")
        self.prior = prior
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout: expected one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        self.uct_c = uct_c
        self.max_nodes = max_nodes
        self.rollout = ROLLOUTS[rollout]
        rng_seed(&self.rng, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
        self._alloc(1024, 16384)

    def __dealloc__(self):
        free(self.nodes)
        free(self.edges)
        table_free(&self.table)

    cdef void _alloc(self, int nodes, int edges):
        self.cap_nodes = nodes
        self.cap_edges = edges
        self.nodes = <Node*>malloc(nodes * sizeof(Node))
        self.edges = <Edge*>malloc(edges * sizeof(Edge))
        if self.nodes == NULL or self.edges == NULL or table_init(&self.table, 2048) < 0:
            raise MemoryError()
        self.n_nodes = 0
        self.n_edges = 0
        self.worlds = 0

    def reset(self):
        """Forgets the tree (a new search starts from scratch)."""
        self.n_nodes = 0
        self.n_edges = 0
        self.worlds = 0
        table_clear(&self.table)

    cdef int32_t _find(self, uint64_t key) noexcept nogil:
        return table_find(&self.table, key)

    cdef int32_t _add(self, uint64_t key, int player, const int* acts, int n) noexcept nogil:
        """A new node for ``key`` with edges for ``acts``; -1 if memory fails."""
        cdef int32_t i = self.n_nodes
        cdef int k
        if grow_array(<void**>&self.nodes, &self.cap_nodes, i + 1, sizeof(Node)) < 0 \
                or grow_array(<void**>&self.edges, &self.cap_edges, self.n_edges + n,
                              sizeof(Edge)) < 0 \
                or table_insert(&self.table, key, i) < 0:
            return -1
        self.n_nodes += 1
        self.nodes[i].key = key
        self.nodes[i].first = self.n_edges
        self.nodes[i].count = n
        self.nodes[i].visits = 0
        self.nodes[i].player = player
        for k in range(n):
            self.edges[self.n_edges + k].action = acts[k]
            self.edges[self.n_edges + k].visits = 0
            self.edges[self.n_edges + k].avail = 0
            self.edges[self.n_edges + k].preferred = 0
            self.edges[self.n_edges + k].wins = 0.0
        self.n_edges += n
        return i

    cdef int32_t _edge(self, int32_t node, int action) noexcept nogil:
        """The index of ``action``'s edge at ``node`` in the edge pool, or -1."""
        cdef int k
        for k in range(self.nodes[node].count):
            if self.edges[self.nodes[node].first + k].action == action:
                return self.nodes[node].first + k
        return -1

    cdef void _mark_preferred(self, int32_t node, const Config* c, const State* s,
                              const int* acts, int n) noexcept nogil:
        """Marks the edges of the actions the heuristic prefers at a new node.
        It reads only the information of the player to move (bots._policy),
        so one world of the information set decides for all of them."""
        cdef int pref[NUM_ACTIONS]
        cdef int j, n_pref = heuristic_ties(c, s, acts, n, pref)
        cdef int32_t e
        for j in range(n_pref):
            e = self._edge(node, pref[j])
            if e >= 0:
                self.edges[e].preferred = 1

    cdef int32_t _random_unvisited(self, const int32_t* es, int n,
                                   bint preferred_only) noexcept nogil:
        """A uniformly drawn edge among ``es`` (edge indices, -1 for none)
        never visited (only preferred ones if ``preferred_only``), or -1 (no
        random draw then)."""
        cdef int i, count = 0
        for i in range(n):
            if es[i] >= 0 and self.edges[es[i]].visits == 0 and (
                    self.edges[es[i]].preferred or not preferred_only):
                count += 1
        if count == 0:
            return -1
        count = rng_below(&self.rng, count)
        for i in range(n):
            if es[i] >= 0 and self.edges[es[i]].visits == 0 and (
                    self.edges[es[i]].preferred or not preferred_only):
                if count == 0:
                    return es[i]
                count -= 1
        return -1

    cdef int _select(self, int32_t node, const int* acts, int n) noexcept nogil:
        """UCB over the legal actions, with availability counts; returns the
        edge index chosen (unvisited legal edges first, at random; among them
        the preferred ones first).  With ``prior`` > 0, the actions the
        heuristic prefers here get the progressive bias ``prior / (visits +
        1)`` (Chaslot et al. 2008)."""
        cdef int i
        cdef int32_t es[NUM_ACTIONS]   # each legal action's edge, looked up once
        cdef int32_t e, best = -1
        cdef double score, best_score = -1.0
        cdef Edge* ed
        for i in range(n):  # availability: every legal action's edge
            es[i] = self._edge(node, acts[i])
            if es[i] >= 0:
                self.edges[es[i]].avail += 1
        if self.prior > 0.0:
            e = self._random_unvisited(es, n, True)
            if e >= 0:
                return e
        e = self._random_unvisited(es, n, False)
        if e >= 0:
            return e
        for i in range(n):
            if es[i] < 0:
                continue
            ed = &self.edges[es[i]]
            score = ed.wins / ed.visits + self.uct_c * sqrt(log(<double>ed.avail) / ed.visits)
            if ed.preferred:
                score += self.prior / (ed.visits + 1.0)
            if score > best_score:
                best_score = score
                best = es[i]
        return best

    cdef int _iterate(self, const Config* c, const State* root, int searcher,
                      int32_t* path_nodes, int32_t* path_edges, int path_cap) noexcept nogil:
        """One iteration; returns the winner, or -2 if memory ran out."""
        cdef State s = root[0]
        cdef int buf[NUM_ACTIONS]
        cdef int n, p, depth = 0, winner, k, e
        cdef int32_t node
        cdef uint64_t key
        cdef bint expanded = False
        resample(c, &s, searcher, &self.rng)
        self.worlds += 1
        n = 0
        if not is_chance(&s) and not is_terminal(&s):
            n = legal_actions(c, &s, buf)
        while not is_terminal(&s):
            if is_chance(&s):
                n = apply_action_n(c, &s, sample_chance(c, &s, &self.rng), buf)
                continue
            if expanded or depth >= path_cap:
                break
            p = current_player(&s)
            key = info_hash(c, &s, p)
            node = self._find(key)
            if node < 0:
                if self.n_nodes >= self.max_nodes:
                    break
                node = self._add(key, p, buf, n)
                if node < 0:
                    return -2
                expanded = True
                if self.prior > 0.0:
                    self._mark_preferred(node, c, &s, buf, n)
            e = self._select(node, buf, n)
            if e < 0:
                break  # no edge matches (a hash collision): play out from here
            path_nodes[depth] = node
            path_edges[depth] = e
            depth += 1
            n = apply_action_n(c, &s, self.edges[e].action, buf)
        winner = playout(c, &s, buf, n, self.rollout, &self.rng)
        for k in range(depth):
            self.nodes[path_nodes[k]].visits += 1
            self.edges[path_edges[k]].visits += 1
            if winner == self.nodes[path_nodes[k]].player:
                self.edges[path_edges[k]].wins += 1.0
        return winner

    def search(self, Core root, long long iterations=0, double time_limit=0.0):
        """Searches from ``root`` (a decision of a player) for a number of
        iterations or seconds (the first budget reached); returns statistics.

        ``stats["actions"]``: per legal action its visits, mean (win
        probability of the player to move after it) and standard error;
        ``stats["value"]``: the win probability of each side with a 95%
        interval, from the recommended action's iterations.
        """
        if is_terminal(&root.s) or is_chance(&root.s):
            raise ValueError("search needs a decision node")
        self.reset()
        self.wins = 0
        done, seconds = run_budget(lambda n: self._run(root, n), iterations, time_limit)
        return self._stats(root, current_player(&root.s), done, self.wins, seconds)

    def _run(self, Core root, long long n):
        """``n`` iterations from ``root`` without the GIL; returns n."""
        cdef const Config* c = &root.config.c
        cdef int searcher = current_player(&root.s), winner = 0
        cdef long long k
        cdef int32_t path_nodes[4096]
        cdef int32_t path_edges[4096]
        with nogil:
            for k in range(n):
                winner = self._iterate(c, &root.s, searcher, path_nodes, path_edges, 4096)
                if winner == -2:
                    break
                if winner == searcher:
                    self.wins += 1
        if winner == -2:
            raise MemoryError("ISMCTS: out of memory")
        return n

    cdef dict _stats(self, Core root, int searcher, long long done, long long wins, double seconds):
        cdef int32_t node = self._find(info_hash(&root.config.c, &root.s, searcher))
        cdef Edge* e
        cdef int k
        actions = []
        if node >= 0:
            for k in range(self.nodes[node].count):
                e = &self.edges[self.nodes[node].first + k]
                mean = e.wins / e.visits if e.visits else 0.0
                stderr = sqrt(mean * (1 - mean) / e.visits) if e.visits > 1 else 1.0
                actions.append({"action": e.action, "visits": e.visits, "value": mean,
                                "stderr": stderr})
        total = sum(a["visits"] for a in actions) or 1
        for a in actions:
            a["frequency"] = a["visits"] / total
        # The position's value is that of the recommended (most visited)
        # action: the iterations spent exploring worse actions say little
        # about the position under good play.
        p = (<double>wins) / done if done else 0.5
        if actions:
            best = max(actions, key=lambda a: (a["visits"], a["value"]))
            p = best["value"]
            n = max(1, best["visits"])
        else:
            n = max(1, done)
        value, ci = win_probabilities(searcher, p, n)
        return {"player": searcher, "actions": actions, "value": value, "value_ci95": ci,
                "root_mean": (<double>wins) / done if done else None,
                "iterations": done, "worlds": self.worlds, "seconds": seconds,
                "nodes": self.n_nodes, "edges": self.n_edges,
                "memory_bytes": self.cap_nodes * sizeof(Node) + self.cap_edges * sizeof(Edge)
                                + table_bytes(&self.table)}

    def node_stats(self, Core state):
        """Statistics of the tree node of ``state``'s player to move, or None
        (used to read recommended replies later in an action's resolution)."""
        cdef int p
        cdef int32_t node
        cdef Edge* e
        if is_terminal(&state.s) or is_chance(&state.s):
            return None
        p = current_player(&state.s)
        node = self._find(info_hash(&state.config.c, &state.s, p))
        if node < 0:
            return None
        out = []
        for k in range(self.nodes[node].count):
            e = &self.edges[self.nodes[node].first + k]
            out.append({"action": e.action, "visits": e.visits,
                        "value": e.wins / e.visits if e.visits else 0.0})
        return {"player": p, "visits": self.nodes[node].visits, "actions": out}


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
