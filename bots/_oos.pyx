# cython: language_level=3
"""Online outcome-sampling MCCFR from the current information set (cimports solver._core).

The search of Lisý, Lanctot and Bowling, "Online Monte Carlo
Counterfactual Regret Minimization for Search in Imperfect Information
Games" (AAMAS 2015, Online Outcome Sampling), without its targeting: like
ISMCTS, every iteration starts from a full state sampled consistently with
the searcher's information (``resample``, the same sampling of worlds as
``bots._ismcts``), so the sampled worlds play the role of the chance node at
the root of a subgame, and one iteration of outcome-sampling MCCFR (Lanctot,
Waugh, Zinkevich and Bowling, NIPS 2009; OpenSpiel's
``outcome_sampling_mccfr`` and ``oos.cc``) runs from there:

* Nodes are keyed by the information state of the player to move (a 64-bit
  hash of the core's key), for *both* players, and hold per legal action a
  cumulative regret and a cumulative (average) strategy.  The current
  strategy is regret matching (``regret=rm``) or regret matching+
  (``regret=rm+``: cumulative regrets clipped at zero).
* The iterations alternate the *update player* i.  At i's nodes an action is
  sampled from ``epsilon * uniform + (1 - epsilon) * sigma`` (exploration);
  at the other player's nodes from ``sigma`` (on-policy); chance from its
  true distribution.  So the importance weight of a history h reduces to
  ``1 / q_i(h)``, q_i the product of i's sampling probabilities above h.
* The tree grows by one node per iteration (the first information state not
  in it, whose action is then drawn from its current strategy); from
  there the playout policy of ``bots._searchtree`` (``rollout=informed`` or
  ``random``) finishes the game, and its result is the frontier value, as in
  ``oos.cc``; or, as ``eval`` says (bots._searchtree.leaf_value), the value
  network's win probability, mixed with the playout or after a playout to the
  end of the turn (a value v of the update player counts as the utility
  2v - 1).  Past the node cap (``nodes=``) no node is added.
* Warm start (``prior=``, default 300; 0 turns it off): a new node's
  cumulative regret starts at ``prior`` for the actions the heuristic bot
  prefers there (``bots._policy``, which reads only the mover's information,
  so every world of an information set gets the same start) and at 0 for
  the rest, so regret matching plays the heuristic's choice until sampled
  regrets outweigh it: the regret-based counterpart of ISMCTS's progressive
  bias, in the spirit of Brown and Sandholm's warm starting of regret
  minimisation (AAAI 2016).  Regret matching still converges (the start is a
  constant offset, whose weight in the average vanishes).  The scale is
  that of the importance-weighted regrets: an explored action's sampled
  value is divided by its sampling probability (about epsilon / n), so one
  iteration can add tens to hundreds.  Seat-swapped 40-game matches at
  0.02 s a move (seed 7) against the heuristic bot: prior 0, 3, 30, 300,
  1000, 3000 won 5, 11, 18, 22, 24, 21; against ISMCTS prior 300 won 11 and
  1000 won 6.
* Tree reuse (``search(..., keep=True)``, the bot's ``reuse=yes``): a
  search may go on with the tree of the previous ones when that tree holds
  the new root's information set (and fills at most half the node cap),
  their regrets, average strategies and baselines there counting as a head
  start.  OpenSpiel's ``oos.cc`` likewise keeps one table of values across
  its searches, but its iterations all start at the game's root (targeted
  toward the current information set), so every search refines one
  whole-game strategy; ours start at worlds sampled for the current root.
  Off by default: at 0.1 s a move it scored 28 of 100 seat-swapped games
  against ISMCTS where the fresh search scored 34 on the same deals
  (``results/oos-variants.md``).  A likely reason: what an earlier search
  learnt at the new root was learnt in worlds sampled for an earlier, less
  informed root, and it keeps its weight in the average strategy.
* Going back up, the sampled utility (+1/-1 for i) is corrected with
  baselines, as in VR-MCCFR (Schmid, Burch, Lanctot, Moravcik, Kadlec and
  Bowling, AAAI 2019): every edge keeps b(a), a running mean of the values
  sampled after it (``baseline=mean``; ``none``: b = 0, plain outcome
  sampling).  At a tree node with sampled action a*, sampling probability
  s(a*) and child estimate v, the estimate of each action's value is
  ``u(a) = b(a) + [a = a*] (v - b(a)) / s(a*)`` and of the node's
  ``v(h) = sum_a sigma(a) u(a)``, which is passed up (unbiased whatever b;
  chance passes v unchanged).  At i's nodes the regrets grow by
  ``(u(a) - v(h)) / q_i(h)``, so every action learns something from every
  visit.  At the other player's nodes the average strategy grows by
  ``w_t * sigma / q_i(h)`` (stochastically weighted averaging), w_t = 1
  (``weighting=uniform``) or t (``linear``).

The recommended mixed strategy is the root's average strategy, with the
actions below ``threshold`` dropped (purification of sampling noise) and the
rest renormalised.  The defaults (epsilon 0.3, threshold 0.2, baselines,
linear averaging) were chosen by seat-swapped 100-game matches against
ISMCTS at 0.05 s a move: OOS won 7 games with epsilon 0.6, no threshold, no
baselines and uniform averaging; 23 with epsilon 0.3, threshold 0.2 and
baselines; 32 with linear averaging as well.

Value estimate.  Each iteration's trajectory is on-policy except for the
update player's exploration, and its weight
``rho = prod over i's tree nodes of sigma(a)/s(a)`` undoes that (trajectories
through an action of zero current probability weigh 0).  The reported win
probability of the player to move is the self-normalised importance-sampling
mean ``sum w_t rho win / sum w_t rho`` over the iterations, the value of the
play the search actually converged on: for no-regret dynamics in a zero-sum
game the average payoff of the current strategies converges to the value of
the (sampled-world) subgame, and no exploratory move biases it, unlike a
plain mean of the sampled outcomes; with linear weighting the early, nearly
uniform strategies count less.  Its 95% interval is the normal interval
with the effective sample size ``(sum w rho)^2 / sum (w rho)^2``: sampling
error only, not the error of the worlds' prior or of the frontier playouts.
A root action's value is the same mean over the iterations that took it,
with the root's own ratio left out.

Root parallelisation (``threads`` > 1), as ISMCTS's: the search keeps
``threads`` independent trees, each with its own random stream
(``bots._budget.thread_seed``), its own weighted worlds and a share of the
node cap, and runs each tree's iterations on its own native thread without
the GIL (``bots._budget.run_trees``).  At the root the trees' cumulative
average strategies, visits and value sums are added up (each tree's
average strategy is a sampled estimate of the same subgame's equilibrium;
its sum grows with its iterations, about as T^2 / 2 with linear weighting,
so trees of equal budgets count alike), and the threshold is applied to
the sum; ``current`` is the mean of the trees' regret-matching strategies.
A tree that ran no iteration in this search (a budget below the threads)
is left out.  With ``keep`` each tree keeps its own tree; a kept tree's
linear weights run on from its earlier iterations, so beside a tree that
started afresh it outweighs it, as a kept tree outweighs its own new
iterations with one thread.  Tree 0 is this object's own,
seeded with ``seed``, so one thread is the one-tree search, and an
iteration budget with a seed repeats the search for a given N.

Everything per iteration runs in C without the GIL and without Python
objects.
"""

