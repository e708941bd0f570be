# cython: language_level=3
"""An exact solver for the last turn (cimports solver._core).

The solvable region
===================
A position is *solvable* when nobody holds a secret any more, so that the
game from there is one of perfect information with dice (R26):

* it is the game's last turn (``turn == Config.turns``): no later draw and
  no later Rocket card;
* the turn's draw, redraw and V-2 (Rocket) steps are over (the phase is none
  of ``PH_DRAW``, ``PH_REDRAW``, ``PH_ROCKET``): the Rocket cards still face
  down can no longer matter, and no redraw decision is secret;
* both decks are empty (``deck_size`` 0 for each side): every card not on
  the table, gone, lying beside the zones or absent is in its owner's hand,
  so each side knows the other's hand exactly.

In the rulebook's game (20-card decks, 5 cards a turn, 4 turns) every
position of the last turn after its V-2 step is in the region; in a variant
whose decks are not empty by then it is not, and nothing is claimed exact.
From such a position the only randomness left is dice, whose outcomes and
probabilities the core gives (``chance_outcomes``).

The search
==========
An expectimax whose value is the Polish win probability, read from the
core's terminal returns (so ties and overruns are decided by the core, R22,
R23): Polish decisions maximise, German decisions minimise, chance nodes
average over their outcomes weighted by their probabilities.

* **Bounds.**  Fail-soft alpha-beta at decision nodes and Ballard's *star1*
  at chance nodes: values lie in [0, 1], so after some outcomes of a chance
  node the window of the next one is ``(alpha - done - 1 * rest) / p`` to
  ``(beta - done - 0 * rest) / p``; when the outcome falls outside it, the
  node's value cannot enter the window and the bound is returned.  An
  empty window (alpha at 1 or beta at 0) returns at once.  A result
  inside the caller's window is exact; one at or below alpha an upper bound,
  one at or above beta a lower bound.
* **Merged chance steps** (``merging``).  Chance steps that follow each
  other (an attack's two dice) are expanded together; outcomes whose
  positions share a key are one outcome with the summed probability (36
  pairs of dice give at most 11 attack margins, often just success or
  failure), the game's end is read at once, and star1 runs over the merged
  outcomes, the most probable first.
* **Transposition table.**  Keyed by the position packed into
  ``KEY_BYTES`` bytes (``pack_key``: every field of ``State`` that the
  future can depend on, the ``moves`` counter aside), compared in full on
  every hit, so a hash collision can never merge two positions; an entry
  holds a lower and an upper bound.  With ``canonical``, cards are keyed
  by their group of interchangeable cards (same owner and data, R27; the
  START mark aside), so positions that differ only by which identical card
  is where share an entry (see ``pack_key`` for why their values are
  equal).  With ``reach``, a modifier window's margin is keyed only as far
  as the modifiers still in play can move it (the core's
  ``window_score``): margins that succeed, or fail, whatever is played are
  one entry, and the dice outcomes that lead to them merge.  Buckets of
  ``BUCKET`` slots; a new position replaces the one whose search took the
  least work; a clear starts a new generation instead of zeroing the
  slots.
* **Move ordering.**  The best action the table remembers for a position
  (from a search with another window) is searched first (``ordering``),
  then the others by the history heuristic (``history``: how many cut-offs
  each action gave at the same player's step of the same kind in this
  solve), in the legal order among equals.  Putting the heuristic bot's
  preferred actions first as well was tried (docs/endgame.md): it did not
  solve more positions and cost time per node, so it is not done (and
  ``exact`` imports only the engine).  Looking every child up in the table
  before searching any (enhanced transposition cut-offs) was tried too:
  10% fewer nodes on one of the 40 sample positions, the same on the
  others, so it is not done.
* **Budget.**  A node cap and a deadline on an injectable clock (read every
  ``CLOCK_EVERY`` nodes, with the GIL); when either is reached the search
  stops, stores nothing more, and the solve is reported incomplete.

Everything per node runs in C without the GIL.
"""

from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcmp, memcpy, memset

from solver.vocabulary import PHASES

from solver._core cimport (
    NCARDS, NUM_ACTIONS, PH_COUNT, PH_DRAW, PH_MODIFIERS, PH_REDRAW, PH_ROCKET, PH_ROLL, PK_ATTACK,
    Config, Core, State, chance_outcomes, deck_size, is_chance, is_terminal,
    legal_actions, apply_action, returns_of, window_score,
)

