# What comes from Python is checked here before the C rules see it (included
# by _core.pyx): positions that came from outside (bytes, fields, a built
# position) and, below, the positions Core.from_fields and Core.build make.

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
    if ph == PH_DRAW and (s.draw_left == 0 or deck_size(c, s, s.draw_side) == 0):
        return "nothing left to draw"
    if ph == PH_MAIN and s.player != s.actor:
        return "the player to move is not the acting player"
    if ph not in (PH_DRAW, PH_REDRAW, PH_ROCKET, PH_TERMINAL) and s.n_revealed == 0:
        return "no Rocket card revealed yet"
    if ph == PH_ROCKET and s.n_revealed >= c.n_rockets:
        return "no Rocket card left to reveal"
    return None

cdef str _check_counts(const Config* c, const State* s):
    """None if the decks, hands' drawn cards and draw counts are what legal
    play leaves at this turn and step, else what is wrong.  Cards leave a
    deck only by the draws, ``draw_size`` per side and turn or what is left
    (R3, R5; a redraw puts back and draws again as many), so the deck size
    follows from the turn.  For serialized states (``from_bytes``), which
    are positions of play; a built position may set any hand."""
    cdef int side, g, d0, before, after, deck, flagged
    cdef bint dealing = s.phase == PH_DRAW
    cdef str name
    for side in range(NSIDES):
        name = "Polish" if side == 0 else "German"
        d0 = 0
        flagged = 0
        for g in range(side * SIDE_CARDS, (side + 1) * SIDE_CARDS):
            if c.present[g] and c.init_loc[g] == LOC_DECK:
                d0 += 1
            if s.drawn[g]:
                if s.loc[g] != LOC_HAND:
                    return f"card {g}: marked as drawn this turn but not in its hand"
                flagged += 1
        before = max(0, d0 - c.draw_size * (s.turn - 1))  # deck before this turn's draws
        after = max(0, d0 - c.draw_size * s.turn)           # and after them
        deck = deck_size(c, s, side)
        if s.drawn_count[side] > before - after:
            return (f"{name} drew {s.drawn_count[side]} cards this turn, "
                    f"at most {before - after} are possible (R3, R5)")
        if not dealing and (deck != after or s.drawn_count[side] != before - after):
            return (f"{name} deck holds {deck} cards and {s.drawn_count[side]} were drawn "
                    f"this turn; after the draws of turn {s.turn} it holds {after}, "
                    f"{before - after} drawn (R3, R5)")
        if dealing and not s.redeal and deck != before - s.drawn_count[side]:
            return (f"{name} deck holds {deck} cards; {before} before the draws of turn "
                    f"{s.turn} less {s.drawn_count[side]} drawn leaves {before - s.drawn_count[side]} (R3, R5)")
        if dealing and s.redeal and not before - s.drawn_count[side] <= deck <= before:
            return f"{name} deck holds {deck} cards, outside {before - s.drawn_count[side]}..{before} (R3, R5)"
        if (s.phase == PH_REDRAW or (dealing and not s.redeal)) and flagged != s.drawn_count[side]:
            return (f"{name} hand holds {flagged} cards marked as drawn this turn, "
                    f"not the {s.drawn_count[side]} drawn (R5)")
        if not dealing and s.phase != PH_REDRAW and flagged:
            return f"{name} hand holds cards marked as drawn after the draw step (R5)"
    return None

cdef int _max_decisions(const Config* c) noexcept nogil:
    """An upper bound on the player decisions of one game (OpenSpiel's
    ``max_game_length``).  Per turn: two redraw decisions; at most 2U
    activations (each exhausts a card; refreshes come only from cards, U =
    cards in play), U placements and events; at most 7 decisions per action
    besides the modifier window, whose plays (at most 2U a turn) each bring
    a pass; passes at most one per action plus two."""
    cdef int g, cards = 0
    for g in range(NCARDS):
        cards += c.present[g]
    return c.turns * (2 + 3 * cards * 8 + 4 * cards + 2)


cdef int _max_moves(const Config* c) noexcept nogil:
    """An upper bound on ``State.moves``, which counts chance events too: per
    turn at most 4 * draw_size draws (a draw and a redraw per side) and one
    Rocket card, and at most two dice per decision (R15d)."""
    return 3 * _max_decisions(c) + c.turns * (4 * c.draw_size + 1)


