# cython: language_level=3
"""Layout and cdef API of the Wildhorn rules engine (see _core.pyx).

Other Cython modules (the bots, exact tree walkers) ``cimport`` this file and
drive the engine through the ``noexcept nogil`` functions below, on plain C
structs: no Python object is created by legal-action generation, apply, copy
(a struct assignment) or playout.

Card indices: a card's *global index* g = side * SIDE_CARDS + (nn - 1) for
printed number PLnn (side 0) or DEnn (side 1).  Action ids are documented in
``_core.pyx`` (``decode_action``).
"""

from libc.stdint cimport int8_t, int16_t, uint8_t, uint16_t, uint32_t, uint64_t

cdef enum:
    NSIDES = 2                 # the two sides / players: 0 Polish, 1 German
    SIDE_CARDS = 23            # cards per side in the box (rulebook "Components")
    NCARDS = 46                # both sides
    MAX_ROCKETS = 8            # Rocket cards a card set may have
    KEY_CAP = 512              # bytes enough for any information-state key
    NAME_CAP = 40              # bytes of a card's name as a C string (NUL included)

# ---- places (loc[]) -------------------------------------------------------
cdef enum:
    LOC_DECK = 0               # in its owner's deck (order unknown, R3)
    LOC_HAND = 1               # in its owner's hand
    LOC_FOREST = 2             # on the table, Forest (Polish home, R1)
    LOC_PERIPHERY = 3          # on the table, Periphery
    LOC_BASE = 4               # on the table, Rocket Base (German home)
    LOC_GONE = 5               # left play, face up (R15g, R25)
    LOC_EVENT = 6              # Action card lying beside the zones (R23)
    LOC_ABSENT = 7             # not part of this game (variant)
    LOC_COUNT = 8              # places a card can be

# ---- fragment places (frag[], R2) -----------------------------------------
cdef enum:
    FR_POOL = 0
    FR_PERIPHERY = 1
    FR_HIDDEN = 2
    FR_FOREST = 3
    FR_WILDHORN = 4
    FR_BASE = 5
    FR_COUNT = 6               # places a fragment can be

# ---- card kinds and effects (mirrors solver.cards) -------------------------
cdef enum:
    K_UNIT = 0
    K_SUPPORT = 1
    K_ACTION = 2
    K_IMMEDIATE = 3

cdef enum:
    E_NONE = 0
    E_GOOD_LUCK = 1
    E_BAD_LUCK = 2
    E_AMBUSH = 3
    E_WITNESSES = 4
    E_NURSES = 5
    E_MOTORCYCLE = 6
    E_WILDHORN = 7
    E_HIDDEN = 8
    E_HIGH_MORALE = 9
    E_MOTORIZED = 10

# ---- phases: what the next node is ----------------------------------------
cdef enum:
    PH_DRAW = 0                # chance: draw_side draws a card (R3, R5)
    PH_REDRAW = 1              # decision: keep or redraw (R5)
    PH_ROCKET = 2              # chance: reveal a Rocket card (R4, R6)
    PH_MAIN = 3                # decision: action or pass (R7, R9)
    PH_ZONE = 4                # decision: destination of a Movement (R14)
    PH_MOTORCYCLE = 5          # decision: play Motorcycle or not (R14)
    PH_TARGET = 6              # decision: attack target (R15a)
    PH_ESCORT = 7              # decision: defender's Escort or not (R15b)
    PH_AMBUSH = 8              # decision: attacker's Ambush! or not (R15c)
    PH_ROLL = 9                # chance: a die (R15d, R16, R17)
    PH_MODIFIERS = 10          # decision: priority in the modifier window (R18)
    PH_NURSES = 11             # decision: Nurses or not (R15g)
    PH_WITNESSES = 12          # decision: Witnesses or not (R16)
    PH_REFRESH = 13            # decision: which exhausted Unit to refresh (R12, R19)
    PH_NUMBER = 14             # decision: 1 or 2 fragments to hide (R20)
    PH_TERMINAL = 15           # game over (R22-R24)
    PH_COUNT = 16

