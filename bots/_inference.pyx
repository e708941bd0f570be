# cython: language_level=3
"""Opponent-hand inference: worlds weighted by what the opponent's play says.

The searchers (bots._ismcts, bots._oos) sample a world per iteration, today
uniformly among the opponent hands consistent with the searcher's
information (``resample``, R26).  With inference, a search first draws a pool
of ``POOL`` such worlds and weighs each by the likelihood of the opponent's
observed decisions in it; its iterations then draw their worlds from the
pool in proportion to the weights (importance resampling).

What the searcher uses (``Observations``): the public events of the game as
its player saw them, each with the position just before it *masked* to that
player's view (``mask_state``: the opponent's hand and deck become one
unseen pile, the opponent's draw marks and the move counter are cleared, so
nothing the info key hides survives).  Recorded are chance outcomes (dice),
the searcher's own decisions, and the opponent's *plays*; the opponent's
passes and declines are never recorded, since whether the opponent had a
decision there at all depends on its hand (R29: a declined window looks the
same as a skipped one; R30: a main step where only passing was legal
happens without a decision).  The model weighs instead, in each world,
every decision the engine would have given the opponent between two
recorded events: the opponent must have passed or declined there.

The model of the opponent: the heuristic bot's rules (bots._policy, in C)
made soft, ``P(a) = TRUST * [a among the heuristic's choices] / (their
number) + (1 - TRUST) / (legal actions)``, so every legal action keeps
probability at least ``(1 - TRUST) / n``: no consistent world gets zero
likelihood.  A world's weight is its likelihood relative to the pool's best,
floored at ``WEIGHT_FLOOR`` (so a world the model finds very unlikely is
still drawn now and then: the model is only a model).

The hand at a past decision.  Cards enter a hand only in the draw step at a
turn's start (R5); after it a hand only loses cards, each publicly (placed
or played).  So the model weighs only the decisions of the current turn's
action step, where the opponent's hand in a world is exact: the world's
hand now plus the cards that left the hand since (the opponent's cards
unseen then and seen now).  Decisions of earlier turns are not weighed (the
hand has changed by draws the searcher did not see).

With no recorded decision to weigh (no observations, the start of a turn,
or every world equally likely) the search samples uniformly, as without
inference.
"""

from libc.math cimport exp, log
from libc.stdint cimport uint32_t
from libc.stdlib cimport free, malloc, realloc

from bots._policy cimport heuristic_ties
from bots._searchtree cimport NODE_FOUND, descent_start
from solver._core cimport (
    A_DECLINE, A_PASS, A_PLACE, A_SELECT_ENEMY, LOC_ABSENT, LOC_COUNT, LOC_DECK, LOC_HAND, NUM_ACTIONS,
    PH_MAIN, PH_REDRAW, PH_TERMINAL, SIDE_CARDS, Config, Core, CoreConfig, Rng, State,
    apply_action_n, current_player, hand_size, is_chance, is_terminal, legal_actions,
    resample, rng_seed, rng_unit,
)

INFERENCE = ("off", "heuristic")  # the searchers' ``inference`` settings
POOL = 64                  # worlds drawn and weighed per search
TRUST = 0.5                # weight of the heuristic's choices in the opponent model

WEIGHT_FLOOR = 0.01        # the least weight of a world, relative to the best one
cdef int C_POOL = POOL        # the same three, for the nogil code
cdef double C_TRUST = TRUST
cdef double C_FLOOR = WEIGHT_FLOOR
cdef double MISS = 0.1     # factor on the uniform share when the play is illegal in a world
cdef int NONPLAY_CAP = 64  # passes/declines weighed between two records at most


def check_inference(str inference):
    """``inference`` itself if it is one of :data:`INFERENCE`, else ValueError
    (the searchers' constructors check it so)."""
    if inference not in INFERENCE:
        raise ValueError(f"inference: expected one of {', '.join(INFERENCE)}, "
                         f"got {inference!r}")
    return inference



# ---- masking -------------------------------------------------------------------

cdef inline void _side_masks(State* s, int side) noexcept nogil:
    """Recomputes ``at[side]`` from ``loc`` (after loc was written directly)."""
    cdef int g, k
    for k in range(LOC_COUNT):
        s.at[side][k] = 0
    for g in range(SIDE_CARDS):
        s.at[side][s.loc[side * SIDE_CARDS + g] & 7] |= (<uint32_t>1) << g


