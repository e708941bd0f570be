# cython: language_level=3
"""The Wildhorn rules engine: complete rules on a plain C struct.

The printed rulebook is the authority; the rulings R1..R30 and the
decisions D1..D6 (docs/rules.md) decide its gaps and are cited where they
apply.  Everything below ``# ---- Python layer`` is C: ``noexcept nogil``
functions over ``Config`` (the card data, immutable) and ``State`` (one
game position, copied by struct assignment).

Action ids
==========
Ids are dense in ``0 .. NUM_ACTIONS-1`` (284).  Card arguments are the
*own index* i = nn - 1 of the acting player's card PLnn / DEnn, except
``SELECT_ENEMY`` whose argument is the enemy card's index.

=========  ===========  =====================================================
ids        name         meaning
=========  ===========  =====================================================
0          PASS         main step: pass (R7, R11)
1          DECLINE      decline a window (R29), pass priority (R18), keep hand
2          REDRAW       use the once-per-game redraw (R5)
3..5       ZONE+z       Movement destination: 3 Forest, 4 Periphery, 5 Base
6..7       NUMBER+k     Hidden Fragments: hide k+1 fragments (R20)
8..30      PLACE+i      place Unit/Support i from hand into home zone (R9)
31..53     PLAY+i       play Action or Immediate card i from hand
54..76     MOVE+i       activate i: Movement (R14)
77..99     ATTACK+i     activate i: Attack (R15)
100..122   SEARCH+i     activate i: Search (R16)
123..145   STEAL+i      activate i: Spy / Sturmwind (R17)
146..168   COMMAND+i    activate i: Command (R19)
169..191   VOLUNTEERS+i activate i: Volunteers (R10)
192..214   ASSIST+i     Assistance of own card i in a modifier window (R18)
215..237   ESCORT+i     own card i escorts the attacked card (R15b)
238..260   SELECT_OWN+i refresh own exhausted Unit i (R12, R19)
261..283   SELECT_ENEMY+i  attack enemy card i (R15a)
=========  ===========  =====================================================

Worked examples (``decode_action``): 8 -> ("PLACE", 0), i.e. place PL01 when
the Polish player acts; 101 -> ("SEARCH", 1): the mover's card 02 searches;
265 -> ("SELECT_ENEMY", 4): attack the enemy card number 05.

Chance outcomes are ids too: a draw is the drawn card's own index (the
lowest-numbered card of its class left in the deck, R27), a Rocket reveal the
Rocket card's index, a die roll the face minus one.
"""

cimport cython
from libc.string cimport memset, memcpy
from libc.stdint cimport int8_t, uint8_t, uint16_t, uint32_t, uint64_t

cdef extern from *:
    """
    #ifndef WILDHORN_DEBUG
    #define WILDHORN_DEBUG 0
    #endif
    """
    int _WILDHORN_DEBUG "WILDHORN_DEBUG"

# ============================================================================
# Random numbers: xoshiro256** seeded by splitmix64
# ============================================================================

cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef void rng_seed(Rng* r, uint64_t seed) noexcept nogil:
    cdef int i
    cdef uint64_t z
    for i in range(4):
        seed += <uint64_t>0x9E3779B97F4A7C15
        z = seed
        z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
        r.s[i] = z ^ (z >> 31)


cdef uint64_t rng_next(Rng* r) noexcept nogil:
    cdef uint64_t result = _rotl(r.s[1] * 5, 7) * 9
    cdef uint64_t t = r.s[1] << 17
    r.s[2] ^= r.s[0]
    r.s[3] ^= r.s[1]
    r.s[1] ^= r.s[2]
    r.s[0] ^= r.s[3]
    r.s[2] ^= t
    r.s[3] = _rotl(r.s[3], 45)
    return result


cdef int rng_below(Rng* r, int n) noexcept nogil:
    """Uniform integer in [0, n) (n >= 1), Lemire's multiply-shift."""
    return <int>(((rng_next(r) >> 32) * <uint64_t>n) >> 32)


cdef double rng_unit(Rng* r) noexcept nogil:
    return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0)

# ============================================================================
# Small helpers
# ============================================================================

cdef extern from *:
    """
    static inline int wh_popcount(unsigned int x) { return __builtin_popcount(x); }
    static inline int wh_ctz(unsigned int x) { return __builtin_ctz(x); }
    """
    int _popcount "wh_popcount"(uint32_t x) noexcept nogil
    int _ctz "wh_ctz"(uint32_t x) noexcept nogil


cdef inline void _set_loc(State* s, int g, int loc) noexcept nogil:
    """Moves card g to loc, keeping the per-side masks in step with loc[]."""
    cdef int side = 0 if g < SIDE_CARDS else 1
    cdef uint32_t bit = (<uint32_t>1) << (g - side * SIDE_CARDS)
    s.at[side][s.loc[g]] &= ~bit
    s.at[side][loc] |= bit
    s.loc[g] = loc


cdef void _rebuild_masks(State* s) noexcept nogil:
    """Recomputes the masks from loc[] (after loc[] was written directly)."""
    cdef int g, side
    memset(s.at, 0, sizeof(s.at))
    for g in range(NCARDS):
        side = 0 if g < SIDE_CARDS else 1
        s.at[side][s.loc[g] & 7] |= (<uint32_t>1) << (g - side * SIDE_CARDS)


cdef inline int _home(int side) noexcept nogil:
    return LOC_FOREST if side == 0 else LOC_BASE


cdef inline int _home_frag(int side) noexcept nogil:
    # R21: later Polish fragments go to the Forest card, never to Wildhorn.
    return FR_FOREST if side == 0 else FR_BASE


cdef inline bint _on_table(int loc) noexcept nogil:
    return loc >= LOC_FOREST and loc <= LOC_BASE


cdef inline int _side_of(int g) noexcept nogil:
    return 0 if g < SIDE_CARDS else 1


cdef int hand_size(const Config* c, const State* s, int side) noexcept nogil:
    return _popcount(s.at[side][LOC_HAND])


cdef int deck_size(const Config* c, const State* s, int side) noexcept nogil:
    return _popcount(s.at[side][LOC_DECK])


cdef int polish_score(const State* s) noexcept nogil:
    # R22: Forest card plus the Operation Wildhorn III card.
    return s.frag[FR_FOREST] + s.frag[FR_WILDHORN]


cdef int german_score(const State* s) noexcept nogil:
    return s.frag[FR_BASE]


cdef inline bint _special(const State* s, int g) noexcept nogil:
    """R27: the attacker, target and defender of the action being resolved
    are interchangeable with no other card."""
    if s.pend.kind == PK_NONE:
        return False
    return g == s.pend.card or g == s.pend.target or g == s.pend.defender


cdef inline uint32_t _below(int g) noexcept nogil:
    """Mask of the own indices below card g's."""
    return ((<uint32_t>1) << (g - _side_of(g) * SIDE_CARDS)) - 1


cdef bint _lower_twin(const Config* c, uint32_t m, int base, int g) noexcept nogil:
    """True if a card of mask m (own indices, side base) has g's class."""
    cdef int j
    while m:
        j = base + _ctz(m)
        m &= m - 1
        if c.cls[j] == c.cls[g]:
            return True
    return False


cdef bint _hand_rep(const Config* c, const State* s, int g) noexcept nogil:
    """True if no lower-numbered interchangeable card is in the same hand (R27)."""
    cdef int side = _side_of(g)
    return not _lower_twin(c, s.at[side][LOC_HAND] & _below(g), side * SIDE_CARDS, g)


cdef bint _table_rep(const Config* c, const State* s, int g) noexcept nogil:
    """True if no lower-numbered interchangeable card shares g's zone and side (R27)."""
    cdef int j, side = _side_of(g)
    cdef uint32_t m
    if _special(s, g):
        return True
    m = s.at[side][s.loc[g]] & _below(g)
    while m:
        j = side * SIDE_CARDS + _ctz(m)
        m &= m - 1
        if (s.exhausted[j] == s.exhausted[g] and c.cls[j] == c.cls[g]
                and not _special(s, j)):
            return False
    return True


cdef bint _deck_rep(const Config* c, const State* s, int g) noexcept nogil:
    cdef int side = _side_of(g)
    return not _lower_twin(c, s.at[side][LOC_DECK] & _below(g), side * SIDE_CARDS, g)


cdef int _hand_card(const Config* c, const State* s, int side, int effect) noexcept nogil:
    """Lowest-numbered card with this effect in side's hand, or -1."""
    cdef int g
    cdef uint32_t m = s.at[side][LOC_HAND]
    while m:
        g = side * SIDE_CARDS + _ctz(m)
        m &= m - 1
        if c.effect[g] == effect:
            return g
    return -1


cdef bint _has_exhausted_unit(const Config* c, const State* s, int side) noexcept nogil:
    cdef int g
    cdef uint32_t m = ((s.at[side][LOC_FOREST] | s.at[side][LOC_PERIPHERY] | s.at[side][LOC_BASE])
                       & c.unit_mask[side])
    while m:
        g = side * SIDE_CARDS + _ctz(m)
        m &= m - 1
        if s.exhausted[g]:
            return True
    return False


cdef bint _redraw_available(const Config* c, const State* s, int side) noexcept nogil:
    # R5: once per game, only this turn's cards, not when the deck is empty.
    return (c.redraw and not s.redraw_used[side] and s.drawn_count[side] > 0
            and deck_size(c, s, side) > 0)


cdef inline bint _has_roll(const State* s, int player) noexcept nogil:
    """R18: a player may only modify a roll that exists."""
    if player == s.pend.actor:
        return True
    return s.pend.kind == PK_ATTACK

# ============================================================================
# Setup and the turn sequence
# ============================================================================

cdef void _start_turn(const Config* c, State* s) noexcept nogil:
    # the last turn's chain is over: nothing of it belongs to this turn's key
    s.actor = 0
    s.actions_left = 0
    s.passes = 0
    s.drawn_count[0] = 0
    s.drawn_count[1] = 0
    s.redraw_choice[0] = 0
    s.redraw_choice[1] = 0
    s.redeal = 0
    s.draw_side = 0
    s.draw_left = c.draw_size
    s.phase = PH_DRAW
    _after_draw(c, s)


cdef void init_state(const Config* c, State* s) noexcept nogil:
    """R3: each side holds its START cards; the rest is its deck."""
    cdef int g
    memset(s, 0, sizeof(State))
    for g in range(NCARDS):
        s.loc[g] = c.init_loc[g] if c.present[g] else LOC_ABSENT
    _rebuild_masks(s)
    for g in range(6):
        s.frag[g] = c.init_frag[g]
    s.turn = 1
    s.winner = -1
    s.pend.card = -1
    s.pend.target = -1
    s.pend.defender = -1
    _start_turn(c, s)
    _advance(c, s)


cdef void _after_draw(const Config* c, State* s) noexcept nogil:
    """Moves the draw step on once draw_side has drawn what it can (R5, R28)."""
    cdef int side
    while True:
        if s.draw_left > 0 and deck_size(c, s, s.draw_side) > 0:
            return  # another chance node: draw a card
        if s.redeal == 0:
            if s.draw_side == 0:
                s.draw_side = 1
                s.draw_left = c.draw_size
                continue
            # Both have drawn: the Polish decision comes first, secret (R5).
            s.phase = PH_REDRAW
            s.player = 0
            return
        # Dealing redraws: Polish first, then German.
        if s.draw_side == 0 and s.redraw_choice[1]:
            s.draw_side = 1
            s.draw_left = s.drawn_count[1]
            _send_back(c, s, 1)
            continue
        _to_rocket(c, s)
        return


cdef void _send_back(const Config* c, State* s, int side) noexcept nogil:
    """R5: the cards drawn this turn go back; the deck is reshuffled (unordered)."""
    cdef int g
    for g in range(side * SIDE_CARDS, side * SIDE_CARDS + SIDE_CARDS):
        if s.drawn[g] and s.loc[g] == LOC_HAND:
            _set_loc(s, g, LOC_DECK)
            s.drawn[g] = 0


cdef void _reveal_redraws(const Config* c, State* s) noexcept nogil:
    s.redraw_used[0] |= s.redraw_choice[0]
    s.redraw_used[1] |= s.redraw_choice[1]
    if s.redraw_choice[0] or s.redraw_choice[1]:
        s.phase = PH_DRAW
        s.redeal = 1
        s.draw_side = 0 if s.redraw_choice[0] else 1
        s.draw_left = s.drawn_count[s.draw_side]
        _send_back(c, s, s.draw_side)
        _after_draw(c, s)
    else:
        _to_rocket(c, s)


cdef void _to_rocket(const Config* c, State* s) noexcept nogil:
    cdef int g
    for g in range(NCARDS):
        s.drawn[g] = 0
    s.redeal = 0
    s.redraw_choice[0] = 0  # revealed and dealt; redraw_used keeps what matters
    s.redraw_choice[1] = 0
    s.phase = PH_ROCKET


cdef void _begin_actions(const Config* c, State* s) noexcept nogil:
    # R7: the Polish player acts first in every turn.
    s.phase = PH_MAIN
    s.actor = 0
    s.player = 0
    s.actions_left = 1
    s.passes = 0