cdef str _check_play(const Config* c, const State* s):
    """None if the flags and counters that play derives from the cards agree
    with them, else what is wrong (one line naming the field).  For
    serialized states (``from_bytes``), which are positions of play:

    * ``wildhorn_played`` is set exactly when Operation Wildhorn III lies in
      play, which it never leaves (R21); it holds at least one fragment (it
      needs one on the Forest card to be played, R13) and nothing lies on it
      otherwise;
    * the Hidden Fragments cards in play hold 1 or 2 fragments each, the one
      whose number is being chosen none yet; nothing is hidden otherwise (R8, R20);
    * the fragments off the pool are those placed at the start and fired by
      the Rocket cards revealed (R2, R6): the game's rockets, not another's;
    * the game is over only after the end of its last turn (R8), with no
      action under way, every card fresh and nothing hidden, and the winner
      is the one R22 and R23 give for the position;
    * ``moves`` is at most what a game of these parameters can have."""
    cdef int g, k, played = 0, gone = 0, hidden = 0, fired = 0, pool
    cdef int lo, hi
    for g in range(NCARDS):
        if not c.present[g] or c.kind[g] != K_ACTION:
            continue
        if c.effect[g] == E_WILDHORN:
            if s.loc[g] == LOC_EVENT:
                played += 1
            elif s.loc[g] == LOC_GONE:
                gone += 1
        elif c.effect[g] == E_HIDDEN and s.loc[g] == LOC_EVENT:
            hidden += 1
    if gone:
        return "card locations: Operation Wildhorn III left play, which it never does (R21)"
    if played > 1:
        return "card locations: Operation Wildhorn III was played twice (once per game, R21)"
    if s.wildhorn_played != played:
        return (f"wildhorn_played: {s.wildhorn_played}, but Operation Wildhorn III is "
                + ("in play (R21)" if played else "not in play (R21)"))
    if played and s.frag[FR_WILDHORN] == 0:
        return ("fragments: none on Operation Wildhorn III, which takes at least the one "
                "it needs on the Forest card (R13, R21)")
    if not played and s.frag[FR_WILDHORN]:
        return f"fragments: {s.frag[FR_WILDHORN]} on Operation Wildhorn III, which is not in play (R21)"
    lo = hidden - (1 if s.phase == PH_NUMBER else 0)
    if lo < 0:
        return "phase: choosing a Hidden Fragments number with no Hidden Fragments card in play (R20)"
    hi = 2 * lo
    if not lo <= s.frag[FR_HIDDEN] <= hi:
        return (f"fragments: {s.frag[FR_HIDDEN]} on Hidden Fragments, expected {lo}..{hi} "
                f"for the {hidden} card(s) in play (R8, R20)")
    for k in range(s.n_revealed):
        fired += c.rockets[s.order[k]]
    pool = max(0, c.init_frag[FR_POOL] - fired)
    if s.frag[FR_POOL] != pool:
        return (f"fragments: {s.frag[FR_POOL]} in the pool, but the game began with "
                f"{c.init_frag[FR_POOL]} there and its Rocket cards revealed fired {fired} (R2, R6)")
    if s.phase == PH_TERMINAL:
        if s.turn != c.turns:
            return f"phase: the game is over in turn {s.turn}, before the end of turn {c.turns} (R8)"
        if s.pend.kind != PK_NONE or hidden or s.frag[FR_HIDDEN]:
            return "phase: the game is over with an action or Hidden Fragments still in play (R8)"
        for g in range(NCARDS):
            if s.exhausted[g]:
                return f"exhausted: card {g} is exhausted after the end of the game (R8)"
        if s.winner != _outcome(c, s):
            sides = ("Polish", "German")
            return (f"winner: {sides[s.winner]}, but the scores {polish_score(s)} (Polish) "
                    f"to {german_score(s)} (German) and the home zones make "
                    f"{sides[_outcome(c, s)]} the winner (R22, R23)")
    if s.moves > _max_moves(c):
        return (f"moves: {s.moves}, more than a game of these parameters can have "
                f"({_max_moves(c)}: {_max_decisions(c)} decisions and their chance events)")
    return None