cdef void mask_state(const Config* c, State* s, int viewer) noexcept nogil:
    """``s`` reduced to ``viewer``'s information: the opponent's hand and deck
    one unseen pile (all in the deck), no draw marks on them, the opponent's
    secret redraw choice cleared, and no move counter (a declined window
    counts a move that a skipped one does not)."""
    cdef int o = 1 - viewer, g
    for g in range(o * SIDE_CARDS, o * SIDE_CARDS + SIDE_CARDS):
        if s.loc[g] == LOC_HAND:
            s.loc[g] = LOC_DECK
        if s.loc[g] == LOC_DECK:
            s.drawn[g] = 0
    if s.phase == PH_REDRAW:
        s.redraw_choice[o] = 0
    s.moves = 0
    _side_masks(s, o)


cdef int _fill(const Record* r, const State* world, int o, State* out) noexcept nogil:
    """The position of record ``r`` in ``world``: the opponent's hand then is
    the world's hand now plus the cards that left it since (unseen then,
    seen now); -1 if that does not give the hand size of the record."""
    cdef int g, count = 0, wl
    out[0] = r.m
    for g in range(o * SIDE_CARDS, o * SIDE_CARDS + SIDE_CARDS):
        if r.m.loc[g] == LOC_DECK:
            wl = world.loc[g]
            if wl != LOC_DECK and wl != LOC_ABSENT:
                out.loc[g] = LOC_HAND
                count += 1
    if count != r.hand:
        return -1
    _side_masks(out, o)
    return 0


# ---- the opponent model ------------------------------------------------------------

cdef double _prob(const Config* c, const State* s, const int* acts, int n, int a,
                  double trust) noexcept nogil:
    """P(a) under the soft heuristic at ``s`` (``a`` among ``acts``)."""
    cdef int pref[NUM_ACTIONS]
    cdef int k, n_pref = heuristic_ties(c, s, acts, n, pref)
    cdef double p = (1.0 - trust) / n
    for k in range(n_pref):
        if pref[k] == a:
            return p + trust / n_pref
    return p


cdef int _match(const Config* c, int a, int mover, const int* acts, int n) noexcept nogil:
    """The legal action that is ``a`` or, for a card action, the same action
    with an interchangeable card (R27: the engine offers one card per class);
    -1 if none."""
    cdef int k, b, block, owner, g, h
    for k in range(n):
        if acts[k] == a:
            return a
    if a < A_PLACE:
        return -1
    block = (a - A_PLACE) // SIDE_CARDS
    # the blocks from A_SELECT_ENEMY on name enemy cards
    owner = mover if block < (A_SELECT_ENEMY - A_PLACE) // SIDE_CARDS else 1 - mover
    g = owner * SIDE_CARDS + (a - A_PLACE) % SIDE_CARDS
    for k in range(n):
        b = acts[k]
        if b >= A_PLACE and (b - A_PLACE) // SIDE_CARDS == block:
            h = owner * SIDE_CARDS + (b - A_PLACE) % SIDE_CARDS
            if c.cls[h] == c.cls[g]:
                return b
    return -1


cdef inline bint _is_next(const State* s, const Record* nxt) noexcept nogil:
    """True if the next record is the opponent's play at this very decision."""
    return (nxt != NULL and nxt.opponent and nxt.m.phase == s.phase
            and nxt.m.player == s.player and nxt.m.actor == s.actor
            and nxt.m.passes == s.passes and nxt.m.actions_left == s.actions_left
            and nxt.m.pend.kind == s.pend.kind and nxt.m.pend.card == s.pend.card
            and nxt.m.pend.window_passes == s.pend.window_passes)


