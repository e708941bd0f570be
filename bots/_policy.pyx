# cython: language_level=3
"""The heuristic bot's rules of thumb (described in ``bots.heuristic``) in
C: the bot itself chooses through it, and so do the searchers' playouts,
priors and opponent model.

``heuristic_ties`` writes the actions the rules score best, in the order
the rules score them (the legal actions in ascending order, with
Volunteers and Motorized Column, whose worth depends on the others, after
them); ``heuristic_best`` returns that list to Python, and
``bots.heuristic.HeuristicBot`` breaks exact ties in it with
``random.Random(seed).choice``, so its games are those of the Python bot it
replaced.  ``heuristic_action`` breaks them with the caller's ``Rng``
instead (the searchers' playouts).  ``tests/heuristic_oracle.py`` keeps the
rules written rule by rule in Python; ``tests/test_policy.py`` holds the
ordered tie lists of the two equal on thousands of positions, so every
score and threshold is computed here in the same order of double-precision
operations as there, and equal scores tie exactly where the oracle's do.

It reads only what the player to move may know (R25, R26): the cards on
the table, the fragments, the action under resolution, the turn and its
own hand (and which of its cards were drawn this turn); never the
opponent's hand or deck nor the order of a deck.

"Interchangeable copies" (R27, the oracle's ``_View.copies``) compares the
card *type*; the core has no type key, so two cards are of the same type
here when every datum of the type the core holds is equal (kind, bullets,
abilities, effect).  For the default card set this is the same relation
(``test_policy.py`` checks it).

No Python object, no allocation, no GIL: a few hundred operations per
decision on a stack ``View`` with per-card memos.
"""

from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memset

from solver._core cimport (
    A_ASSIST, A_ATTACK, A_COMMAND, A_DECLINE, A_ESCORT, A_MOVE, A_NUMBER, A_PASS, A_PLACE,
    A_PLAY, A_REDRAW, A_SEARCH, A_SELECT_ENEMY, A_SELECT_OWN, A_STEAL, A_VOLUNTEERS, A_ZONE,
    E_BAD_LUCK, E_GOOD_LUCK, E_HIDDEN, E_HIGH_MORALE, E_MOTORIZED, E_AMBUSH, E_WILDHORN,
    FR_BASE, FR_FOREST, FR_PERIPHERY, K_SUPPORT, K_UNIT, LOC_BASE, LOC_FOREST, LOC_HAND,
    LOC_PERIPHERY, NUM_ACTIONS, PH_AMBUSH, PH_ESCORT, PH_MAIN, PH_MODIFIERS, PH_MOTORCYCLE,
    PH_NUMBER, PH_NURSES, PH_REDRAW, PH_REFRESH, PH_TARGET, PH_WITNESSES, PH_ZONE, PK_ATTACK,
    PK_SEARCH, PK_STEAL, SIDE_CARDS, Config, Core, Rng, State, is_chance, is_terminal,
    legal_actions, rng_below, rng_seed,
)

cdef extern from *:
    """
    static inline int wp_popcount(unsigned int x) { return __builtin_popcount(x); }
    static inline int wp_ctz(unsigned int x) { return __builtin_ctz(x); }
    """
    int _popcount "wp_popcount"(uint32_t x) noexcept nogil
    int _ctz "wp_ctz"(uint32_t x) noexcept nogil


ctypedef struct View:
    const Config* c
    const State* s
    int me, opp                # player to move, the other
    int base, obase            # first global index of my cards, of theirs
    int home, ehome            # my home zone, the enemy's (LOC_*)
    int P                      # fragments in the Periphery
    int home_frag              # fragments a thief can take from my home (R17)
    int enemy_frag             # fragments my thief can take from the enemy home
    bint last                  # the last turn
    int sides                  # faces of a die
    int ambush                 # Ambush! cards in my hand
    bint hand_table            # my hand holds a Unit or Support card
    uint8_t threat_done[SIDE_CARDS]
    double threat_val[SIDE_CARDS]
    uint8_t move_done[SIDE_CARDS]
    double move_val[SIDE_CARDS]
    int move_dest[SIDE_CARDS]  # LOC_* or -1


cdef inline bint _on_table(int loc) noexcept nogil:
    return loc >= LOC_FOREST and loc <= LOC_BASE


cdef inline uint32_t _mine_at(const View* v, int zone) noexcept nogil:
    return v.s.at[v.me][zone] if _on_table(zone) else 0


