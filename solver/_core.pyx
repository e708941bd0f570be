# cython: language_level=3
"""The Wildhorn rules engine: complete rules on a plain C struct.

The printed rulebook is the authority; the rulings R1..R30 and the
decisions D1..D6 (docs/rules.md) decide its gaps and are cited where they
apply.  This file is C: ``noexcept nogil`` functions over ``Config`` (the
card data, immutable) and ``State`` (one game position, copied by struct
assignment), declared in ``_core.pxd`` for the other extensions.  The
Python layer is in include files that share its C scope, at the end:
``_core_validate.pxi`` (checks of what comes from Python),
``_core_wrapper.pxi`` (CoreConfig, Core, action names) and
``_core_render.pxi`` (``describe``, the position as text).

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
    #ifndef WILDHORN_SANITIZE
    #define WILDHORN_SANITIZE 0
    #endif
    """
    int _WILDHORN_DEBUG "WILDHORN_DEBUG"
    int _WILDHORN_SANITIZE "WILDHORN_SANITIZE"

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


cdef int _outcome(const Config* c, const State* s) noexcept nogil:
    """The winner of the game ending in this position (R22, R23)."""
    cdef bint lose0 = _overrun(c, s, 0)
    cdef bint lose1 = _overrun(c, s, 1)
    if lose0 and not lose1:
        return 1
    if lose1 and not lose0:
        return 0
    # R22: more fragments wins; a tie goes to the German player.
    return 0 if polish_score(s) > german_score(s) else 1


cdef void _finish_game(const Config* c, State* s) noexcept nogil:
    s.phase = PH_TERMINAL
    s.winner = _outcome(c, s)

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


cdef inline bint _hand_modifier(const Config* c, int g, bint own, bint other) noexcept nogil:
    """R18: card ``g`` in hand modifies a roll in the window: Good Luck if
    its owner's roll exists (``own``), Bad Luck if the enemy's does
    (``other``)."""
    return (c.effect[g] == E_GOOD_LUCK and own) or (c.effect[g] == E_BAD_LUCK and other)


cdef inline bint _can_assist(const Config* c, const State* s, int g) noexcept nogil:
    """R18: card ``g`` on the table can give Assistance (+1): fresh, with the ability."""
    return not s.exhausted[g] and c.assistance[g]


cdef int _modifier_actions(const Config* c, const State* s, int* out) noexcept nogil:
    """R18: Good Luck / Bad Luck from hand, Assistance of a fresh card."""
    cdef int q = s.player
    cdef int n = 1, i, g
    cdef bint own = _has_roll(s, q)
    cdef bint other = _has_roll(s, 1 - q)
    cdef uint32_t m = s.at[q][LOC_HAND]
    out[0] = A_DECLINE
    while m:
        i = _ctz(m)
        m &= m - 1
        g = q * SIDE_CARDS + i
        if _hand_modifier(c, g, own, other) and _hand_rep(c, s, g):
            out[n] = A_PLAY + i
            n += 1
    if own:
        m = s.at[q][LOC_FOREST] | s.at[q][LOC_PERIPHERY] | s.at[q][LOC_BASE]
        while m:
            i = _ctz(m)
            m &= m - 1
            g = q * SIDE_CARDS + i
            if _can_assist(c, s, g) and _table_rep(c, s, g):
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


cdef int _modifier_reach(const Config* c, const State* s, int q, bint own, bint other) noexcept nogil:
    """R18: the most player ``q`` can still move a roll in the window: +2 a
    Good Luck in hand (if ``own``: q's roll exists), +1 a fresh card on the
    table with Assistance (if ``own``), +2 a Bad Luck in hand (if ``other``:
    the enemy's roll exists).  Every card counts, not only the one of its
    kind that ``_modifier_actions`` offers at a time: the others are offered
    in turn.  Both read the same tests (``_hand_modifier``, ``_can_assist``)."""
    cdef int r = 0, g
    cdef uint32_t m = s.at[q][LOC_HAND]
    while m:
        g = q * SIDE_CARDS + _ctz(m)
        m &= m - 1
        if _hand_modifier(c, g, own, other):
            r += 2
    if own:
        m = s.at[q][LOC_FOREST] | s.at[q][LOC_PERIPHERY] | s.at[q][LOC_BASE]
        while m:
            g = q * SIDE_CARDS + _ctz(m)
            m &= m - 1
            if _can_assist(c, s, g):
                r += 1
    return r


