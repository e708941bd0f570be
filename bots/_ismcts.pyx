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
sampled.  One node is added per iteration; the iteration's leaf is valued
as ``eval`` says (bots._searchtree.leaf_value): by default a playout
finishes the game; or the value network (bots._net) alone, mixed with the
playout (``lambda``), or after a playout to the end of the turn.

Rewards are the node's player's wins (1) and losses (0), or the win
probability the network gives, so a mean is a win probability.  Everything
per iteration runs in C without the GIL and without Python objects.

Root parallelisation (``threads`` > 1): the search keeps ``threads``
independent trees, each with its own random stream
(``bots._budget.thread_seed``) and a
share of the node cap, and runs each tree's iterations on its own native
thread without the GIL (bots._budget.run_parallel); the root's statistics
(visits and wins per action) are the sums over the trees.  Tree 0 is this
object's own, seeded with ``seed``, so one thread is the one-tree search.
"""

from libc.math cimport log, sqrt
from libc.stdint cimport int32_t, uint32_t

from bots._budget import run_trees, thread_seed, value_bias, win_probabilities
from bots._searchtree cimport (
    ITERATION_DONE, ITERATION_OUT_OF_MEMORY, NODE_ADDED, NODE_OUT_OF_MEMORY, PATH_CAP,
    Descent, EdgeHead, IterationStatus, Tree, TreeSearch, descent_next, descent_start,
    descent_start_known,
    descent_take, leaf_value, preferred_edges, tree_bytes, tree_clear,
)
from bots._searchtree import ROLLOUTS
from bots._inference cimport (
    Beliefs, Observations, beliefs_build, beliefs_free, descent_start_beliefs,
)
from bots._inference import POOL, TRUST, check_inference
from solver._core cimport (
    NUM_ACTIONS, Config, Core, State, current_player, is_chance, is_terminal, rng_below,
)

ctypedef struct Edge:
    EdgeHead h                 # action id and visits (iterations that took it here)
    uint32_t avail             # iterations in which it was legal here
    int32_t preferred          # 1 if the heuristic prefers it here (set when prior > 0)
    double wins                # wins of the node's player after it


cdef double TIE_TOLERANCE = 1e-5  # UCB scores this close to the best tie (is_mcts.cc's kTieTolerance)


cdef inline Edge* _edges(Tree* t) noexcept nogil:
    """The edge pool as ISMCTS edges (re-read after a node is added)."""
    return <Edge*>t.edges


# ---- the search ----------------------------------------------------------------

cdef class ISMCTS(TreeSearch):
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
    seed and iteration budget, same result).  Ties in UCB score (within
    ``TIE_TOLERANCE``) are broken at random from that stream, as OpenSpiel's
    ``is_mcts.cc`` does.  The tree, its node cap and its hash-collision
    policy are bots._searchtree's.  ``inference``: "off" (worlds uniform
    among the opponent hands consistent with the searcher's information) or
    "heuristic" (worlds weighted by the opponent's observed decisions,
    bots._inference; it acts when ``search`` is given ``observations``; each
    tree builds its weighted pool from its own random stream).  ``eval``:
    how an iteration's leaf is valued, "playout" (one playout to the end),
    "net" (the value network ``net``), "mix" (``mix`` times the network's value
    plus the rest times a playout's result) or "turn" (the playout policy to
    the end of the turn, then the network); ``net``: a bots._net.NetC, a
    bots.valuenet.ValueNet, a weights file's path, or None (the packaged
    network), used unless eval is "playout".  ``threads``: the trees searched in
    parallel, one native thread each (see the module's docstring); an
    iteration budget is split among them (``bots._budget.iteration_shares``: K
    iterations in all), a time budget is one deadline for all, and the node
    cap is split too: each tree holds at most ``max_nodes // threads``
    nodes (at least 1), so memory stays within the one cap (unless there
    are more threads than nodes).
    """
    cdef readonly double uct_c
    cdef bint first_ties           # 1: ties go to the first legal action (before random ties)
    cdef readonly long long worlds
    cdef double wins               # the searcher's wins in the current search (a leaf's value each)
    cdef readonly int threads      # trees searched in parallel (this one and the helpers)
    cdef Beliefs beliefs           # weighted worlds of the current search (n 0: uniform)
    cdef readonly str inference    # "off" or "heuristic" (bots._inference)
    cdef readonly long long searched  # iterations of the trees since the last reset
    cdef readonly bint oracle      # 1: every world is the true position (sees the opponent's
                                   # hand; benchmark-only, the ismcts-oracle bot)

    def __cinit__(self):
        self.beliefs.worlds = NULL
        self.beliefs.cum = NULL
        self.beliefs.n = 0
        self.beliefs.cap = 0

    def __dealloc__(self):
        beliefs_free(&self.beliefs)

    def __init__(self, double uct_c=1.4, int max_nodes=1_000_000, str rollout="heuristic",
                 seed=0, double prior=3.0, str inference="off", int threads=1,
                 str eval="playout", double mix=0.5, net=None, bint oracle=False):
        self.inference = check_inference(inference)
        if oracle and inference != "off":
            raise ValueError("oracle: the true position needs no inference (inference=off)")
        self.oracle = oracle
        if max_nodes < 1:
            raise ValueError("max_nodes must be at least 1")
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        if not prior >= 0.0:
            raise ValueError(f"prior must be at least 0, got {prior}")
        self.prior = prior
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout: expected one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        self.uct_c = uct_c
        self.rollout = ROLLOUTS[rollout]
        self.threads = threads
        cap = max(1, max_nodes // threads)
        self._init_tree(sizeof(Edge), cap, seed)
        self._init_leaf(eval, mix, net)
        self.helpers = [ISMCTS(uct_c, cap, rollout, thread_seed(seed, k), prior, inference,
                               1, eval, mix, self.net, oracle) for k in range(1, threads)]
        self.worlds = 0
        self.first_ties = False

    def reset(self):
        """Forgets the trees (a new search starts from scratch)."""
        cdef ISMCTS t
        for t in self._trees():
            tree_clear(&t.tree)
            t.worlds = 0
            t.wins = 0
        self.searched = 0

    def _set_tie_break(self, str ties):
        """"random" (the default) or "first": ties in UCB score go to the
        first of the tied legal actions, as before random tie-breaking, for
        the seeded comparison in benchmarks/tie_break.py.  Not a bot option."""
        cdef ISMCTS t
        if ties not in ("random", "first"):
            raise ValueError(f"ties: expected random or first, got {ties!r}")
        for t in self._trees():
            t.first_ties = ties == "first"

    cdef int32_t _random_unvisited(self, Edge* ed, int n, bint preferred_only) noexcept nogil:
        """A uniformly drawn offset among the ``n`` edges at ``ed`` never
        visited (only preferred ones if ``preferred_only``), or -1 (no random
        draw then)."""
        cdef int i, count = 0
        for i in range(n):
            if ed[i].h.visits == 0 and (ed[i].preferred or not preferred_only):
                count += 1
        if count == 0:
            return -1
        count = rng_below(&self.rng, count)
        for i in range(n):
            if ed[i].h.visits == 0 and (ed[i].preferred or not preferred_only):
                if count == 0:
                    return i
                count -= 1
        return -1

    cdef int32_t _select(self, int32_t node) noexcept nogil:
        """UCB over the node's edges (the legal actions, in their order: the
        tree's collision policy), with availability counts; returns the edge
        index chosen (unvisited edges first, at random; among them the
        preferred ones first).  With ``prior`` > 0, the actions the
        heuristic prefers here get the progressive bias ``prior / (visits +
        1)`` (Chaslot et al. 2008).  Scores within ``TIE_TOLERANCE`` of the
        best tie; one of them is drawn uniformly from the search's stream."""
        cdef int32_t first = self.tree.nodes[node].first
        cdef int i, ties, n = self.tree.nodes[node].count
        cdef int32_t k, best = -1
        cdef double score, best_score = -1.0
        cdef double scores[NUM_ACTIONS]
        cdef Edge* ed = &_edges(&self.tree)[first]
        for i in range(n):  # availability: every legal action's edge
            ed[i].avail += 1
        if self.prior > 0.0:
            k = self._random_unvisited(ed, n, True)
            if k >= 0:
                return first + k
        k = self._random_unvisited(ed, n, False)
        if k >= 0:
            return first + k
        for i in range(n):
            score = ed[i].wins / ed[i].h.visits + self.uct_c * sqrt(
                log(<double>ed[i].avail) / ed[i].h.visits)
            if ed[i].preferred:
                score += self.prior / (ed[i].h.visits + 1.0)
            scores[i] = score
            if score > best_score:
                best_score = score
                best = first + i
        if self.first_ties:
            return best
        ties = 0
        for i in range(n):
            ties += scores[i] > best_score - TIE_TOLERANCE
        if ties == 1:
            return best
        ties = rng_below(&self.rng, ties)
        for i in range(n):
            if scores[i] > best_score - TIE_TOLERANCE:
                if ties == 0:
                    return first + i
                ties -= 1
        return best

    cdef IterationStatus _iterate(self, const Config* c, const State* root, int searcher,
                                  int32_t* path_nodes, int32_t* path_edges,
                                  double* polish) noexcept nogil:
        """One iteration; its leaf's value for the Polish side (side 0) in ``*polish``."""
        cdef Descent walk
        cdef int pref[NUM_ACTIONS]
        cdef int k, n_pref
        cdef int32_t e
        cdef Edge* ed
        if self.oracle:
            descent_start_known(&walk, c, root)
        else:
            descent_start_beliefs(&walk, c, root, searcher, &self.beliefs, &self.rng)
        self.worlds += 1
        while descent_next(&walk, &self.tree, c, &self.rng):
            if walk.found == NODE_ADDED and self.prior > 0.0:
                n_pref = preferred_edges(c, &walk.s, walk.buf, walk.n, pref)
                for k in range(n_pref):
                    _edges(&self.tree)[self.tree.nodes[walk.node].first + pref[k]].preferred = 1
            e = self._select(walk.node)
            path_nodes[walk.depth] = walk.node
            path_edges[walk.depth] = e
            descent_take(&walk, c, _edges(&self.tree)[e].h.action)
        if walk.found == NODE_OUT_OF_MEMORY:
            return ITERATION_OUT_OF_MEMORY
        polish[0] = leaf_value(&self.leaf, c, &walk.s, walk.buf, walk.n, self.rollout, &self.rng)
        for k in range(walk.depth):
            ed = &_edges(&self.tree)[path_edges[k]]
            self.tree.nodes[path_nodes[k]].visits += 1
            ed.h.visits += 1
            # (a playout's 0 or 1 adds exactly what counting its wins did)
            ed.wins += polish[0] if self.tree.nodes[path_nodes[k]].player == 0 else 1.0 - polish[0]
        return ITERATION_DONE

    def search(self, Core root, long long iterations=0, double time_limit=0.0,
               Observations observations=None, stop=None, bint keep=False, int searcher=-1):
        """Searches from ``root`` (a decision of a player) for a number of
        iterations or seconds (the first budget reached); returns statistics.
        ``observations``: what the searcher's player saw of the game so far
        (bots._inference.Observations), weighed when ``inference`` is on.
        ``stop``: a callable looked at after each chunk of iterations; True
        ends the search early (the exact solver beside it has finished).
        ``keep``: go on with the trees of the previous search, which must be
        of the same ``root`` (a search in phases: the bot's game clock) or
        of a root it reached (the tree pondered on the opponent's time: its
        nodes are keyed by information sets, so what it learnt of this
        root's information set is where this search looks); the statistics
        then count the iterations of every phase.  ``searcher``: the player
        whose information the worlds are sampled from (-1: the player to
        move; the other player: pondering, the bot searching the opponent's
        decision from its own information, inference off).

        ``stats["actions"]``: per legal action its visits, mean (win
        probability of the player to move after it) and standard error;
        ``stats["value"]``: the win probability of each side with a 95%
        interval, from the recommended action's iterations.
        """
        cdef ISMCTS t
        if is_terminal(&root.s) or is_chance(&root.s):
            raise ValueError("search needs a decision node")
        self.check_net(root)
        if observations is not None and observations.config.key != root.config.key:
            raise ValueError("observations: recorded in another game than the one searched")
        if searcher not in (-1, 0, 1):
            raise ValueError(f"searcher: expected -1, 0 or 1, got {searcher}")
        if searcher == current_player(&root.s):
            searcher = -1
        if not keep or self.searched == 0:
            self.reset()
            if searcher < 0:
                self._build_beliefs(root, observations)
            else:                    # uniform worlds of the searcher's information
                for t in self._trees():
                    t.beliefs.n = 0
        done, by_thread, seconds = run_trees(
            [(lambda n, t=t: t._run(root, n, searcher)) for t in self._trees()], iterations,
            time_limit, stop)
        self.searched += done
        stats = self._stats(root, current_player(&root.s), self.searched, seconds)
        stats["threads"] = self.threads
        stats["iterations_by_thread"] = by_thread
        return stats

    cdef int _build_beliefs(self, Core root, Observations observations) except -1:
        """Each tree's weighted pool of worlds (bots._inference), drawn from
        that tree's own random stream; none (uniform worlds) when inference
        is off."""
        cdef ISMCTS t
        for t in self._trees():
            t.beliefs.n = 0
            if t.inference != "off":
                beliefs_build(&t.beliefs, &root.config.c, &root.s, current_player(&root.s),
                              observations, TRUST, POOL, &t.rng)
        return 0

    def _run(self, Core root, long long n, int searcher=-1):
        """``n`` iterations from ``root`` without the GIL, worlds sampled
        from ``searcher``'s information (-1: the player to move); returns n."""
        cdef const Config* c = &root.config.c
        if searcher < 0:
            searcher = current_player(&root.s)
        cdef double polish = 0.0
        cdef long long k
        cdef IterationStatus status = ITERATION_DONE
        cdef int32_t path_nodes[PATH_CAP]
        cdef int32_t path_edges[PATH_CAP]
        with nogil:
            for k in range(n):
                status = self._iterate(c, &root.s, searcher, path_nodes, path_edges, &polish)
                if status == ITERATION_OUT_OF_MEMORY:
                    break
                self.wins += polish if searcher == 0 else 1.0 - polish
        if status == ITERATION_OUT_OF_MEMORY:
            raise MemoryError("ISMCTS: out of memory")
        return n

    cdef list _edge_rows(self, int32_t node):
        cdef Edge* e = &_edges(&self.tree)[self.tree.nodes[node].first]
        cdef int k
        return [[e[k].h.action, e[k].h.visits, e[k].wins]
                for k in range(self.tree.nodes[node].count)]

    cdef list _row_stats(self, list rows):
        return [{"action": a, "visits": v, "value": w / v if v else 0.0} for a, v, w in rows]

    cdef dict _sizes(self):
        """Sums over the trees: nodes, edges, bytes, worlds, wins."""
        cdef ISMCTS t
        cdef long long nodes = 0, edges = 0, worlds = 0
        cdef double wins = 0.0
        cdef size_t size = 0
        for t in self._trees():
            nodes += t.tree.n_nodes
            edges += t.tree.n_edges
            size += tree_bytes(&t.tree)
            worlds += t.worlds
            wins += t.wins
        return {"nodes": nodes, "edges": edges, "bytes": size, "worlds": worlds, "wins": wins}

    cdef dict _stats(self, Core root, int searcher, long long done, double seconds):
        sizes = self._sizes()
        wins = sizes["wins"]
        found = self._merged(root)
        actions = []
        for action, visits, total in (found[1] if found is not None else []):
            mean = total / visits if visits else 0.0
            a = {"action": action, "visits": visits, "value": mean}
            a["stderr"] = sqrt(mean * (1 - mean) / visits) if visits > 1 else 1.0
            actions.append(a)
        total = sum(a["visits"] for a in actions) or 1
        for a in actions:
            a["frequency"] = a["visits"] / total
        # The position's value is that of the recommended (most visited)
        # action: the iterations spent exploring worse actions say little
        # about the position under good play.
        p = wins / done if done else 0.5
        if actions:
            best = max(actions, key=lambda a: (a["visits"], a["value"]))
            p = best["value"]
            n = max(1, best["visits"])
        else:
            n = max(1, done)
        value, ci = win_probabilities(searcher, p, n, value_bias(root, "ismcts", self.eval))
        return {"player": searcher, "actions": actions, "value": value, "value_ci95": ci,
                "root_mean": wins / done if done else None,
                "iterations": done, "worlds": sizes["worlds"], "seconds": seconds,
                "nodes": sizes["nodes"], "edges": sizes["edges"], "memory_bytes": sizes["bytes"],
                "belief_worlds": self.beliefs.n}