cdef inline uint32_t _theirs_at(const View* v, int zone) noexcept nogil:
    return v.s.at[v.opp][zone] if _on_table(zone) else 0


cdef inline uint32_t _table(const State* s, int side) noexcept nogil:
    return s.at[side][LOC_FOREST] | s.at[side][LOC_PERIPHERY] | s.at[side][LOC_BASE]


cdef void _init_view(View* v, const Config* c, const State* s) noexcept nogil:
    cdef uint32_t m
    cdef int g
    v.c = c
    v.s = s
    v.me = s.player
    v.opp = 1 - v.me
    v.base = v.me * SIDE_CARDS
    v.obase = v.opp * SIDE_CARDS
    v.home = LOC_FOREST if v.me == 0 else LOC_BASE
    v.ehome = LOC_BASE if v.me == 0 else LOC_FOREST
    v.P = s.frag[FR_PERIPHERY]
    v.home_frag = s.frag[FR_FOREST] if v.me == 0 else s.frag[FR_BASE]
    v.enemy_frag = s.frag[FR_BASE] if v.me == 0 else s.frag[FR_FOREST]
    v.last = s.turn >= c.turns
    v.sides = c.dice_sides
    v.ambush = 0
    v.hand_table = False
    m = s.at[v.me][LOC_HAND]
    while m:
        g = v.base + _ctz(m)
        m &= m - 1
        if c.effect[g] == E_AMBUSH:
            v.ambush += 1
        if c.kind[g] == K_UNIT or c.kind[g] == K_SUPPORT:
            v.hand_table = True
    memset(v.threat_done, 0, sizeof(v.threat_done))
    memset(v.move_done, 0, sizeof(v.move_done))


# ---- small facts -----------------------------------------------------------------

cdef double _win_probability(int attack, int defence, int sides) noexcept nogil:
    """P(attacker's die + bullets > defender's die + bullets), R15f, as
    the oracle's ``win_probability`` counts it."""
    cdef int a, k, wins = 0
    for a in range(1, sides + 1):
        k = a + attack - defence - 1      # defender's faces that lose
        if k > sides:
            k = sides
        if k > 0:
            wins += k
    return <double>wins / <double>(sides * sides)


cdef inline bint _is_unit(const View* v, int g) noexcept nogil:
    return v.c.kind[g] == K_UNIT


cdef inline bint _same_type(const Config* c, int x, int g) noexcept nogil:
    return (c.kind[x] == c.kind[g] and c.bullets[x] == c.bullets[g]
            and c.move[x] == c.move[g] and c.attack[x] == c.attack[g]
            and c.search[x] == c.search[g] and c.steal[x] == c.steal[g]
            and c.command[x] == c.command[g] and c.volunteers[x] == c.volunteers[g]
            and c.assistance[x] == c.assistance[g] and c.escort[x] == c.escort[g]
            and c.effect[x] == c.effect[g])


cdef int _copies(const View* v, int g) noexcept nogil:
    """How many of my cards are interchangeable with g (same type, place and
    side up, R27)."""
    cdef int x, n = 0
    cdef const State* s = v.s
    for x in range(v.base, v.base + SIDE_CARDS):
        if (v.c.present[x] and s.loc[x] == s.loc[g]
                and (s.exhausted[x] != 0) == (s.exhausted[g] != 0) and _same_type(v.c, x, g)):
            n += 1
    return n


cdef inline bint _searcher_or_thief_at(const View* v, uint32_t m, int side_base,
                                       int skip) noexcept nogil:
    cdef int x
    while m:
        x = side_base + _ctz(m)
        m &= m - 1
        if x != skip and (v.c.search[x] or v.c.steal[x]):
            return True
    return False


cdef inline bint _attacker_at(const View* v, uint32_t m, int side_base) noexcept nogil:
    cdef int x
    while m:
        x = side_base + _ctz(m)
        m &= m - 1
        if v.c.attack[x]:
            return True
    return False


# ---- fighting ----------------------------------------------------------------------

cdef inline bint _valuable(const View* v, int g) noexcept nogil:
    return v.c.search[g] or v.c.steal[g] or v.c.kind[g] == K_SUPPORT