# ---- arguments from Python ----------------------------------------------------
# Every index or count a Python caller passes (a side, player, card, action,
# turn, count, seed) follows one rule: it is an ``int`` or another
# ``numbers.Integral`` (numpy integers, which OpenSpiel passes), never a bool
# and never a float, not even an integral one like 3.0; then its range is
# checked.  Anything else raises a one-line ParameterError (IllegalActionError
# for action ids) before it reaches the C rules: a float is refused, not
# truncated, and no value can make the core index out of bounds.

cdef inline bint _is_integer(object value):
    return type(value) is int or (isinstance(value, numbers.Integral)
                                  and not isinstance(value, bool))


cdef long long _integer(object value, str name, long long lo, long long hi,
                        object error=ParameterError) except? -1:
    """``value`` as a C integer if it is an integer in lo..hi, else ``error``."""
    if not _is_integer(value) or not lo <= value <= hi:
        raise error(f"{name}: expected an integer {lo}..{hi}, got {describe_value(value)}")
    return value


cdef uint64_t _seed(object value, str name) except? 0:
    """A seed: any integer, taken modulo 2**64."""
    if not _is_integer(value):
        raise ParameterError(f"{name}: expected an integer seed, got {describe_value(value)}")
    return <uint64_t>(int(value) & 0xFFFFFFFFFFFFFFFF)


cdef CoreConfig _config(object value, str name):
    if not isinstance(value, CoreConfig):
        raise ParameterError(f"{name}: expected a CoreConfig, got {describe_value(value)}")
    return <CoreConfig>value