cdef void _end_turn(const Config* c, State* s) noexcept nogil:
    """R8: refresh everything; hidden fragments return; next turn or the end."""
    cdef int g
    for g in range(NCARDS):
        s.exhausted[g] = 0
        if s.loc[g] == LOC_EVENT and c.effect[g] == E_HIDDEN:
            _set_loc(s, g, LOC_GONE)
    s.frag[FR_PERIPHERY] += s.frag[FR_HIDDEN]
    s.frag[FR_HIDDEN] = 0
    if s.turn >= c.turns:
        _finish_game(c, s)
        return
    s.turn += 1
    _start_turn(c, s)


cdef bint _overrun(const Config* c, const State* s, int side) noexcept nogil:
    """R23: side's home zone holds none of its own cards and an enemy Unit."""
    cdef int zone = _home(side)
    cdef int g
    cdef bint own = False, enemy_unit = False
    for g in range(NCARDS):
        if s.loc[g] != zone:
            continue
        if _side_of(g) == side:
            own = True
        elif c.kind[g] == K_UNIT:
            enemy_unit = True
    return enemy_unit and not own


cdef void _finish_game(const Config* c, State* s) noexcept nogil:
    cdef bint lose0 = _overrun(c, s, 0)
    cdef bint lose1 = _overrun(c, s, 1)
    s.phase = PH_TERMINAL
    if lose0 and not lose1:
        s.winner = 1
    elif lose1 and not lose0:
        s.winner = 0
    else:
        # R22: more fragments wins; a tie goes to the German player.
        s.winner = 0 if polish_score(s) > german_score(s) else 1

# ============================================================================
# Chains of actions (R10-R12)
# ============================================================================

cdef void _clear_pend(State* s) noexcept nogil:
    memset(&s.pend, 0, sizeof(Pending))
    s.pend.card = -1
    s.pend.target = -1
    s.pend.defender = -1


cdef void _continue_chain(const Config* c, State* s) noexcept nogil:
    cdef int p = s.actor
    _clear_pend(s)
    if s.refresh_due > 0:
        if _has_exhausted_unit(c, s, p):
            s.phase = PH_REFRESH
            s.player = p
            s.pend.kind = PK_MC_REFRESH
            s.pend.actor = p
            return
        s.refresh_due = 0  # R12: nothing to refresh
    if s.actions_left > 0:
        s.phase = PH_MAIN
        s.player = p
        return
    if s.passes >= 2:
        _end_turn(c, s)
        return
    s.actor = 1 - p
    s.player = s.actor
    s.actions_left = 1
    s.phase = PH_MAIN


cdef void _finish_action(const Config* c, State* s, bint was_pass) noexcept nogil:
    """An action (or a pass) is over: count it (R10), run the R12 counters."""
    if was_pass:
        s.actions_left = 0
    else:
        if s.actions_left > 0:
            s.actions_left -= 1
        # R12: each later action lowers the pending refresh counters.
        s.refresh_due += s.mc[1]
        s.mc[1] = s.mc[2]
        s.mc[2] = s.mc[3]
        s.mc[3] = s.mc_new
        s.mc_new = 0
    if s.actions_left == 0:
        # R12: the chain ends: every pending refresh happens now.
        s.refresh_due += s.mc[1] + s.mc[2] + s.mc[3]
        s.mc[1] = 0
        s.mc[2] = 0
        s.mc[3] = 0
    _continue_chain(c, s)

# ============================================================================
# Legal actions
# ============================================================================

cdef int _main_actions(const Config* c, const State* s, int* out) noexcept nogil:
    """R9, R13, R27: the actions of the actor's main decision, sorted."""
    cdef int p = s.actor
    cdef int base = p * SIDE_CARDS
    cdef int n = 0, i, j, g, e, loc, nh = 0, nt = 0
    cdef int hand[SIDE_CARDS]          # own hand cards that represent their class
    cdef int fresh[SIDE_CARDS]         # own fresh table cards that represent theirs
    cdef bint enemy_zone[LOC_BASE + 1]
    cdef bint exh_unit = False, german_forest = False
    cdef uint64_t hand_seen = 0, bit
    cdef uint64_t zone_seen[LOC_BASE + 1]
    cdef uint32_t m
    cdef int enemy_home = _home(1 - p)
    cdef int enemy_frag = FR_BASE if p == 0 else FR_FOREST
    enemy_zone[LOC_FOREST] = False
    enemy_zone[LOC_PERIPHERY] = False
    enemy_zone[LOC_BASE] = False
    zone_seen[LOC_FOREST] = 0
    zone_seen[LOC_PERIPHERY] = 0
    zone_seen[LOC_BASE] = 0
    for loc in range(LOC_FOREST, LOC_BASE + 1):
        enemy_zone[loc] = s.at[1 - p][loc] != 0
    # R13: Wildhorn needs no German Unit in the Forest (Polish only, R28)
    german_forest = p == 0 and (s.at[1][LOC_FOREST] & c.unit_mask[1]) != 0
    # R27: one action per class in hand, per class and zone on the table
    # (class ids are below 64, see solver.cards: at most 46 cards).
    m = s.at[p][LOC_HAND]
    while m:
        i = _ctz(m)
        m &= m - 1
        bit = (<uint64_t>1) << (c.cls[base + i] & 63)
        if not (hand_seen & bit):
            hand_seen |= bit
            hand[nh] = i
            nh += 1
    m = s.at[p][LOC_FOREST] | s.at[p][LOC_PERIPHERY] | s.at[p][LOC_BASE]
    while m:
        i = _ctz(m)
        m &= m - 1
        g = base + i
        if s.exhausted[g]:
            if c.kind[g] == K_UNIT:
                exh_unit = True
            continue
        loc = s.loc[g]
        bit = (<uint64_t>1) << (c.cls[g] & 63)
        if not (zone_seen[loc] & bit):
            zone_seen[loc] |= bit
            fresh[nt] = i
            nt += 1
    out[n] = A_PASS
    n += 1
    for j in range(nh):                      # place a Unit or Support (R9)
        g = base + hand[j]
        if c.kind[g] <= K_SUPPORT:
            out[n] = A_PLACE + hand[j]
            n += 1
    for j in range(nh):                      # play an Action card (R13)
        g = base + hand[j]
        if c.kind[g] != K_ACTION:
            continue
        e = c.effect[g]
        if e == E_WILDHORN:
            if s.wildhorn_played or s.frag[FR_FOREST] == 0 or german_forest:
                continue
        elif e == E_HIDDEN:
            if s.frag[FR_PERIPHERY] == 0:
                continue
        elif e == E_HIGH_MORALE:
            if not exh_unit:
                continue
        elif e != E_MOTORIZED:
            continue
        out[n] = A_PLAY + hand[j]
        n += 1
    for j in range(nt):
        g = base + fresh[j]
        if c.move[g] and c.kind[g] == K_UNIT:
            out[n] = A_MOVE + fresh[j]
            n += 1
    for j in range(nt):
        g = base + fresh[j]
        if c.attack[g] and c.kind[g] == K_UNIT and enemy_zone[s.loc[g]]:
            out[n] = A_ATTACK + fresh[j]
            n += 1
    if s.frag[FR_PERIPHERY] > 0:
        for j in range(nt):
            g = base + fresh[j]
            if c.search[g] and s.loc[g] == LOC_PERIPHERY:
                out[n] = A_SEARCH + fresh[j]
                n += 1
    if s.frag[enemy_frag] > 0:
        for j in range(nt):
            g = base + fresh[j]
            if c.steal[g] and s.loc[g] == enemy_home:
                out[n] = A_STEAL + fresh[j]
                n += 1
    if exh_unit:
        for j in range(nt):
            g = base + fresh[j]
            if c.command[g]:
                out[n] = A_COMMAND + fresh[j]
                n += 1
    for j in range(nt):
        g = base + fresh[j]
        if c.volunteers[g]:
            out[n] = A_VOLUNTEERS + fresh[j]
            n += 1
    return n


cdef int _play_window(const Config* c, const State* s, int p, int effect, int* out) noexcept nogil:
    """DECLINE, then one PLAY per class of hand cards with this effect (R27, R29)."""
    cdef int n = 1, i, g
    cdef uint32_t m = s.at[p][LOC_HAND]
    out[0] = A_DECLINE
    while m:
        i = _ctz(m)
        m &= m - 1
        g = p * SIDE_CARDS + i
        if c.effect[g] == effect and _hand_rep(c, s, g):
            out[n] = A_PLAY + i
            n += 1
    return n


cdef int _modifier_actions(const Config* c, const State* s, int* out) noexcept nogil:
    """R18: Good Luck / Bad Luck from hand, Assistance of a fresh card."""
    cdef int q = s.player
    cdef int n = 1, i, g, e
    cdef bint own = _has_roll(s, q)
    cdef bint other = _has_roll(s, 1 - q)
    cdef uint32_t m = s.at[q][LOC_HAND]
    out[0] = A_DECLINE
    while m:
        i = _ctz(m)
        m &= m - 1
        g = q * SIDE_CARDS + i
        e = c.effect[g]
        if ((e == E_GOOD_LUCK and own) or (e == E_BAD_LUCK and other)) and _hand_rep(c, s, g):
            out[n] = A_PLAY + i
            n += 1
    if own:
        m = s.at[q][LOC_FOREST] | s.at[q][LOC_PERIPHERY] | s.at[q][LOC_BASE]
        while m:
            i = _ctz(m)
            m &= m - 1
            g = q * SIDE_CARDS + i
            if not s.exhausted[g] and c.assistance[g] and _table_rep(c, s, g):
                out[n] = A_ASSIST + i
                n += 1
    return n


cdef int legal_actions(const Config* c, const State* s, int* out) noexcept nogil:
    """Writes the sorted legal action ids of the player to move; returns their count.

    ``out`` must hold NUM_ACTIONS ints.  Chance and terminal nodes have none.
    """
    cdef int ph = s.phase
    cdef int p = s.player
    cdef int n = 0, i, g, loc, zone
    cdef uint32_t m
    if ph == PH_MAIN:
        return _main_actions(c, s, out)
    if ph == PH_REDRAW:
        out[0] = A_DECLINE
        n = 1
        if _redraw_available(c, s, p):
            out[1] = A_REDRAW
            n = 2
        return n
    if ph == PH_ZONE:
        # R14: an adjacent zone; Forest and Base touch only the Periphery (R1).
        loc = s.loc[s.pend.card]
        if loc == LOC_PERIPHERY:
            out[0] = A_ZONE + 0
            out[1] = A_ZONE + 2
            return 2
        out[0] = A_ZONE + 1
        return 1
    if ph == PH_MOTORCYCLE:
        return _play_window(c, s, p, E_MOTORCYCLE, out)
    if ph == PH_TARGET:
        m = s.at[1 - p][s.loc[s.pend.card]]
        while m:
            i = _ctz(m)
            m &= m - 1
            if _table_rep(c, s, (1 - p) * SIDE_CARDS + i):
                out[n] = A_SELECT_ENEMY + i
                n += 1
        return n
    if ph == PH_ESCORT:
        out[0] = A_DECLINE
        n = 1
        m = s.at[p][s.loc[s.pend.target]]
        while m:
            i = _ctz(m)
            m &= m - 1
            g = p * SIDE_CARDS + i
            if (g != s.pend.target and not s.exhausted[g] and c.escort[g]
                    and _table_rep(c, s, g)):
                out[n] = A_ESCORT + i
                n += 1
        return n
    if ph == PH_AMBUSH:
        return _play_window(c, s, p, E_AMBUSH, out)
    if ph == PH_MODIFIERS:
        return _modifier_actions(c, s, out)
    if ph == PH_NURSES:
        return _play_window(c, s, p, E_NURSES, out)
    if ph == PH_WITNESSES:
        return _play_window(c, s, p, E_WITNESSES, out)
    if ph == PH_REFRESH:
        m = ((s.at[p][LOC_FOREST] | s.at[p][LOC_PERIPHERY] | s.at[p][LOC_BASE])
             & c.unit_mask[p])
        while m:
            i = _ctz(m)
            m &= m - 1
            g = p * SIDE_CARDS + i
            if s.exhausted[g] and _table_rep(c, s, g):
                out[n] = A_SELECT_OWN + i
                n += 1
        return n
    if ph == PH_NUMBER:
        out[0] = A_NUMBER
        n = 1
        if s.frag[FR_PERIPHERY] >= 2:
            out[1] = A_NUMBER + 1
            n = 2
        return n
    return 0

# ============================================================================
# Chance
# ============================================================================