cdef int _defence_bullets(const View* v, int target) noexcept nogil:
    """The bullets that will defend ``target`` (a fresh escort with more
    bullets takes its place, R15b)."""
    cdef const Config* c = v.c
    cdef const State* s = v.s
    cdef int b = c.bullets[target], side, x
    cdef uint32_t m
    if _valuable(v, target) and _on_table(s.loc[target]):
        side = 0 if target < SIDE_CARDS else 1
        m = s.at[side][s.loc[target]]
        while m:
            x = side * SIDE_CARDS + _ctz(m)
            m &= m - 1
            if x != target and not s.exhausted[x] and c.escort[x] and c.bullets[x] > b:
                b = c.bullets[x]
    return b


cdef double _threat(View* v, int e) noexcept nogil:
    """How much enemy card e on the table matters as a target."""
    cdef const Config* c = v.c
    cdef int i = e - v.obase, zone = v.s.loc[e]
    cdef double val
    if v.threat_done[i]:
        return v.threat_val[i]
    if c.search[e]:
        val = 3.0 if zone == LOC_PERIPHERY and (v.P > 0 or not v.last) else 2.0
    elif c.steal[e]:
        if zone == v.home and v.home_frag > 0:
            val = 3.0
        elif zone == LOC_PERIPHERY or zone == v.home:
            val = 2.5
        else:
            val = 2.0
    elif c.kind[e] == K_UNIT:
        val = 1.5 if _searcher_or_thief_at(v, _theirs_at(v, zone), v.obase, e) else 1.0
    else:
        val = 0.8
    v.threat_done[i] = 1
    v.threat_val[i] = val
    return val


cdef double _attack_odds(View* v, int attacker, int e) noexcept nogil:
    if _threat(v, e) >= 2 and v.ambush:
        return 1.0
    return _win_probability(v.c.bullets[attacker], _defence_bullets(v, e), v.sides)


cdef double _attack_score(View* v, int attacker, int e) noexcept nogil:
    """Score of attacking enemy card e with ``attacker`` (0: not worth it)."""
    cdef double val = _threat(v, e)
    cdef double p = _attack_odds(v, attacker, e)
    if p > 0.5:
        if val >= 2:
            return 60.0 + 6.0 * val + p
        if val >= 1.5:
            return 50.0 + p
        return (38.0 if _is_unit(v, e) else 36.0) + p
    if v.c.steal[e] and val >= 3 and p >= 0.25:
        return 56.0 + p  # a thief in our home with fragments there: try anyway
    return 0.0


cdef double _best_attack(View* v, int attacker, int zone) noexcept nogil:
    """Best attack score of ``attacker`` in ``zone`` (its own zone if that is
    not a table zone, as the oracle's ``zone or loc``)."""
    cdef double best = 0.0, x
    cdef int e
    cdef uint32_t m
    if not _on_table(zone):
        zone = v.s.loc[attacker]
    m = _theirs_at(v, zone)
    while m:
        e = v.obase + _ctz(m)
        m &= m - 1
        x = _attack_score(v, attacker, e)
        if x > best:
            best = x
    return best


# ---- usefulness of units ---------------------------------------------------------

cdef bint _escort_needed(View* v, int zone) noexcept nogil:
    return (_searcher_or_thief_at(v, _mine_at(v, zone), v.base, -1)
            and _attacker_at(v, _theirs_at(v, zone), v.obase))


cdef bint _can_act_at(View* v, int g, int zone) noexcept nogil:
    """Could unit g, fresh in ``zone``, do something useful right now?"""
    cdef const Config* c = v.c
    if c.search[g] and zone == LOC_PERIPHERY and v.P > 0:
        return True
    if c.steal[g] and zone == v.ehome and v.enemy_frag > 0:
        return True
    if c.attack[g] and _best_attack(v, g, zone) >= 56:
        return True
    if c.escort[g] and _escort_needed(v, zone):
        return True
    return False


cdef double _refresh_value(View* v, int g) noexcept nogil:
    """How useful refreshing my exhausted unit g is now."""
    cdef const Config* c = v.c
    cdef int zone = v.s.loc[g]
    if c.steal[g] and zone == v.ehome and v.enemy_frag > 0:
        return 11.0
    if c.search[g] and zone == LOC_PERIPHERY and v.P > 0:
        return 10.0
    if c.attack[g] and _best_attack(v, g, zone) >= 56:
        return 7.0
    if c.escort[g] and _escort_needed(v, zone):
        return 5.0
    if c.move[g] and _move_plan(v, g, NULL) >= 45:
        return 4.0
    return 1.0 + 0.1 * c.bullets[g]