cdef dict _mapping(object value, str name):
    """A dict from an optional mapping argument (None: empty)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ParameterError(f"{name}: expected a mapping, got {describe_value(value)}")
    return value


cdef bint _flag(object value, str name) except -1:
    """A yes/no argument: a bool, or the integer 0 or 1."""
    if isinstance(value, bool) or (_is_integer(value) and 0 <= value <= 1):
        return bool(value)
    raise ParameterError(f"{name}: expected true or false, got {describe_value(value)}")


cdef list _sequence(object value, str name, Py_ssize_t most):
    """A list from a list or tuple argument of at most ``most`` items."""
    if not isinstance(value, (list, tuple)) or len(value) > most:
        raise ParameterError(f"{name}: expected a list of at most {most} items, got "
                             + (f"{len(value)}" if isinstance(value, (list, tuple))
                                else describe_value(value)))
    return list(value)

# ---- positions from Python (Core.from_fields, Core.build) -------------------

def _choice(name, value, names):
    if not isinstance(value, str) or value not in names:
        raise ParameterError(f"{name}: expected one of {', '.join(map(str, names))}, "
                             f"got {describe_value(value)}")
    return names.index(value)


def _flags(name, value, size):
    if not isinstance(value, (list, tuple)) or len(value) != size:
        raise ParameterError(f"{name}: expected a list of {size}")
    return [bool(v) for v in value]


cdef Core _position_from_fields(CoreConfig config, dict f):
    """Core.from_fields: every field checked (ParameterError names it)."""
    cdef Core n = Core.__new__(Core)
    cdef State* s
    cdef int g, k
    cdef dict q
    n.config = config
    init_state(&config.c, &n.s)
    s = &n.s

    if "loc" in f:
        locs = f["loc"]
        if not isinstance(locs, (list, tuple)) or len(locs) != NCARDS:
            raise ParameterError(f"loc: expected a list of {NCARDS} places")
        for g in range(NCARDS):
            s.loc[g] = _choice(f"loc[{g}]", locs[g], LOC_NAMES)
    if "exhausted" in f:
        for g, v in enumerate(_flags("exhausted", f["exhausted"], NCARDS)):
            s.exhausted[g] = v
    if "drawn" in f:
        for g, v in enumerate(_flags("drawn", f["drawn"], NCARDS)):
            s.drawn[g] = v
    if "fragments" in f:
        frag = f["fragments"]
        if not isinstance(frag, dict) or set(frag) != set(FRAGMENT_PLACES):
            raise ParameterError(f"fragments: expected counts for {', '.join(FRAGMENT_PLACES)}")
        for k in range(6):
            s.frag[k] = _integer(frag[FRAGMENT_PLACES[k]], f"fragments.{FRAGMENT_PLACES[k]}", 0, 63)
    if "rocket_order" in f:
        order = f["rocket_order"]
        if not isinstance(order, (list, tuple)) or len(order) > config.c.n_rockets:
            raise ParameterError(f"rocket_order: expected at most {config.c.n_rockets} Rocket cards")
        for k in range(MAX_ROCKETS):
            s.revealed[k] = 0
        for k, r in enumerate(order):
            r = _integer(r, f"rocket_order[{k}]", 0, config.c.n_rockets - 1)
            if s.revealed[r]:
                raise ParameterError(f"rocket_order[{k}]: Rocket card {r} revealed twice")
            s.revealed[r] = 1
            s.order[k] = r
        s.n_revealed = len(order)
    if "turn" in f:
        s.turn = _integer(f["turn"], "turn", 1, config.c.turns)
    if "phase" in f:
        s.phase = _choice("phase", f["phase"], PHASE_NAMES)
    for key in ("player", "draw_side", "actor"):
        if key in f:
            v = _integer(f[key], key, 0, 1)
            if key == "player":
                s.player = v
            elif key == "draw_side":
                s.draw_side = v
            else:
                s.actor = v
    if "draw_left" in f:
        s.draw_left = _integer(f["draw_left"], "draw_left", 0, SIDE_CARDS)
    if "redeal" in f:
        s.redeal = bool(f["redeal"])
    if "drawn_count" in f:
        _flags("drawn_count", f["drawn_count"], 2)
        for k, v in enumerate(f["drawn_count"]):
            s.drawn_count[k] = _integer(v, f"drawn_count[{k}]", 0, SIDE_CARDS)
    if "redraw_used" in f:
        for k, v in enumerate(_flags("redraw_used", f["redraw_used"], 2)):
            s.redraw_used[k] = v
    if "redraw_choice" in f:
        for k, v in enumerate(_flags("redraw_choice", f["redraw_choice"], 2)):
            s.redraw_choice[k] = v
    if "actions_left" in f:
        s.actions_left = _integer(f["actions_left"], "actions_left", 0, 200)
    if "passes" in f:
        s.passes = _integer(f["passes"], "passes", 0, 2)
    if "motorized" in f:
        mc = f["motorized"]
        if not isinstance(mc, (list, tuple)) or len(mc) != 3:
            raise ParameterError("motorized: expected 3 counts (refreshes due after 1, 2, 3 more actions)")
        for k in range(3):
            s.mc[k + 1] = _integer(mc[k], f"motorized[{k}]", 0, NCARDS)
    if "refresh_due" in f:
        s.refresh_due = _integer(f["refresh_due"], "refresh_due", 0, NCARDS)
    if "wildhorn_played" in f:
        s.wildhorn_played = bool(f["wildhorn_played"])
    if "winner" in f:
        s.winner = _integer(f["winner"], "winner", -1, 1)
    if "moves" in f:
        s.moves = _integer(f["moves"], "moves", 0, 65535)
    _rebuild_masks(s)
    _clear_pend(s)
    q = _mapping(f.get("pending"), "pending")
    if q.get("kind", "none") != "none":
        s.pend.kind = _choice("pending.kind", q["kind"], PENDING_NAMES)
        s.pend.actor = _integer(q.get("actor", 0), "pending.actor", 0, 1)
        s.pend.card = _integer(q.get("card", -1), "pending.card", -1, NCARDS - 1)
        s.pend.target = _integer(q.get("target", -1), "pending.target", -1, NCARDS - 1)
        s.pend.defender = _integer(q.get("defender", -1), "pending.defender", -1, NCARDS - 1)
        zone = q.get("zone")
        s.pend.zone = 0 if zone is None else _choice("pending.zone", zone, LOC_NAMES[:LOC_BASE + 1])
        dice = q.get("dice", [])
        if not isinstance(dice, (list, tuple)) or len(dice) > 2:
            raise ParameterError("pending.dice: expected at most 2 dice")
        s.pend.roll = len(dice)
        for k, v in enumerate(dice):
            s.pend.dice[k] = _integer(v, f"pending.dice[{k}]", 1, config.c.dice_sides)
        mods = q.get("modifiers", [0, 0])
        if not isinstance(mods, (list, tuple)) or len(mods) != 2:
            raise ParameterError("pending.modifiers: expected 2 numbers")
        for k in range(2):
            s.pend.mods[k] = _integer(mods[k], f"pending.modifiers[{k}]", -100, 100)
        s.pend.window_passes = _integer(q.get("window_passes", 0), "pending.window_passes", 0, 2)
        s.pend.escorted = bool(q.get("escorted", False))
    msg = _check_state(&config.c, s)
    if msg is not None:
        raise ParameterError(f"position: {msg}")
    return n


cdef Core _position_built(CoreConfig config, places, exhausted, fragments, rockets,
                          turn, actor, actions_left, passes, redraw_used, wildhorn_played):
    """Core.build: a position at a decision of the action step (R7)."""
    cdef Core n = Core.__new__(Core)
    cdef int g, k, i
    n.config = config
    init_state(&config.c, &n.s)
    n.s.turn = _integer(turn, "turn", 1, config.c.turns)
    for g in range(NCARDS):
        n.s.drawn[g] = 0
        n.s.exhausted[g] = 0
    cs = config.card_set
    for number, place in _mapping(places, "places").items():
        g = cs.by_number(number).global_index
        if not config.c.present[g]:
            raise ParameterError(f"places: {number} is not in play")
        if place not in LOC_NAMES[:LOC_ABSENT]:
            raise ParameterError(f"places: {number}: unknown place {place!r}")
        n.s.loc[g] = LOC_NAMES.index(place)
    for number in _sequence(exhausted, "exhausted", NCARDS):
        g = cs.by_number(number).global_index
        if not _on_table(n.s.loc[g]):
            raise ParameterError(f"exhausted: {number} is not on the table")
        n.s.exhausted[g] = 1
    total = 0
    frag = [0] * FR_COUNT
    for place, count in _mapping(fragments, "fragments").items():
        if place not in FRAGMENT_PLACES or place == "pool":
            raise ParameterError(f"fragments: unknown place {describe_value(place)}")
        frag[FRAGMENT_PLACES.index(place)] = _integer(count, f"fragments.{place}", 0, config.c.fragments)
        total += count
    if total > config.c.fragments:
        raise ParameterError(f"fragments: {total} placed, only {config.c.fragments} exist (R2)")
    frag[FR_POOL] = config.c.fragments - total
    for k in range(FR_COUNT):
        n.s.frag[k] = frag[k]
    n.s.n_revealed = 0
    for k in range(MAX_ROCKETS):
        n.s.revealed[k] = 0
    for value in _sequence(rockets, "rockets", config.c.n_rockets):
        for i in range(config.c.n_rockets):
            if not n.s.revealed[i] and config.c.rockets[i] == value:
                break
        else:
            raise ParameterError(f"rockets: no unrevealed Rocket card shows {describe_value(value)}")
        n.s.revealed[i] = 1
        n.s.order[n.s.n_revealed] = i
        n.s.n_revealed += 1
    redraw_used = _sequence(redraw_used, "redraw_used", NSIDES)
    if len(redraw_used) != NSIDES:
        raise ParameterError(f"redraw_used: expected {NSIDES} flags, got {len(redraw_used)}")
    n.s.redraw_used[0] = _flag(redraw_used[0], "redraw_used[0]")
    n.s.redraw_used[1] = _flag(redraw_used[1], "redraw_used[1]")
    n.s.drawn_count[0] = 0
    n.s.drawn_count[1] = 0
    n.s.redeal = 0
    n.s.draw_left = 0
    if wildhorn_played is None:
        wildhorn_played = False
        for g in range(NCARDS):
            if (n.s.loc[g] == LOC_EVENT or n.s.loc[g] == LOC_GONE) and config.c.effect[g] == E_WILDHORN:
                wildhorn_played = True
    n.s.wildhorn_played = _flag(wildhorn_played, "wildhorn_played")
    _clear_pend(&n.s)
    n.s.phase = PH_MAIN
    n.s.actor = _integer(actor, "actor", 0, 1)
    n.s.player = n.s.actor
    n.s.actions_left = _integer(actions_left, "actions_left", 0, 200)
    n.s.passes = _integer(passes, "passes", 0, 2)
    _rebuild_masks(&n.s)
    msg = _check_state(&config.c, &n.s)
    if msg is not None:
        raise ParameterError(f"position: {msg}")
    _advance(&config.c, &n.s)
    return n