# ---- kinds of action under resolution (Pending.kind) -----------------------
cdef enum:
    PK_NONE = 0
    PK_MOVE = 1
    PK_ATTACK = 2
    PK_SEARCH = 3
    PK_STEAL = 4
    PK_COMMAND = 5
    PK_HIGH_MORALE = 6
    PK_MC_REFRESH = 7
    PK_HIDDEN = 8
    PK_COUNT = 9

# ---- other counts that size the arrays below --------------------------------
cdef enum:
    NZONES = 3                 # table zones Forest, Periphery, Rocket Base (R1)
    NDICE = 2                  # dice of a roll: [0] actor's, [1] defender's (R15d)
    MC_SLOTS = 4               # mc[k]: Motorized Column refreshes due after k more
                               # actions, k = 1..3; slot 0 is unused (R12)
    PASS_VALUES = 3            # passes in a row: 0, 1, 2 (two end the turn, R7)
    RNG_WORDS = 4              # 64-bit words of the xoshiro256** state

# ---- what a player knows of a card (card_view, the info key, the tensor) ----
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

# ---- the information-state tensor (Core.fill_tensor, the OpenSpiel observer)
# Its parts in order, each the size of what it holds; the one definition of the
# layout (_fill_tensor writes it, tensor_pieces() reports it).
cdef enum:
    T_VIEWER = NSIDES          # one-hot viewer (all 0: the public or the full view)
    T_TURN = MAX_ROCKETS       # one-hot turn - 1 (a game lasts at most one turn per Rocket card)
    T_PHASE = PH_COUNT         # one-hot phase
    T_TO_MOVE = NSIDES         # one-hot player to decide (all 0 at chance and terminal nodes)
    T_CHAIN = 1 + PASS_VALUES + (MC_SLOTS - 1) + 1
                               # actions left, one-hot passes in a row, Motorized Column
                               # refreshes due after 1, 2, 3 actions, refreshes due now (R10-R12)
    T_ROCKETS = MAX_ROCKETS    # 1 per Rocket card face up
    T_FRAGMENTS = FR_COUNT     # fragments per fragment place
    T_HANDS = NSIDES           # hand size per side
    T_REDRAW = 3 * NSIDES      # per side: redraw used, this turn's redraw choice (hidden
                               # from the other side while secret, R5), cards drawn this turn
    T_DRAW = NSIDES + 2        # draw step: one-hot drawing side, cards left to draw, redeal
    T_PUBLIC = (T_VIEWER + T_TURN + T_PHASE + T_TO_MOVE + T_CHAIN + T_ROCKETS
                + T_FRAGMENTS + T_HANDS + T_REDRAW + T_DRAW)
    T_CARDS = NCARDS * V_COUNT # one-hot view per card
    T_PENDING = PK_COUNT + NSIDES + 3 * NCARDS + NZONES + 2 * NDICE + 3
                               # action under resolution: one-hot kind, one-hot actor,
                               # one-hot card, target and defender, one-hot zone, dice,
                               # modifiers, window passes, escorted, dice rolled
    TENSOR_SIZE = T_PUBLIC + T_CARDS + T_PENDING

# ---- action ids (dense; see decode_action in _core.pyx) --------------------
cdef enum:
    A_PASS = 0                 # main step: pass (R7, R11)
    A_DECLINE = 1              # decline a window, pass priority, keep the hand
    A_REDRAW = 2               # use the once-per-game redraw (R5)
    A_ZONE = 3                 # +z: z = 0 Forest, 1 Periphery, 2 Rocket Base
    A_NUMBER = 6               # +k: hide k+1 fragments (R20)
    A_PLACE = 8                # +i: place own card i from hand (R9)
    A_PLAY = 31                # +i: play own Action/Immediate card i from hand
    A_MOVE = 54                # +i: activate own card i: Movement
    A_ATTACK = 77              # +i: activate own card i: Attack
    A_SEARCH = 100             # +i: activate own card i: Search
    A_STEAL = 123              # +i: activate own card i: Spy / Sturmwind
    A_COMMAND = 146            # +i: activate own card i: Command
    A_VOLUNTEERS = 169         # +i: activate own card i: Volunteers
    A_ASSIST = 192             # +i: use Assistance of own card i (R18)
    A_ESCORT = 215             # +i: use Escort of own card i (R15b)
    A_SELECT_OWN = 238         # +i: refresh own Unit i (R12, R19)
    A_SELECT_ENEMY = 261       # +i: attack enemy card i (R15a)
    NUM_ACTIONS = 284