cdef double _best_refresh(View* v) noexcept nogil:
    cdef double best = 0.0, x
    cdef bint any_ = False
    cdef int g
    cdef uint32_t m = _table(v.s, v.me)
    while m:
        g = v.base + _ctz(m)
        m &= m - 1
        if v.s.exhausted[g] and _is_unit(v, g):
            x = _refresh_value(v, g)
            if not any_ or x > best:
                best = x
                any_ = True
    return best


cdef double _move_plan(View* v, int g, int* dest) noexcept nogil:
    """Score of moving unit g (R14), its destination in ``dest`` (-1: stay)."""
    cdef int i = g - v.base, zone = v.s.loc[g], k, d, n
    cdef int dests[2]
    cdef double best = 0.0, x
    cdef int best_dest = -1
    if not v.move_done[i]:
        if zone != LOC_PERIPHERY:
            dests[0] = LOC_PERIPHERY
            n = 1
        else:
            dests[0] = v.home
            dests[1] = v.ehome
            n = 2
        for k in range(n):
            d = dests[k]
            x = _move_score(v, g, zone, d)
            if x > best:
                best = x
                best_dest = d
        if best_dest != -1 and zone == v.home and _popcount(v.s.at[v.me][v.home]) <= 1 \
                and not v.hand_table:
            # R23: never leave the home zone without a card of our own.
            best = best - (100.0 if v.last else 30.0)
        v.move_done[i] = 1
        v.move_val[i] = best
        v.move_dest[i] = best_dest
    if dest != NULL:
        dest[0] = v.move_dest[i]
    return v.move_val[i]


cdef double _move_score(View* v, int g, int zone, int dest) noexcept nogil:
    cdef const Config* c = v.c
    cdef double s = 0.0
    cdef int searchers = 0, escorts = 0, x
    cdef uint32_t m
    # R23: at the end, an enemy home with no enemy card loses to our Unit.
    if v.last and dest == v.ehome and _theirs_at(v, v.ehome) == 0:
        s = max(s, 60.0)
    if c.search[g]:
        if dest == LOC_PERIPHERY:
            if v.P > 0:
                s = max(s, 55.0)
            elif not v.last:
                s = max(s, 35.0)
        return s
    if c.steal[g]:
        if dest == v.ehome:
            if v.enemy_frag > 0:
                s = max(s, 50.0)
            elif not v.last:
                s = max(s, 35.0)
        elif dest == LOC_PERIPHERY and zone == v.home:
            s = max(s, 45.0 if not v.last else (15.0 if v.enemy_frag > 0 else 0.0))
        elif dest == v.home:
            if c.attack[g] and _best_attack(v, g, v.home) >= 56:
                s = max(s, 40.0)
    if c.attack[g] or c.escort[g]:
        if c.escort[g] and dest == LOC_PERIPHERY:
            m = v.s.at[v.me][LOC_PERIPHERY]
            while m:
                x = v.base + _ctz(m)
                m &= m - 1
                if c.search[x]:
                    searchers += 1
                if c.escort[x] and x != g:
                    escorts += 1
            if searchers and escorts < searchers:
                s = max(s, 40.0)
        if c.attack[g]:
            if _best_attack(v, g, dest) >= 56:
                s = max(s, 30.0 + (10.0 if dest == v.home else 0.0))
        if dest == LOC_PERIPHERY and zone == v.home and not v.last and s <= 0 \
                and _any_searcher(v):
            s = max(s, 20.0)
    return s


cdef bint _any_searcher(const View* v) noexcept nogil:
    cdef uint32_t m = _table(v.s, v.me)
    cdef int x
    while m:
        x = v.base + _ctz(m)
        m &= m - 1
        if v.c.search[x]:
            return True
    return False


