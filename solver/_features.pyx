# cython: language_level=3
"""Value features of a complete position (layout in _features.pxd).

``fill_features`` writes N_FEATURES floats, most of them 0/1 one-hots, the
rest counts scaled to about [0, 1]; it reads the State and Config only (no
Python object, no allocation), so a search calls it at every leaf.  The side
is absolute (index 0 the Polish side): the network's output is the Polish
side's win probability whoever is to move.

Python: ``features(core)`` returns one position's vector as a NumPy array,
``feature_names()`` a name per entry (docs/value-network.md lists the parts).
"""

import numpy as np

from libc.string cimport memset

from solver._core cimport (
    K_SUPPORT, K_UNIT, LOC_BASE, LOC_DECK, LOC_EVENT, LOC_FOREST, LOC_HAND, PH_DRAW, PK_NONE,
    Core, german_score, is_chance, is_terminal, polish_score,
)

FEATURES_VERSION = FEATURE_VERSION
FEATURES = N_FEATURES


cdef inline float _share(int x, int whole) noexcept nogil:
    return <float>x / whole if whole > 0 else 0.0


cdef int fill_features(const Config* c, const State* s, float* out) noexcept nogil:
    """Writes the features of ``s`` into ``out`` (N_FEATURES floats); returns
    N_FEATURES."""
    cdef int g, side, z, k, loc, n = 0, shown = 0, to_come = 0, largest = 0
    cdef float* zone
    memset(out, 0, N_FEATURES * sizeof(float))
    # every card: its place and whether it is exhausted or drawn this turn
    for g in range(NCARDS):
        loc = s.loc[g]
        if c.present[g] and loc <= LOC_EVENT:
            out[n + g * CARD_SLOTS + loc - LOC_DECK] = 1.0
            out[n + g * CARD_SLOTS + 7] = s.exhausted[g]
            out[n + g * CARD_SLOTS + 8] = s.drawn[g]
    n += F_CARDS
    # what each side holds in each zone
    for g in range(NCARDS):
        loc = s.loc[g]
        if not c.present[g] or loc < LOC_FOREST or loc > LOC_BASE:
            continue
        zone = &out[n + (c.side[g] * NZONES + loc - LOC_FOREST) * ZONE_STATS]
        if c.kind[g] == K_SUPPORT:
            zone[4] += 0.25
            continue
        if c.kind[g] != K_UNIT:
            continue
        if s.exhausted[g]:
            zone[1] += 0.25
            zone[3] += c.bullets[g] * 0.125
            continue
        zone[0] += 0.25
        zone[2] += c.bullets[g] * 0.125
        zone[5] += c.move[g] * 0.25
        zone[6] += c.attack[g] * 0.25
        zone[7] += (c.search[g] > 0) * 0.25
        zone[8] += (c.steal[g] > 0) * 0.25
        zone[9] += c.command[g] * 0.25
        zone[10] += c.escort[g] * 0.25
        zone[11] += c.assistance[g] * 0.25
    n += F_ZONES
    # hands and decks by kind
    for g in range(NCARDS):
        if not c.present[g] or c.kind[g] >= KINDS:
            continue
        if s.loc[g] == LOC_HAND:
            out[n + (c.side[g] * 2) * KINDS + c.kind[g]] += 0.2
        elif s.loc[g] == LOC_DECK:
            out[n + (c.side[g] * 2 + 1) * KINDS + c.kind[g]] += 0.2
    n += F_HANDS
    # fragments and the score
    for k in range(FR_COUNT):
        out[n + k] = _share(s.frag[k], c.fragments)
    out[n + FR_COUNT] = _share(polish_score(s), c.fragments)
    out[n + FR_COUNT + 1] = _share(german_score(s), c.fragments)
    out[n + FR_COUNT + 2] = _share(polish_score(s) - german_score(s), c.fragments)
    n += F_FRAGMENTS
    # the Rocket cards
    for k in range(c.n_rockets):
        if s.revealed[k]:
            out[n + k] = 1.0
            shown += c.rockets[k]
        else:
            to_come += c.rockets[k]
            if c.rockets[k] > largest:
                largest = c.rockets[k]
    out[n + MAX_ROCKETS] = _share(s.n_revealed, c.n_rockets)
    out[n + MAX_ROCKETS + 1] = _share(shown, c.fragments)
    out[n + MAX_ROCKETS + 2] = _share(to_come, c.fragments)
    out[n + MAX_ROCKETS + 3] = _share(largest, c.fragments)
    n += F_ROCKETS
    # the turn and the step
    if 1 <= s.turn <= MAX_ROCKETS:
        out[n + s.turn - 1] = 1.0
    out[n + MAX_ROCKETS] = _share(c.turns - s.turn, c.turns)
    n += F_TURN
    if s.phase < PH_COUNT:
        out[n + s.phase] = 1.0
    n += F_PHASE
    if not is_chance(s) and not is_terminal(s) and s.player < NSIDES:
        out[n + s.player] = 1.0
    if s.actor < NSIDES:
        out[n + NSIDES + s.actor] = 1.0
    n += F_PLAYERS
    # the chain of actions (R10-R12)
    out[n] = s.actions_left * 0.25
    if s.passes < PASS_VALUES:
        out[n + 1 + s.passes] = 1.0
    for k in range(1, MC_SLOTS):
        out[n + PASS_VALUES + k] = s.mc[k]
    out[n + PASS_VALUES + MC_SLOTS] = s.refresh_due
    out[n + PASS_VALUES + MC_SLOTS + 1] = s.mc_new
    out[n + PASS_VALUES + MC_SLOTS + 2] = s.wildhorn_played
    n += F_CHAIN
    # draws and redraws (R3, R5)
    for side in range(NSIDES):
        out[n + 4 * side] = s.redraw_used[side]
        out[n + 4 * side + 1] = s.redraw_choice[side]
        out[n + 4 * side + 2] = _share(s.drawn_count[side], c.draw_size)
        if s.phase == PH_DRAW and s.draw_side == side:
            out[n + 4 * side + 3] = 1.0
    if s.phase == PH_DRAW:
        out[n + 4 * NSIDES] = _share(s.draw_left, c.draw_size)
        out[n + 4 * NSIDES + 1] = s.redeal
    n += F_DRAW
    # the action under resolution
    if s.pend.kind != PK_NONE and s.pend.kind < PK_COUNT:
        out[n + s.pend.kind] = 1.0
        if s.pend.actor < NSIDES:
            out[n + PK_COUNT + s.pend.actor] = 1.0
        k = n + PK_COUNT + NSIDES
        if 0 <= s.pend.card < NCARDS:
            out[k + s.pend.card] = 1.0
        if 0 <= s.pend.target < NCARDS:
            out[k + NCARDS + s.pend.target] = 1.0
        if 0 <= s.pend.defender < NCARDS:
            out[k + 2 * NCARDS + s.pend.defender] = 1.0
        k += 3 * NCARDS
        if LOC_FOREST <= s.pend.zone <= LOC_BASE:
            out[k + s.pend.zone - LOC_FOREST] = 1.0
        k += NZONES
        if s.pend.roll < 3:
            out[k + s.pend.roll] = 1.0
        k += 3
        for z in range(NDICE):
            out[k + z] = _share(s.pend.dice[z], c.dice_sides)
            out[k + NDICE + z] = s.pend.mods[z] / 3.0
        k += 2 * NDICE
        out[k] = s.pend.window_passes * 0.5
        out[k + 1] = s.pend.escorted
    n += F_PENDING
    out[n] = s.moves / 300.0
    n += F_MOVES
    return n


def features(Core state, out=None):
    """The features of ``state`` (a complete position: a determinized one for a
    player's view) as a float32 array of FEATURES entries, written into ``out``
    if given (a float32 C-contiguous array of that length)."""
    if out is None:
        out = np.empty(N_FEATURES, dtype=np.float32)
    cdef float[::1] view = out
    if view.shape[0] != N_FEATURES:
        raise ValueError(f"features: out has {view.shape[0]} entries, expected {N_FEATURES}")
    fill_features(&state.config.c, &state.s, &view[0])
    return out


def feature_parts():
    """The layout's parts in order: (name, size) pairs summing to FEATURES."""
    return [("cards", F_CARDS), ("zones", F_ZONES), ("hands", F_HANDS),
            ("fragments", F_FRAGMENTS), ("rockets", F_ROCKETS), ("turn", F_TURN),
            ("phase", F_PHASE), ("players", F_PLAYERS), ("chain", F_CHAIN),
            ("draw", F_DRAW), ("pending", F_PENDING), ("moves", F_MOVES)]