ctypedef struct Config:
    uint8_t present[NCARDS]    # 1 if the card takes part in this game
    uint8_t side[NCARDS]       # 0 Polish, 1 German
    uint8_t kind[NCARDS]       # Kind
    uint8_t bullets[NCARDS]    # bullets printed (Support: 0)
    uint8_t start[NCARDS]      # 1 if the card begins in hand (START, R3)
    uint8_t move[NCARDS]       # 1 if it has Movement
    uint8_t attack[NCARDS]     # 1 if it has Attack
    uint8_t search[NCARDS]     # search number (0: no Search)
    uint8_t steal[NCARDS]      # Spy / Sturmwind number (0: none)
    uint8_t command[NCARDS]    # 1 if it has Command
    uint8_t volunteers[NCARDS] # 1 if it has Volunteers
    uint8_t assistance[NCARDS] # 1 if it has Assistance
    uint8_t escort[NCARDS]     # 1 if it has Escort
    uint8_t effect[NCARDS]     # Effect of an Action/Immediate card
    uint8_t cls[NCARDS]        # interchangeability class (R27): same data but the number
    uint8_t init_loc[NCARDS]   # where each card begins (R3: START in hand; variants may set up a table)
    uint8_t init_frag[FR_COUNT] # fragments at the start (R2: all in the pool)
    uint8_t n_rockets          # Rocket cards in the deck
    uint8_t rockets[MAX_ROCKETS] # fragments shown by each Rocket card
    uint8_t fragments          # fragment cubes in the box (R2)
    uint8_t turns              # turns in a game (rulebook: 4)
    uint8_t draw_size          # cards drawn per turn (rulebook: 5)
    uint8_t dice_sides         # faces of a die (rulebook: 6)
    uint8_t redraw             # 1 if the once-per-game redraw exists (R5)
    uint32_t unit_mask[NSIDES] # per side, bit i set if own card i is a Unit

ctypedef struct Pending:
    uint8_t kind               # PendKind of the action being resolved
    uint8_t actor              # player who declared it
    int8_t card                # acting card (global index) or -1
    int8_t target              # attack target named by the attacker, or -1
    int8_t defender            # card defending (target or its escort), or -1
    uint8_t zone               # Movement destination (LOC_FOREST..LOC_BASE) or 0
    uint8_t roll               # dice rolled so far (0, 1 or 2)
    uint8_t dice[NDICE]        # faces: [0] actor's die, [1] defender's die
    int8_t mods[NDICE]         # modifiers to those dice (R18)
    uint8_t window_passes      # priority passes in a row in the modifier window
    uint8_t escorted           # 1 once Escort was used (R15b: once)