cdef double _place_score(View* v, int g) noexcept nogil:
    cdef const Config* c = v.c
    cdef double s
    cdef bint urgent = False
    cdef int x
    cdef uint32_t m
    if c.kind[g] == K_UNIT:
        if c.search[g]:
            s = 50.0
        elif c.steal[g]:
            s = 45.0 if not v.last else 30.0
        elif c.attack[g] or c.escort[g]:
            s = 44.0
        else:
            s = 42.0
    else:
        if c.command[g]:
            m = _table(v.s, v.me)
            while m:
                x = v.base + _ctz(m)
                m &= m - 1
                if v.s.exhausted[x] and _is_unit(v, x) and _refresh_value(v, x) >= 10:
                    urgent = True
                    break
        if urgent:
            s = 52.0
        elif c.command[g] or c.volunteers[g]:
            s = 40.0
        else:
            s = 38.0
    if v.s.at[v.me][v.home] == 0:
        s += 20.0  # R23: keep a card of our own at home
        m = v.s.at[v.opp][v.home]
        while m:
            x = v.obase + _ctz(m)
            m &= m - 1
            if _is_unit(v, x):
                s = 95.0  # R23: an enemy Unit stands in our empty home zone
                break
    return s


# ---- choosing among scored actions -----------------------------------------------

cdef int _best(const double* sc, const int* acts, int n, int* out) noexcept nogil:
    """The best-scored actions (exact ties all kept); returns their count."""
    cdef double top = sc[0]
    cdef int i, k = 0
    for i in range(1, n):
        if sc[i] > top:
            top = sc[i]
    for i in range(n):
        if sc[i] == top:
            out[k] = acts[i]
            k += 1
    return k


cdef inline int _one(int a, int* out) noexcept nogil:
    out[0] = a
    return 1


cdef int _first_play(const int* legal, int n, int* out) noexcept nogil:
    """The lowest-numbered play (the first in sorted order), or DECLINE."""
    cdef int i, best = -1
    for i in range(n):
        if legal[i] != A_DECLINE and (best < 0 or legal[i] < best):
            best = legal[i]
    return _one(best if best >= 0 else A_DECLINE, out)


cdef inline bint _has(const int* legal, int n, int a) noexcept nogil:
    cdef int i
    for i in range(n):
        if legal[i] == a:
            return True
    return False


# ---- the main step ---------------------------------------------------------------

cdef double _event_score(View* v, int eff) noexcept nogil:
    cdef const Config* c = v.c
    cdef const State* s = v.s
    cdef int forest, e
    cdef bint thieves = False, near = False, near_fresh = False, theirs = False, ours = False
    cdef double r
    cdef uint32_t m
    if eff == E_WILDHORN:
        forest = s.frag[FR_FOREST]
        m = _table(s, v.opp)
        while m:
            e = v.obase + _ctz(m)
            m &= m - 1
            if c.steal[e]:
                thieves = True
                if s.loc[e] == LOC_PERIPHERY:
                    near = True
                    if not s.exhausted[e]:
                        near_fresh = True
        if forest >= 1 and near:
            return 95.0 if near_fresh or forest >= 2 else 85.0
        if thieves and (forest >= 2 or (v.last and forest >= 1)):
            return 60.0
        return 0.0
    if eff == E_HIDDEN:
        m = s.at[v.opp][LOC_PERIPHERY]
        while m:
            e = v.obase + _ctz(m)
            m &= m - 1
            if c.search[e] and not s.exhausted[e]:
                theirs = True
        m = s.at[v.me][LOC_PERIPHERY]
        while m:
            e = v.base + _ctz(m)
            m &= m - 1
            if c.search[e] and not s.exhausted[e]:
                ours = True
        return 80.0 if theirs and not ours and v.P > 0 else 0.0
    if eff == E_HIGH_MORALE:
        r = _best_refresh(v)
        return 70.0 if r >= 10 else 45.0 if r >= 7 else 0.0
    return 0.0