cdef int chance_outcomes(const Config* c, const State* s, int* acts, double* probs) noexcept nogil:
    """Chance outcomes of a chance node and their probabilities; returns the count."""
    cdef int n = 0, g, j, k, cnt, total, side
    cdef uint32_t m, rest
    if s.phase == PH_DRAW:
        # R3: a draw is uniform over the cards left; interchangeable cards
        # (R27) form one outcome, represented by the lowest number.
        side = s.draw_side
        total = deck_size(c, s, side)
        m = s.at[side][LOC_DECK]
        while m:
            g = side * SIDE_CARDS + _ctz(m)
            m &= m - 1
            if _deck_rep(c, s, g):
                cnt = 1
                rest = m
                while rest:
                    j = side * SIDE_CARDS + _ctz(rest)
                    rest &= rest - 1
                    if c.cls[j] == c.cls[g]:
                        cnt += 1
                acts[n] = g - side * SIDE_CARDS
                probs[n] = <double>cnt / total
                n += 1
        return n
    if s.phase == PH_ROCKET:
        # R4: uniform over the Rocket cards not yet revealed; equal values are
        # one outcome.
        total = c.n_rockets - s.n_revealed
        for k in range(c.n_rockets):
            if s.revealed[k]:
                continue
            cnt = 0
            for j in range(c.n_rockets):
                if not s.revealed[j] and c.rockets[j] == c.rockets[k]:
                    if j < k:
                        cnt = -1
                        break
                    cnt += 1
            if cnt > 0:
                acts[n] = k
                probs[n] = <double>cnt / total
                n += 1
        return n
    if s.phase == PH_ROLL:
        for k in range(c.dice_sides):
            acts[n] = k
            probs[n] = 1.0 / c.dice_sides
            n += 1
        return n
    return 0


cdef int sample_chance(const Config* c, const State* s, Rng* r) noexcept nogil:
    """A chance outcome drawn with its probability (no list is built)."""
    cdef int side, g = 0, pick, k = 0, j
    cdef uint32_t m
    if s.phase == PH_DRAW:
        side = s.draw_side
        m = s.at[side][LOC_DECK]
        pick = rng_below(r, _popcount(m))
        while pick > 0:
            m &= m - 1
            pick -= 1
        g = side * SIDE_CARDS + _ctz(m)
        # the outcome is the lowest-numbered card of the drawn card's class
        m = s.at[side][LOC_DECK] & _below(g)
        while m:
            j = side * SIDE_CARDS + _ctz(m)
            m &= m - 1
            if c.cls[j] == c.cls[g]:
                return j - side * SIDE_CARDS
        return g - side * SIDE_CARDS
    if s.phase == PH_ROCKET:
        pick = rng_below(r, c.n_rockets - s.n_revealed)
        for k in range(c.n_rockets):
            if not s.revealed[k]:
                if pick == 0:
                    break
                pick -= 1
        for j in range(k):
            if not s.revealed[j] and c.rockets[j] == c.rockets[k]:
                return j
        return k
    return rng_below(r, c.dice_sides)

# ============================================================================
# Applying actions
# ============================================================================

cdef void _move_fragment(State* s, int src, int dst, int n) noexcept nogil:
    if n > s.frag[src]:
        n = s.frag[src]
    s.frag[src] -= n
    s.frag[dst] += n


cdef void _resolve_success(const Config* c, State* s) noexcept nogil:
    """A successful Attack, Search or Spy/Sturmwind (R15f-g, R16, R17)."""
    cdef int p = s.pend.actor
    cdef int d
    if s.pend.kind == PK_SEARCH:
        _move_fragment(s, FR_PERIPHERY, _home_frag(p), 1)  # R16: mandatory
    elif s.pend.kind == PK_STEAL:
        # R17: from the enemy home zone card; Wildhorn's fragments are safe.
        _move_fragment(s, FR_BASE if p == 0 else FR_FOREST, _home_frag(p), 1)
    elif s.pend.kind == PK_ATTACK:
        d = s.pend.defender
        if c.kind[d] == K_UNIT and _hand_card(c, s, 1 - p, E_NURSES) >= 0:
            s.phase = PH_NURSES
            s.player = 1 - p
            return
        _set_loc(s, d, LOC_GONE)
        s.exhausted[d] = 0
    _finish_action(c, s, False)


cdef void _close_window(const Config* c, State* s) noexcept nogil:
    """R15f, R16, R17: compare totals once the modifier window closes."""
    cdef int a = s.pend.card
    cdef int att, dfn
    if s.pend.kind == PK_ATTACK:
        att = s.pend.dice[0] + c.bullets[a] + s.pend.mods[0]
        dfn = s.pend.dice[1] + c.bullets[s.pend.defender] + s.pend.mods[1]
        if att > dfn:
            _resolve_success(c, s)
            return
    elif s.pend.kind == PK_SEARCH:
        if s.pend.dice[0] + s.pend.mods[0] >= c.search[a]:
            _resolve_success(c, s)
            return
    else:
        if s.pend.dice[0] + s.pend.mods[0] >= c.steal[a]:
            _resolve_success(c, s)
            return
    _finish_action(c, s, False)


cdef void _open_window(State* s) noexcept nogil:
    # R18: the acting player has priority first.
    s.phase = PH_MODIFIERS
    s.player = s.pend.actor
    s.pend.window_passes = 0


cdef void _to_roll(State* s) noexcept nogil:
    s.phase = PH_ROLL
    s.pend.roll = 0


cdef void _declare(State* s, int kind, int p, int g) noexcept nogil:
    _clear_pend(s)
    s.pend.kind = kind
    s.pend.actor = p
    s.pend.card = g
    s.passes = 0  # R11: taking any action resets the run of passes


cdef void _apply_main(const Config* c, State* s, int a) noexcept nogil:
    cdef int p = s.actor
    cdef int base = p * SIDE_CARDS
    cdef int g, e
    if a == A_PASS:
        s.passes += 1  # R11: ends the chain at once
        _finish_action(c, s, True)
        return
    if a < A_PLAY:
        g = base + a - A_PLACE
        s.passes = 0
        _set_loc(s, g, _home(p))  # R9: arrives fresh
        s.exhausted[g] = 0
        _finish_action(c, s, False)
        return
    if a < A_MOVE:
        g = base + a - A_PLAY
        e = c.effect[g]
        s.passes = 0
        _set_loc(s, g, LOC_GONE)
        if e == E_WILDHORN:
            # R21: every Forest fragment moves onto the card, which stays.
            _set_loc(s, g, LOC_EVENT)
            s.wildhorn_played = 1
            _move_fragment(s, FR_FOREST, FR_WILDHORN, s.frag[FR_FOREST])
        elif e == E_HIDDEN:
            _set_loc(s, g, LOC_EVENT)  # until the end of the turn (R8, R20)
            _declare(s, PK_HIDDEN, p, g)
            s.phase = PH_NUMBER
            s.player = p
            return
        elif e == E_HIGH_MORALE:
            _declare(s, PK_HIGH_MORALE, p, g)
            s.phase = PH_REFRESH
            s.player = p
            return
        elif e == E_MOTORIZED:
            # R10: three more actions; R12: a refresh after three actions.
            s.actions_left += 3
            s.mc_new += 1
        _finish_action(c, s, False)
        return
    # activation of a card on the table: it becomes exhausted (R9)
    if a < A_ATTACK:
        g = base + a - A_MOVE
        _declare(s, PK_MOVE, p, g)
        s.exhausted[g] = 1
        s.phase = PH_ZONE
        return
    if a < A_SEARCH:
        g = base + a - A_ATTACK
        _declare(s, PK_ATTACK, p, g)
        s.exhausted[g] = 1  # R15a
        s.phase = PH_TARGET
        return
    if a < A_STEAL:
        g = base + a - A_SEARCH
        _declare(s, PK_SEARCH, p, g)
        s.exhausted[g] = 1
        s.phase = PH_WITNESSES  # R16: Witnesses before the roll
        return
    if a < A_COMMAND:
        g = base + a - A_STEAL
        _declare(s, PK_STEAL, p, g)
        s.exhausted[g] = 1
        _to_roll(s)
        return
    if a < A_VOLUNTEERS:
        g = base + a - A_COMMAND
        _declare(s, PK_COMMAND, p, g)
        s.exhausted[g] = 1
        s.phase = PH_REFRESH
        return
    g = base + a - A_VOLUNTEERS
    s.passes = 0
    s.exhausted[g] = 1
    s.actions_left += 2  # R10
    _finish_action(c, s, False)


cdef void _step(const Config* c, State* s, int a) noexcept nogil:
    """One transition, without the automatic moves of R29/R30."""
    cdef int ph = s.phase
    cdef int p = s.player
    cdef int g, k, side
    s.moves += 1
    if ph == PH_DRAW:
        side = s.draw_side
        g = side * SIDE_CARDS + a
        _set_loc(s, g, LOC_HAND)
        s.drawn[g] = 1
        s.draw_left -= 1
        if not s.redeal:
            s.drawn_count[side] += 1
        _after_draw(c, s)
    elif ph == PH_REDRAW:
        s.redraw_choice[p] = 1 if a == A_REDRAW else 0
        if p == 0:
            s.player = 1  # R5: the German decides without seeing it
        else:
            _reveal_redraws(c, s)
    elif ph == PH_ROCKET:
        s.revealed[a] = 1
        s.order[s.n_revealed] = a
        s.n_revealed += 1
        # R6, R28: as many fragments as shown, at most what the pool holds.
        _move_fragment(s, FR_POOL, FR_PERIPHERY, c.rockets[a])
        _begin_actions(c, s)
    elif ph == PH_MAIN:
        _apply_main(c, s, a)
    elif ph == PH_ZONE:
        s.pend.zone = LOC_FOREST + (a - A_ZONE)
        # R14: Motorcycle may be played once the destination is chosen.
        s.phase = PH_MOTORCYCLE
    elif ph == PH_MOTORCYCLE:
        g = s.pend.card
        _set_loc(s, g, s.pend.zone)
        if a != A_DECLINE:
            _set_loc(s, p * SIDE_CARDS + a - A_PLAY, LOC_GONE)
            s.exhausted[g] = 0  # not exhausted by the movement
        _finish_action(c, s, False)
    elif ph == PH_TARGET:
        g = (1 - p) * SIDE_CARDS + a - A_SELECT_ENEMY
        s.pend.target = g
        s.pend.defender = g
        s.phase = PH_ESCORT  # R15b
        s.player = 1 - p
    elif ph == PH_ESCORT:
        if a != A_DECLINE:
            g = p * SIDE_CARDS + a - A_ESCORT
            s.exhausted[g] = 1
            s.pend.defender = g
            s.pend.escorted = 1
        s.phase = PH_AMBUSH  # R15c
        s.player = s.pend.actor
    elif ph == PH_AMBUSH:
        if a != A_DECLINE:
            _set_loc(s, p * SIDE_CARDS + a - A_PLAY, LOC_GONE)
            _resolve_success(c, s)  # succeeds without dice
        else:
            _to_roll(s)
    elif ph == PH_WITNESSES:
        if a != A_DECLINE:
            # R16: exactly one fragment, no die, no modifier window.
            _set_loc(s, p * SIDE_CARDS + a - A_PLAY, LOC_GONE)
            _resolve_success(c, s)
        else:
            _to_roll(s)
    elif ph == PH_ROLL:
        s.pend.dice[s.pend.roll] = a + 1
        s.pend.roll += 1
        if s.pend.kind == PK_ATTACK and s.pend.roll < 2:
            return  # R15d: the defender's die follows the attacker's
        _open_window(s)
    elif ph == PH_MODIFIERS:
        if a == A_DECLINE:
            s.pend.window_passes += 1
            if s.pend.window_passes >= 2:
                s.pend.window_passes = 0  # closed: the count means nothing now
                _close_window(c, s)
                return
        else:
            s.pend.window_passes = 0
            k = 0 if p == s.pend.actor else 1  # index of p's own roll
            if a < A_MOVE:
                g = p * SIDE_CARDS + a - A_PLAY
                _set_loc(s, g, LOC_GONE)
                if c.effect[g] == E_GOOD_LUCK:
                    s.pend.mods[k] += 2
                else:
                    s.pend.mods[1 - k] -= 2  # Bad Luck: the enemy's roll
            else:
                g = p * SIDE_CARDS + a - A_ASSIST
                s.exhausted[g] = 1
                s.pend.mods[k] += 1
        s.player = 1 - p
    elif ph == PH_NURSES:
        g = s.pend.defender
        if a != A_DECLINE:
            _set_loc(s, p * SIDE_CARDS + a - A_PLAY, LOC_GONE)
            _set_loc(s, g, _home(p))  # R15g: home zone, exhausted
            s.exhausted[g] = 1
        else:
            _set_loc(s, g, LOC_GONE)
            s.exhausted[g] = 0
        _finish_action(c, s, False)
    elif ph == PH_REFRESH:
        g = p * SIDE_CARDS + a - A_SELECT_OWN
        s.exhausted[g] = 0
        if s.pend.kind == PK_MC_REFRESH:
            s.refresh_due -= 1
            _continue_chain(c, s)
        else:
            _finish_action(c, s, False)
    elif ph == PH_NUMBER:
        _move_fragment(s, FR_PERIPHERY, FR_HIDDEN, a - A_NUMBER + 1)
        _finish_action(c, s, False)