cdef enum:
    CLOCK_EVERY = 2048         # nodes between two looks at the clock

cdef double NO_VALUE = -1.0    # below every win probability
cdef long long WORK_CAP = 4000000000  # work recorded per entry at most (it is a uint32)


# ---- the packed position -------------------------------------------------------

cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    x ^= x >> 30
    x *= 0xbf58476d1ce4e5b9ULL
    x ^= x >> 27
    x *= 0x94d049bb133111ebULL
    x ^= x >> 31
    return x


cdef bint _same_data(const Config* c, int a, int b) noexcept nogil:
    """True if cards a and b have the same owner and the same data in every
    field the rules read after the setup (R27, without the START mark,
    which only says where a card begins)."""
    return (c.present[a] == c.present[b] and c.side[a] == c.side[b]
            and c.kind[a] == c.kind[b] and c.bullets[a] == c.bullets[b]
            and c.move[a] == c.move[b] and c.attack[a] == c.attack[b]
            and c.search[a] == c.search[b] and c.steal[a] == c.steal[b]
            and c.command[a] == c.command[b] and c.volunteers[a] == c.volunteers[b]
            and c.assistance[a] == c.assistance[b] and c.escort[a] == c.escort[b]
            and c.effect[a] == c.effect[b])


cdef void make_groups(const Config* c, bint merge, Groups* g) noexcept nogil:
    """The groups of interchangeable cards (``merge``; a card of another
    data set is never in the group), or one group per card (not ``merge``:
    the key names every card by its number)."""
    cdef uint8_t done[NCARDS]
    cdef int a, b, n = 0
    memset(done, 0, NCARDS)
    g.count = 0
    for a in range(NCARDS):
        if done[a]:
            continue
        g.start[g.count] = <uint8_t>n
        g.count += 1
        for b in range(a, NCARDS):
            if not done[b] and (b == a or (merge and _same_data(c, a, b))):
                done[b] = 1
                g.order[n] = <uint8_t>b
                g.rep[b] = <uint8_t>a
                n += 1
    g.start[g.count] = <uint8_t>n


cdef inline uint8_t _card_ref(const Groups* g, int card) noexcept nogil:
    return 0xFF if card < 0 else g.rep[card]