cdef int _actions(View* v, const int* legal, int n, int* out) noexcept nogil:
    cdef const Config* c = v.c
    cdef double sc[NUM_ACTIONS]
    cdef int acts[NUM_ACTIONS]
    cdef int chain_a[NUM_ACTIONS]
    cdef int chain_k[NUM_ACTIONS]
    cdef int k = 0, nch = 0, useful = 0, i, j, a, g
    cdef double s, r
    cdef bint counted_once
    for j in range(n):
        a = legal[j]
        counted_once = False
        if a == A_PASS:
            s = 0.0
            g = v.base
        elif a >= A_VOLUNTEERS:
            chain_a[nch] = a
            chain_k[nch] = 0
            nch += 1
            continue
        elif a >= A_COMMAND:
            r = _best_refresh(v)
            s = 75.0 if r >= 10 else 50.0 if r >= 7 else 30.0 if r >= 4 else 0.0
            g = v.base + a - A_COMMAND
            counted_once = True
        elif a >= A_STEAL:
            s = 100.0
            g = v.base + a - A_STEAL
        elif a >= A_SEARCH:
            s = 90.0
            g = v.base + a - A_SEARCH
        elif a >= A_ATTACK:
            g = v.base + a - A_ATTACK
            s = _best_attack(v, g, v.s.loc[g])
        elif a >= A_MOVE:
            g = v.base + a - A_MOVE
            s = _move_plan(v, g, NULL)
        elif a >= A_PLAY:
            g = v.base + a - A_PLAY
            if c.effect[g] == E_MOTORIZED:
                chain_a[nch] = a
                chain_k[nch] = 1
                nch += 1
                continue
            s = _event_score(v, c.effect[g])
            counted_once = True
        elif a >= A_PLACE:
            g = v.base + a - A_PLACE
            s = _place_score(v, g)
        else:
            s = 0.0
            g = v.base
        if s <= 0 and a != A_PASS:
            s = -1.0  # nothing gained: passing is better
        sc[k] = s
        acts[k] = a
        k += 1
        if s >= 45:
            # R27: one action stands for all interchangeable copies.
            useful += 1 if counted_once else _copies(v, g)
    for i in range(nch):
        sc[k] = ((65.0 if chain_k[i] == 0 else 62.0) if useful >= 2 else -1.0)
        acts[k] = chain_a[i]
        k += 1
    return _best(sc, acts, k, out)


# ---- decisions inside an action ----------------------------------------------------

cdef int _zone(View* v, const int* legal, int n, int* out) noexcept nogil:
    cdef int g = v.s.pend.card, dest = -1, z, k = 0
    cdef double sc[3]
    cdef int acts[3]
    _move_plan(v, g, &dest)
    if dest != -1 and _has(legal, n, A_ZONE + dest - LOC_FOREST):
        return _one(A_ZONE + dest - LOC_FOREST, out)
    # No plan (only reached through a forced move): prefer the Periphery, then home.
    for z in range(LOC_FOREST, LOC_BASE + 1):
        if _has(legal, n, A_ZONE + z - LOC_FOREST):
            sc[k] = _move_score(v, g, v.s.loc[g], z) + (0.5 if z == v.home else 0.0)
            acts[k] = A_ZONE + z - LOC_FOREST
            k += 1
    return _best(sc, acts, k, out)


cdef int _target(View* v, const int* legal, int n, int* out) noexcept nogil:
    cdef double sc[SIDE_CARDS]
    cdef int attacker = v.s.pend.card, j, e
    for j in range(n):
        e = v.obase + legal[j] - A_SELECT_ENEMY
        sc[j] = _threat(v, e) * 10.0 + _attack_odds(v, attacker, e)
    return _best(sc, legal, n, out)


cdef int _escort(View* v, const int* legal, int n, int* out) noexcept nogil:
    cdef double sc[SIDE_CARDS + 1]
    cdef int acts[SIDE_CARDS + 1]
    cdef int target = v.s.pend.target, j, g, k = 0
    if not _valuable(v, target):
        return _one(A_DECLINE, out)
    for j in range(n):
        if legal[j] == A_DECLINE:
            continue
        g = v.base + legal[j] - A_ESCORT
        if v.c.bullets[g] > v.c.bullets[target]:
            sc[k] = v.c.bullets[g]
            acts[k] = legal[j]
            k += 1
    if k == 0:
        return _one(A_DECLINE, out)
    return _best(sc, acts, k, out)


cdef int _refresh(View* v, const int* legal, int n, int* out) noexcept nogil:
    cdef double sc[SIDE_CARDS]
    cdef int j
    for j in range(n):
        sc[j] = _refresh_value(v, v.base + legal[j] - A_SELECT_OWN)
    return _best(sc, legal, n, out)


cdef int _redraw(View* v, const int* legal, int n, int* out) noexcept nogil:
    cdef uint32_t m = v.s.at[v.me][LOC_HAND]
    cdef int g
    while m:
        g = v.base + _ctz(m)
        m &= m - 1
        if v.s.drawn[g] and _is_unit(v, g):
            return _one(A_DECLINE, out)
    if not v.last and _has(legal, n, A_REDRAW):
        return _one(A_REDRAW, out)
    return _one(A_DECLINE, out)


# ---- the modifier window (R18) -------------------------------------------------------