cdef int _chance_count(const Config* c, const State* s, int* first) noexcept nogil:
    """How many chance outcomes the node has (as chance_outcomes counts
    them), and the first one, without building the list."""
    cdef uint64_t seen = 0, bit
    cdef int n = 0, g, k, side
    first[0] = 0
    if s.phase == PH_ROLL:
        return c.dice_sides
    cdef uint32_t m
    if s.phase == PH_DRAW:
        side = s.draw_side
        m = s.at[side][LOC_DECK]
        if m:
            first[0] = _ctz(m)
        while m:
            g = side * SIDE_CARDS + _ctz(m)
            m &= m - 1
            bit = (<uint64_t>1) << (c.cls[g] & 63)
            if not (seen & bit):
                seen |= bit
                n += 1
        return n
    for k in range(c.n_rockets - 1, -1, -1):
        if not s.revealed[k]:
            bit = (<uint64_t>1) << (c.rockets[k] & 63)
            if not (seen & bit):
                seen |= bit
                n += 1
            first[0] = k
    return n


cdef int _advance_n(const Config* c, State* s, int* buf) noexcept nogil:
    """R29/R30: a node with a single option is applied at once; so is a
    chance node with a single outcome.  Returns the number of options at the
    node reached (legal actions, written to buf, or chance outcomes; 0 at the
    end)."""
    cdef int n
    while s.phase != PH_TERMINAL:
        if is_chance(s):
            n = _chance_count(c, s, buf)
        else:
            n = legal_actions(c, s, buf)
        if n != 1:
            return n
        _step(c, s, buf[0])
    return 0


cdef void _advance(const Config* c, State* s) noexcept nogil:
    cdef int buf[NUM_ACTIONS]
    _advance_n(c, s, buf)


cdef void apply_action(const Config* c, State* s, int action) noexcept nogil:
    """Applies a legal action or chance outcome (unchecked), then the
    automatic moves of R29/R30."""
    cdef int buf[NUM_ACTIONS]
    _step(c, s, action)
    _advance_n(c, s, buf)


cdef int apply_action_n(const Config* c, State* s, int action, int* buf) noexcept nogil:
    """``apply_action`` that also returns the options of the node reached
    (legal actions written to buf, as ``_advance_n``): saves a second
    generation in playouts and searches."""
    _step(c, s, action)
    return _advance_n(c, s, buf)

# ============================================================================
# Queries
# ============================================================================

cdef bint is_chance(const State* s) noexcept nogil:
    return s.phase == PH_DRAW or s.phase == PH_ROCKET or s.phase == PH_ROLL


cdef bint is_terminal(const State* s) noexcept nogil:
    return s.phase == PH_TERMINAL


cdef int current_player(const State* s) noexcept nogil:
    """0 Polish, 1 German, -1 chance, -4 terminal (pyspiel.PlayerId)."""
    if s.phase == PH_TERMINAL:
        return -4
    if is_chance(s):
        return -1
    return s.player


cdef double returns_of(const State* s, int player) noexcept nogil:
    """R24: +1 for the winner, -1 for the loser, 0 before the end."""
    if s.phase != PH_TERMINAL:
        return 0.0
    return 1.0 if s.winner == player else -1.0


cdef int random_playout(const Config* c, State* s, Rng* r) noexcept nogil:
    """Plays uniformly random legal actions and sampled chance to the end;
    returns the winner."""
    cdef int buf[NUM_ACTIONS]
    cdef int n
    if s.phase == PH_TERMINAL:
        return s.winner
    n = _advance_n(c, s, buf)
    while s.phase != PH_TERMINAL:
        if is_chance(s):
            n = apply_action_n(c, s, sample_chance(c, s, r), buf)
        else:
            n = apply_action_n(c, s, buf[rng_below(r, n)], buf)
    return s.winner

# ============================================================================
# Information: views, keys, resampling (R25, R26, R29)
# ============================================================================

cdef enum:
    V_UNKNOWN = 0              # a hidden card: opponent's hand or deck
    V_HAND = 1                 # in the viewer's own hand
    V_DECK = 2                 # in the viewer's own deck
    V_DRAWN = 3                # in own hand, drawn this turn (R5)
    V_TABLE = 4                # +2*(zone-Forest)+exhausted: 4..9
    V_GONE = 10                # left play (public, R25)
    V_EVENT = 11               # Action card beside the zones
    V_ABSENT = 12              # not in this game
    V_COUNT = 13

cdef char* _VIEW_CHARS = b"?hdnFfPpBbxe-"


cdef int card_view(const State* s, int g, int player) noexcept nogil:
    """What ``player`` knows of card g (player 2: everything, -1: public only)."""
    cdef int loc = s.loc[g]
    cdef bint mine = player == 2 or player == _side_of(g)
    if _on_table(loc):
        return V_TABLE + 2 * (loc - LOC_FOREST) + s.exhausted[g]
    if loc == LOC_GONE:
        return V_GONE
    if loc == LOC_EVENT:
        return V_EVENT
    if loc == LOC_ABSENT:
        return V_ABSENT
    if not mine:
        return V_UNKNOWN  # R26: the opponent's hand and deck are hidden
    if loc == LOC_DECK:
        return V_DECK
    return V_DRAWN if s.drawn[g] else V_HAND


cdef int _put_int(char* buf, int n, int v) noexcept nogil:
    cdef char tmp[12]
    cdef int k = 0
    if v < 0:
        buf[n] = b'-'
        n += 1
        v = -v
    if v == 0:
        buf[n] = b'0'
        return n + 1
    while v > 0:
        tmp[k] = <char>(48 + v % 10)
        v //= 10
        k += 1
    while k > 0:
        k -= 1
        buf[n] = tmp[k]
        n += 1
    return n


cdef inline int _put(char* buf, int n, char ch) noexcept nogil:
    buf[n] = ch
    return n + 1


cdef int info_key(const Config* c, const State* s, int player, char* buf) noexcept nogil:
    """Writes ``player``'s information state (R25, R26) into buf (KEY_CAP
    bytes, NUL-terminated) and returns its length.

    The key is the viewer's current view, canonical and free of hidden facts:
    the opponent's hand and both decks appear only as counts, the opponent's
    pending redraw decision stays hidden until both have decided (R5).
    ``player`` 2 gives the full state, -1 the public part only.
    """
    cdef int n = 0, g, k, v
    cdef int vals[MAX_ROCKETS]
    cdef int nv = 0, i, j, t
    n = _put(buf, n, b'P')
    n = _put_int(buf, n, player)
    n = _put(buf, n, b' ')
    n = _put(buf, n, b't')
    n = _put_int(buf, n, s.turn)
    n = _put(buf, n, b' ')
    n = _put(buf, n, <char>(65 + s.phase))
    if not is_chance(s) and s.phase != PH_TERMINAL:
        n = _put_int(buf, n, s.player)
    else:
        n = _put(buf, n, b'c')
    n = _put(buf, n, b' ')
    n = _put(buf, n, b'a')
    n = _put_int(buf, n, s.actor)
    n = _put_int(buf, n, s.actions_left)
    n = _put(buf, n, b'p')
    n = _put_int(buf, n, s.passes)
    n = _put(buf, n, b'm')
    n = _put_int(buf, n, s.mc[1])
    n = _put_int(buf, n, s.mc[2])
    n = _put_int(buf, n, s.mc[3])
    n = _put_int(buf, n, s.refresh_due)
    n = _put(buf, n, b'w')
    n = _put_int(buf, n, s.wildhorn_played)
    # Revealed Rocket values, sorted (their order does not matter).
    for k in range(c.n_rockets):
        if s.revealed[k]:
            vals[nv] = c.rockets[k]
            nv += 1
    for i in range(1, nv):
        t = vals[i]
        j = i - 1
        while j >= 0 and vals[j] > t:
            vals[j + 1] = vals[j]
            j -= 1
        vals[j + 1] = t
    n = _put(buf, n, b' ')
    n = _put(buf, n, b'r')
    for i in range(nv):
        if i:
            n = _put(buf, n, b',')
        n = _put_int(buf, n, vals[i])
    n = _put(buf, n, b' ')
    n = _put(buf, n, b'f')
    for k in range(6):
        if k:
            n = _put(buf, n, b',')
        n = _put_int(buf, n, s.frag[k])
    n = _put(buf, n, b' ')
    n = _put(buf, n, b'h')
    n = _put_int(buf, n, hand_size(c, s, 0))
    n = _put(buf, n, b',')
    n = _put_int(buf, n, hand_size(c, s, 1))
    n = _put(buf, n, b' ')
    n = _put(buf, n, b'u')
    n = _put_int(buf, n, s.redraw_used[0])
    n = _put_int(buf, n, s.redraw_used[1])
    n = _put(buf, n, b'd')
    n = _put_int(buf, n, s.drawn_count[0])
    n = _put(buf, n, b',')
    n = _put_int(buf, n, s.drawn_count[1])
    n = _put(buf, n, b'x')
    for k in range(2):
        if s.phase == PH_REDRAW and player != 2 and player != k:
            n = _put(buf, n, b'?')  # R5: secret until both have decided
        else:
            n = _put_int(buf, n, s.redraw_choice[k])
    if s.phase == PH_DRAW:
        n = _put(buf, n, b' ')
        n = _put(buf, n, b'D')
        n = _put_int(buf, n, s.draw_side)
        n = _put_int(buf, n, s.draw_left)
        n = _put_int(buf, n, s.redeal)
    n = _put(buf, n, b' ')
    for g in range(NCARDS):
        if g == SIDE_CARDS:
            n = _put(buf, n, b'/')
        n = _put(buf, n, _VIEW_CHARS[card_view(s, g, player)])
    if s.pend.kind != PK_NONE:
        n = _put(buf, n, b' ')
        n = _put(buf, n, b'k')
        n = _put_int(buf, n, s.pend.kind)
        n = _put_int(buf, n, s.pend.actor)
        n = _put(buf, n, b'c')
        n = _put_int(buf, n, s.pend.card)
        n = _put(buf, n, b't')
        n = _put_int(buf, n, s.pend.target)
        n = _put(buf, n, b'd')
        n = _put_int(buf, n, s.pend.defender)
        n = _put(buf, n, b'z')
        n = _put_int(buf, n, s.pend.zone)
        n = _put(buf, n, b'r')
        n = _put_int(buf, n, s.pend.dice[0])
        n = _put(buf, n, b',')
        n = _put_int(buf, n, s.pend.dice[1])
        n = _put(buf, n, b'm')
        n = _put_int(buf, n, s.pend.mods[0])
        n = _put(buf, n, b',')
        n = _put_int(buf, n, s.pend.mods[1])
        n = _put(buf, n, b'w')
        n = _put_int(buf, n, s.pend.window_passes)
        n = _put_int(buf, n, s.pend.escorted)
    buf[n] = 0
    return n


cdef uint64_t info_hash(const Config* c, const State* s, int player) noexcept nogil:
    """64-bit FNV-1a hash of ``info_key``: the key search trees use."""
    cdef char buf[KEY_CAP]
    cdef int n = info_key(c, s, player, buf)
    cdef uint64_t h = <uint64_t>0xcbf29ce484222325
    cdef int i
    for i in range(n):
        h ^= <uint8_t>buf[i]
        h *= <uint64_t>0x100000001b3
    return h


cdef void _deal_hidden(const Config* c, State* s, int o, Rng* r) noexcept nogil:
    """Redeals o's hidden cards: hand uniform over the unseen cards (R26)."""
    cdef int pool[SIDE_CARDS]
    cdef int npool = 0, need, g, i, j, t, ndrawn = 0, k
    cdef int base = o * SIDE_CARDS
    need = hand_size(c, s, o)
    for g in range(base, base + SIDE_CARDS):
        if s.loc[g] == LOC_HAND and s.drawn[g]:
            ndrawn += 1
        if s.loc[g] == LOC_HAND or s.loc[g] == LOC_DECK:
            s.drawn[g] = 0
            if c.start[g]:
                # R26: every START card not yet seen is still in hand.
                s.loc[g] = LOC_HAND
                need -= 1
            else:
                s.loc[g] = LOC_DECK
                pool[npool] = g
                npool += 1
    # partial Fisher-Yates: the first `need` of the pool go to the hand
    for i in range(need):
        j = i + rng_below(r, npool - i)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
        s.loc[pool[i]] = LOC_HAND
    # this turn's draws, among the non-START hand cards (R5)
    for i in range(ndrawn):
        j = i + rng_below(r, need - i)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
        s.drawn[pool[i]] = 1
    # canonical numbering (R27): within a class the hand holds the lowest
    # numbers, drawn flags follow the order hand cards had before
    for g in range(base, base + SIDE_CARDS):
        if s.loc[g] != LOC_DECK:
            continue
        for k in range(g + 1, base + SIDE_CARDS):
            if s.loc[k] == LOC_HAND and c.cls[k] == c.cls[g]:
                s.loc[g] = LOC_HAND
                s.drawn[g] = s.drawn[k]
                s.loc[k] = LOC_DECK
                s.drawn[k] = 0
                break
    _rebuild_masks(s)