cdef int window_score(const Config* c, const State* s) noexcept nogil:
    """In a modifier window (R18), the action's margin of success as the
    window's close will read it (R15f, R16, R17): success iff it is at least
    1 (attack: attacker's total minus defender's; Search, Spy, Sturmwind:
    the total minus the card's number, plus 1), clamped to what the
    modifiers left in play can still change.  Modifiers only ever leave
    play during the window, so a margin above what the enemy can still
    subtract succeeds whatever is played, and one at or below minus what the
    actor can still add fails whatever is played: such margins are written
    as the nearest one that is still decided (the enemy's reach + 1, or
    minus the actor's reach).  Two window positions equal but for their
    margins, which clamp to the same score, offer the same choices at every
    step and close with the same result, so they have the same value.
    Outside the window: 0."""
    cdef int a, p, x, up, down
    if s.phase != PH_MODIFIERS:
        return 0
    a = s.pend.card
    p = s.pend.actor
    if s.pend.kind == PK_ATTACK:
        x = (s.pend.dice[0] + c.bullets[a] + s.pend.mods[0]
             - s.pend.dice[1] - c.bullets[s.pend.defender] - s.pend.mods[1])
    elif s.pend.kind == PK_SEARCH:
        x = s.pend.dice[0] + s.pend.mods[0] - c.search[a] + 1
    else:
        x = s.pend.dice[0] + s.pend.mods[0] - c.steal[a] + 1
    up = _modifier_reach(c, s, p, _has_roll(s, p), _has_roll(s, 1 - p))
    down = _modifier_reach(c, s, 1 - p, _has_roll(s, 1 - p), _has_roll(s, p))
    if x > down + 1:
        return down + 1
    if x < -up:
        return -up
    return x


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

cdef int _fill_tensor(const Config* c, const State* s, int player, float* t, int cap) noexcept nogil:
    """Writes ``player``'s view (-1 public, 2 full) into ``t``, in the layout of
    the T_* counts (_core.pxd); returns TENSOR_SIZE, or -1 if ``cap`` is smaller."""
    cdef int n = 0, g, k
    if cap < TENSOR_SIZE:
        return -1
    memset(t, 0, TENSOR_SIZE * sizeof(float))
    if player == 0 or player == 1:
        t[n + player] = 1
    n += T_VIEWER
    t[n + s.turn - 1] = 1
    n += T_TURN
    t[n + s.phase] = 1
    n += T_PHASE
    if not is_chance(s) and s.phase != PH_TERMINAL:
        t[n + s.player] = 1
    n += T_TO_MOVE
    t[n] = s.actions_left
    t[n + 1 + s.passes] = 1
    for k in range(1, MC_SLOTS):
        t[n + PASS_VALUES + k] = s.mc[k]
    t[n + PASS_VALUES + MC_SLOTS] = s.refresh_due
    n += T_CHAIN
    for k in range(c.n_rockets):
        t[n + k] = s.revealed[k]
    n += T_ROCKETS
    for k in range(FR_COUNT):
        t[n + k] = s.frag[k]
    n += T_FRAGMENTS
    for k in range(NSIDES):
        t[n + k] = hand_size(c, s, k)
    n += T_HANDS
    for k in range(NSIDES):
        t[n + k] = s.redraw_used[k]
        if not (s.phase == PH_REDRAW and player != 2 and player != k):
            t[n + NSIDES + k] = s.redraw_choice[k]  # R5: secret until both decided
        t[n + 2 * NSIDES + k] = s.drawn_count[k]
    n += T_REDRAW
    if s.phase == PH_DRAW:
        t[n + s.draw_side] = 1
        t[n + NSIDES] = s.draw_left
        t[n + NSIDES + 1] = s.redeal
    n += T_DRAW
    for g in range(NCARDS):
        t[n + g * V_COUNT + card_view(s, g, player)] = 1
    n += T_CARDS
    if s.pend.kind != PK_NONE:
        t[n + s.pend.kind] = 1
        t[n + PK_COUNT + s.pend.actor] = 1
        k = n + PK_COUNT + NSIDES
        if s.pend.card >= 0:
            t[k + s.pend.card] = 1
        if s.pend.target >= 0:
            t[k + NCARDS + s.pend.target] = 1
        if s.pend.defender >= 0:
            t[k + 2 * NCARDS + s.pend.defender] = 1
        k += 3 * NCARDS
        if _on_table(s.pend.zone):
            t[k + s.pend.zone - LOC_FOREST] = 1
        k += NZONES
        for g in range(NDICE):
            t[k + g] = s.pend.dice[g]
            t[k + NDICE + g] = s.pend.mods[g]
        k += 2 * NDICE
        t[k] = s.pend.window_passes
        t[k + 1] = s.pend.escorted
        t[k + 2] = s.pend.roll
    return TENSOR_SIZE

# ============================================================================
# The Python layer, in include files that share this module's C scope
# ============================================================================

import numbers

from solver.cards import CardSet, load_card_set
from solver.errors import IllegalActionError, ParameterError, SerializationError, describe_value

include "_core_validate.pxi"   # checks of positions and arguments that come from Python
include "_core_wrapper.pxi"    # CoreConfig, Core, decode_action / encode_action, constants
include "_core_render.pxi"     # describe(): the position as text for people