from libc.math cimport sqrt
from libc.stdint cimport int32_t, uint32_t, uint64_t
from libc.string cimport memset

from bots._budget import run_trees, thread_seed, value_bias, win_probabilities
from bots._searchtree cimport (
    ITERATION_DONE, ITERATION_OUT_OF_MEMORY, NODE_ADDED, NODE_OUT_OF_MEMORY, PATH_CAP,
    Descent, EdgeHead, IterationStatus, Node, Tree, TreeSearch, descent_next, descent_start,
    descent_take, leaf_value, preferred_edges, tree_bytes, tree_clear,
)
from bots._searchtree import ROLLOUTS
from bots._inference cimport (
    Beliefs, Observations, beliefs_build, beliefs_free, descent_start_beliefs,
)
from bots._inference import POOL, TRUST, check_inference
from solver._core cimport (
    NUM_ACTIONS, Config, Core, State, current_player, is_chance, is_terminal, rng_unit,
)


ctypedef struct Edge:
    EdgeHead h                 # action id and visits (iterations that sampled it here)
    double regret              # cumulative regret (importance-weighted)
    double avg                 # cumulative strategy (unnormalised average strategy)
    double baseline            # running mean of the value after it, for the node's player


cdef inline Edge* _edges(Tree* t) noexcept nogil:
    """The edge pool as OOS edges (re-read after a node is added)."""
    return <Edge*>t.edges