cdef double world_loglik(const Config* c, const State* world, const Record* recs, int nrec,
                         int viewer, double trust) noexcept nogil:
    """The log-likelihood of the opponent's observed decisions ``recs`` (this
    turn's, in order) in ``world`` under the soft heuristic: its plays, and a
    pass or decline at every decision the engine gives it between them."""
    cdef State s
    cdef int buf[NUM_ACTIONS]
    cdef int i, k, n, a, o = 1 - viewer, guard
    cdef double ll = 0.0
    cdef const Record* nxt
    for i in range(nrec):
        if _fill(&recs[i], world, o, &s) < 0:
            continue
        nxt = &recs[i + 1] if i + 1 < nrec else NULL
        if recs[i].opponent:
            if is_chance(&s) or is_terminal(&s) or current_player(&s) != o:
                continue
            n = legal_actions(c, &s, buf)
            a = _match(c, recs[i].action, o, buf, n)
            if a < 0:
                ll += log(MISS * (1.0 - trust) / n)
                continue
            ll += log(_prob(c, &s, buf, n, a, trust))
            if recs[i].opponent == 2:
                continue     # a play known alone (advise): what followed is not on record
            n = apply_action_n(c, &s, a, buf)
        else:
            if not is_chance(&s):
                n = legal_actions(c, &s, buf)
                if _match(c, recs[i].action, current_player(&s), buf, n) != recs[i].action:
                    continue
            n = apply_action_n(c, &s, recs[i].action, buf)
        # the decisions the opponent would have had here before the next
        # recorded event: it passed or declined at each
        guard = 0
        while (guard < NONPLAY_CAP and not is_chance(&s) and not is_terminal(&s)
               and current_player(&s) == o and not _is_next(&s, nxt)):
            guard += 1
            a = -1
            for k in range(n):
                if buf[k] == A_PASS or buf[k] == A_DECLINE:
                    a = buf[k]
                    break
            if a < 0:
                break
            ll += log(_prob(c, &s, buf, n, a, trust))
            n = apply_action_n(c, &s, a, buf)
    return ll


# ---- the pool of weighted worlds ---------------------------------------------

cdef void beliefs_free(Beliefs* b) noexcept nogil:
    free(b.worlds)
    free(b.cum)
    b.worlds = NULL
    b.cum = NULL
    b.n = 0
    b.cap = 0


cdef int _current_turn(const Record* recs, int nrec, const State* root) noexcept nogil:
    """The index of the first record of the current turn's action step."""
    cdef int start = nrec
    while (start > 0 and recs[start - 1].m.turn == root.turn
           and recs[start - 1].m.phase >= PH_MAIN and recs[start - 1].m.phase != PH_TERMINAL):
        start -= 1
    return start


cdef int beliefs_build(Beliefs* b, const Config* c, const State* root, int searcher,
                       Observations obs, double trust, int size, Rng* r) except -1:
    """Fills ``b`` with ``size`` worlds resampled for ``searcher`` at ``root``
    and their weights; leaves it empty (uniform sampling, no draw from ``r``)
    when no event of this turn's action step is on record, and empty (after
    the draws) when every world is equally likely."""
    cdef int i, start
    cdef double best = -1e300, worst = 1e300, w, total = 0.0
    cdef double* ll
    b.n = 0
    if obs is None or obs.n == 0 or obs.viewer != searcher:
        return 0
    start = _current_turn(obs.recs, obs.n, root)
    if start >= obs.n:
        return 0
    if b.cap < size:
        beliefs_free(b)
        b.worlds = <State*>malloc(size * sizeof(State))
        b.cum = <double*>malloc(size * sizeof(double))
        if b.worlds == NULL or b.cum == NULL:
            beliefs_free(b)
            raise MemoryError()
        b.cap = size
    ll = b.cum
    with nogil:
        for i in range(size):
            b.worlds[i] = root[0]
            resample(c, &b.worlds[i], searcher, r)
            ll[i] = world_loglik(c, &b.worlds[i], obs.recs + start, obs.n - start, searcher,
                                 trust)
            if ll[i] > best:
                best = ll[i]
            if ll[i] < worst:
                worst = ll[i]
        for i in range(size):
            w = exp(ll[i] - best)
            total += w if w > C_FLOOR else C_FLOOR
            b.cum[i] = total
    if best - worst >= 1e-12:
        b.n = size
    return 0


