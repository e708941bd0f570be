# cython: language_level=3
"""Layout and cdef API of the value features (see _features.pyx).

The features describe a *complete* position (a determinized state: both
hands and the decks' contents known), for a value network that estimates the
Polish side's win probability.  Each part below is sized by a named count;
the sum is N_FEATURES, and FEATURE_VERSION names this layout (a weights file
records the version it was trained on and is refused under another).
"""

from solver._core cimport (
    FR_COUNT, MAX_ROCKETS, NCARDS, NSIDES, NZONES, PH_COUNT, PK_COUNT, PASS_VALUES, MC_SLOTS,
    NDICE, Config, State,
)

cdef enum:
    FEATURE_VERSION = 1        # bump on any change of the layout or scaling below

    CARD_SLOTS = 9             # per card: one-hot place deck, hand, Forest, Periphery,
                               # Rocket Base, gone, beside the zones (7), exhausted, drawn this turn
    ZONE_STATS = 12            # per side and zone: Units fresh, Units exhausted, bullets fresh,
                               # bullets exhausted, Supports, and the fresh Units' abilities
                               # Movement, Attack, Search, Spy/Sturmwind, Command, Escort, Assistance
    KINDS = 4                  # card kinds Unit, Support, Action, Immediate

    F_CARDS = NCARDS * CARD_SLOTS          # every card's place and side up
    F_ZONES = NSIDES * NZONES * ZONE_STATS # what each side holds in each zone
    F_HANDS = NSIDES * 2 * KINDS           # per side, cards in hand and in deck by kind
    F_FRAGMENTS = FR_COUNT + 3             # share of fragments per place; Polish score,
                                           # German score, their difference (R22)
    F_ROCKETS = MAX_ROCKETS + 4            # Rocket cards face up (one per slot); share revealed,
                                           # fragments shown so far, fragments still to come,
                                           # the largest still to come
    F_TURN = MAX_ROCKETS + 1               # one-hot turn - 1; share of the turns left
    F_PHASE = PH_COUNT                     # one-hot phase
    F_PLAYERS = 2 * NSIDES                 # one-hot player to decide; one-hot actor of the step
    F_CHAIN = 1 + PASS_VALUES + (MC_SLOTS - 1) + 3
                                           # actions left; one-hot passes in a row; Motorized
                                           # Column refreshes due after 1..3 actions; due now;
                                           # played by this action; Wildhorn III played
    F_DRAW = 4 * NSIDES + 2                # per side: redraw used, this turn's redraw choice,
                                           # cards drawn this turn, one-hot drawing side;
                                           # cards left to draw; dealing a redraw
    F_PENDING = PK_COUNT + NSIDES + 3 * NCARDS + NZONES + 3 + 2 * NDICE + 2
                                           # action under resolution: one-hot kind, actor,
                                           # card, target, defender, zone, dice rolled (0..2);
                                           # dice and modifiers; window passes, escorted
    F_MOVES = 1                            # moves so far / 300
    N_FEATURES = (F_CARDS + F_ZONES + F_HANDS + F_FRAGMENTS + F_ROCKETS + F_TURN + F_PHASE
                  + F_PLAYERS + F_CHAIN + F_DRAW + F_PENDING + F_MOVES)

cdef int fill_features(const Config* c, const State* s, float* out) noexcept nogil