ctypedef struct Step:
    int32_t node               # tree node on the iteration's path
    int32_t edge               # edge taken there (index into the edge pool)
    double sigma               # current-strategy probability of that edge
    double sample              # probability with which it was sampled
    double reach               # the update player's sampling reach q_i above the node


cdef enum:
    BASELINE_SPAN = 1000       # a baseline averages about this many recent samples at most


cdef class OOS(TreeSearch):
    """An online outcome-sampling MCCFR searcher for one game configuration.

    ``epsilon``: exploration at the update player's nodes; ``max_nodes``: the
    node cap that bounds memory; ``rollout``: the playout policy past the
    tree (as ISMCTS's: "heuristic", "heuristic-pure", "informed", "random"); ``threshold``: root actions of smaller average
    probability are dropped from the recommended strategy; ``weighting``:
    "uniform" or "linear" (iteration t weighs t) averaging; ``regret``: "rm"
    or "rm+"; ``baseline``: "mean" (VR-MCCFR baselines) or "none"; ``prior``:
    the initial regret of the heuristic's choices at a new node (0: none);
    ``inference``: "off" or "heuristic" (worlds weighted by the opponent's
    observed decisions, bots._inference, as ISMCTS's); ``eval``, ``mix``,
    ``net``: how the frontier is valued, as ISMCTS's; ``seed``:
    the searcher's random stream (same seed and iteration budget, same
    result); ``threads``: the trees searched in parallel, one native thread
    each (see the module's docstring), the iteration budget and the node cap
    split among them as ISMCTS's.  The tree, its node cap and its
    hash-collision policy are bots._searchtree's.
    """
    cdef readonly double epsilon
    cdef readonly double threshold
    cdef readonly bint linear
    cdef readonly bint plus
    cdef readonly bint use_baseline
    cdef long long done            # iterations since the tree was last cleared (linear averaging's clock)
    cdef int32_t root_node         # tree node of the current search's root (-1 until it exists)
    cdef long long start           # ``done`` when the current search began
    cdef double vw, vwu, vw2       # value estimator: sums of weight, weight * win, weight^2
    cdef double aw[NUM_ACTIONS]    # the same per root edge (root's own ratio left out)
    cdef double awu[NUM_ACTIONS]
    cdef double aw2[NUM_ACTIONS]
    cdef Step path[PATH_CAP]
    cdef Beliefs beliefs           # weighted worlds of the current search (n 0: uniform)
    cdef readonly str inference    # "off" or "heuristic" (bots._inference)
    cdef readonly int threads      # trees searched in parallel (this one and the helpers)

    def __cinit__(self):
        self.beliefs.worlds = NULL
        self.beliefs.cum = NULL
        self.beliefs.n = 0
        self.beliefs.cap = 0

    def __dealloc__(self):
        beliefs_free(&self.beliefs)

    def __init__(self, double epsilon=0.3, int max_nodes=1_000_000, str rollout="heuristic",
                 double threshold=0.2, str weighting="linear", str regret="rm",
                 str baseline="mean", seed=0, double prior=300.0, str inference="off",
                 int threads=1, str eval="playout", double mix=0.5, net=None):
        self.inference = check_inference(inference)
        if not prior >= 0.0:
            raise ValueError(f"prior must be at least 0, got {prior}")
        self.prior = prior
        if not 0.0 < epsilon <= 1.0:
            raise ValueError(f"epsilon must be in (0, 1], got {epsilon}")
        if max_nodes < 1:
            raise ValueError("max_nodes must be at least 1")
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout: expected one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        if not 0.0 <= threshold < 1.0:
            raise ValueError(f"threshold must be in [0, 1), got {threshold}")
        if weighting not in ("uniform", "linear"):
            raise ValueError(f"weighting: expected uniform or linear, got {weighting!r}")
        if regret not in ("rm", "rm+"):
            raise ValueError(f"regret: expected rm or rm+, got {regret!r}")
        if baseline not in ("mean", "none"):
            raise ValueError(f"baseline: expected mean or none, got {baseline!r}")
        self.use_baseline = baseline == "mean"
        self.epsilon = epsilon
        self.threshold = threshold
        self.rollout = ROLLOUTS[rollout]
        self.linear = weighting == "linear"
        self.plus = regret == "rm+"
        self.threads = threads
        cap = max(1, max_nodes // threads)
        self._init_tree(sizeof(Edge), cap, seed)
        self._init_leaf(eval, mix, net)
        self.helpers = [OOS(epsilon, cap, rollout, threshold, weighting, regret, baseline,
                            thread_seed(seed, k), prior, inference, 1, eval, mix, self.net)
                        for k in range(1, threads)]
        self.reset()

    def reset(self):
        """Forgets the trees and the value sums (a new search starts from scratch)."""
        cdef OOS t
        for t in self._trees():
            t._forget()

    cdef void _forget(self) noexcept:
        """Forgets this tree and its value sums."""
        tree_clear(&self.tree)
        self.done = 0
        self._clear_sums()

    cdef void _clear_sums(self) noexcept:
        """Forgets the value estimator's sums (per search, even when the tree is kept)."""
        self.root_node = -1
        self.vw = self.vwu = self.vw2 = 0.0
        memset(self.aw, 0, NUM_ACTIONS * sizeof(double))
        memset(self.awu, 0, NUM_ACTIONS * sizeof(double))
        memset(self.aw2, 0, NUM_ACTIONS * sizeof(double))

    # ---- the tree ------------------------------------------------------------

    cdef void _strategy(self, int32_t node, double* sigma) noexcept nogil:
        """The current strategy at ``node``: regret matching (uniform when no
        regret is positive)."""
        cdef Edge* e = &_edges(&self.tree)[self.tree.nodes[node].first]
        cdef int k, n = self.tree.nodes[node].count
        cdef double total = 0.0
        for k in range(n):
            if e[k].regret > 0.0:
                total += e[k].regret
        for k in range(n):
            if total > 0.0:
                sigma[k] = e[k].regret / total if e[k].regret > 0.0 else 0.0
            else:
                sigma[k] = 1.0 / n

    # ---- one iteration ------------------------------------------------------

    cdef IterationStatus _iterate(self, const Config* c, const State* root, int searcher,
                                  int update, double weight) noexcept nogil:
        """One outcome-sampling iteration updating the regrets of ``update``."""
        cdef Descent walk
        cdef int pref[NUM_ACTIONS]
        cdef double sigma[NUM_ACTIONS]
        cdef int n, p, depth, k, pick, d, n_pref
        cdef int32_t node
        cdef Node* nd
        cdef Edge* e
        cdef double u[NUM_ACTIONS]
        cdef double q = 1.0, rho = 1.0, rho_below = 1.0, explore, x, prob, v, v_h, w, sign
        cdef double polish
        descent_start_beliefs(&walk, c, root, searcher, &self.beliefs, &self.rng)
        while descent_next(&walk, &self.tree, c, &self.rng):
            n, node, depth = walk.n, walk.node, walk.depth
            p = current_player(&walk.s)
            if walk.found == NODE_ADDED and self.prior > 0.0:
                # warm start: regret matching first plays what the heuristic prefers
                n_pref = preferred_edges(c, &walk.s, walk.buf, n, pref)
                for k in range(n_pref):
                    _edges(&self.tree)[self.tree.nodes[node].first + pref[k]].regret = self.prior
            nd = &self.tree.nodes[node]
            e = &_edges(&self.tree)[nd.first]
            self._strategy(node, sigma)
            explore = self.epsilon if p == update else 0.0
            # sample from explore * uniform + (1 - explore) * sigma
            x = rng_unit(&self.rng)
            pick = -1
            for k in range(n):
                prob = explore / n + (1.0 - explore) * sigma[k]
                if prob > 0.0:
                    pick = k  # the last action of positive probability, against rounding
                    x -= prob
                    if x < 0.0:
                        break
            prob = explore / n + (1.0 - explore) * sigma[pick]
            if p == update:
                rho *= sigma[pick] / prob
                if depth > 0:
                    rho_below *= sigma[pick] / prob
            else:
                # stochastically weighted averaging: the other player's
                # reach and chance cancel against their sampling
                for k in range(n):
                    e[k].avg += weight * sigma[k] / q
            self.path[depth].node = node
            self.path[depth].edge = nd.first + pick
            self.path[depth].sigma = sigma[pick]
            self.path[depth].sample = prob
            self.path[depth].reach = q
            if p == update:
                q *= prob
            nd.visits += 1
            e[pick].h.visits += 1
            descent_take(&walk, c, e[pick].h.action)
        if walk.found == NODE_OUT_OF_MEMORY:
            return ITERATION_OUT_OF_MEMORY
        # the Polish side's win probability at the leaf (a playout: 0 or 1)
        x = leaf_value(&self.leaf, c, &walk.s, walk.buf, walk.n, self.rollout, &self.rng)
        polish = x
        depth = walk.depth
        # bottom up: baseline-corrected values, regrets of the update player
        v = 2.0 * (x if update == 0 else 1.0 - x) - 1.0
        for d in range(depth - 1, -1, -1):
            nd = &self.tree.nodes[self.path[d].node]
            e = &_edges(&self.tree)[nd.first]
            pick = self.path[d].edge - nd.first
            sign = 1.0 if nd.player == update else -1.0
            self._strategy(self.path[d].node, sigma)
            # u[k]: the estimate of the value after action k for the update
            # player, the baseline plus the importance-weighted sampled error
            v_h = 0.0
            for k in range(nd.count):
                u[k] = sign * e[k].baseline if self.use_baseline else 0.0
                if k == pick:
                    u[k] += (v - u[k]) / self.path[d].sample
                v_h += sigma[k] * u[k]
            if nd.player == update:
                w = 1.0 / self.path[d].reach
                for k in range(nd.count):
                    e[k].regret += w * (u[k] - v_h)
                    if self.plus and e[k].regret < 0.0:
                        e[k].regret = 0.0
            e[pick].baseline += (sign * v - e[pick].baseline) / (
                e[pick].h.visits if e[pick].h.visits < BASELINE_SPAN else BASELINE_SPAN)
            v = v_h
        # the value estimator (see the module docstring)
        x = polish if searcher == 0 else 1.0 - polish
        w = weight * rho
        self.vw += w
        self.vwu += w * x
        self.vw2 += w * w
        if depth > 0 and self.root_node < 0:
            self.root_node = self.path[0].node     # the root's information state: always first
        if depth > 0 and self.path[0].node == self.root_node:
            k = self.path[0].edge - self.tree.nodes[self.root_node].first
            w = weight * rho_below
            self.aw[k] += w
            self.awu[k] += w * x
            self.aw2[k] += w * w
        return ITERATION_DONE

    # ---- the search -----------------------------------------------------------

    def search(self, Core root, long long iterations=0, double time_limit=0.0,
               bint keep=False, Observations observations=None, stop=None):
        """Searches from ``root`` (a decision of a player) for a number of
        iterations or seconds (the first budget reached); returns statistics.

        ``keep``: go on with the tree of the previous searches (regrets,
        average strategies and baselines of every information set they
        reached) if it holds ``root``'s information set and fills at most
        half the node cap; otherwise (and by default) start from scratch.
        ``observations``: what the searcher's player saw of the game so far
        (bots._inference.Observations), weighed when ``inference`` is on.
        ``stop``: a callable looked at after each chunk of iterations; True
        ends the search early (the exact solver beside it has finished).
        The value estimate and the root's per-action values always come
        from this search's iterations only.

        ``stats["strategy"]``: the recommended mixed strategy, {action:
        probability} over exactly the legal actions; ``stats["actions"]``:
        per legal action its ``frequency`` (the same probability),
        ``average`` (the average strategy before the threshold), ``current``
        (regret matching now), ``visits`` (iterations that sampled it at the
        root, with ``keep`` those of the kept tree too), ``value`` (the
        mover's win probability after it) and ``stderr``; ``stats["value"]``
        and ``stats["value_ci95"]``: the win probability of each side with a
        95% interval (see the module docstring); and the iterations,
        seconds, nodes and bytes.
        """
        cdef OOS t
        if is_terminal(&root.s) or is_chance(&root.s):
            raise ValueError("search needs a decision node")
        self.check_net(root)
        if observations is not None and observations.config.key != root.config.key:
            raise ValueError("observations: recorded in another game than the one searched")
        for t in self._trees():
            t._prepare(root, keep, observations)
        done, by_thread, seconds = run_trees(
            [(lambda n, t=t: t._run(root, n)) for t in self._trees()], iterations, time_limit,
            stop)
        stats = self._stats(root, current_player(&root.s), done, seconds)
        stats["threads"] = self.threads
        stats["iterations_by_thread"] = by_thread
        return stats

    cdef int _prepare(self, Core root, bint keep, Observations observations) except -1:
        """This tree before a search: kept (``keep``, if it holds ``root``'s
        information set and fills at most half its cap) or cleared, the value
        sums cleared, and its weighted worlds drawn from its own stream."""
        cdef int32_t node = -1
        if keep and 2 * self.tree.n_nodes <= self.tree.max_nodes:
            node = self._state_node(root)   # -1 on a hash collision too
        if node < 0:
            self._forget()
        else:
            self._clear_sums()
            self.root_node = node
        self.start = self.done
        self.beliefs.n = 0
        if self.inference != "off":
            beliefs_build(&self.beliefs, &root.config.c, &root.s, current_player(&root.s),
                          observations, TRUST, POOL, &self.rng)
        return 0

    def _run(self, Core root, long long n):
        """``n`` more iterations from ``root`` without the GIL; returns n.
        The update player alternates, the searcher first."""
        cdef const Config* c = &root.config.c
        cdef int searcher = current_player(&root.s)
        cdef long long k
        cdef IterationStatus status = ITERATION_DONE
        with nogil:
            for k in range(n):
                self.done += 1
                status = self._iterate(c, &root.s, searcher,
                                       <int>((searcher + self.done - self.start + 1) & 1),
                                       <double>self.done if self.linear else 1.0)
                if status == ITERATION_OUT_OF_MEMORY:
                    break
        if status == ITERATION_OUT_OF_MEMORY:
            raise MemoryError("OOS: out of memory")
        return n

    cdef list _root_sums(self):
        """Per root edge of this tree: [action, average sum, current strategy,
        visits, aw, awu, aw2] (empty if no iteration reached the root)."""
        cdef double sigma[NUM_ACTIONS]
        cdef Edge* e
        cdef int k, n
        if self.root_node < 0:
            return []
        n = self.tree.nodes[self.root_node].count
        e = &_edges(&self.tree)[self.tree.nodes[self.root_node].first]
        self._strategy(self.root_node, sigma)
        return [[e[k].h.action, e[k].avg, sigma[k], e[k].h.visits,
                 self.aw[k], self.awu[k], self.aw2[k]] for k in range(n)]

    cdef dict _stats(self, Core root, int searcher, long long done, double seconds):
        cdef OOS t
        cdef double vw = 0.0, vwu = 0.0, vw2 = 0.0, avg_total = 0.0
        cdef size_t size = 0
        cdef long long nodes = 0, edges = 0
        rows = None
        reached = 0
        for t in self._trees():
            vw += t.vw
            vwu += t.vwu
            vw2 += t.vw2
            nodes += t.tree.n_nodes
            edges += t.tree.n_edges
            size += tree_bytes(&t.tree) + sizeof(Step) * PATH_CAP
            if t.done == t.start:  # no iteration in this search (an idle tree)
                continue
            sums = t._root_sums()
            if not sums:
                continue
            reached += 1
            if rows is None:
                rows = sums
                continue
            for row, more in zip(rows, sums):  # the same legal actions, in the same order
                if row[0] != more[0]:
                    raise RuntimeError("OOS: the trees' roots list different actions")
                for j in range(1, 7):
                    row[j] += more[j]
        if rows is None:   # also when no iteration ran
            raise ValueError("OOS: no iteration reached the root")
        for row in rows:       # in order, as one tree's C loop did before
            avg_total += row[1]
        actions = []
        for action, avg_sum, current, visits, aw, awu, aw2 in rows:
            mean, ess = _weighted(aw, awu, aw2)
            actions.append({"action": action,
                            "average": avg_sum / avg_total if avg_total > 0 else current / reached,
                            "current": current / reached, "visits": visits, "value": mean,
                            "stderr": sqrt(mean * (1 - mean) / ess) if ess > 1 else 1.0})
        top = max(a["average"] for a in actions)
        kept = [a["average"] if a["average"] >= min(self.threshold, top) else 0.0
                for a in actions]
        for a, p in zip(actions, kept):
            a["frequency"] = p / sum(kept)
        p, ess = _weighted(vw, vwu, vw2)
        value, ci = win_probabilities(searcher, p, ess, value_bias(root, "oos", self.eval))
        return {"player": searcher, "actions": actions,
                "strategy": {a["action"]: a["frequency"] for a in actions},
                "value": value, "value_ci95": ci, "effective_samples": ess,
                "iterations": done, "worlds": done, "seconds": seconds,
                "nodes": nodes, "edges": edges, "memory_bytes": size,
                "belief_worlds": self.beliefs.n}

    cdef list _edge_rows(self, int32_t node):
        cdef Edge* e = &_edges(&self.tree)[self.tree.nodes[node].first]
        cdef int k
        return [[e[k].h.action, e[k].h.visits, e[k].avg]
                for k in range(self.tree.nodes[node].count)]

    cdef list _row_stats(self, list rows):
        cdef double total = 0.0
        for row in rows:       # in order, as one tree's C loop did before
            total += row[2]
        return [{"action": a, "visits": v, "frequency": w / total if total > 0 else 0.0}
                for a, v, w in rows]


def _weighted(double w, double wu, double w2):
    """Self-normalised mean and effective sample size of weighted 0/1 samples
    (0.5 and 0 when there are none)."""
    if w <= 0.0:
        return 0.5, 0.0
    return min(1.0, max(0.0, wu / w)), w * w / w2