cdef int pack_key(const Config* c, const State* s, const Groups* g, bint reach,
             uint8_t* out) noexcept nogil:
    """Writes the position into ``KEY_BYTES`` bytes: per card its place,
    exhausted and drawn flags and its part in the action under way (its
    card, target or defender); the fragments; the turn, step and chain; the
    action under resolution; the Rocket cards face up and the redraws used.
    Everything in ``State`` that the future can depend on: not the ``moves``
    counter (which nothing reads), the ``at`` masks (mirrors of ``loc``),
    the draw step's bookkeeping and Rocket order (constant in the solvable
    region); the dice as the rules read them (see below).

    The cards are written group by group (``make_groups``) and, within a
    group, their bytes in increasing order, and the action's cards are
    named by their group: so positions that differ only by which of two
    interchangeable cards is where (R27) share a key.  Such positions have
    the same value: the rules read a card's data, never its number, except
    to offer one choice among interchangeable cards (R27), whose outcomes
    are again such positions; with one group per card the key is the
    position itself.  Two positions with the same key have the same value
    from there on.

    With ``reach``, a modifier window's margin is written as the core's
    ``window_score``: clamped to what the modifiers still in play can
    change, so margins that succeed (or fail) whatever is played share a
    key (and the dice outcomes leading to them merge into one outcome).
    Returns the bytes written."""
    cdef int i, j, k, n = 0, a, end
    cdef uint8_t bits = 0, v
    cdef uint8_t card[NCARDS]
    memset(out, 0, KEY_BYTES)
    for a in range(NCARDS):
        card[a] = <uint8_t>(s.loc[a] | (s.exhausted[a] << 3) | (s.drawn[a] << 4))
    if s.pend.card >= 0:
        card[s.pend.card] |= 1 << 5
    if s.pend.target >= 0:
        card[s.pend.target] |= 1 << 6
    if s.pend.defender >= 0:
        card[s.pend.defender] |= 1 << 7
    for k in range(g.count):
        end = g.start[k + 1]
        for i in range(g.start[k], end):     # insertion into the group's sorted run
            v = card[g.order[i]]
            j = i
            while j > g.start[k] and out[j - 1] > v:
                out[j] = out[j - 1]
                j -= 1
            out[j] = v
    n = NCARDS
    for k in range(6):
        out[n] = s.frag[k]
        n += 1
    out[n] = s.turn; n += 1
    out[n] = s.phase; n += 1
    out[n] = s.player; n += 1
    out[n] = s.actor; n += 1
    out[n] = s.actions_left; n += 1
    out[n] = s.passes; n += 1
    out[n] = s.mc[1]; n += 1
    out[n] = s.mc[2]; n += 1
    out[n] = s.mc[3]; n += 1
    out[n] = s.mc_new; n += 1
    out[n] = s.refresh_due; n += 1
    out[n] = <uint8_t>(s.wildhorn_played | (s.redraw_used[0] << 1) | (s.redraw_used[1] << 2))
    n += 1
    out[n] = <uint8_t>s.winner; n += 1
    out[n] = s.pend.kind; n += 1
    out[n] = s.pend.actor; n += 1
    out[n] = _card_ref(g, s.pend.card); n += 1
    out[n] = _card_ref(g, s.pend.target); n += 1
    out[n] = _card_ref(g, s.pend.defender); n += 1
    out[n] = s.pend.zone; n += 1
    # The dice and their modifiers are read only when the modifier window
    # closes (R15f, R16, R17: the attack's margin, or the Search/Spy total),
    # and legal actions never depend on them; so in the window they are
    # kept as that one number, and outside it and the roll they are dropped.
    if s.phase == PH_ROLL:
        out[n] = s.pend.roll; n += 1
        out[n] = s.pend.dice[0]; n += 1
        out[n] = s.pend.dice[1]; n += 1
        out[n] = <uint8_t>s.pend.mods[0]; n += 1
        out[n] = <uint8_t>s.pend.mods[1]; n += 1
    elif s.phase == PH_MODIFIERS:
        out[n] = s.pend.roll; n += 1
        if reach:
            out[n] = <uint8_t>window_score(c, s)
        elif s.pend.kind == PK_ATTACK:
            out[n] = <uint8_t>(s.pend.dice[0] + s.pend.mods[0] - s.pend.dice[1] - s.pend.mods[1])
        else:
            out[n] = <uint8_t>(s.pend.dice[0] + s.pend.mods[0])
        n += 4
    else:
        n += 5
    out[n] = s.pend.window_passes; n += 1
    out[n] = s.pend.escorted; n += 1
    for k in range(8):
        bits |= <uint8_t>((s.revealed[k] != 0) << k)
    out[n] = bits; n += 1
    out[n] = s.n_revealed; n += 1
    return n


cdef bint in_solvable_region(const Config* c, const State* s) noexcept nogil:
    """True if the position is of perfect information with dice (see the
    module's docstring): the last turn, past its draw, redraw and V-2
    steps, both decks empty.  A terminal position is solvable too."""
    if is_terminal(s):
        return True
    if s.turn != c.turns:
        return False
    if s.phase == PH_DRAW or s.phase == PH_REDRAW or s.phase == PH_ROCKET:
        return False
    return deck_size(c, s, 0) == 0 and deck_size(c, s, 1) == 0


cdef inline uint64_t _hash_key(const uint8_t* key) noexcept nogil:
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL, w
    cdef int i
    for i in range(0, KEY_BYTES, 8):
        memcpy(&w, key + i, 8)
        h = _mix(h ^ w) + 0x632BE59BD9B4E019ULL
    return h | 1  # 0 marks an empty slot


# ---- the transposition table ---------------------------------------------------

cdef int _table_init(Table* t, int64_t cap) noexcept nogil:
    cdef int64_t size = BUCKET, i
    while size * 2 <= cap:
        size *= 2
    memset(t, 0, sizeof(Table))
    t.slots = <Entry*>calloc(size, sizeof(Entry))
    if t.slots == NULL:
        return -1
    # every page written now (a store the compiler cannot drop, unlike a zero
    # memset after calloc), so that no timed solve pays for its first touch
    for i in range(size):
        t.slots[i].move = -1
    t.cap = size
    return 0