cdef inline bint _succeeds(const View* v, int a0, int a1) noexcept nogil:
    cdef const Config* c = v.c
    cdef const State* s = v.s
    cdef int need
    if s.pend.kind == PK_ATTACK:
        return (s.pend.dice[0] + c.bullets[s.pend.card] + a0) > \
               (s.pend.dice[1] + c.bullets[s.pend.defender] + a1)
    need = c.search[s.pend.card] if s.pend.kind == PK_SEARCH else c.steal[s.pend.card]
    return s.pend.dice[0] + a0 >= need


cdef int _modifiers(View* v, const int* legal, int n, int* out) noexcept nogil:
    cdef const Config* c = v.c
    cdef const State* s = v.s
    cdef int kind = s.pend.kind, m0 = s.pend.mods[0], m1 = s.pend.mods[1]
    cdef bint acting = v.me == s.pend.actor
    cdef bint want = acting  # the actor wants success, the other side failure
    cdef int own = 0 if acting else 1  # index of my own roll in the modifiers
    cdef double cost[NUM_ACTIONS]
    cdef int d0[NUM_ACTIONS]
    cdef int d1[NUM_ACTIONS]
    cdef int acts[NUM_ACTIONS]
    cdef int j, a, g, k = 0, best, involved, t0, t1
    cdef int delta[2]
    cdef double co
    cdef bint high
    cdef uint32_t m
    if _succeeds(v, m0, m1) == want:
        return _one(A_DECLINE, out)
    # Options: (cost, delta to m0, delta to m1, action).
    for j in range(n):
        a = legal[j]
        if a == A_DECLINE:
            continue
        delta[0] = 0
        delta[1] = 0
        if a >= A_ASSIST and a < A_ESCORT:
            g = v.base + a - A_ASSIST
            delta[own] = 1
            # Spend the card whose own ability matters least.
            co = 1.0 + (0.2 if c.command[g] else 0.0) + (0.5 if c.kind[g] == K_UNIT else 0.0)
        elif a >= A_PLAY and a < A_MOVE and c.effect[v.base + a - A_PLAY] == E_GOOD_LUCK:
            delta[own] = 2
            co = 2.0 if acting else 3.0
        elif a >= A_PLAY and a < A_MOVE and c.effect[v.base + a - A_PLAY] == E_BAD_LUCK:
            delta[1 - own] = -2
            co = 3.0 if acting else 2.0
        else:
            continue
        cost[k] = co
        d0[k] = delta[0]
        d1[k] = delta[1]
        acts[k] = a
        k += 1
    if k == 0:
        return _one(A_DECLINE, out)
    # The cheapest sufficient one (then the lowest action id).
    best = -1
    for j in range(k):
        if _succeeds(v, m0 + d0[j], m1 + d1[j]) == want:
            if best < 0 or cost[j] < cost[best] or (cost[j] == cost[best] and acts[j] < acts[best]):
                best = j
    if best >= 0:
        return _one(acts[best], out)
    # No single modifier suffices: spend several only when much is at stake.
    involved = s.pend.defender if kind == PK_ATTACK else s.pend.card
    high = kind == PK_STEAL or (kind == PK_ATTACK and (c.search[involved] or c.steal[involved]))
    if not high:
        return _one(A_DECLINE, out)
    t0 = m0
    t1 = m1
    m = _table(s, v.me)
    while m:
        g = v.base + _ctz(m)
        m &= m - 1
        if c.assistance[g] and not s.exhausted[g]:
            if own == 0:
                t0 += 1
            else:
                t1 += 1
    m = s.at[v.me][LOC_HAND]
    while m:
        g = v.base + _ctz(m)
        m &= m - 1
        if c.effect[g] == E_GOOD_LUCK:
            if own == 0:
                t0 += 2
            else:
                t1 += 2
        elif c.effect[g] == E_BAD_LUCK and (kind == PK_ATTACK or not acting):
            if own == 0:
                t1 -= 2
            else:
                t0 -= 2
    if _succeeds(v, t0, t1) != want:
        return _one(A_DECLINE, out)
    # Biggest step first (then the cheapest, then the highest action id).
    best = 0
    for j in range(1, k):
        if _step_key_greater(abs(d0[j]) + abs(d1[j]), cost[j], acts[j],
                             abs(d0[best]) + abs(d1[best]), cost[best], acts[best]):
            best = j
    return _one(acts[best], out)