cdef void descent_start_beliefs(Descent* d, const Config* c, const State* root, int searcher,
                                const Beliefs* b, Rng* r) noexcept nogil:
    """``descent_start`` with the world drawn from the weighted pool ``b``
    (uniform resampling, exactly ``descent_start``, when it is empty)."""
    cdef int lo = 0, hi, mid
    cdef double x
    if b.n == 0:
        descent_start(d, c, root, searcher, r)
        return
    x = rng_unit(r) * b.cum[b.n - 1]
    hi = b.n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if b.cum[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    d.s = b.worlds[lo]
    d.n = 0
    if not is_chance(&d.s) and not is_terminal(&d.s):
        d.n = legal_actions(c, &d.s, d.buf)
    d.depth = 0
    d.found = NODE_FOUND


# ---- what the viewer saw -----------------------------------------------------------

cdef class Observations:
    """The public events ``viewer`` saw in one game, for inference.

    Feed it every transition of the game in order (``record(before,
    action)``, the position before the action and the action), or build it
    from a game's history (``from_history``).  It keeps, for events of an
    action step (not draws or redraws), the position masked to the viewer's
    view (``mask_state``) and the action, except the opponent's passes and
    declines (R29, R30: whether the opponent had that decision at all
    depends on its hand, so the model weighs it instead).  The opponent's
    hidden draws and its redraw choice are not kept.  ``len()`` is the
    number of events kept."""

    def __cinit__(self):
        self.recs = NULL
        self.n = 0
        self.cap = 0

    def __init__(self, CoreConfig config, int viewer):
        if viewer not in (0, 1):
            raise ValueError(f"viewer must be 0 or 1, got {viewer}")
        self.config = config
        self.viewer = viewer

    def __dealloc__(self):
        free(self.recs)

    def __len__(self):
        return self.n

    cdef int _append(self, const State* s, int action, int opponent) except -1:
        cdef Record* grown
        cdef int cap
        if self.n == self.cap:
            cap = 64 if self.cap == 0 else 2 * self.cap
            grown = <Record*>realloc(self.recs, cap * sizeof(Record))
            if grown == NULL:
                raise MemoryError()
            self.recs = grown
            self.cap = cap
        self.recs[self.n].m = s[0]
        self.recs[self.n].hand = hand_size(&(<CoreConfig>self.config).c, s, 1 - self.viewer)
        mask_state(&(<CoreConfig>self.config).c, &self.recs[self.n].m, self.viewer)
        self.recs[self.n].action = action
        self.recs[self.n].opponent = opponent
        self.n += 1
        return 0

    def record(self, Core before, int action):
        """Notes the transition from ``before`` by ``action`` (what the
        viewer may keep of it, see the class docstring)."""
        cdef const State* s = &before.s
        if before.config.key != self.config.key:
            raise ValueError("observations: a position of another game configuration")
        if is_terminal(s) or s.phase < PH_MAIN:
            return
        if not is_chance(s) and current_player(s) != self.viewer:
            if action == A_PASS or action == A_DECLINE:
                return
            self._append(s, action, 1)
        else:
            self._append(s, action, 0)

    def record_play(self, Core before, int action):
        """Notes one play of the opponent known alone (the position before
        it and the action, as a state file's ``opponent_plays`` gives them):
        it is weighed, but not the decisions after it, which are not on
        record.  The plays of one turn go in order, after any ``record``."""
        cdef const State* s = &before.s
        if before.config.key != self.config.key:
            raise ValueError("observations: a position of another game configuration")
        if is_chance(s) or is_terminal(s) or s.phase < PH_MAIN \
                or current_player(s) != 1 - self.viewer:
            raise ValueError("observations: a play is a decision of the opponent in an action step")
        if action == A_PASS or action == A_DECLINE:
            raise ValueError("observations: passes and declines are not plays (R29)")
        self._append(s, action, 2)

    @staticmethod
    def from_history(Core initial, actions, int viewer):
        """The observations of ``viewer`` in the game that starts at
        ``initial`` and goes on by ``actions`` (a pyspiel history)."""
        obs = Observations(initial.config, viewer)
        state = initial.copy()
        for a in actions:
            obs.record(state, a)
            state.apply(a)
        return obs

    def _weights(self, Core root, seed, int size=64, double trust=0.5):
        """The pool a search from ``root`` would weigh, for tests: (worlds as
        Core positions, weights), or ([], []) when sampling stays uniform."""
        cdef Beliefs b
        cdef Rng r
        b.worlds = NULL
        b.cum = NULL
        b.n = 0
        b.cap = 0
        rng_seed(&r, <unsigned long long>(int(seed) & 0xFFFFFFFFFFFFFFFF))
        try:
            beliefs_build(&b, &root.config.c, &root.s, current_player(&root.s), self, trust,
                          size, &r)
            worlds, weights, prev = [], [], 0.0
            for i in range(b.n):
                w = root.copy()
                (<Core>w).s = b.worlds[i]
                worlds.append(w)
                weights.append(b.cum[i] - prev)
                prev = b.cum[i]
            return worlds, weights
        finally:
            beliefs_free(&b)

    def loglik(self, Core world):
        """The log-likelihood of the opponent's decisions of ``world``'s
        current turn in ``world`` (a full position, e.g. a resampled one)."""
        cdef int start = _current_turn(self.recs, self.n, &world.s)
        return world_loglik(&world.config.c, &world.s, self.recs + start, self.n - start,
                            self.viewer, C_TRUST)

