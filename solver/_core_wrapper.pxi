# The Python face of the engine (included by _core.pyx, whose C it calls):
# constants, action ids as names, CoreConfig (the game data) and Core (a
# position).  Positions and arguments that come from Python are checked by
# _core_validate.pxi before they reach the C rules.

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
SANITIZE_BUILD = bool(_WILDHORN_SANITIZE)  # WILDHORN_SANITIZE=1: ASan + UBSan too
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


def decode_action(action):
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
    action = _integer(action, "action id", 0, NUM_ACTIONS - 1, IllegalActionError)
    for name, start, size in reversed(ACTION_GROUPS):
        if action >= start:
            return name, action - start
    raise AssertionError("unreachable")


def encode_action(name, arg=0):
    """Inverse of ``decode_action``: ``encode_action("SEARCH", 1) == 101``."""
    for gname, start, size in ACTION_GROUPS:
        if gname == name:
            return start + _integer(arg, f"{name} argument", 0, size - 1, IllegalActionError)
    raise IllegalActionError(f"unknown action name {describe_value(name)}")


cdef class CoreConfig:
    """CoreConfig(card_set, turns=4, draw=5, dice=6, rockets=None, cards=None, redraw=True, setup=None, fragments=None)

    The immutable data of one game: card set plus rule parameters."""

    def __init__(self, card_set, turns=4, draw=5, dice=6,
                 rockets=None, cards=None, redraw=True, setup=None, fragments=None):
        """``setup`` maps card numbers to where they begin ("hand", "deck",
        "forest", "periphery", "base"; default: START cards in hand, R3);
        ``fragments`` maps "periphery"/"forest"/"base" to fragments placed
        there at the start (default none: all in the pool, R2).  Both exist
        for the small variants and constructed test positions."""
        if not isinstance(card_set, CardSet):
            raise ParameterError(f"card_set: expected a CardSet, got {describe_value(card_set)}")
        arr = card_set.to_core_arrays()
        memset(&self.c, 0, sizeof(Config))
        if rockets is not None and not isinstance(rockets, (list, tuple)):
            raise ParameterError(f"rockets: expected a list of Rocket values, got {describe_value(rockets)}")
        rockets = list(arr["rockets"] if rockets is None else rockets)
        if not 1 <= len(rockets) <= MAX_ROCKETS:
            raise ParameterError(f"rockets: expected 1..{MAX_ROCKETS} Rocket cards, got {len(rockets)}")
        for k in range(len(rockets)):
            rockets[k] = int(_integer(rockets[k], "rockets", 0, 63))
        turns = int(_integer(turns, "turns", 1, len(rockets)))  # one Rocket card per turn
        draw = int(_integer(draw, "draw", 0, SIDE_CARDS))
        dice = int(_integer(dice, "dice", 1, 60))
        redraw = _flag(redraw, "redraw")
        setup = _mapping(setup, "setup")
        fragments = _mapping(fragments, "fragments")
        present = list(arr["present"])
        if cards is not None:
            wanted = set()
            for number in _sequence(cards, "cards", NCARDS):
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
        for number, place in setup.items():
            card = card_set.by_number(number)
            g = card.global_index
            if not self.c.present[g]:
                raise ParameterError(f"setup: {number} is not in play")
            if not isinstance(place, str) or place not in ("hand", "deck", "forest", "periphery", "base"):
                raise ParameterError(f"setup: {number}: expected hand, deck, forest, periphery "
                                     f"or base, got {describe_value(place)}")
            loc = LOC_NAMES.index(place)
            if _on_table(loc) and self.c.kind[g] > K_SUPPORT:
                raise ParameterError(f"setup: {number}: only Unit and Support cards stand on the table")
            if _on_table(loc) and self.c.kind[g] == K_SUPPORT and loc != _home(self.c.side[g]):
                raise ParameterError(f"setup: {number}: a Support card stands only in its home zone (R1)")
            if loc == LOC_DECK and self.c.start[g]:
                raise ParameterError(f"setup: {number}: a START card begins in hand or on the table (R26)")
            self.c.init_loc[g] = loc
        self.c.init_frag[FR_POOL] = arr["fragments"]
        for place, count in fragments.items():
            if not isinstance(place, str) or place not in ("periphery", "forest", "base"):
                raise ParameterError(f"fragments: expected periphery, forest or base, "
                                     f"got {describe_value(place)}")
            k = FRAGMENT_PLACES.index(place)
            count = _integer(count, f"fragments: {place}", 0, self.c.init_frag[FR_POOL])
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
            raw = names[g].encode("utf-8")[:NAME_CAP - 1]
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
    @property
    def max_game_length(self):
        """An upper bound on the player decisions of one game (see _max_decisions)."""
        return _max_decisions(&self.c)
    @property
    def max_moves(self):
        """An upper bound on ``Core.moves``: decisions and chance events (see _max_moves)."""
        return _max_moves(&self.c)

    def card_name(self, g):
        """'PL04 Scouts' for a global card index."""
        return self.names[_integer(g, "card_name(g)", 0, NCARDS - 1)]


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
_NO_GAME = CoreConfig.__new__(CoreConfig)  # zero cards, zero turns: see Core.__cinit__