cdef inline bint _step_key_greater(int size, double co, int a, int size_b, double co_b,
                                   int a_b) noexcept nogil:
    """(size, -cost, -action) > (size_b, -cost_b, -action_b), as Python's max."""
    if size != size_b:
        return size > size_b
    if co != co_b:
        return co < co_b
    return a < a_b


# ---- the policy -------------------------------------------------------------------

cdef int heuristic_ties(const Config* c, const State* s, const int* legal, int n,
                        int* out) noexcept nogil:
    """The actions the heuristic bot scores best at decision node s (``legal``:
    its ``n`` legal actions), written to ``out``; returns their count (1
    unless exact ties).  ``out`` must hold ``n`` ints."""
    cdef View v
    cdef int ph = s.phase, g, j, best
    cdef double p
    if n <= 1:
        return _one(legal[0], out)
    _init_view(&v, c, s)
    if ph == PH_MAIN:
        return _actions(&v, legal, n, out)
    if ph == PH_ZONE:
        return _zone(&v, legal, n, out)
    if ph == PH_MOTORCYCLE:
        if _can_act_at(&v, s.pend.card, s.pend.zone):
            return _first_play(legal, n, out)
        return _one(A_DECLINE, out)
    if ph == PH_TARGET:
        return _target(&v, legal, n, out)
    if ph == PH_ESCORT:
        return _escort(&v, legal, n, out)
    if ph == PH_AMBUSH:
        g = s.pend.defender
        p = _win_probability(c.bullets[s.pend.card], c.bullets[g], v.sides)
        if c.search[g] or c.steal[g] or (_is_unit(&v, g) and c.bullets[g] >= 2) or p < 0.5:
            return _first_play(legal, n, out)
        return _one(A_DECLINE, out)
    if ph == PH_WITNESSES:
        if c.search[s.pend.card] >= 4:
            return _first_play(legal, n, out)
        return _one(A_DECLINE, out)
    if ph == PH_NURSES:
        g = s.pend.defender
        if c.bullets[g] >= 2 or c.search[g] or c.steal[g]:
            return _first_play(legal, n, out)
        return _one(A_DECLINE, out)
    if ph == PH_REFRESH:
        return _refresh(&v, legal, n, out)
    if ph == PH_NUMBER:
        best = legal[0]
        for j in range(1, n):
            if legal[j] > best:
                best = legal[j]
        return _one(best, out)  # hide 2 when possible (R20)
    if ph == PH_REDRAW:
        return _redraw(&v, legal, n, out)
    if ph == PH_MODIFIERS:
        return _modifiers(&v, legal, n, out)
    return _one(legal[0], out)


cdef int heuristic_action(const Config* c, const State* s, const int* legal, int n,
                          Rng* r) noexcept nogil:
    """The heuristic bot's action at decision node s; exact ties broken with
    ``r`` (which is not drawn from otherwise)."""
    cdef int ties[NUM_ACTIONS]
    cdef int k
    if n <= 1:
        return legal[0]
    k = heuristic_ties(c, s, legal, n, ties)
    if k == 1:
        return ties[0]
    return ties[rng_below(r, k)]


# ---- Python access (tests, benchmarks) ----------------------------------------------

def _decision(Core core):
    if is_chance(&core.s) or is_terminal(&core.s):
        raise ValueError(f"no decision to take at a {core.phase} node")


def heuristic_best(Core core):
    """The actions the rules score best at ``core`` (one unless exact ties),
    in the order the rules score them: what ``HeuristicBot`` draws among."""
    cdef int legal[NUM_ACTIONS]
    cdef int out[NUM_ACTIONS]
    cdef int n, k
    _decision(core)
    n = legal_actions(&core.config.c, &core.s, legal)
    k = heuristic_ties(&core.config.c, &core.s, legal, n, out)
    return [out[i] for i in range(k)]


def heuristic_tied(Core core):
    """``heuristic_best``, sorted."""
    return sorted(heuristic_best(core))


def heuristic_choice(Core core, seed=0):
    """The action ``heuristic_action`` takes at ``core``, exact ties broken by
    an ``Rng`` seeded with ``seed`` (the playouts' tie-break, not the bot's)."""
    cdef int legal[NUM_ACTIONS]
    cdef int n
    cdef Rng r
    _decision(core)
    rng_seed(&r, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
    n = legal_actions(&core.config.c, &core.s, legal)
    return heuristic_action(&core.config.c, &core.s, legal, n, &r)