cdef void _table_clear(Table* t) noexcept nogil:
    """Forgets every entry: a new generation (entries of an older one are
    empty slots), so a clear costs nothing however large the table; the
    slots are zeroed only when the generation counter wraps."""
    t.gen = <uint16_t>(t.gen + 1)
    if t.gen == 0 and t.slots != NULL:
        memset(t.slots, 0, t.cap * sizeof(Entry))
    t.used = 0
    t.probes = 0
    t.hits = 0
    t.stores = 0
    t.evictions = 0


cdef Entry* _table_find(Table* t, uint64_t h, const uint8_t* key) noexcept nogil:
    """The entry of the position, or NULL."""
    cdef int64_t base = <int64_t>(h & <uint64_t>(t.cap - 1)) & ~(<int64_t>BUCKET - 1)
    cdef int i
    cdef Entry* e
    t.probes += 1
    for i in range(BUCKET):
        e = &t.slots[base + i]
        if e.hash == h and e.gen == t.gen and memcmp(e.key, key, KEY_BYTES) == 0:
            t.hits += 1
            return e
    return NULL


cdef void _table_store(Table* t, uint64_t h, const uint8_t* key, double lo, double hi,
                       uint32_t work, int move) noexcept nogil:
    """Records bounds for the position (narrowing those it has), in an
    empty slot of its bucket or in place of the least-work entry."""
    cdef int64_t base = <int64_t>(h & <uint64_t>(t.cap - 1)) & ~(<int64_t>BUCKET - 1)
    cdef int i
    cdef Entry* e
    cdef Entry* victim = NULL
    for i in range(BUCKET):
        e = &t.slots[base + i]
        if e.gen != t.gen:
            e.hash = 0              # a slot of an older generation is empty
        if e.hash == h and memcmp(e.key, key, KEY_BYTES) == 0:
            if lo > e.lo:
                e.lo = lo
            if hi < e.hi:
                e.hi = hi
            if work > e.work:
                e.work = work
            if move >= 0:
                e.move = <int16_t>move
            t.stores += 1
            return
        if e.hash == 0:
            if victim == NULL or victim.hash != 0:
                victim = e
        elif victim == NULL or (victim.hash != 0 and e.work < victim.work):
            victim = e
    if victim.hash == 0:
        t.used += 1
    else:
        t.evictions += 1
    victim.hash = h
    victim.gen = t.gen
    memcpy(victim.key, key, KEY_BYTES)
    victim.lo = lo
    victim.hi = hi
    victim.work = work
    victim.move = <int16_t>move
    t.stores += 1


# ---- the solver ----------------------------------------------------------------