cdef void resample(const Config* c, State* s, int player, Rng* r) noexcept nogil:
    """Replaces what ``player`` cannot see by a uniform draw consistent with
    ``player``'s information: the opponent's hand among the opponent's unseen
    cards (R26) and, while it is secret, the Polish redraw decision (R5).
    Decks are unordered and unrevealed Rocket cards are chance events, so
    nothing else is hidden.  If the opponent is to decide, the node exists
    only because the opponent has a choice (R29, R30): samples where it would
    not are rejected."""
    cdef State orig = s[0]
    cdef int o = 1 - player
    cdef int buf[NUM_ACTIONS]
    cdef int tries
    if player != 0 and player != 1:
        return
    for tries in range(1000):
        s[0] = orig
        _deal_hidden(c, s, o, r)
        if s.phase == PH_REDRAW and player == 1 and o == 0:
            s.redraw_choice[0] = 0
            if _redraw_available(c, s, 0):
                s.redraw_choice[0] = <uint8_t>rng_below(r, 2)
        if is_chance(s) or s.phase == PH_TERMINAL or s.player != o:
            return
        if legal_actions(c, s, buf) >= 2:
            return
    s[0] = orig  # the true state is consistent; fall back to it

# ============================================================================
# Validation of a state that came from outside (bytes, JSON)
# ============================================================================

cdef str _check_state(const Config* c, const State* s):
    """Returns None if every field is in range and consistent enough that no
    function of this module can index out of bounds, else what is wrong."""
    cdef int g, k, total = 0, p
    for g in range(NCARDS):
        if s.loc[g] > LOC_ABSENT:
            return f"card {g}: location {s.loc[g]} out of range"
        if (s.loc[g] == LOC_ABSENT) != (not c.present[g]):
            return f"card {g}: presence does not match the card set"
        if s.exhausted[g] > 1 or s.drawn[g] > 1:
            return f"card {g}: flag out of range"
        if _on_table(s.loc[g]):
            if c.kind[g] > K_SUPPORT:
                return f"card {g}: only Unit and Support cards stand on the table"
            if c.kind[g] == K_SUPPORT and s.loc[g] != _home(_side_of(g)):
                return f"card {g}: a Support card stands only in its home zone (R1)"
        if s.loc[g] == LOC_EVENT and c.effect[g] != E_WILDHORN and c.effect[g] != E_HIDDEN:
            return f"card {g}: only Operation Wildhorn III and Hidden Fragments stay in play"
    for k in range(6):
        total += s.frag[k]
    if total != c.fragments:
        return f"fragments add up to {total}, not {c.fragments} (R2)"
    if s.n_revealed > c.n_rockets:
        return "more Rocket cards revealed than exist"
    k = 0
    for g in range(MAX_ROCKETS):
        if s.revealed[g] > 1 or (s.revealed[g] and g >= c.n_rockets):
            return f"rocket {g}: flag out of range"
        k += s.revealed[g]
    if k != s.n_revealed:
        return "revealed Rocket cards do not match their count"
    for g in range(s.n_revealed):
        if s.order[g] >= c.n_rockets or not s.revealed[s.order[g]]:
            return "Rocket order is inconsistent"
    if s.turn < 1 or s.turn > c.turns:
        return f"turn {s.turn} out of range 1..{c.turns}"
    if s.phase >= PH_COUNT:
        return f"phase {s.phase} out of range"
    if (s.player > 1 or s.actor > 1 or s.draw_side > 1 or s.redeal > 1
            or s.wildhorn_played > 1 or s.passes > 2):
        return "a player field is out of range"
    for p in range(2):
        if s.redraw_used[p] > 1 or s.redraw_choice[p] > 1 or s.drawn_count[p] > SIDE_CARDS:
            return "a redraw field is out of range"
    if s.draw_left > SIDE_CARDS or s.actions_left > 200 or s.refresh_due > NCARDS:
        return "a counter is out of range"
    for k in range(4):
        if s.mc[k] > NCARDS:
            return "a Motorized Column counter is out of range"
    if s.mc_new > NCARDS or (s.mc[0] != 0):
        return "a Motorized Column counter is out of range"
    if (s.phase == PH_TERMINAL) != (s.winner >= 0) or s.winner > 1 or s.winner < -1:
        return "winner does not match the phase"
    # the action under resolution
    cdef const Pending* q = &s.pend
    if q.kind >= PK_COUNT or q.actor > 1 or q.roll > 2 or q.window_passes > 2 or q.escorted > 1:
        return "pending action field out of range"
    for g in (q.card, q.target, q.defender):
        if g < -1 or g >= NCARDS:
            return "pending card out of range"
    if q.zone != 0 and not _on_table(q.zone):
        return "pending zone out of range"
    for k in range(2):
        if q.dice[k] > c.dice_sides or q.mods[k] < -100 or q.mods[k] > 100:
            return "pending die out of range"
    cdef int ph = s.phase
    cdef int need = PK_NONE
    if ph in (PH_ZONE, PH_MOTORCYCLE):
        need = PK_MOVE
    elif ph in (PH_TARGET, PH_ESCORT, PH_AMBUSH, PH_NURSES):
        need = PK_ATTACK
    elif ph == PH_WITNESSES:
        need = PK_SEARCH
    elif ph == PH_NUMBER:
        need = PK_HIDDEN
    if need != PK_NONE and q.kind != need:
        return "pending action does not match the phase"
    if ph in (PH_ROLL, PH_MODIFIERS) and q.kind not in (PK_ATTACK, PK_SEARCH, PK_STEAL):
        return "pending action does not match the phase"
    if ph == PH_REFRESH and q.kind not in (PK_COMMAND, PK_HIGH_MORALE, PK_MC_REFRESH):
        return "pending action does not match the phase"
    if q.kind in (PK_MOVE, PK_ATTACK, PK_SEARCH, PK_STEAL):
        if q.card < 0 or _side_of(q.card) != q.actor or not _on_table(s.loc[q.card]):
            return "pending acting card is not the actor's card on the table"
    if q.kind == PK_ATTACK and ph != PH_TARGET:
        if (q.target < 0 or q.defender < 0 or _side_of(q.target) == q.actor
                or _side_of(q.defender) == q.actor or not _on_table(s.loc[q.target])
                or not _on_table(s.loc[q.defender])):
            return "pending attack target is not an enemy card on the table"
    if ph == PH_ROLL and q.roll >= (2 if q.kind == PK_ATTACK else 1):
        return "pending dice already rolled"
    if ph == PH_MODIFIERS and q.roll != (2 if q.kind == PK_ATTACK else 1):
        return "pending dice not rolled yet"
    if ph == PH_ZONE and q.zone != 0:
        return "pending zone already chosen"
    if ph == PH_MOTORCYCLE and not _on_table(q.zone):
        return "pending zone not chosen"
    if ph == PH_DRAW and s.draw_left == 0:
        return "nothing left to draw"
    if ph == PH_MAIN and s.player != s.actor:
        return "the player to move is not the acting player"
    if ph not in (PH_DRAW, PH_REDRAW, PH_ROCKET, PH_TERMINAL) and s.n_revealed == 0:
        return "no Rocket card revealed yet"
    if ph == PH_ROCKET and s.n_revealed >= c.n_rockets:
        return "no Rocket card left to reveal"
    return None

# ============================================================================
# Python layer
# ============================================================================

from solver.cards import load_card_set
from solver.errors import IllegalActionError, ParameterError, SerializationError

ACTION_GROUPS = (
    ("PASS", A_PASS, 1), ("DECLINE", A_DECLINE, 1), ("REDRAW", A_REDRAW, 1),
    ("ZONE", A_ZONE, 3), ("NUMBER", A_NUMBER, 2), ("PLACE", A_PLACE, SIDE_CARDS),
    ("PLAY", A_PLAY, SIDE_CARDS), ("MOVE", A_MOVE, SIDE_CARDS),
    ("ATTACK", A_ATTACK, SIDE_CARDS), ("SEARCH", A_SEARCH, SIDE_CARDS),
    ("STEAL", A_STEAL, SIDE_CARDS), ("COMMAND", A_COMMAND, SIDE_CARDS),
    ("VOLUNTEERS", A_VOLUNTEERS, SIDE_CARDS), ("ASSIST", A_ASSIST, SIDE_CARDS),
    ("ESCORT", A_ESCORT, SIDE_CARDS), ("SELECT_OWN", A_SELECT_OWN, SIDE_CARDS),
    ("SELECT_ENEMY", A_SELECT_ENEMY, SIDE_CARDS),
)
NUM_DISTINCT_ACTIONS = NUM_ACTIONS
DEBUG_BUILD = bool(_WILDHORN_DEBUG)  # set by setup.py (WILDHORN_DEBUG=1: checks on)
CARDS_PER_SIDE = SIDE_CARDS
PHASE_NAMES = ("draw", "redraw", "rocket", "actions", "zone", "motorcycle",
               "target", "escort", "ambush", "roll", "modifiers", "nurses",
               "witnesses", "refresh", "number", "terminal")
PENDING_NAMES = ("none", "movement", "attack", "search", "steal", "command",
                 "high_morale", "motorized_refresh", "hidden_fragments")
ZONE_NAMES = ("forest", "periphery", "base")
LOC_NAMES = ("deck", "hand", "forest", "periphery", "base", "gone", "event", "absent")
FRAGMENT_PLACES = ("pool", "periphery", "hidden", "forest", "wildhorn", "base")
VIEW_CHARS = _VIEW_CHARS.decode()
NUM_VIEWS = V_COUNT
NUM_PHASES = PH_COUNT
NUM_PENDING = PK_COUNT
MAX_ROCKET_CARDS = MAX_ROCKETS


def decode_action(int action):
    """Splits an action id into ``(name, argument)``.

    >>> decode_action(0)
    ('PASS', 0)
    >>> decode_action(8)        # place own card 01 (PL01 for the Polish player)
    ('PLACE', 0)
    >>> decode_action(101)      # own card 02 searches
    ('SEARCH', 1)
    >>> decode_action(4)        # Movement to the Periphery
    ('ZONE', 1)
    >>> decode_action(265)      # attack the enemy card 05
    ('SELECT_ENEMY', 4)
    """
    if action < 0 or action >= NUM_ACTIONS:
        raise IllegalActionError(f"action id {action} out of range 0..{NUM_ACTIONS - 1}")
    for name, start, size in reversed(ACTION_GROUPS):
        if action >= start:
            return name, action - start
    raise AssertionError("unreachable")


def encode_action(str name, int arg=0):
    """Inverse of ``decode_action``: ``encode_action("SEARCH", 1) == 101``."""
    for gname, start, size in ACTION_GROUPS:
        if gname == name:
            if arg < 0 or arg >= size:
                raise IllegalActionError(f"{name} takes an argument 0..{size - 1}, got {arg}")
            return start + arg
    raise IllegalActionError(f"unknown action name {name!r}")