ctypedef struct State:
    uint8_t loc[NCARDS]        # Loc of every card
    uint32_t at[NSIDES][LOC_COUNT] # per side and Loc, bit i set if own card i is there (mirrors loc)
    uint8_t exhausted[NCARDS]  # 1 if exhausted (cards on the table)
    uint8_t drawn[NCARDS]      # 1 if drawn in this turn's draw step (R5)
    uint8_t frag[FR_COUNT]     # fragments per FragPlace; sum == fragments (R2)
    uint8_t revealed[MAX_ROCKETS] # 1 if that Rocket card is face up
    uint8_t order[MAX_ROCKETS] # Rocket indices in the order revealed
    uint8_t n_revealed         # Rocket cards face up
    uint8_t turn               # 1..turns
    uint8_t phase              # Phase
    uint8_t player             # who decides at a decision node
    uint8_t draw_side          # PH_DRAW: who draws
    uint8_t draw_left          # PH_DRAW: cards still to draw
    uint8_t redeal             # PH_DRAW: 1 while dealing a redraw (R5)
    uint8_t drawn_count[NSIDES] # cards each side drew this turn
    uint8_t redraw_used[NSIDES] # 1 once a side used its redraw (R5)
    uint8_t redraw_choice[NSIDES] # this turn's secret redraw decision (R5)
    uint8_t actor              # whose turn to act in the action step (R7)
    uint8_t actions_left       # chain count (R10)
    uint8_t passes             # passes in a row (R7)
    uint8_t mc[MC_SLOTS]       # Motorized Column refreshes pending, by actions left (R12)
    uint8_t mc_new             # Motorized Column played by the action being finished
    uint8_t refresh_due        # Motorized Column refreshes to choose now (R12)
    uint8_t wildhorn_played    # 1 once Operation Wildhorn III was played (R21)
    int8_t winner              # -1 until terminal, then 0 or 1
    uint16_t moves             # decisions and chance events applied so far
    Pending pend               # the action being resolved

ctypedef struct Rng:
    uint64_t s[RNG_WORDS]      # xoshiro256** state

# ---- the cdef API -----------------------------------------------------------
cdef void rng_seed(Rng* r, uint64_t seed) noexcept nogil
cdef uint64_t rng_next(Rng* r) noexcept nogil
cdef int rng_below(Rng* r, int n) noexcept nogil
cdef double rng_unit(Rng* r) noexcept nogil

cdef void init_state(const Config* c, State* s) noexcept nogil
cdef int current_player(const State* s) noexcept nogil
cdef bint is_chance(const State* s) noexcept nogil
cdef bint is_terminal(const State* s) noexcept nogil
cdef double returns_of(const State* s, int player) noexcept nogil
cdef int legal_actions(const Config* c, const State* s, int* out) noexcept nogil
cdef int chance_outcomes(const Config* c, const State* s, int* acts, double* probs) noexcept nogil
cdef void apply_action(const Config* c, State* s, int action) noexcept nogil
cdef int apply_action_n(const Config* c, State* s, int action, int* buf) noexcept nogil
cdef int sample_chance(const Config* c, const State* s, Rng* r) noexcept nogil
cdef int random_playout(const Config* c, State* s, Rng* r) noexcept nogil
cdef int info_key(const Config* c, const State* s, int player, char* buf) noexcept nogil
cdef uint64_t info_hash(const Config* c, const State* s, int player) noexcept nogil
cdef void resample(const Config* c, State* s, int player, Rng* r) noexcept nogil
cdef int card_view(const State* s, int g, int player) noexcept nogil
cdef int hand_size(const Config* c, const State* s, int side) noexcept nogil
cdef int deck_size(const Config* c, const State* s, int side) noexcept nogil
cdef int polish_score(const State* s) noexcept nogil
cdef int german_score(const State* s) noexcept nogil
cdef int window_score(const Config* c, const State* s) noexcept nogil


cdef class CoreConfig:
    cdef Config c              # card data and rule parameters
    cdef readonly object card_set   # the solver.cards.CardSet it was built from
    cdef readonly tuple names  # "PL04 Scouts" per global index ("" if none)
    cdef readonly tuple action_names  # per player, the text of every action id
    cdef readonly tuple draw_names    # per side, "draw PL04 Scouts" per own index
    cdef char cnames[NCARDS][NAME_CAP]  # the same names as C strings, for describe()
    cdef readonly tuple key    # (source, turns, draw, dice, rockets, cards, redraw, setup, fragments)


cdef class Core:
    cdef State s               # the position
    cdef readonly CoreConfig config  # its game data (kept alive by this reference)
    cdef readonly bint frozen  # 1: an immutable value (pyspiel states hold these)
    cdef Core _clone(self)
    cdef int _checked(self, action) except -1