cdef class Solver:
    """Exact expectimax over positions of the solvable region (see the
    module's docstring).  ``table_entries``: slots of the transposition
    table (rounded down to a power of two; each takes ``sizeof(Entry)``,
    112 bytes); ``ordering``: search the table's remembered best action
    first; ``bounds``: alpha-beta and star1 cut-offs (off: plain expectimax
    with the table, for measurements); ``canonical``: positions that differ
    only by swapping interchangeable cards share a table entry (``pack_key``;
    off: every card keyed by its number); ``history``: the other actions
    ordered by the cut-offs they gave (the history heuristic); ``merging``:
    chained chance steps expanded together and their outcomes merged by key;
    ``transpositions``: the table looked up and stored (off, with
    ``merging`` off: a plain expectimax visiting the same positions as a
    Python one, for the per-node comparison); ``reach``: a modifier
    window's margin keyed only as far as the modifiers left can move it
    (``pack_key``), so dice outcomes decided whatever is played merge;
    ``clock``: the time source of the deadline (a callable returning
    seconds).  The switches are for measurements
    (benchmarks/endgame_nodes.py) and tests: each keeps the values exact."""

    def __cinit__(self):
        self.table.slots = NULL

    def __dealloc__(self):
        free(self.table.slots)
        self.table.slots = NULL

    def __init__(self, long long table_entries=1 << 19, bint ordering=True, bint bounds=True,
                 bint canonical=True, bint history=True, bint merging=True,
                 bint transpositions=True, bint reach=True, clock=None):
        import time
        if table_entries < BUCKET:
            raise ValueError(f"table_entries must be at least {BUCKET}, got {table_entries}")
        if _table_init(&self.table, table_entries) < 0:
            raise MemoryError("endgame solver: cannot allocate the transposition table")
        self.ordering = ordering
        self.bounds = bounds
        self.canonical = canonical
        if merging and not transpositions:
            raise ValueError("merging needs the transposition table's keys (transpositions=True)")
        self.transpositions = transpositions
        self.history = history
        self.merging = merging
        self.reach = reach
        self.clock = clock if clock is not None else time.perf_counter

    @property
    def table_slots(self):
        return self.table.cap

    @property
    def entry_bytes(self):
        return sizeof(Entry)

    def clear(self):
        """Forgets every stored position and the table's counters."""
        _table_clear(&self.table)

    def table_stats(self):
        """The last solve's lookups, hits, stores and evictions; the slots
        used since the last clear, and the slots."""
        t = self.table
        return {"probes": t.probes, "hits": t.hits, "stores": t.stores,
                "evictions": t.evictions, "used": t.used, "slots": t.cap}

    cdef void _count(self, const State* s) noexcept nogil:
        """One more position visited, at ``s``'s step."""
        self.nodes += 1
        self.step_nodes[s.phase] += 1

    def nodes_by_step(self):
        """The last solve's (or probe's) visited positions by step
        (``solver.vocabulary.PHASES``; steps with none left out): they add
        up to ``nodes``."""
        return {PHASES[k]: self.step_nodes[k] for k in range(PH_COUNT) if self.step_nodes[k]}

    cdef bint _out_of_budget(self) noexcept nogil:
        cdef double now
        if self.aborted:
            return True
        if self.max_nodes > 0 and self.nodes >= self.max_nodes:
            self.aborted = True
            return True
        if self.deadline > 0.0 and self.nodes >= self.next_check:
            self.next_check = self.nodes + CLOCK_EVERY
            with gil:
                now = self.clock()
            if now >= self.deadline:
                self.aborted = True
        return self.aborted

    cdef double _value(self, const Config* c, const State* s, double alpha,
                       double beta) noexcept nogil:
        """The Polish win probability of ``s``, exact if strictly inside
        (alpha, beta), else a bound on the side of the window it fell on;
        meaningless once ``aborted``."""
        cdef uint8_t key[KEY_BYTES]
        cdef uint64_t h = 0
        cdef Entry* e
        cdef double v, a0, b0
        cdef long long before
        cdef uint32_t work
        cdef int hint = -1, move = -1
        if is_terminal(s):
            self._count(s)
            return (returns_of(s, 0) + 1.0) * 0.5
        if self._out_of_budget():
            return 0.0
        if self.bounds:
            # values lie in [0, 1]: a result at 0 or 1 is exact whatever the window
            if alpha < 0.0:
                alpha = 0.0
            if beta > 1.0:
                beta = 1.0
            # an empty window: nothing is above 1 or below 0
            if alpha >= 1.0:
                return 1.0
            if beta <= 0.0:
                return 0.0
        e = NULL
        if self.transpositions:
            pack_key(c, s, &self.groups, self.reach, key)
            h = _hash_key(key)
            e = _table_find(&self.table, h, key)
        if e != NULL:
            hint = e.move
            if e.lo == e.hi or e.lo >= beta:
                return e.lo
            if e.hi <= alpha:
                return e.hi
            if e.lo > alpha:
                alpha = e.lo
            if e.hi < beta:
                beta = e.hi
        if not self.bounds:
            alpha = NO_VALUE
            beta = 2.0
        a0 = alpha
        b0 = beta
        before = self.nodes
        self._count(s)
        if is_chance(s):
            v = self._chance(c, s, alpha, beta)
        else:
            v = self._decision(c, s, alpha, beta, hint, &move)
        if self.aborted:
            return 0.0
        if not self.transpositions:
            return v
        before = self.nodes - before
        work = <uint32_t>(before if before < WORK_CAP else WORK_CAP)
        if v <= a0:
            _table_store(&self.table, h, key, 0.0, v, work, move)
        elif v >= b0:
            _table_store(&self.table, h, key, v, 1.0, work, move)
        else:
            _table_store(&self.table, h, key, v, v, work, move)
        return v

    cdef double _decision(self, const Config* c, const State* s, double alpha,
                          double beta, int hint, int* move) noexcept nogil:
        """Fail-soft alpha-beta: Polish (player 0) maximises, German minimises.
        Order: ``hint`` (the table's best action here, -1 none) first, then
        the legal order; the best action found goes to ``*move``."""
        cdef int acts[NUM_ACTIONS]
        cdef int order[NUM_ACTIONS]
        cdef uint8_t taken[NUM_ACTIONS]
        cdef int n = legal_actions(c, s, acts), k, m = 0
        cdef bint maxing = s.player == 0
        cdef double best = NO_VALUE if maxing else 2.0, v
        cdef State child
        if self.ordering and n > 1:
            memset(taken, 0, n)
            for k in range(n):
                if acts[k] == hint:
                    taken[k] = 1
                    order[m] = hint
                    m += 1
                    break
            for k in range(n):
                if not taken[k]:
                    order[m] = acts[k]
                    m += 1
        else:
            memcpy(order, acts, n * sizeof(int))
            m = n
        if self.history and n > 1:
            self._by_history(s, order, 1 if order[0] == hint else 0, m)
        for k in range(m):
            child = s[0]
            apply_action(c, &child, order[k])
            if maxing:
                v = self._value(c, &child, best if best > alpha else alpha, beta)
                if self.aborted:
                    return 0.0
                if v > best:
                    best = v
                    move[0] = order[k]
                if best >= beta and self.bounds:
                    self.cutoffs += 1
                    self._credit(s, order[k])
                    break
            else:
                v = self._value(c, &child, alpha, best if best < beta else beta)
                if self.aborted:
                    return 0.0
                if v < best:
                    best = v
                    move[0] = order[k]
                if best <= alpha and self.bounds:
                    self.cutoffs += 1
                    self._credit(s, order[k])
                    break
        return best

    cdef void _by_history(self, const State* s, int* order, int first, int m) noexcept nogil:
        """Sorts ``order[first:m]`` by the actions' history weight, largest
        first, keeping the legal order among equals (a stable insertion sort)."""
        cdef uint32_t* w = self.hist[s.player][s.phase]
        cdef int i, j, a
        for i in range(first + 1, m):
            a = order[i]
            j = i
            while j > first and w[order[j - 1]] < w[a]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = a

    cdef inline void _credit(self, const State* s, int action) noexcept nogil:
        """The history heuristic: ``action`` refuted the opponent's choice here."""
        if self.history and self.hist[s.player][s.phase][action] < 0x7FFFFFFF:
            self.hist[s.player][s.phase][action] += 1

    cdef double _chance(self, const Config* c, const State* s, double alpha,
                        double beta) noexcept nogil:
        """Star1 (Ballard 1983): the outcomes in turn, each searched in the
        window that could still move the average into (alpha, beta).

        With ``merging``, the chance steps that follow each other (the two
        dice of an attack) are expanded together and the outcomes whose
        positions share a key (``pack_key``: say, the same attack margin,
        or the same success) are one outcome with the summed probability;
        the game's end is read at once; the merged outcomes are searched most
        probable first.  Positions with one key have one value, so the
        average is the same."""
        cdef Leaf leaves[MAX_LEAVES]
        cdef int n = 0, k, i, j, m = 0
        cdef int order[MAX_LEAVES]
        cdef double done = 0.0, rest = 1.0
        cdef int acts[NUM_ACTIONS]
        cdef double probs[NUM_ACTIONS]
        if not self.merging or self._expand(c, s, 1.0, leaves, &n, 0) < 0:
            n = chance_outcomes(c, s, acts, probs)
            return self._star1(c, s, alpha, beta, n, NULL, NULL, acts, probs, 0.0, 1.0)
        for k in range(n):          # the game's end is known: its share is done
            if leaves[k].hash == 0:
                done += leaves[k].p * leaves[k].value
                rest -= leaves[k].p
                continue
            for j in range(m):
                i = order[j]
                if leaves[i].hash == leaves[k].hash and \
                        memcmp(leaves[i].key, leaves[k].key, KEY_BYTES) == 0:
                    leaves[i].p += leaves[k].p
                    break
            else:
                order[m] = k
                m += 1
        for k in range(1, m):       # most probable first (stable)
            i = order[k]
            j = k
            while j > 0 and leaves[order[j - 1]].p < leaves[i].p:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
        return self._star1(c, s, alpha, beta, m, leaves, order, NULL, NULL, done, rest)

    cdef int _expand(self, const Config* c, const State* s, double p, Leaf* leaves, int* n,
                     int depth) noexcept nogil:
        """Appends the positions after the chance steps from ``s`` (each
        outcome, and the outcomes of a chance step that follows) to
        ``leaves``, with their probabilities (``p`` times), keys, or value
        at the game's end (hash 0); -1 if they do not fit, or once the
        budget is spent (the plain search then stops at once)."""
        cdef int acts[NUM_ACTIONS]
        cdef double probs[NUM_ACTIONS]
        cdef int count = chance_outcomes(c, s, acts, probs), k, j, first
        cdef State child
        cdef Leaf* leaf
        if depth >= MAX_CHAIN:
            return -1
        for k in range(count):
            child = s[0]
            apply_action(c, &child, acts[k])
            if self._out_of_budget():
                return -1
            if is_chance(&child) and not is_terminal(&child):
                self._count(&child)             # visited on the way
                first = n[0]
                if self._expand(c, &child, p * probs[k], leaves, n, depth + 1) < 0:
                    return -1
                for j in range(first, n[0]):
                    leaves[j].path[depth] = acts[k]
                continue
            if n[0] >= MAX_LEAVES:
                return -1
            leaf = &leaves[n[0]]
            n[0] += 1
            leaf.p = p * probs[k]
            leaf.depth = depth + 1
            for j in range(MAX_CHAIN):
                leaf.path[j] = -1
            leaf.path[depth] = acts[k]
            if is_terminal(&child):
                self._count(&child)
                leaf.hash = 0
                leaf.value = (returns_of(&child, 0) + 1.0) * 0.5
            else:
                pack_key(c, &child, &self.groups, self.reach, leaf.key)
                leaf.hash = _hash_key(leaf.key)
        return 0

    cdef double _star1(self, const Config* c, const State* s, double alpha, double beta,
                       int m, const Leaf* leaves, const int* order, const int* acts,
                       const double* probs, double done, double rest) noexcept nogil:
        """Star1 over ``m`` outcomes: the merged ``leaves`` in ``order``, or
        (``leaves`` NULL) the core's outcomes ``acts`` with ``probs``;
        ``done``: the average's part already known, ``rest`` the probability
        of the outcomes to search."""
        cdef int k, j
        cdef double p, v, a, b
        cdef State child
        if rest < 1e-12:
            rest = 0.0
        for k in range(m):
            p = leaves[order[k]].p if leaves != NULL else probs[k]
            rest -= p
            if rest < 1e-12:
                rest = 0.0
            a = (alpha - done - rest) / p
            b = (beta - done) / p
            if self.bounds:
                if a >= 1.0:        # even a win here leaves the average at most alpha
                    self.cutoffs += 1
                    return done + p + rest
                if b <= 0.0:        # even a loss here leaves it at least beta
                    self.cutoffs += 1
                    return done
            child = s[0]
            if leaves != NULL:
                for j in range(leaves[order[k]].depth):
                    apply_action(c, &child, leaves[order[k]].path[j])
            else:
                apply_action(c, &child, acts[k])
            v = self._value(c, &child, a, b)
            if self.aborted:
                return 0.0
            done += p * v
            if self.bounds:
                if v >= b:
                    self.cutoffs += 1
                    return done        # a lower bound, at least beta
                if v <= a:
                    self.cutoffs += 1
                    return done + rest  # an upper bound, at most alpha
        return done

    def solve(self, Core root, long long max_nodes=0, double max_seconds=0.0,
              bint every_action=True):
        """Solves ``root``: returns ``(complete, rows, nodes)`` where ``rows``
        lists ``(action, lo, hi)`` for each legal action (or chance outcome)
        searched before the budget ran out, in the order of the legal
        actions: bounds on the Polish win probability after it, ``lo ==
        hi`` when exact.  ``every_action``: each action is searched with
        the full window, so every row is exact; otherwise (a decision node
        only) the window narrows to the best value found so far, so the
        best action's row is exact and the others are bounds that prove
        them no better.  ``max_nodes``/``max_seconds`` 0: no limit.  The
        table is kept from earlier solves (``clear`` forgets it): what it
        holds are bounds on positions' own values, true whatever the root;
        its counters (``table_stats``) count this solve only."""
        cdef const Config* c = &root.config.c
        cdef State child
        cdef int acts[NUM_ACTIONS]
        cdef double probs[NUM_ACTIONS]
        cdef int n, k
        cdef double v, alpha = 0.0, beta = 1.0
        cdef bint narrow, maxing
        if max_nodes < 0 or max_seconds < 0:
            raise ValueError("solve: budgets must be at least 0")
        if not in_solvable_region(c, &root.s):
            raise ValueError("solve: the position is not in the solvable region (hidden "
                             "information remains)")
        if is_terminal(&root.s):
            raise ValueError("solve: the position is terminal")
        memset(self.step_nodes, 0, sizeof(self.step_nodes))
        self.nodes = 0
        self._count(&root.s)  # the root; each position below is counted once, by _value
        self.cutoffs = 0
        self.table.probes = 0
        self.table.hits = 0
        self.table.stores = 0
        self.table.evictions = 0
        self.aborted = False
        self.max_nodes = max_nodes
        self.deadline = self.clock() + max_seconds if max_seconds > 0 else 0.0
        self.next_check = CLOCK_EVERY
        make_groups(c, self.canonical, &self.groups)
        memset(self.hist, 0, sizeof(self.hist))
        if is_chance(&root.s):
            n = chance_outcomes(c, &root.s, acts, probs)
            narrow = False
        else:
            n = legal_actions(c, &root.s, acts)
            narrow = not every_action and self.bounds
        maxing = root.s.player == 0
        rows = []
        for k in range(n):
            child = root.s
            with nogil:
                apply_action(c, &child, acts[k])
                v = self._value(c, &child, alpha if narrow else NO_VALUE,
                                beta if narrow else 2.0)
            if self.aborted:
                break
            if narrow and maxing and k > 0 and v <= alpha:
                rows.append((acts[k], 0.0, v))      # no better than the best so far
            elif narrow and not maxing and k > 0 and v >= beta:
                rows.append((acts[k], v, 1.0))
            else:
                rows.append((acts[k], v, v))
                if narrow and maxing:
                    alpha = v
                elif narrow:
                    beta = v
        return (not self.aborted, rows, self.nodes)


    def probe(self, Core position, double alpha, double beta, long long max_nodes=0,
              double max_seconds=0.0):
        """The Polish win probability of ``position`` searched in the window
        (alpha, beta): ``(complete, v, nodes)``, ``v`` exact if strictly
        inside, else a bound on that side (fail-soft).  A narrow window
        around a known value tells cheaply whether a position reaches it."""
        cdef double v
        if not in_solvable_region(&position.config.c, &position.s):
            raise ValueError("probe: the position is not in the solvable region")
        memset(self.step_nodes, 0, sizeof(self.step_nodes))
        self.nodes = 0
        self.cutoffs = 0
        self.aborted = False
        self.max_nodes = max_nodes
        self.deadline = self.clock() + max_seconds if max_seconds > 0 else 0.0
        self.next_check = CLOCK_EVERY
        make_groups(&position.config.c, self.canonical, &self.groups)
        memset(self.hist, 0, sizeof(self.hist))
        with nogil:
            v = self._value(&position.config.c, &position.s, alpha, beta)
        return (not self.aborted, v, self.nodes)


def solvable(Core core):
    """True if ``core`` is in the solvable region (see the module's docstring)."""
    return bool(in_solvable_region(&core.config.c, &core.s))


def key_bytes(Core core, bint canonical=False, bint reach=False):
    """The packed position (``pack_key``) as bytes, for tests: with every
    card named by its number, or (``canonical``) interchangeable cards
    merged; a modifier window's margin as it is, or (``reach``) clamped."""
    cdef uint8_t key[KEY_BYTES]
    cdef Groups groups
    make_groups(&core.config.c, canonical, &groups)
    pack_key(&core.config.c, &core.s, &groups, reach, key)
    return bytes(key[:KEY_BYTES])


def card_groups(Core core, bint canonical=True):
    """The groups ``pack_key`` keys cards by (``make_groups``), as tuples of
    card slots: interchangeable cards together (``canonical``), else one
    slot each."""
    cdef Groups groups
    make_groups(&core.config.c, canonical, &groups)
    return [tuple(groups.order[i] for i in range(groups.start[k], groups.start[k + 1]))
            for k in range(groups.count)]