cdef class CoreConfig:
    """The immutable data of one game: card set plus rule parameters."""

    def __init__(self, card_set, int turns=4, int draw=5, int dice=6,
                 rockets=None, cards=None, bint redraw=True, setup=None, fragments=None):
        """``setup`` maps card numbers to where they begin ("hand", "deck",
        "forest", "periphery", "base"; default: START cards in hand, R3);
        ``fragments`` maps "periphery"/"forest"/"base" to fragments placed
        there at the start (default none: all in the pool, R2).  Both exist
        for the small variants and constructed test positions."""
        arr = card_set.to_core_arrays()
        memset(&self.c, 0, sizeof(Config))
        rockets = list(arr["rockets"] if rockets is None else rockets)
        if not 1 <= len(rockets) <= MAX_ROCKETS:
            raise ParameterError(f"rockets: expected 1..{MAX_ROCKETS} Rocket cards, got {len(rockets)}")
        for v in rockets:
            if not isinstance(v, int) or not 0 <= v <= 63:
                raise ParameterError(f"rockets: expected integers 0..63, got {v!r}")
        if not 1 <= turns <= len(rockets):
            raise ParameterError(f"turns: expected 1..{len(rockets)} (one Rocket card per turn), got {turns}")
        if not 0 <= draw <= SIDE_CARDS:
            raise ParameterError(f"draw: expected 0..{SIDE_CARDS}, got {draw}")
        if not 1 <= dice <= 60:
            raise ParameterError(f"dice: expected 1..60 sides, got {dice}")
        present = list(arr["present"])
        if cards is not None:
            wanted = set()
            for number in cards:
                wanted.add(card_set.by_number(number).global_index)
            present = [1 if (present[g] and g in wanted) else 0 for g in range(NCARDS)]
        for g in range(NCARDS):
            self.c.present[g] = present[g]
            self.c.side[g] = arr["side"][g]
            self.c.kind[g] = arr["kind"][g]
            self.c.bullets[g] = arr["bullets"][g]
            self.c.start[g] = arr["start"][g]
            self.c.move[g] = arr["move"][g]
            self.c.attack[g] = arr["attack"][g]
            self.c.search[g] = arr["search"][g]
            self.c.steal[g] = arr["steal"][g]
            self.c.command[g] = arr["command"][g]
            self.c.volunteers[g] = arr["volunteers"][g]
            self.c.assistance[g] = arr["assistance"][g]
            self.c.escort[g] = arr["escort"][g]
            self.c.effect[g] = arr["effect"][g]
            self.c.cls[g] = arr["hand_class"][g] & 0xFF
        for g in range(NCARDS):
            self.c.init_loc[g] = LOC_HAND if self.c.start[g] else LOC_DECK
        for number, place in (setup or {}).items():
            card = card_set.by_number(number)
            g = card.global_index
            if not self.c.present[g]:
                raise ParameterError(f"setup: {number} is not in play")
            if place not in ("hand", "deck", "forest", "periphery", "base"):
                raise ParameterError(
                    f"setup: {number}: expected hand, deck, forest, periphery or base, got {place!r}")
            loc = LOC_NAMES.index(place)
            if _on_table(loc) and self.c.kind[g] > K_SUPPORT:
                raise ParameterError(f"setup: {number}: only Unit and Support cards stand on the table")
            if _on_table(loc) and self.c.kind[g] == K_SUPPORT and loc != _home(self.c.side[g]):
                raise ParameterError(f"setup: {number}: a Support card stands only in its home zone (R1)")
            if loc == LOC_DECK and self.c.start[g]:
                raise ParameterError(f"setup: {number}: a START card begins in hand or on the table (R26)")
            self.c.init_loc[g] = loc
        self.c.init_frag[FR_POOL] = arr["fragments"]
        for place, count in (fragments or {}).items():
            if place not in ("periphery", "forest", "base"):
                raise ParameterError(f"fragments: expected periphery, forest or base, got {place!r}")
            k = FRAGMENT_PLACES.index(place)
            if not isinstance(count, int) or count < 0 or count > self.c.init_frag[FR_POOL]:
                raise ParameterError(f"fragments: {place}: expected 0..{self.c.init_frag[FR_POOL]}, got {count!r}")
            self.c.init_frag[k] += count
            self.c.init_frag[FR_POOL] -= count
        for g in range(NCARDS):
            if self.c.present[g] and self.c.kind[g] == K_UNIT:
                self.c.unit_mask[g // SIDE_CARDS] |= (<uint32_t>1) << (g % SIDE_CARDS)
        self.c.n_rockets = len(rockets)
        for k, v in enumerate(rockets):
            self.c.rockets[k] = v
        self.c.fragments = arr["fragments"]
        self.c.turns = turns
        self.c.draw_size = draw
        self.c.dice_sides = dice
        self.c.redraw = redraw
        self.card_set = card_set
        names = [""] * NCARDS
        for card in card_set.cards:
            names[card.global_index] = f"{card.number} {card.type.name}"
        self.names = tuple(names)
        self.action_names = tuple(_action_names(names, p) for p in range(2))
        self.draw_names = tuple(tuple(f"draw {names[p * SIDE_CARDS + i]}" for i in range(SIDE_CARDS))
                                for p in range(2))
        for g in range(NCARDS):
            raw = names[g].encode("utf-8")[:39]
            memcpy(self.cnames[g], <char*>raw, len(raw))
            self.cnames[g][len(raw)] = 0
        self.key = (str(card_set.path), turns, draw, dice, tuple(rockets),
                    None if cards is None else tuple(cards), redraw,
                    tuple(sorted((setup or {}).items())), tuple(sorted((fragments or {}).items())))

    def __reduce__(self):
        return (_config_from_key, (self.key,))

    @property
    def turns(self): return self.c.turns
    @property
    def draw_size(self): return self.c.draw_size
    @property
    def dice_sides(self): return self.c.dice_sides
    @property
    def rockets(self): return tuple(self.c.rockets[k] for k in range(self.c.n_rockets))
    @property
    def fragments(self): return self.c.fragments
    @property
    def present(self): return tuple(bool(self.c.present[g]) for g in range(NCARDS))

    def card_name(self, int g):
        """'PL04 Scouts' for a global card index."""
        return self.names[g]


def _action_names(names, int player):
    """The text of every action id for ``player`` (see action_string)."""
    verbs = {"PLACE": "place", "PLAY": "play", "MOVE": "movement",
             "ATTACK": "attack", "SEARCH": "search",
             "STEAL": "spy" if player == 0 else "sturmwind",
             "COMMAND": "command", "VOLUNTEERS": "volunteers",
             "ASSIST": "assistance", "ESCORT": "escort", "SELECT_OWN": "refresh"}
    out = []
    for a in range(NUM_ACTIONS):
        name, arg = decode_action(a)
        if name == "PASS":
            out.append("pass")
        elif name == "DECLINE":
            out.append("decline")
        elif name == "REDRAW":
            out.append("redraw")
        elif name == "ZONE":
            out.append(f"move to {ZONE_NAMES[arg]}")
        elif name == "NUMBER":
            out.append(f"hide {arg + 1}")
        elif name == "SELECT_ENEMY":
            out.append(f"{names[(1 - player) * SIDE_CARDS + arg]}: target")
        else:
            out.append(f"{names[player * SIDE_CARDS + arg]}: {verbs[name]}")
    return tuple(out)


_CONFIG_CACHE = {}

def _config_from_key(key):
    cfg = _CONFIG_CACHE.get(key)
    if cfg is None:
        source, turns, draw, dice, rockets, cards, redraw, setup, frags = key
        cfg = CoreConfig(load_card_set(source), turns, draw, dice, list(rockets),
                         None if cards is None else list(cards), redraw,
                         dict(setup), dict(frags))
        _CONFIG_CACHE[key] = cfg
    return cfg


def _core_from_bytes(key, data):
    return Core.from_bytes(_config_from_key(key), data)


_STATE_MAGIC = b"WH1"

cdef class Core:
    """One game position on the C struct; the only attribute a pyspiel state keeps.

    ``copy`` is a struct assignment.  Methods that take an action check it;
    the ``cdef`` API of the .pxd does not (bots use that).
    """
    def __init__(self, CoreConfig config=None):
        if config is not None:
            self.config = config
            init_state(&config.c, &self.s)

    cdef Core _clone(self):
        cdef Core n = Core.__new__(Core)
        n.config = self.config
        n.s = self.s
        return n

    def copy(self):
        """A mutable copy (a struct copy)."""
        return self._clone()

    def frozen_copy(self):
        """An immutable copy: ``apply`` refuses it, deep copies share it."""
        cdef Core n = self._clone()
        n.frozen = True
        return n

    def __copy__(self):
        return self if self.frozen else self._clone()

    def __deepcopy__(self, memo):
        # An immutable value is its own deep copy; this is what makes cloning
        # a pyspiel state cheap.
        return self if self.frozen else self._clone()

    def applied(self, action):
        """A new frozen position: this one after ``action`` (checked)."""
        cdef Core n = self._clone()
        n.apply(action)
        n.frozen = True
        return n

    def __reduce__(self):
        return (_core_from_bytes, (self.config.key, self.to_bytes()))

    def __eq__(self, other):
        if not isinstance(other, Core):
            return NotImplemented
        return self.to_bytes() == (<Core>other).to_bytes()

    def __hash__(self):
        return hash(self.to_bytes())

    # ---- serialization --------------------------------------------------
    def to_bytes(self):
        """The whole position as bytes (see ``from_bytes``)."""
        return _STATE_MAGIC + (<char*>&self.s)[:sizeof(State)]

    @staticmethod
    def from_bytes(CoreConfig config, data):
        """Rebuilds a position from ``to_bytes``; every field is checked."""
        cdef Core n
        cdef bytes raw
        if not isinstance(data, (bytes, bytearray)):
            raise SerializationError("serialized state: expected bytes")
        raw = bytes(data)
        if not raw.startswith(_STATE_MAGIC):
            raise SerializationError("serialized state: not a wildhorn state (bad header)")
        raw = raw[len(_STATE_MAGIC):]
        if len(raw) != sizeof(State):
            raise SerializationError(
                f"serialized state: expected {sizeof(State)} bytes of state, got {len(raw)}")
        n = Core.__new__(Core)
        n.config = config
        memcpy(&n.s, <char*>raw, sizeof(State))
        if any(n.s.loc[g] > LOC_ABSENT for g in range(NCARDS)):
            raise SerializationError("serialized state: a card location is out of range")
        _rebuild_masks(&n.s)  # derived data is never trusted from outside
        msg = _check_state(&config.c, &n.s)
        if msg is not None:
            raise SerializationError(f"serialized state: {msg}")
        return n

    def fields(self):
        """Every field of the position as plain Python values (see ``from_fields``).

        Cards are keyed by global index; places are LOC_NAMES, the phase a
        PHASE_NAMES entry, the pending action kind a PENDING_NAMES entry.
        """
        cdef const State* s = &self.s
        cdef const Pending* q = &s.pend
        return {
            "loc": [LOC_NAMES[s.loc[g]] for g in range(NCARDS)],
            "exhausted": [bool(s.exhausted[g]) for g in range(NCARDS)],
            "drawn": [bool(s.drawn[g]) for g in range(NCARDS)],
            "fragments": {FRAGMENT_PLACES[k]: s.frag[k] for k in range(6)},
            "rocket_order": [s.order[k] for k in range(s.n_revealed)],
            "turn": s.turn, "phase": PHASE_NAMES[s.phase], "player": s.player,
            "draw_side": s.draw_side, "draw_left": s.draw_left, "redeal": bool(s.redeal),
            "drawn_count": [s.drawn_count[0], s.drawn_count[1]],
            "redraw_used": [bool(s.redraw_used[0]), bool(s.redraw_used[1])],
            "redraw_choice": [bool(s.redraw_choice[0]), bool(s.redraw_choice[1])],
            "actor": s.actor, "actions_left": s.actions_left, "passes": s.passes,
            "motorized": [s.mc[1], s.mc[2], s.mc[3]], "refresh_due": s.refresh_due,
            "wildhorn_played": bool(s.wildhorn_played), "winner": s.winner,
            "moves": s.moves,
            "pending": {"kind": PENDING_NAMES[q.kind], "actor": q.actor, "card": q.card,
                        "target": q.target, "defender": q.defender,
                        "zone": LOC_NAMES[q.zone] if _on_table(q.zone) else None,
                        "dice": [q.dice[k] for k in range(q.roll)],
                        "modifiers": [q.mods[0], q.mods[1]],
                        "window_passes": q.window_passes, "escorted": bool(q.escorted)},
        }

    @staticmethod
    def from_fields(CoreConfig config, dict f):
        """A position from ``fields()``-shaped values; every field is checked
        (ParameterError names the field), so no input reaches the core out of
        range.  Missing keys take the values of a fresh game."""
        cdef Core n = Core.__new__(Core)
        cdef State* s
        cdef int g, k
        n.config = config
        init_state(&config.c, &n.s)
        s = &n.s

        def small(name, value, lo, hi):
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise ParameterError(f"{name}: expected an integer {lo}..{hi}, got {value!r}")
            return value

        def choice(name, value, names):
            if value not in names:
                raise ParameterError(f"{name}: expected one of {', '.join(map(str, names))}, got {value!r}")
            return names.index(value)

        def flags(name, value, size):
            if not isinstance(value, (list, tuple)) or len(value) != size:
                raise ParameterError(f"{name}: expected a list of {size}")
            return [bool(v) for v in value]

        if "loc" in f:
            locs = f["loc"]
            if not isinstance(locs, (list, tuple)) or len(locs) != NCARDS:
                raise ParameterError(f"loc: expected a list of {NCARDS} places")
            for g in range(NCARDS):
                s.loc[g] = choice(f"loc[{g}]", locs[g], LOC_NAMES)
        if "exhausted" in f:
            for g, v in enumerate(flags("exhausted", f["exhausted"], NCARDS)):
                s.exhausted[g] = v
        if "drawn" in f:
            for g, v in enumerate(flags("drawn", f["drawn"], NCARDS)):
                s.drawn[g] = v
        if "fragments" in f:
            frag = f["fragments"]
            if not isinstance(frag, dict) or set(frag) != set(FRAGMENT_PLACES):
                raise ParameterError(f"fragments: expected counts for {', '.join(FRAGMENT_PLACES)}")
            for k in range(6):
                s.frag[k] = small(f"fragments.{FRAGMENT_PLACES[k]}", frag[FRAGMENT_PLACES[k]], 0, 63)
        if "rocket_order" in f:
            order = f["rocket_order"]
            if not isinstance(order, (list, tuple)) or len(order) > config.c.n_rockets:
                raise ParameterError(f"rocket_order: expected at most {config.c.n_rockets} Rocket cards")
            for k in range(MAX_ROCKETS):
                s.revealed[k] = 0
            for k, r in enumerate(order):
                r = small(f"rocket_order[{k}]", r, 0, config.c.n_rockets - 1)
                if s.revealed[r]:
                    raise ParameterError(f"rocket_order[{k}]: Rocket card {r} revealed twice")
                s.revealed[r] = 1
                s.order[k] = r
            s.n_revealed = len(order)
        if "turn" in f:
            s.turn = small("turn", f["turn"], 1, config.c.turns)
        if "phase" in f:
            s.phase = choice("phase", f["phase"], PHASE_NAMES)
        for key in ("player", "draw_side", "actor"):
            if key in f:
                v = small(key, f[key], 0, 1)
                if key == "player":
                    s.player = v
                elif key == "draw_side":
                    s.draw_side = v
                else:
                    s.actor = v
        if "draw_left" in f:
            s.draw_left = small("draw_left", f["draw_left"], 0, SIDE_CARDS)
        if "redeal" in f:
            s.redeal = bool(f["redeal"])
        if "drawn_count" in f:
            flags("drawn_count", f["drawn_count"], 2)
            for k, v in enumerate(f["drawn_count"]):
                s.drawn_count[k] = small(f"drawn_count[{k}]", v, 0, SIDE_CARDS)
        if "redraw_used" in f:
            for k, v in enumerate(flags("redraw_used", f["redraw_used"], 2)):
                s.redraw_used[k] = v
        if "redraw_choice" in f:
            for k, v in enumerate(flags("redraw_choice", f["redraw_choice"], 2)):
                s.redraw_choice[k] = v
        if "actions_left" in f:
            s.actions_left = small("actions_left", f["actions_left"], 0, 200)
        if "passes" in f:
            s.passes = small("passes", f["passes"], 0, 2)
        if "motorized" in f:
            mc = f["motorized"]
            if not isinstance(mc, (list, tuple)) or len(mc) != 3:
                raise ParameterError("motorized: expected 3 counts (refreshes due after 1, 2, 3 more actions)")
            for k in range(3):
                s.mc[k + 1] = small(f"motorized[{k}]", mc[k], 0, NCARDS)
        if "refresh_due" in f:
            s.refresh_due = small("refresh_due", f["refresh_due"], 0, NCARDS)
        if "wildhorn_played" in f:
            s.wildhorn_played = bool(f["wildhorn_played"])
        if "winner" in f:
            s.winner = small("winner", f["winner"], -1, 1)
        if "moves" in f:
            s.moves = small("moves", f["moves"], 0, 65535)
        _rebuild_masks(s)
        _clear_pend(s)
        q = f.get("pending")
        if q is not None and q.get("kind", "none") != "none":
            s.pend.kind = choice("pending.kind", q["kind"], PENDING_NAMES)
            s.pend.actor = small("pending.actor", q.get("actor", 0), 0, 1)
            s.pend.card = small("pending.card", q.get("card", -1), -1, NCARDS - 1)
            s.pend.target = small("pending.target", q.get("target", -1), -1, NCARDS - 1)
            s.pend.defender = small("pending.defender", q.get("defender", -1), -1, NCARDS - 1)
            zone = q.get("zone")
            s.pend.zone = 0 if zone is None else choice("pending.zone", zone, LOC_NAMES[:LOC_BASE + 1])
            dice = q.get("dice", [])
            if not isinstance(dice, (list, tuple)) or len(dice) > 2:
                raise ParameterError("pending.dice: expected at most 2 dice")
            s.pend.roll = len(dice)
            for k, v in enumerate(dice):
                s.pend.dice[k] = small(f"pending.dice[{k}]", v, 1, config.c.dice_sides)
            mods = q.get("modifiers", [0, 0])
            if not isinstance(mods, (list, tuple)) or len(mods) != 2:
                raise ParameterError("pending.modifiers: expected 2 numbers")
            for k in range(2):
                s.pend.mods[k] = small(f"pending.modifiers[{k}]", mods[k], -100, 100)
            s.pend.window_passes = small("pending.window_passes", q.get("window_passes", 0), 0, 2)
            s.pend.escorted = bool(q.get("escorted", False))
        msg = _check_state(&config.c, s)
        if msg is not None:
            raise ParameterError(f"position: {msg}")
        return n

    @staticmethod
    def build(CoreConfig config, *, places=None, exhausted=(), fragments=None,
              rockets=(), int turn=1, int actor=0, int actions_left=1, int passes=0,
              redraw_used=(False, False), wildhorn_played=None):
        """A position at a player's decision in the action step (R7), from fields.

        ``places`` maps card numbers to "hand", "deck", "forest", "periphery",
        "base", "gone" or "event"; a card in play not named stays where the
        game begins it (START in hand, R3).  ``exhausted``: card numbers
        exhausted on the table.  ``fragments`` maps fragment places (see
        FRAGMENT_PLACES) to counts; the pool holds the rest (R2).
        ``rockets``: values of the Rocket cards revealed, in order.
        Raises ParameterError naming the bad field.
        """
        cdef Core n = Core.__new__(Core)
        cdef int g, k, i
        n.config = config
        init_state(&config.c, &n.s)
        n.s.turn = turn
        for g in range(NCARDS):
            n.s.drawn[g] = 0
            n.s.exhausted[g] = 0
        cs = config.card_set
        for number, place in (places or {}).items():
            g = cs.by_number(number).global_index
            if not config.c.present[g]:
                raise ParameterError(f"places: {number} is not in play")
            if place not in LOC_NAMES[:LOC_ABSENT]:
                raise ParameterError(f"places: {number}: unknown place {place!r}")
            n.s.loc[g] = LOC_NAMES.index(place)
        for number in exhausted:
            g = cs.by_number(number).global_index
            if not _on_table(n.s.loc[g]):
                raise ParameterError(f"exhausted: {number} is not on the table")
            n.s.exhausted[g] = 1
        total = 0
        frag = [0] * 6
        for place, count in (fragments or {}).items():
            if place not in FRAGMENT_PLACES or place == "pool":
                raise ParameterError(f"fragments: unknown place {place!r}")
            frag[FRAGMENT_PLACES.index(place)] = count
            total += count
        if total > config.c.fragments:
            raise ParameterError(f"fragments: {total} placed, only {config.c.fragments} exist (R2)")
        frag[FR_POOL] = config.c.fragments - total
        for k in range(6):
            n.s.frag[k] = frag[k]
        n.s.n_revealed = 0
        for k in range(MAX_ROCKETS):
            n.s.revealed[k] = 0
        for value in rockets:
            for i in range(config.c.n_rockets):
                if not n.s.revealed[i] and config.c.rockets[i] == value:
                    break
            else:
                raise ParameterError(f"rockets: no unrevealed Rocket card shows {value}")
            n.s.revealed[i] = 1
            n.s.order[n.s.n_revealed] = i
            n.s.n_revealed += 1
        n.s.redraw_used[0] = bool(redraw_used[0])
        n.s.redraw_used[1] = bool(redraw_used[1])
        n.s.drawn_count[0] = 0
        n.s.drawn_count[1] = 0
        n.s.redeal = 0
        n.s.draw_left = 0
        if wildhorn_played is None:
            wildhorn_played = any(n.s.loc[g] in (LOC_EVENT, LOC_GONE) and config.c.effect[g] == E_WILDHORN
                                  for g in range(NCARDS))
        n.s.wildhorn_played = bool(wildhorn_played)
        _clear_pend(&n.s)
        n.s.phase = PH_MAIN
        n.s.actor = actor
        n.s.player = actor
        n.s.actions_left = actions_left
        n.s.passes = passes
        _rebuild_masks(&n.s)
        msg = _check_state(&config.c, &n.s)
        if msg is not None:
            raise ParameterError(f"position: {msg}")
        _advance(&config.c, &n.s)
        return n

    # ---- queries ----------------------------------------------------------
    def current_player(self):
        return current_player(&self.s)

    def is_chance(self):
        return is_chance(&self.s)

    def is_terminal(self):
        return is_terminal(&self.s)

    def returns(self):
        return [returns_of(&self.s, 0), returns_of(&self.s, 1)]

    def legal_actions(self):
        cdef int buf[NUM_ACTIONS]
        cdef int n, i
        if is_chance(&self.s) or is_terminal(&self.s):
            return []
        n = legal_actions(&self.config.c, &self.s, buf)
        return [buf[i] for i in range(n)]

    def chance_outcomes(self):
        cdef int acts[NUM_ACTIONS]
        cdef double probs[NUM_ACTIONS]
        cdef int n, i
        if not is_chance(&self.s):
            return []
        n = chance_outcomes(&self.config.c, &self.s, acts, probs)
        return [(acts[i], probs[i]) for i in range(n)]

    cdef int _checked(self, action) except -1:
        """The action id if it is legal here; IllegalActionError otherwise."""
        cdef int a
        if self.frozen:
            raise ValueError("this position is frozen (held by a pyspiel state); use copy()")
        try:
            a = action
        except (TypeError, OverflowError):
            raise IllegalActionError(f"action {action!r} is not an integer action id") from None
        if is_terminal(&self.s):
            raise IllegalActionError(f"action {a}: the game is over")
        if is_chance(&self.s):
            legal = [x for x, _ in self.chance_outcomes()]
        else:
            legal = self.legal_actions()
        if a not in legal:
            raise IllegalActionError(
                f"action {a} is not legal at this {PHASE_NAMES[self.s.phase]} node "
                f"(legal: {', '.join(map(str, legal))})")
        return a

    def apply(self, action):
        """Applies a legal action (or chance outcome); IllegalActionError otherwise."""
        apply_action(&self.config.c, &self.s, self._checked(action))

    def apply_raw(self, action):
        """``apply`` without the automatic moves of R29/R30: the position may
        then be a node with a single option (a window where the player can
        only decline, a forced pass, a chance event with one outcome), which
        the game never shows to OpenSpiel.  For interfaces that want to show
        such moments (``wildhorn-solve play --ask-all``); apply its single
        option with ``apply_raw`` or ``apply`` to go on."""
        _step(&self.config.c, &self.s, self._checked(action))

    def info_string(self, int player):
        """The information-state key of ``player`` (2: full state, -1: public)."""
        cdef char buf[KEY_CAP]
        cdef int n = info_key(&self.config.c, &self.s, player, buf)
        return buf[:n].decode("ascii")

    def info_hash(self, int player):
        return info_hash(&self.config.c, &self.s, player)

    def resample(self, int player, seed):
        """A new position consistent with ``player``'s information (R26)."""
        cdef Rng r
        cdef Core n = self._clone()
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player}")
        rng_seed(&r, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
        resample(&self.config.c, &n.s, player, &r)
        return n

    def playout(self, seed):
        """Plays random legal moves to the end (in place); returns the winner."""
        cdef Rng r
        if self.frozen:
            raise ValueError("this position is frozen (held by a pyspiel state); use copy()")
        rng_seed(&r, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
        with nogil:
            random_playout(&self.config.c, &self.s, &r)
        return self.s.winner

    def sample_chance(self, seed):
        cdef Rng r
        rng_seed(&r, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
        return sample_chance(&self.config.c, &self.s, &r)

    # ---- fields, for display and state files -------------------------------
    @property
    def phase(self): return PHASE_NAMES[self.s.phase]
    @property
    def turn(self): return self.s.turn
    @property
    def actor(self): return self.s.actor
    @property
    def actions_left(self): return self.s.actions_left
    @property
    def passes(self): return self.s.passes
    @property
    def winner(self): return self.s.winner
    @property
    def moves(self): return self.s.moves
    @property
    def fragments(self):
        return {FRAGMENT_PLACES[k]: self.s.frag[k] for k in range(6)}
    @property
    def rockets_revealed(self):
        """Values of the revealed Rocket cards, in the order revealed."""
        return [self.config.c.rockets[self.s.order[k]] for k in range(self.s.n_revealed)]
    @property
    def redraw_used(self): return (bool(self.s.redraw_used[0]), bool(self.s.redraw_used[1]))

    def location(self, int g):
        """(place name, exhausted) of global card g."""
        if g < 0 or g >= NCARDS:
            raise IndexError(g)
        return LOC_NAMES[self.s.loc[g]], bool(self.s.exhausted[g])

    def cards_at(self, str place, int side=-1):
        """Global indices of the cards in ``place`` (a LOC_NAMES entry)."""
        k = LOC_NAMES.index(place)
        return [g for g in range(NCARDS) if self.s.loc[g] == k
                and (side < 0 or _side_of(g) == side)]

    def hand_size(self, int side):
        return hand_size(&self.config.c, &self.s, side)

    def deck_size(self, int side):
        return deck_size(&self.config.c, &self.s, side)

    def scores(self):
        return polish_score(&self.s), german_score(&self.s)

    @property
    def pending(self):
        """The action under resolution, or None."""
        cdef const Pending* q = &self.s.pend
        if q.kind == PK_NONE:
            return None
        return {"kind": PENDING_NAMES[q.kind], "actor": q.actor,
                "card": q.card, "target": q.target, "defender": q.defender,
                "zone": ZONE_NAMES[q.zone - LOC_FOREST] if _on_table(q.zone) else None,
                "dice": [q.dice[k] for k in range(q.roll)],
                "modifiers": [q.mods[0], q.mods[1]],
                "window_passes": q.window_passes, "escorted": bool(q.escorted)}

    @property
    def chain(self):
        return {"left": self.s.actions_left, "passes": self.s.passes,
                "motorized": [self.s.mc[1], self.s.mc[2], self.s.mc[3]],
                "refresh_due": self.s.refresh_due}

    def draw_info(self):
        return {"side": self.s.draw_side, "left": self.s.draw_left,
                "redeal": bool(self.s.redeal),
                "drawn": [self.s.drawn_count[0], self.s.drawn_count[1]],
                "choice": [self.s.redraw_choice[0], self.s.redraw_choice[1]]}

    def drawn_this_turn(self, int g):
        return bool(self.s.drawn[g])

    # ---- actions as words ----------------------------------------------------
    def action_string(self, int player, int action):
        """Readable text of an action id for ``player`` (-1: chance), e.g.
        "PL01 Scouts: search", "DE02 Soldiers: target", "die 4"."""
        if action < 0 or action >= NUM_ACTIONS:
            raise IllegalActionError(f"action id {action} out of range 0..{NUM_ACTIONS - 1}")
        if player < 0:
            if self.s.phase == PH_DRAW:
                return self.config.draw_names[self.s.draw_side][action % SIDE_CARDS]
            if self.s.phase == PH_ROCKET:
                return f"rocket {self.config.c.rockets[action % MAX_ROCKETS]} (card {action + 1})"
            return f"die {action + 1}"
        if action == A_DECLINE:
            if self.s.phase == PH_REDRAW:
                return "keep hand"
            if self.s.phase == PH_MODIFIERS:
                return "pass priority"
        return self.config.action_names[player & 1][action]

    # ---- tensors ---------------------------------------------------------------
    def fill_tensor(self, int player, float[::1] out):
        """Writes ``player``'s view (see ``tensor_pieces``) into ``out``."""
        cdef int n = _fill_tensor(&self.config.c, &self.s, player, &out[0], out.shape[0])
        if n < 0:
            raise ValueError("tensor buffer too small")


def tensor_pieces():
    """(name, size) of each named piece of the information-state tensor."""
    return (("public", 2 + MAX_ROCKETS + PH_COUNT + 2 + 8 + MAX_ROCKETS + 6 + 2 + 6 + 4),
            ("cards", NCARDS * V_COUNT),
            ("pending", PK_COUNT + 2 + 3 * NCARDS + 3 + 7))


def tensor_layout():
    """Finer (name, size) parts of the tensor, in order: ``public`` is viewer,
    turn, phase, to_move, chain, rockets, fragments, hands, redraw, draw;
    ``cards`` is one one-hot of NUM_VIEWS per card (see VIEW_CHARS);
    ``pending`` is the action under resolution."""
    return (("viewer", 2), ("turn", MAX_ROCKETS), ("phase", PH_COUNT),
            ("to_move", 2), ("chain", 8), ("rockets", MAX_ROCKETS),
            ("fragments", 6), ("hands", 2), ("redraw", 6), ("draw", 4),
            ("cards", NCARDS * V_COUNT), ("pending", PK_COUNT + 2 + 3 * NCARDS + 3 + 7))


cdef int _fill_tensor(const Config* c, const State* s, int player, float* t, int cap) noexcept nogil:
    cdef int n = 0, g, k
    cdef int size = 2 + MAX_ROCKETS + PH_COUNT + 2 + 8 + MAX_ROCKETS + 6 + 2 + 6 + 4 \
        + NCARDS * V_COUNT + PK_COUNT + 2 + 3 * NCARDS + 3 + 7
    if cap < size:
        return -1
    memset(t, 0, size * sizeof(float))
    if player == 0 or player == 1:
        t[n + player] = 1
    n += 2
    t[n + s.turn - 1] = 1
    n += MAX_ROCKETS
    t[n + s.phase] = 1
    n += PH_COUNT
    if not is_chance(s) and s.phase != PH_TERMINAL:
        t[n + s.player] = 1
    n += 2
    t[n] = s.actions_left
    t[n + 1 + s.passes] = 1
    t[n + 4] = s.mc[1]
    t[n + 5] = s.mc[2]
    t[n + 6] = s.mc[3]
    t[n + 7] = s.refresh_due
    n += 8
    for k in range(c.n_rockets):
        t[n + k] = s.revealed[k]
    n += MAX_ROCKETS
    for k in range(6):
        t[n + k] = s.frag[k]
    n += 6
    t[n] = hand_size(c, s, 0)
    t[n + 1] = hand_size(c, s, 1)
    n += 2
    t[n] = s.redraw_used[0]
    t[n + 1] = s.redraw_used[1]
    for k in range(2):
        if not (s.phase == PH_REDRAW and player != 2 and player != k):
            t[n + 2 + k] = s.redraw_choice[k]  # R5: secret until both decided
    t[n + 4] = s.drawn_count[0]
    t[n + 5] = s.drawn_count[1]
    n += 6
    if s.phase == PH_DRAW:
        t[n + s.draw_side] = 1
        t[n + 2] = s.draw_left
        t[n + 3] = s.redeal
    n += 4
    for g in range(NCARDS):
        t[n + g * V_COUNT + card_view(s, g, player)] = 1
    n += NCARDS * V_COUNT
    if s.pend.kind != PK_NONE:
        t[n + s.pend.kind] = 1
        t[n + PK_COUNT + s.pend.actor] = 1
        k = n + PK_COUNT + 2
        if s.pend.card >= 0:
            t[k + s.pend.card] = 1
        if s.pend.target >= 0:
            t[k + NCARDS + s.pend.target] = 1
        if s.pend.defender >= 0:
            t[k + 2 * NCARDS + s.pend.defender] = 1
        k += 3 * NCARDS
        if _on_table(s.pend.zone):
            t[k + s.pend.zone - LOC_FOREST] = 1
        k += 3
        t[k] = s.pend.dice[0]
        t[k + 1] = s.pend.dice[1]
        t[k + 2] = s.pend.mods[0]
        t[k + 3] = s.pend.mods[1]
        t[k + 4] = s.pend.window_passes
        t[k + 5] = s.pend.escorted
        t[k + 6] = s.pend.roll
    return size


# ============================================================================
# A picture of the position for people (``__str__``), built in C
# ============================================================================

cdef int _app(char* buf, int n, int cap, const char* text) noexcept nogil:
    while text[0] != 0 and n < cap - 1:
        buf[n] = text[0]
        n += 1
        text += 1
    return n


cdef int _appi(char* buf, int n, int cap, int v) noexcept nogil:
    if n < cap - 12:
        n = _put_int(buf, n, v)
    return n


cdef const char* _SIDE_NAMES[2]
_SIDE_NAMES[0] = b"Polish"
_SIDE_NAMES[1] = b"German"
cdef const char* _ZONE_TITLES[3]
_ZONE_TITLES[0] = b"Forest"
_ZONE_TITLES[1] = b"Periphery"
_ZONE_TITLES[2] = b"Rocket Base"
cdef const char* _FRAG_TITLES[6]
_FRAG_TITLES[0] = b"pool "
_FRAG_TITLES[1] = b"periphery "
_FRAG_TITLES[2] = b"hidden "
_FRAG_TITLES[3] = b"forest "
_FRAG_TITLES[4] = b"wildhorn "
_FRAG_TITLES[5] = b"base "
cdef const char* _PHASE_TITLES[PH_COUNT]
_PHASE_TITLES[0] = b"draw"
_PHASE_TITLES[1] = b"redraw decision"
_PHASE_TITLES[2] = b"V-2 fired"
_PHASE_TITLES[3] = b"actions"
_PHASE_TITLES[4] = b"movement destination"
_PHASE_TITLES[5] = b"motorcycle window"
_PHASE_TITLES[6] = b"attack target"
_PHASE_TITLES[7] = b"escort window"
_PHASE_TITLES[8] = b"ambush window"
_PHASE_TITLES[9] = b"die roll"
_PHASE_TITLES[10] = b"modifier window"
_PHASE_TITLES[11] = b"nurses window"
_PHASE_TITLES[12] = b"witnesses window"
_PHASE_TITLES[13] = b"refresh choice"
_PHASE_TITLES[14] = b"hidden fragments count"
_PHASE_TITLES[15] = b"game over"
cdef const char* _PEND_TITLES[PK_COUNT]
_PEND_TITLES[0] = b""
_PEND_TITLES[1] = b"movement"
_PEND_TITLES[2] = b"attack"
_PEND_TITLES[3] = b"search"
_PEND_TITLES[4] = b"steal"
_PEND_TITLES[5] = b"command"
_PEND_TITLES[6] = b"high morale"
_PEND_TITLES[7] = b"motorized column refresh"
_PEND_TITLES[8] = b"hidden fragments"


cdef int _list_cards(const char (*names)[40], const State* s, int loc, int side,
                     char* buf, int n, int cap) noexcept nogil:
    cdef int g, first = 1
    for g in range(NCARDS):
        if s.loc[g] != loc or (side >= 0 and _side_of(g) != side):
            continue
        if not first:
            n = _app(buf, n, cap, b", ")
        first = 0
        n = _app(buf, n, cap, names[g])
        if _on_table(loc) and s.exhausted[g]:
            n = _app(buf, n, cap, b" (exhausted)")
    if first:
        n = _app(buf, n, cap, b"-")
    return n


cdef int _describe(const Config* c, const char (*names)[40], const State* s,
                   char* buf, int cap) noexcept nogil:
    cdef int n = 0, k, side, p
    n = _app(buf, n, cap, b"Turn ")
    n = _appi(buf, n, cap, s.turn)
    n = _app(buf, n, cap, b"/")
    n = _appi(buf, n, cap, c.turns)
    n = _app(buf, n, cap, b", ")
    n = _app(buf, n, cap, _PHASE_TITLES[s.phase])
    p = current_player(s)
    if p >= 0:
        n = _app(buf, n, cap, b", ")
        n = _app(buf, n, cap, _SIDE_NAMES[p])
        n = _app(buf, n, cap, b" to decide")
    elif p == -1:
        n = _app(buf, n, cap, b", chance")
    if s.phase >= PH_MAIN and s.phase != PH_TERMINAL:
        n = _app(buf, n, cap, b"\nActing: ")
        n = _app(buf, n, cap, _SIDE_NAMES[s.actor])
        n = _app(buf, n, cap, b", actions left ")
        n = _appi(buf, n, cap, s.actions_left)
        n = _app(buf, n, cap, b", passes in a row ")
        n = _appi(buf, n, cap, s.passes)
        if s.mc[1] + s.mc[2] + s.mc[3] + s.refresh_due:
            n = _app(buf, n, cap, b", motorized column refresh pending")
    n = _app(buf, n, cap, b"\nRockets revealed:")
    for k in range(s.n_revealed):
        n = _app(buf, n, cap, b" ")
        n = _appi(buf, n, cap, c.rockets[s.order[k]])
    if s.n_revealed == 0:
        n = _app(buf, n, cap, b" none")
    n = _app(buf, n, cap, b"\nFragments: ")
    for k in range(6):
        if k:
            n = _app(buf, n, cap, b", ")
        n = _app(buf, n, cap, _FRAG_TITLES[k])
        n = _appi(buf, n, cap, s.frag[k])
    for k in range(3):
        n = _app(buf, n, cap, b"\n")
        n = _app(buf, n, cap, _ZONE_TITLES[2 - k])
        n = _app(buf, n, cap, b": ")
        n = _list_cards(names, s, LOC_BASE - k, -1, buf, n, cap)
    for side in range(2):
        n = _app(buf, n, cap, b"\n")
        n = _app(buf, n, cap, _SIDE_NAMES[side])
        n = _app(buf, n, cap, b" hand (")
        n = _appi(buf, n, cap, hand_size(c, s, side))
        n = _app(buf, n, cap, b"): ")
        n = _list_cards(names, s, LOC_HAND, side, buf, n, cap)
        n = _app(buf, n, cap, b"; deck ")
        n = _appi(buf, n, cap, deck_size(c, s, side))
        if s.redraw_used[side]:
            n = _app(buf, n, cap, b"; redraw used")
    n = _app(buf, n, cap, b"\nIn play: ")
    n = _list_cards(names, s, LOC_EVENT, -1, buf, n, cap)
    n = _app(buf, n, cap, b"\nGone: ")
    n = _list_cards(names, s, LOC_GONE, -1, buf, n, cap)
    if s.pend.kind != PK_NONE:
        n = _app(buf, n, cap, b"\nResolving: ")
        n = _app(buf, n, cap, _PEND_TITLES[s.pend.kind])
        n = _app(buf, n, cap, b" by ")
        n = _app(buf, n, cap, _SIDE_NAMES[s.pend.actor])
        if s.pend.card >= 0:
            n = _app(buf, n, cap, b", card ")
            n = _app(buf, n, cap, names[s.pend.card])
        if s.pend.target >= 0:
            n = _app(buf, n, cap, b", target ")
            n = _app(buf, n, cap, names[s.pend.target])
        if s.pend.defender >= 0 and s.pend.defender != s.pend.target:
            n = _app(buf, n, cap, b", escorted by ")
            n = _app(buf, n, cap, names[s.pend.defender])
        for k in range(s.pend.roll):
            n = _app(buf, n, cap, b", die " if k == 0 else b" and ")
            n = _appi(buf, n, cap, s.pend.dice[k])
            if s.pend.mods[k]:
                n = _app(buf, n, cap, b"+" if s.pend.mods[k] > 0 else b"")
                n = _appi(buf, n, cap, s.pend.mods[k])
    if s.phase == PH_TERMINAL:
        n = _app(buf, n, cap, b"\nWinner: ")
        n = _app(buf, n, cap, _SIDE_NAMES[s.winner])
        n = _app(buf, n, cap, b" (Polish ")
        n = _appi(buf, n, cap, polish_score(s))
        n = _app(buf, n, cap, b", German ")
        n = _appi(buf, n, cap, german_score(s))
        n = _app(buf, n, cap, b")")
    buf[n] = 0
    return n


def describe(Core core):
    """A multi-line picture of the whole position, for people."""
    cdef char buf[4096]
    cdef int n = _describe(&core.config.c, core.config.cnames, &core.s, buf, 4096)
    return buf[:n].decode("utf-8", "replace")