cdef class Core:
    """Core(config)

    One game position on the C struct; the only attribute a pyspiel state keeps.

    ``copy`` is a struct assignment.  Methods that take an action check it;
    the ``cdef`` API of the .pxd does not (bots use that).
    """
    def __cinit__(self):
        # A Core made without its constructor (``Core.__new__(Core)``) is a
        # finished game without cards, not a struct whose config is None: no
        # method can read through a missing config.  Every constructor and
        # copy overwrites all three.  (A __cinit__ without parameters ignores
        # the constructor's arguments, at no cost to copies.)
        self.config = _NO_GAME
        self.s.phase = PH_TERMINAL
        self.s.winner = 1

    def __init__(self, config):
        """The initial position of the game ``config`` describes (R3)."""
        self.config = _config(config, "Core(config)")
        init_state(&self.config.c, &self.s)

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
    def from_bytes(config, data):
        """Rebuilds a position from ``to_bytes``; every field is checked, and
        the deck and draw counts must be what play leaves at its turn."""
        cdef Core n
        cdef bytes raw
        config = _config(config, "from_bytes(config)")
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
        msg = _check_state(&n.config.c, &n.s)
        if msg is None:
            msg = _check_counts(&n.config.c, &n.s)
        if msg is None:
            msg = _check_play(&n.config.c, &n.s)
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
    def from_fields(config, f):
        """A position from ``fields()``-shaped values; every field is checked
        (ParameterError names the field), so no input reaches the core out of
        range.  Missing keys take the values of a fresh game."""
        if not isinstance(f, dict):
            raise ParameterError(f"from_fields(f): expected a mapping of fields, got {describe_value(f)}")
        return _position_from_fields(_config(config, "from_fields(config)"), f)

    @staticmethod
    def build(config, *, places=None, exhausted=(), fragments=None,
              rockets=(), turn=1, actor=0, actions_left=1, passes=0,
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
        return _position_built(_config(config, "build(config)"), places, exhausted, fragments, rockets, turn, actor,
                               actions_left, passes, redraw_used, wildhorn_played)

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
        if self.frozen:
            raise IllegalActionError("this position is frozen (held by a pyspiel state); use copy()")
        if not _is_integer(action):
            raise IllegalActionError(f"action {describe_value(action)} is not an integer action id")
        if is_terminal(&self.s):
            raise IllegalActionError(f"action {describe_value(action)}: the game is over")
        if is_chance(&self.s):
            legal = [x for x, _ in self.chance_outcomes()]
        else:
            legal = self.legal_actions()
        if action not in legal:  # compared as Python integers: no overflow
            raise IllegalActionError(
                f"action {describe_value(action)} is not legal at this {PHASE_NAMES[self.s.phase]} "
                f"node (legal: {', '.join(map(str, legal))})")
        return action

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

    def info_string(self, player):
        """The information-state key of ``player`` (2: full state, -1: public)."""
        cdef char buf[KEY_CAP]
        cdef int p = _integer(player, "info_string(player)", -1, 2)
        cdef int n = info_key(&self.config.c, &self.s, p, buf)
        return buf[:n].decode("ascii")

    def info_hash(self, player):
        """FNV-1a hash of ``info_string(player)``: the key search trees use."""
        return info_hash(&self.config.c, &self.s, _integer(player, "info_hash(player)", -1, 2))

    def resample(self, player, seed):
        """A new position consistent with ``player``'s information (R26)."""
        cdef Rng r
        cdef int p = _integer(player, "resample(player)", 0, 1)
        cdef Core n = self._clone()
        rng_seed(&r, _seed(seed, "resample(seed)"))
        resample(&self.config.c, &n.s, p, &r)
        return n

    def playout(self, seed):
        """Plays random legal moves to the end (in place); returns the winner."""
        cdef Rng r
        if self.frozen:
            raise IllegalActionError("this position is frozen (held by a pyspiel state); use copy()")
        rng_seed(&r, _seed(seed, "playout(seed)"))
        with nogil:
            random_playout(&self.config.c, &self.s, &r)
        return self.s.winner

    def sample_chance(self, seed):
        """A chance outcome drawn with its probability; IllegalActionError
        unless this is a chance node."""
        cdef Rng r
        rng_seed(&r, _seed(seed, "sample_chance(seed)"))
        if not is_chance(&self.s):
            raise IllegalActionError(f"sample_chance: a {PHASE_NAMES[self.s.phase]} node is not a chance node")
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

    def location(self, g):
        """(place name, exhausted) of global card g."""
        cdef int i = _integer(g, "location(g)", 0, NCARDS - 1)
        return LOC_NAMES[self.s.loc[i]], bool(self.s.exhausted[i])

    def cards_at(self, place, side=-1):
        """Global indices of the cards in ``place`` (a LOC_NAMES entry) of
        ``side`` (0 Polish, 1 German, -1 both)."""
        cdef int k = _choice("cards_at(place)", place, LOC_NAMES)
        cdef int p = _integer(side, "cards_at(side)", -1, 1)
        return [g for g in range(NCARDS) if self.s.loc[g] == k
                and (p < 0 or _side_of(g) == p)]

    def hand_size(self, side):
        """Cards in the hand of ``side`` (0 Polish, 1 German)."""
        return hand_size(&self.config.c, &self.s, _integer(side, "hand_size(side)", 0, 1))

    def deck_size(self, side):
        """Cards in the deck of ``side`` (0 Polish, 1 German)."""
        return deck_size(&self.config.c, &self.s, _integer(side, "deck_size(side)", 0, 1))

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

    def drawn_this_turn(self, g):
        """True if global card g was drawn in this turn's draw step (R5)."""
        return bool(self.s.drawn[_integer(g, "drawn_this_turn(g)", 0, NCARDS - 1)])

    # ---- actions as words ----------------------------------------------------
    def action_string(self, player, action):
        """Readable text of an action id for ``player`` (0, 1; -1 or another
        negative pyspiel id: chance), e.g. "PL01 Scouts: search",
        "DE02 Soldiers: target", "die 4"."""
        player = _integer(player, "action_string(player)", -4, 1)
        action = _integer(action, "action id", 0, NUM_ACTIONS - 1, IllegalActionError)
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
    def fill_tensor(self, player, out):
        """Writes ``player``'s view (0, 1; -1 public, 2 full; see
        ``tensor_pieces``) into ``out``, a writable contiguous float32 buffer
        of at least TENSOR_SIZE numbers."""
        cdef float[::1] view
        cdef int p = _integer(player, "fill_tensor(player)", -1, 2)
        try:
            view = out
        except (TypeError, ValueError, BufferError):
            raise ParameterError(f"fill_tensor(out): expected a writable contiguous float32 "
                                 f"buffer, got {describe_value(out)}") from None
        if view is None or view.shape[0] < TENSOR_SIZE:
            raise ParameterError(f"fill_tensor(out): the buffer holds "
                                 f"{0 if view is None else view.shape[0]} numbers, "
                                 f"the tensor {TENSOR_SIZE}")
        _fill_tensor(&self.config.c, &self.s, p, &view[0], view.shape[0])


def tensor_pieces():
    """(name, size) of the three pieces of the information-state tensor, in
    order: ``public`` (viewer, turn, phase, player to move, chain, Rocket
    cards, fragments, hand sizes, redraw, draw step), ``cards`` (one one-hot
    of NUM_VIEWS per card, see VIEW_CHARS) and ``pending`` (the action under
    resolution).  The finer layout is the T_* counts of _core.pxd."""
    return (("public", T_PUBLIC), ("cards", T_CARDS), ("pending", T_PENDING))
