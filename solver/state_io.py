"""State files: one player's view of a game as JSON (format ``wildhorn-state/1``).

A player at a real table types in what they can see and asks ``advise`` what
to do; a bot or a test saves a position to look at later.  A state file holds
exactly one player's information (R25, R26): their own hand, both hand sizes,
the public table, cards gone and in play, fragments, revealed Rocket cards,
the chain of actions and the action being resolved.  Never the opponent's
hand, the deck order or the opponent's secret redraw decision.  The contract
is ``docs/state-format.md``; the exact shape, with a description of
every key, is the JSON Schema ``solver/data/state.schema.json``.

Public API
==========

``to_json(state, player) -> dict``
    The view of ``player`` (0 or "polish", 1 or "german") of a pyspiel
    ``WildhornState`` or a ``solver._core.Core``, at a decision point or at
    the rocket / roll chance steps.
``from_json(obj, seed=0) -> WildhornState``
    Checks a state (a dict or JSON text) and builds a position of the right
    game consistent with it: the opponent's hand is a uniform draw (seeded)
    from the opponent's unseen cards, every unseen START card in it (R26).
    Its ``information_state_string(perspective)`` is that of any real
    position the file describes.
``load(path_or_file, seed=0)`` / ``dump(state, player, path_or_file)``
    The same from / to a file.
``write_random_states(count, seed, out_dir)``
    Files from seeded random games, at varied decision points.

Every problem with the input raises :class:`~solver.errors.StateFormatError`
with one line ``<file or "state">: <JSON path>: <what was expected>``, e.g.
``bad.json: $.hand[2]: unknown card number "PL99" ...``.

A short example (the Polish player's first decision of the game)::

    {
      "format": "wildhorn-state/1",
      "perspective": "polish",
      "turn": 1,
      "step": "actions",
      "to_move": "polish",
      "hand": ["PL01", "PL02", "PL03", "PL04", "PL07", "PL13", "PL18", "PL22"],
      "hand_sizes": {"polish": 8, "german": 8},
      "rockets": [3],
      "fragments": {"periphery": 3, "hidden": 0, "forest": 0, "wildhorn": 0, "base": 0},
      "table": [],
      "gone": [],
      "redraw_used": {"polish": false, "german": false},
      "actions": {"left": 1, "passes": 0},
      "pending": null
    }

Consistency checks beyond the schema (each names the offending JSON path):
every card exists in this game and is in one place only; the hand belongs to
the perspective; only Unit/Support cards stand on the table, Support cards
only in their home zone (R1); only Operation Wildhorn III and Hidden
Fragments stay in play, and Operation Wildhorn III never leaves (R21); one
Rocket value per turn after the V-2 step (R6), each a Rocket card of the
set; the fragments on the cards are at most the total (R2) and exactly what
the Rocket cards fired (they never return to the pool); nothing hidden
without Hidden Fragments in play, nothing on Wildhorn without Operation
Wildhorn III; the hands add up: each deck holds exactly what the draws of
the turns so far left in it (R3, R5), so the perspective's hand and the
opponent's hand size are forced, and every unseen START card is in hand
(R26); the redraw decisions and the cards drawn this turn fit the step
(R5); the step, the player to move and the pending action agree (who
decides each window, the acting card's ability and zone, dice and
modifiers so far); the chain count is at most what Volunteers and
Motorized Column can give (R10, R12); and the player to move really has a
choice (the engine applies a single option at once and skips windows with
nothing to play, R29, R30).  Before any action of a turn (the redraw and
V-2 steps) every card on the table is fresh and no Hidden Fragments card is
in play (R8), and in turn 1 the table, the cards gone and the fragments are
the game's setup; the modifiers are explained by the Good Luck, Bad Luck and
Assistance cards played (R18); Operation Wildhorn III in play holds a
fragment, each Hidden Fragments card 1 or 2.  Whatever ``Core.from_fields``
still refuses comes back as a StateFormatError too, with the nearest JSON
path.  The list, for people who own the game: ``docs/position-invariants.md``.

Files are read bounded (``solver._jsonio``): a regular file of at most 1 MB,
JSON without NaN or infinities, no array or object larger than any state
has; an integer is written without a fraction (``2.0`` is refused).
``check_position(state)`` applies the same checks to a position from both
players' views (for saves, ``apps.play``).
"""

from __future__ import annotations

import difflib
import json
import os
import random
import re
from functools import lru_cache
from pathlib import Path
from typing import IO, Any, NoReturn

import jsonschema
import pyspiel

from solver._core import CARDS_PER_SIDE, NUM_DISTINCT_ACTIONS, Core, encode_action
from solver.cards import default_card_set_path, load_card_set
from solver._jsonio import (MAX_FILE_BYTES, find_problem, loads, read_bounded,
                            read_text_bounded)
from solver.errors import label as short_label
from solver.errors import (ParameterError, StateFormatError, WildhornError, describe_value,
                           one_line, quote)
from solver.game import POSITION_CHECKS, VARIANTS, WildhornState, make_config

__all__ = [
    "FORMAT",
    "SCHEMA_PATH",
    "SIDES",
    "STEPS",
    "dump",
    "check_position",
    "dumps",
    "from_json",
    "load",
    "schema",
    "to_json",
    "write_random_states",
]

FORMAT = "wildhorn-state/1"
"""The ``format`` tag of the files this module reads and writes."""

SCHEMA_PATH = Path(__file__).resolve().parent / "data" / "state.schema.json"
"""The JSON Schema (draft 2020-12) of the format: the exact contract."""

SIDES = ("polish", "german")
ZONES = ("forest", "periphery", "base")
HOME = ("forest", "base")
FRAGMENT_KEYS = ("periphery", "hidden", "forest", "wildhorn", "base")

DECISION_STEPS = ("redraw", "actions", "zone", "motorcycle", "target", "escort", "ambush",
                  "modifiers", "nurses", "witnesses", "refresh", "number")
CHANCE_STEPS = ("rocket", "roll")
STEPS = DECISION_STEPS + CHANCE_STEPS
"""Step names of the format; each is the engine phase of the same name."""

# The pending action kinds each step allows (engine names; "steal" is
# written "spy" or "sturmwind" after the actor's side).
_STEP_KINDS: dict[str, tuple[str | None, ...]] = {
    "redraw": (None,), "rocket": (None,), "actions": (None,),
    "zone": ("movement",), "motorcycle": ("movement",),
    "target": ("attack",), "escort": ("attack",), "ambush": ("attack",), "nurses": ("attack",),
    "witnesses": ("search",),
    "roll": ("attack", "search", "steal"), "modifiers": ("attack", "search", "steal"),
    "refresh": ("command", "high_morale", "motorized_refresh"),
    "number": ("hidden_fragments",),
}
# Who decides at each step: the actor of the chain, the other side, or either.
_ACTOR_DECIDES = ("actions", "zone", "motorcycle", "target", "ambush", "witnesses",
                  "refresh", "number")
_WHY_DECIDES = {
    "actions": "the chain's player acts (R10)", "zone": "the mover chooses the destination (R14)",
    "motorcycle": "the mover plays Motorcycle (R14)", "target": "the attacker names the target (R15a)",
    "ambush": "the attacker plays Ambush! (R15c)", "witnesses": "the searcher plays Witnesses (R16)",
    "refresh": "the actor chooses the Unit to refresh (R12, R19)",
    "number": "the player of Hidden Fragments chooses (R20)",
    "escort": "the defender decides on Escort (R15b)", "nurses": "the defender plays Nurses (R15g)",
}
_KIND_ABILITY = {"movement": "movement", "attack": "attack", "search": "search",
                 "command": "command"}
_KIND_EFFECT = {"high_morale": "high_morale", "hidden_fragments": "hidden_fragments"}
# Effect cards that open the window each step offers (to deal the opponent a
# hand that has a choice before resampling).
_WINDOW_EFFECTS = {"motorcycle": ("motorcycle",), "ambush": ("ambush",), "nurses": ("nurses",),
                   "witnesses": ("witnesses",), "modifiers": ("good_luck", "bad_luck")}
_ADJACENT = {"forest": ("periphery",), "periphery": ("forest", "base"), "base": ("periphery",)}
# Engine field names (Core.from_fields) -> JSON paths, for the safety net.
_FIELD_PATHS = {
    "turn": "$.turn", "rocket_order": "$.rockets", "fragments": "$.fragments",
    "actions_left": "$.actions.left", "passes": "$.actions.passes",
    "motorized": "$.actions.motorized_refresh.counters",
    "refresh_due": "$.actions.motorized_refresh.due", "redraw_used": "$.redraw_used",
    "redraw_choice": "$.redraw_choice", "drawn_count": "$.drawn_this_turn",
    "drawn": "$.drawn_this_turn", "player": "$.to_move", "actor": "$.actions.actor",
    "phase": "$.step", "exhausted": "$.table", "loc": "$",
}
_CARD_RE = re.compile(r"^(PL|DE)[0-9]{2}$")
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_WIDTH = 92  # line width of the files dump writes

# Chance of writing a state at a decision of each step (write_random_states):
# common steps rarely, rare windows often, so the files cover every kind.
_WRITE_CHANCE = {"actions": 0.02, "modifiers": 0.08, "redraw": 0.25, "zone": 0.1,
                 "refresh": 0.25}
_WRITE_CHANCE_DEFAULT = 0.4


# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------


_one_line = one_line
_q = quote
_describe = describe_value


def _path(parts) -> str:
    """JSON path text of a sequence of keys and indices: ``$.table[2].zone``."""
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENT_RE.match(part) and len(part) <= 40:  # a longer key is cut by _q
            out += f".{part}"
        else:
            out += f"[{_q(part)}]"
    return out


def _side_index(player: Any) -> int:
    if isinstance(player, str) and player in SIDES:
        return SIDES.index(player)
    if isinstance(player, int) and not isinstance(player, bool) and player in (0, 1):
        return player
    raise ParameterError(f"player: expected 0 (polish) or 1 (german), got {player!r}")


def _core_of(state: Any) -> Core:
    if isinstance(state, Core):
        return state
    core = getattr(state, "core", None)
    if isinstance(core, Core):
        return core
    raise ParameterError(
        f"state: expected a WildhornState or a solver._core.Core, got {type(state).__name__}")


_PASS = encode_action("PASS")
_DECLINE = encode_action("DECLINE")


@lru_cache(maxsize=1)
def schema() -> dict:
    """The JSON Schema of the format (a dict; do not modify it)."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _inline(node: Any, defs: dict) -> Any:
    """``node`` with every local ``$ref`` replaced by the definition it names
    (the same schema, validated several times faster by jsonschema)."""
    if isinstance(node, list):
        return [_inline(x, defs) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline(v, defs) for k, v in node.items() if k not in ("$ref", "$defs")}
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = _inline(defs[ref[len("#/$defs/"):]], defs)
        out = {**target, **out}
    return out


def _is_integer(checker, instance) -> bool:
    """The one rule for numbers: an integer is written without a fraction or
    exponent; ``2.0`` is a float, refused wherever an integer is expected
    (as in card sets, saves and game parameters)."""
    return isinstance(instance, int) and not isinstance(instance, bool)


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    full = schema()
    base = jsonschema.Draft202012Validator
    strict = jsonschema.validators.extend(
        base, type_checker=base.TYPE_CHECKER.redefine("integer", _is_integer))
    return strict(_inline(full, full.get("$defs", {})))


# --------------------------------------------------------------------------
# Game parameters <-> the "game" and "card_set" keys
# --------------------------------------------------------------------------


def _card_set_source(cfg) -> str:
    return _source_of_path(cfg.card_set.path)


@lru_cache(maxsize=64)
def _source_of_path(path) -> str:
    if path is None:
        return "default"
    try:
        if Path(path).resolve() == default_card_set_path().resolve():
            return "default"
    except OSError:
        pass
    return str(path)


def _spiel_params(game: dict, card_set: str) -> dict[str, Any]:
    """The pyspiel parameters of a "game" object (JSON types -> parameter text)."""
    params: dict[str, Any] = {}
    if card_set != "default":
        params["card_set"] = card_set
    for key, value in game.items():
        if key in ("rockets", "cards"):
            params[key] = ";".join(str(v) for v in value)
        elif key in ("setup", "start_fragments"):
            params[key] = ";".join(f"{k}:{v}" for k, v in value.items())
        elif key == "redraw":
            params[key] = int(value)
        else:
            params[key] = value
    return params


def _game_params_of(cfg) -> dict | None:
    """The "game" object that rebuilds ``cfg`` (None for the rulebook game)."""
    source = _card_set_source(cfg)
    base = make_config({"card_set": source} if source != "default" else None)
    if base.key == cfg.key:
        return None
    for variant in VARIANTS:
        if variant == "full":
            continue
        params = {"variant": variant}
        if make_config(_spiel_params(params, source)).key == cfg.key:
            return params
    _, turns, draw, dice, rockets, cards, redraw, setup, frags = cfg.key
    full = base.key
    game: dict[str, Any] = {}
    for name, value, default in (("turns", turns, full[1]), ("draw", draw, full[2]),
                                 ("dice", dice, full[3])):
        if value != default:
            game[name] = value
    if tuple(rockets) != tuple(full[4]):
        game["rockets"] = list(rockets)
    if cards is not None:
        game["cards"] = list(cards)
    if bool(redraw) != bool(full[6]):
        game["redraw"] = bool(redraw)
    if setup:
        game["setup"] = dict(setup)
    if frags:
        game["start_fragments"] = dict(frags)
    if make_config(_spiel_params(game, source)).key != cfg.key:
        raise ParameterError("to_json: this game's configuration cannot be written as game parameters")
    return game


_GAMES: dict[tuple, pyspiel.Game] = {}


def _load_game(params: dict[str, Any]) -> pyspiel.Game:
    key = tuple(sorted(params.items()))
    game = _GAMES.get(key)
    if game is None:
        game = pyspiel.load_game("wildhorn", params)
        _GAMES[key] = game
    return game


def game_config(game: dict[str, Any], card_set: str = "default") -> Any:
    """The core configuration of a state file's ``"game"`` object (with its
    card set): what a position of that game is checked against.  The
    parameters are checked as always (ParameterError naming the one at
    fault)."""
    return _load_game(_spiel_params(game, card_set)).core_config


def deck_schedule(cfg, turn: int) -> tuple[list[int], list[int]]:
    """Per side: cards left in the deck after the draws of ``turn``, and cards
    drawn in that turn's draw step.  Decks lose cards only to draws (a redraw
    puts back and draws the same number, R5), so both are forced (R3, R28)."""
    _, _, draw, _, _, _, _, setup, _ = cfg.key
    setup = dict(setup)
    present = cfg.present
    deck = [0, 0]
    for card in cfg.card_set.cards:
        g = card.global_index
        if present[g] and setup.get(card.number, "hand" if card.start else "deck") == "deck":
            deck[card.side_id] += 1
    drawn = [0, 0]
    for _ in range(turn):
        for side in (0, 1):
            drawn[side] = min(draw, deck[side])
            deck[side] -= drawn[side]
    return deck, drawn


# --------------------------------------------------------------------------
# to_json
# --------------------------------------------------------------------------


def to_json(state: Any, player: Any) -> dict:
    """``player``'s view of ``state`` as a ``wildhorn-state/1`` object.

    ``state`` is a pyspiel ``WildhornState`` or a ``solver._core.Core``;
    ``player`` is 0 / "polish" or 1 / "german".  The state must be at a
    decision point or at the rocket or roll chance step (ParameterError
    otherwise: the draw step and the end of the game have no file form).
    The result holds the player's information and nothing hidden (R25, R26):
    the opponent's hand and the decks appear only as sizes, the opponent's
    redraw decision only once revealed.
    """
    core = _core_of(state)
    p = _side_index(player)
    cfg = core.config
    phase = core.phase
    if phase not in STEPS:
        raise ParameterError(
            f"to_json: the {phase} step has no state-file form (decision points and the "
            "rocket and roll chance steps have)")
    f = core.fields()
    num = {c.global_index: c.number for c in cfg.card_set.cards}
    loc = f["loc"]

    def cards_of(place, side=None):
        return [num[g] for g in range(len(loc))
                if loc[g] == place and (side is None or g // CARDS_PER_SIDE == side)]

    out: dict[str, Any] = {"format": FORMAT, "card_set": _card_set_source(cfg)}
    game = _game_params_of(cfg)
    if game is not None:
        out["game"] = game
    out["perspective"] = SIDES[p]
    out["turn"] = f["turn"]
    out["step"] = phase
    out["to_move"] = None if phase in CHANCE_STEPS else SIDES[f["player"]]
    out["hand"] = cards_of("hand", p)
    out["hand_sizes"] = {SIDES[s]: core.hand_size(s) for s in (0, 1)}
    out["rockets"] = list(core.rockets_revealed)
    out["fragments"] = {k: f["fragments"][k] for k in FRAGMENT_KEYS}
    out["table"] = [{"card": num[g], "zone": loc[g], "exhausted": bool(f["exhausted"][g])}
                    for g in range(len(loc)) if loc[g] in ZONES]
    out["gone"] = cards_of("gone")
    out["events_in_play"] = cards_of("event")
    out["redraw_used"] = {SIDES[s]: bool(f["redraw_used"][s]) for s in (0, 1)}
    choice = f["redraw_choice"]
    if phase == "redraw":
        # R5: the Polish decision is secret until the German has decided; a
        # player's own decision is known to them once taken.
        if p == 0 and f["player"] == 1:
            out["redraw_choice"] = {"polish": bool(choice[0])}
        out["drawn_this_turn"] = [num[g] for g in range(len(loc))
                                  if loc[g] == "hand" and g // CARDS_PER_SIDE == p and f["drawn"][g]]
    elif any(choice):
        out["redraw_choice"] = {SIDES[s]: bool(choice[s]) for s in (0, 1)}
    mc = f["motorized"]
    out["actions"] = {
        "actor": SIDES[f["actor"]], "left": f["actions_left"], "passes": f["passes"],
        "motorized_refresh": {"counters": [1] * mc[0] + [2] * mc[1] + [3] * mc[2],
                              "due": f["refresh_due"]},
    }
    q = f["pending"]
    if q["kind"] == "none":
        out["pending"] = None
    else:
        kind = q["kind"]
        if kind == "steal":
            kind = "spy" if q["actor"] == 0 else "sturmwind"

        def card(g):
            return None if g < 0 else num[g]

        out["pending"] = {
            "kind": kind, "actor": SIDES[q["actor"]], "card": card(q["card"]),
            "target": card(q["target"]), "defender": card(q["defender"]), "zone": q["zone"],
            "dice": list(q["dice"]), "modifiers": list(q["modifiers"]),
            "window_passes": q["window_passes"], "escorted": bool(q["escorted"]),
        }
    return out


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------




class _Reader:
    """Checks one state object; every failure is one StateFormatError line."""

    def __init__(self, label: str) -> None:
        self.label = short_label(label)

    def fail(self, path: str, message: str) -> NoReturn:
        raise StateFormatError(f"{self.label}: {path}: {_one_line(message)}")

    # -- text and structure ---------------------------------------------------

    def parse(self, text: str | bytes) -> Any:
        if isinstance(text, (bytes, bytearray)):
            try:
                text = bytes(text).decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                self.fail("$", f"not valid JSON: not UTF-8 text (byte {exc.start})")
        if len(text) > MAX_FILE_BYTES:
            self.fail("$", f"the text has {len(text)} characters, more than the {MAX_FILE_BYTES} "
                      "read at most")
        try:
            data = loads(text)
        except json.JSONDecodeError as exc:
            self.fail("$", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
        except (ValueError, RecursionError) as exc:
            self.fail("$", f"not valid JSON: {exc}")
        return data

    def bounded(self, data: Any) -> None:
        """Repeated keys, arrays and objects larger than any state has, and
        deep nesting are refused before the schema looks at the data."""
        problem = find_problem(data)
        if problem is not None:
            self.fail(_path(problem[0]), problem[1])

    def structure(self, data: Any) -> None:
        self.bounded(data)
        if not isinstance(data, dict):
            self.fail("$", f"expected a JSON object (a state file), got {_describe(data)}")
        if "format" not in data:
            self.fail("$.format", f"missing required key (expected {_q(FORMAT)})")
        if data["format"] != FORMAT:
            self.fail("$.format", f"expected {_q(FORMAT)}, got {_describe(data['format'])}"
                      " (this version of wildhorn-solve reads only that format)")
        errors = list(_validator().iter_errors(data))
        if errors:
            err = jsonschema.exceptions.best_match(errors)
            self.fail(*_schema_message(err))

    # -- the game -------------------------------------------------------------

    def game(self, data: dict, base_dir: Path | None) -> pyspiel.Game:
        source = data.get("card_set", "default")
        if source != "default" and base_dir is not None and not os.path.isabs(source):
            source = str(base_dir / source)
        params = _spiel_params(data.get("game", {}), source)
        if source != "default":
            try:
                load_card_set(source)
            except WildhornError as err:
                self.fail("$.card_set", f"cannot use this card set: {err}")
        try:
            make_config(params)
            return _load_game(params)
        except WildhornError as err:
            text = str(err).removeprefix("wildhorn: ")
            name, _, rest = text.partition(":")
            written = data.get("game", {})
            name = {"fragments": "start_fragments"}.get(name, name)  # the core's word
            if name in written and rest.strip():
                self.fail(f"$.game.{name}", rest.strip())
            # A key the file does not have: the card set gave the value.
            if source != "default":
                self.fail("$.card_set", f"this card set does not fit the game: {text}")
            self.fail("$.game" if written else "$", text)


def _schema_message(err: jsonschema.ValidationError) -> tuple[str, str]:
    """(JSON path, message) for a schema error, worded for people."""
    parts = list(err.absolute_path)
    v = err.validator
    inst = err.instance
    sch = err.schema
    if v == "required":
        missing = [k for k in err.validator_value if k not in inst]
        key = missing[0]
        extra = [k for k in inst if k not in sch.get("properties", {})]
        close = difflib.get_close_matches(key, extra, n=1, cutoff=0.7)
        hint = f" (is {_q(close[0])} a typo?)" if close else ""
        return _path(parts + [key]), f"missing required key{hint}"
    if v == "additionalProperties" and sch.get("additionalProperties") is False:
        allowed = list(sch.get("properties", {}))
        extra = [k for k in inst if k not in allowed]
        key = extra[0]
        close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.7)
        hint = f"did you mean {_q(close[0])}?" if close else "allowed: " + ", ".join(allowed)
        return _path(parts + [key]), f"unknown key ({hint})"
    where = _path(parts)
    if v == "type":
        kinds = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        words = {"object": "an object", "array": "an array", "string": "a string",
                 "integer": "an integer", "number": "a number", "boolean": "true or false",
                 "null": "null"}
        return where, f"expected {' or '.join(words.get(k, k) for k in kinds)}, got {_describe(inst)}"
    if v == "enum":
        options = ", ".join(_describe(o) for o in err.validator_value)
        return where, f"expected one of {options}, got {_describe(inst)}"
    if v == "const":
        return where, f"expected {_describe(err.validator_value)}, got {_describe(inst)}"
    if v == "pattern":
        return where, f'expected a card number such as "PL04" or "DE17", got {_describe(inst)}'
    if v in ("minimum", "maximum"):
        lo, hi = sch.get("minimum"), sch.get("maximum")
        if lo is not None and hi is not None:
            return where, f"expected an integer {lo}..{hi}, got {_describe(inst)}"
        bound = f"at least {lo}" if lo is not None else f"at most {hi}"
        return where, f"expected an integer {bound}, got {_describe(inst)}"
    if v in ("minItems", "maxItems"):
        lo, hi = sch.get("minItems"), sch.get("maxItems")
        if lo is not None and lo == hi:
            return where, f"expected exactly {lo} items, got {len(inst)}"
        if v == "maxItems":
            return where, f"expected at most {hi} items, got {len(inst)}"
        return where, f"expected at least {lo} items, got {len(inst)}"
    if v == "minLength":
        return where, "expected a non-empty string"
    if v == "propertyNames":
        return where, f'expected card numbers such as "PL04" as keys, got {_describe(inst)}'
    message = err.message  # jsonschema's own words, which may quote the value: cut
    return where, message if len(message) <= 120 else message[:120] + "..."


# --------------------------------------------------------------------------
# from_json
# --------------------------------------------------------------------------


def from_json(obj: Any, seed: int = 0, *, source: str = "state",
              base_dir: str | os.PathLike | None = None) -> WildhornState:
    """Checks a state and returns a pyspiel state of its game consistent with it.

    ``obj`` is a parsed state (dict) or its JSON text.  The position holds the
    perspective player's information exactly; what that player cannot see,
    the opponent's hand among the opponent's unseen cards (every unseen
    START card in it, R26) and, while it is secret, the Polish redraw
    decision (R5), is drawn uniformly with ``seed`` (``Core.resample``).
    ``source`` names the input in error messages; ``base_dir`` is where a
    relative ``card_set`` path is looked for.  Raises StateFormatError.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ParameterError(f"seed: expected an integer, got {seed!r}")
    r = _Reader(source)
    data = r.parse(obj) if isinstance(obj, (str, bytes, bytearray)) else obj
    r.structure(data)
    game = r.game(data, None if base_dir is None else Path(base_dir))
    core = _Check(r, data, game.core_config).position(seed)
    _opponent_plays(r, data, game, core, seed)
    return game.state_from_core(core)


def opponent_plays(obj: Any, seed: int = 0, *, source: str = "state",
                   base_dir: str | os.PathLike | None = None) -> list[tuple[Core, int]]:
    """The state's optional ``opponent_plays``, checked: per play, the
    position before it (its hidden cards drawn with ``seed`` as in
    ``from_json``; only the perspective player's view of it is meant to be
    used) and the action id.  Empty when the key is absent."""
    r = _Reader(source)
    data = r.parse(obj) if isinstance(obj, (str, bytes, bytearray)) else obj
    r.structure(data)
    game = r.game(data, None if base_dir is None else Path(base_dir))
    core = _Check(r, data, game.core_config).position(seed)
    return _opponent_plays(r, data, game, core, seed)


def load_opponent_plays(path: str | os.PathLike, seed: int = 0) -> list[tuple[Core, int]]:
    """``opponent_plays`` of a state file (errors name the file)."""
    label = os.fspath(path)
    text = read_bounded(path, lambda why: _Reader(str(label)).fail("$", why))
    return opponent_plays(text, seed, source=str(label), base_dir=Path(path).parent)


def _opponent_plays(r: _Reader, data: dict, game: pyspiel.Game, core: Core,
                    seed: int) -> list[tuple[Core, int]]:
    """Checks ``data["opponent_plays"]`` against the state (``core``)."""
    out: list[tuple[Core, int]] = []
    viewer = SIDES.index(data["perspective"])
    opponent = 1 - viewer
    for i, item in enumerate(data.get("opponent_plays", [])):
        where = f"$.opponent_plays[{i}]"
        before = item["before"]
        sub = _Reader(f"{r.label}: {where}.before")
        sub.structure(before)
        for key in ("card_set", "game", "perspective", "turn"):
            if before.get(key) != data.get(key):
                r.fail(f"{where}.before.{key}", f"expected {_describe(data.get(key))}, the "
                       f"state's own, got {_describe(before.get(key))}")
        if "opponent_plays" in before:
            r.fail(f"{where}.before.opponent_plays", "a position before a play has no plays of "
                   "its own (list every play of the turn in the state's opponent_plays)")
        if before.get("to_move") != SIDES[opponent]:
            r.fail(f"{where}.before.to_move", f"expected {_q(SIDES[opponent])}: a play is the "
                   f"opponent's decision, got {_describe(before.get('to_move'))}")
        if before.get("step") in ("redraw", "rocket"):
            r.fail(f"{where}.before.step", "expected a step of the action step: the plays "
                   "weighed are those of the turn's actions")
        position = _Check(sub, before, game.core_config).position(seed + i + 1)
        text = item["action"]
        action = next((a for a in range(NUM_DISTINCT_ACTIONS)
                       if position.action_string(opponent, a) == text), None)
        if action is None:
            r.fail(f"{where}.action", f"no action of {SIDES[opponent]} reads {_describe(text)}")
        if action in (_PASS, _DECLINE):
            r.fail(f"{where}.action", "passes and declines are not written, only plays (R29: "
                   "a decline is private)")
        out.append((position, action))
    return out


def load(source: str | os.PathLike | IO, seed: int = 0) -> WildhornState:
    """``from_json`` of a file (a path or an open file); errors name the file.

    A relative ``card_set`` path is read relative to the file's folder.
    """
    if hasattr(source, "read"):
        name = getattr(source, "name", None)
        label = name if isinstance(name, str) else "state"
        text = read_text_bounded(source, lambda why: _Reader(str(label)).fail("$", why))
        base = Path(name).parent if isinstance(name, str) else None
    else:
        if not isinstance(source, (str, os.PathLike)):
            raise ParameterError(f"load: expected a path or a file, got {type(source).__name__}")
        label = os.fspath(source)
        text = read_bounded(source, lambda why: _Reader(str(label)).fail("$", why))
        base = Path(source).parent
    if not isinstance(text, (str, bytes, bytearray)):
        raise ParameterError("load: the file gave neither text nor bytes")
    return from_json(text, seed, source=str(label), base_dir=base)


def check_position(state: Any, source: str = "position") -> None:
    """Raises StateFormatError unless ``state`` (a WildhornState or Core, say
    one read back from a save) passes every check a state file gets, from
    the view of each player: the same invariants, so a corrupt position
    (the German hand empty in turn 2 with a full deck, an exhausted card at
    the redraw) is refused like a file.  Steps with no file form (the draw,
    the end of the game) are not checked.  The decision check of R29/R30 is
    not made, so that the raw single-option positions of ``play --ask-all``
    pass.  The message is ``<source> (<side> view): <JSON path>: ...``."""
    core = _core_of(state)
    if core.phase not in STEPS:
        return
    for p in (0, 1):
        r = _Reader(f"{source} ({SIDES[p]} view)")
        try:
            data = to_json(core, p)
        except ParameterError as err:
            r.fail("$", str(err))
        r.structure(data)
        _Check(r, data, core.config).check()


POSITION_CHECKS.append(check_position)  # game.deserialize_state refuses what a file would


def dumps(state: Any, player: Any) -> str:
    """``to_json`` as the text ``dump`` writes: one key per line, short
    values on one line, a newline at the end."""
    return _pretty(to_json(state, player), 0, 0, top=True) + "\n"


def dump(state: Any, player: Any, target: str | os.PathLike | IO) -> None:
    """Writes ``player``'s view of ``state`` to a path or an open text file."""
    text = dumps(state, player)
    if hasattr(target, "write"):
        target.write(text)
    else:
        Path(target).write_text(text, encoding="utf-8")


def _pretty(value: Any, indent: int, column: int, top: bool = False) -> str:
    one = json.dumps(value, ensure_ascii=False)
    if (not isinstance(value, (dict, list)) or not value
            or (not top and column + len(one) <= _WIDTH)):
        return one
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        lines = []
        for key, child in value.items():
            head = f"{pad}{json.dumps(key, ensure_ascii=False)}: "
            lines.append(head + _pretty(child, indent + 2, len(head)))
        return "{\n" + ",\n".join(lines) + "\n" + " " * indent + "}"
    lines = [pad + _pretty(child, indent + 2, len(pad)) for child in value]
    return "[\n" + ",\n".join(lines) + "\n" + " " * indent + "]"


class _Check:
    """The rules-level checks of one state object (after the schema), and the
    position it describes.  Each method checks one part of the file and keeps
    what the later parts and the position need; the order matters only for
    which problem is reported first."""

    def __init__(self, r: _Reader, data: dict, cfg) -> None:
        self.r = r
        self.data = data
        self.cfg = cfg
        self.cs = cfg.card_set
        self.present = cfg.present
        self.by_number = {c.number: c for c in self.cs.cards}
        self.p = SIDES.index(data["perspective"])
        self.o = 1 - self.p
        self.pname, self.oname = SIDES[self.p], SIDES[self.o]
        self.turn = data["turn"]
        self.step = data["step"]
        self.to_move = data["to_move"]
        self.where: dict[str, str] = {}  # card number -> JSON path where it is listed
        self.deck_after, self.drawn_now = deck_schedule(cfg, self.turn)

    def fail(self, path: str, message: str) -> NoReturn:
        self.r.fail(path, message)

    def position(self, seed: int) -> Core:
        self.check()
        return self.build(seed)

    def check(self) -> None:
        """Every rules-level check of the file (R29/R30 aside, see build)."""
        self.basics()
        self.rockets()
        self.cards()
        self.fragments()
        self.between_turns()
        self.hands()
        self.redraw()
        self.chain()
        self.events_fragments()
        self.engine_pending = None if self.pend is None else self.pending()

    # -- the parts of the file ------------------------------------------------

    def basics(self) -> None:
        cfg, step, to_move = self.cfg, self.step, self.to_move
        if self.turn > cfg.turns:
            self.fail("$.turn", f"expected 1..{cfg.turns} (this game has {cfg.turns} turns), "
                      f"got {self.turn}")
        if step in CHANCE_STEPS and to_move is not None:
            self.fail("$.to_move", f"expected null: step {_q(step)} is a chance event, nobody "
                      "decides")
        if step in DECISION_STEPS and to_move is None:
            self.fail("$.to_move", f'expected "polish" or "german": step {_q(step)} is a decision')

    def rockets(self) -> None:
        """R4, R6: one Rocket card per turn once the V-2 step is done."""
        rockets, turn, step = self.data["rockets"], self.turn, self.step
        need = turn - 1 if step in ("redraw", "rocket") else turn
        if len(rockets) != need:
            self.fail("$.rockets", f"expected {need} Rocket value{'s' * (need != 1)} in the "
                      f"{step} step of turn {turn} (one Rocket card is revealed at the V-2 step "
                      f"of each turn, R6), got {len(rockets)}")
        values = list(self.cfg.rockets)
        taken = [False] * len(values)
        self.order = []
        for i, v in enumerate(rockets):
            for k, w in enumerate(values):
                if not taken[k] and w == v:
                    taken[k] = True
                    self.order.append(k)
                    break
            else:
                self.fail(f"$.rockets[{i}]", f"no Rocket card showing {v} is left (the Rocket "
                          f"cards show {', '.join(map(str, values))}, each revealed once)")
        self.fired_values = rockets

    def card(self, path: str, number: str):
        """The card of this number, which must be in this game."""
        c = self.by_number.get(number)
        if c is None:
            ranges = " and ".join(
                f"{min(n)}..{max(n)}" for n in (
                    [c.number for c in self.cs.cards if c.side_id == s] for s in (0, 1)) if n)
            self.fail(path, f"unknown card number {_q(number)} (the card set has {ranges})")
        if not self.present[c.global_index]:
            self.fail(path, f"{_q(number)} is not in this game (its parameters leave it out)")
        return c

    def place(self, path: str, number: str):
        """A card listed in one of the places: it may be in no other."""
        c = self.card(path, number)
        if number in self.where:
            self.fail(path, f"{_q(number)} is already at {self.where[number]}: a card is in one "
                      "place only")
        self.where[number] = path
        return c

    def cards(self) -> None:
        """Hand, table, gone, events_in_play: each card once, where it can be."""
        data = self.data
        self.hand = []
        for i, number in enumerate(data["hand"]):
            c = self.place(f"$.hand[{i}]", number)
            if c.side_id != self.p:
                self.fail(f"$.hand[{i}]", f"{_title(c)} is a {SIDES[c.side_id]} card; the hand "
                          f"holds the {self.pname} player's own cards")
            self.hand.append(c)
        self.table = []
        for i, entry in enumerate(data["table"]):
            c = self.place(f"$.table[{i}].card", entry["card"])
            if c.type.kind not in ("unit", "support"):
                self.fail(f"$.table[{i}].card", f"{_title(c)} is an {c.type.kind} card: only Unit "
                          "and Support cards stand on the table (R9)")
            if c.type.kind == "support" and entry["zone"] != HOME[c.side_id]:
                self.fail(f"$.table[{i}].zone", f"expected {_q(HOME[c.side_id])}: {_title(c)} is a "
                          "Support card, which stands only in its home zone (R1), got "
                          f"{_q(entry['zone'])}")
            self.table.append((c, entry["zone"], entry["exhausted"]))
        self.gone = []
        for i, number in enumerate(data["gone"]):
            c = self.place(f"$.gone[{i}]", number)
            if c.type.effect == "operation_wildhorn":
                self.fail(f"$.gone[{i}]", f"{_title(c)} stays in play once played (R21): list it "
                          "in events_in_play")
            self.gone.append(c)
        self.events = []
        for i, number in enumerate(data.get("events_in_play", [])):
            c = self.place(f"$.events_in_play[{i}]", number)
            if c.type.effect not in ("operation_wildhorn", "hidden_fragments"):
                self.fail(f"$.events_in_play[{i}]", f"{_title(c)} does not stay in play: only "
                          "Operation Wildhorn III and Hidden Fragments lie beside the zones "
                          "(R20, R21)")
            self.events.append(c)
        self.table_of = {c.number: (zone, exhausted) for c, zone, exhausted in self.table}
        self.effects_in_play = {c.type.effect for c in self.events}

    def fragments(self) -> None:
        """R2: on the cards, exactly what was placed at the start and fired."""
        frag, cfg = self.data["fragments"], self.cfg
        self.on_cards = sum(frag.values())
        if self.on_cards > cfg.fragments:
            self.fail("$.fragments", f"{self.on_cards} fragments on the cards, but the game has "
                      f"only {cfg.fragments} (R2)")
        placed0 = sum(dict(cfg.key[8]).values())
        fired = min(cfg.fragments - placed0, sum(self.fired_values))
        if self.on_cards != placed0 + fired:
            began = f" and {placed0} began on the cards" if placed0 else ""
            self.fail("$.fragments", f"expected {placed0 + fired} fragments on the cards in all: "
                      f"the Rocket cards revealed fired {fired}{began}, and a fragment never goes "
                      f"back to the pool (R2, R6); got {self.on_cards}")
        if frag["hidden"] and "hidden_fragments" not in self.effects_in_play:
            self.fail("$.fragments.hidden", "expected 0: no Hidden Fragments card is in "
                      f"events_in_play (R20), got {frag['hidden']}")
        if frag["wildhorn"] and "operation_wildhorn" not in self.effects_in_play:
            self.fail("$.fragments.wildhorn", "expected 0: Operation Wildhorn III is not in "
                      f"events_in_play (R21), got {frag['wildhorn']}")

    def between_turns(self) -> None:
        """R8 and the setup: the redraw and V-2 steps come before any action of
        the turn, so the table is as the end of the last turn left it (every
        card fresh, Hidden Fragments gone with its fragments, R8), and in
        turn 1 exactly as the game began."""
        if self.step not in ("redraw", "rocket"):
            return
        when = f"in the {self.step} step, before any action of turn {self.turn}"
        for i, (c, zone, exhausted) in enumerate(self.table):
            if exhausted:
                self.fail(f"$.table[{i}].exhausted", f"expected false {when}: every card is "
                          "refreshed at the end of a turn (R8)")
        for i, c in enumerate(self.events):
            if c.type.effect == "hidden_fragments":
                self.fail(f"$.events_in_play[{i}]", f"{_title(c)} leaves play at the end of the "
                          f"turn it is played (R8), so it is not in play {when}")
        if self.turn != 1:
            return
        setup = dict(self.cfg.key[7])
        for i, (c, zone, _) in enumerate(self.table):
            if setup.get(c.number) != zone:
                began = setup.get(c.number) or ("hand" if c.start else "deck")
                self.fail(f"$.table[{i}]", f"{_title(c)} began in the {began}, and {when} "
                          "nothing has moved (the table is as the game set it up, R3)")
        shown = {c.number for c, _, _ in self.table}
        for number, zone in sorted(setup.items()):
            if zone in ZONES and number not in shown:
                self.fail("$.table", f"{number} began in the {zone}, and {when} nothing has "
                          "moved: list it on the table (R3)")
        for key in ("gone", "events_in_play"):
            if self.data.get(key):
                self.fail(f"$.{key}[0]", f"expected no card {when}: nothing has been played "
                          "or destroyed yet")
        start = dict(self.cfg.key[8])
        for key in FRAGMENT_KEYS:
            if self.data["fragments"][key] != start.get(key, 0):
                self.fail(f"$.fragments.{key}", f"expected {start.get(key, 0)} {when}: the "
                          "fragments are where the game placed them (the first Rocket card "
                          "comes at the V-2 step, R6)")

    def events_fragments(self) -> None:
        """R20, R21: the fragments the events in play hold."""
        frag = self.data["fragments"]
        wildhorn = [c for c in self.events if c.type.effect == "operation_wildhorn"]
        if wildhorn and not frag["wildhorn"]:
            self.fail("$.fragments.wildhorn", f"expected at least 1: {_title(wildhorn[0])} "
                      "needs a fragment on the Forest card (R13) and moved every one onto "
                      "itself, where none can be taken (R17, R21)")
        hidden = [c for c in self.events if c.type.effect == "hidden_fragments"]
        choosing = int(self.kind == "hidden_fragments" and self.step == "number")
        lo, hi = len(hidden) - choosing, 2 * (len(hidden) - choosing)
        if hidden and not lo <= frag["hidden"] <= hi:
            now = " (the one being played holds none yet)" if choosing else ""
            self.fail("$.fragments.hidden", f"expected {lo}..{hi}: each Hidden Fragments card "
                      f"in play holds the 1 or 2 fragments it moved until the end of the turn "
                      f"(R8, R20){now}, got {frag['hidden']}")

    def hands(self) -> None:
        """R3, R5, R26: the decks hold what the draws so far left in them."""
        sizes, turn, p, o = self.data["hand_sizes"], self.turn, self.p, self.o
        if sizes[self.pname] != len(self.hand):
            self.fail(f"$.hand_sizes.{self.pname}", f"expected {len(self.hand)}, the number of "
                      f"cards in $.hand, got {sizes[self.pname]}")
        side_cards = {s: [c for c in self.cs.cards if c.side_id == s and self.present[c.global_index]]
                      for s in (0, 1)}
        for s in (0, 1):
            shown = sum(1 for c in side_cards[s] if c.number in self.where
                        and not self.where[c.number].startswith("$.hand"))
            total, deck = len(side_cards[s]), self.deck_after[s]
            path = "$.hand" if s == p else f"$.hand_sizes.{SIDES[s]}"
            expected = total - shown - deck
            got = len(self.hand) if s == p else sizes[SIDES[s]]
            if expected < 0:
                self.fail(path, f"the {SIDES[s]} side shows {shown} cards on the table, gone or in "
                          f"play, but by turn {turn} only {total - deck} of its {total} cards can "
                          "have left its deck (R3, R5)")
            if got != expected:
                self.fail(path, f"expected {expected} card{'s' * (expected != 1)}: the {SIDES[s]} "
                          f"side has {total} cards, {shown} on the table, gone or in play and "
                          f"{deck} still in its deck after the draws of turn {turn} (R3, R5); "
                          f"got {got}")
        for c in side_cards[p]:
            if c.start and c.number not in self.where:
                self.fail("$.hand", f"{_title(c)} is a START card: it begins in hand and never goes "
                          "to the deck (R3), so it is in the hand, on the table or gone")
        self.unseen = [c for c in side_cards[o] if c.number not in self.where]
        unseen_start = sum(1 for c in self.unseen if c.start)
        if unseen_start > sizes[self.oname]:
            self.fail(f"$.hand_sizes.{self.oname}", f"{unseen_start} {self.oname} START cards are "
                      "not on the table or gone, so they are still in hand (R26), but the hand "
                      f"holds only {sizes[self.oname]}")
        if self.step == "redraw" and sizes[self.oname] - unseen_start < self.drawn_now[o]:
            self.fail(f"$.hand_sizes.{self.oname}", f"the {self.oname} hand holds "
                      f"{sizes[self.oname]} cards with {unseen_start} START cards, which leaves "
                      f"no room for the {self.drawn_now[o]} cards drawn this turn")

    def redraw(self) -> None:
        """R5: this turn's drawn cards, the redraws used and decided."""
        data, step, turn = self.data, self.step, self.turn
        drawn_list = data.get("drawn_this_turn")
        hand_numbers = {c.number for c in self.hand}
        if step == "redraw":
            if drawn_list is None:
                self.fail("$.drawn_this_turn", "missing: required in the redraw step (R5: only the "
                          "cards drawn this turn can be sent back)")
            listed: set[str] = set()
            for i, number in enumerate(drawn_list):
                path = f"$.drawn_this_turn[{i}]"
                c = self.card(path, number)
                if number in listed:
                    self.fail(path, f"{_q(number)} is listed twice")
                listed.add(number)
                if number not in hand_numbers:
                    self.fail(path, f"{_q(number)} is not in $.hand: the cards drawn this turn are "
                              "in hand during the redraw step")
                if c.start:
                    self.fail(path, f"{_title(c)} is a START card: it was in hand from the start, "
                              "not drawn (R3)")
            if len(drawn_list) != self.drawn_now[self.p]:
                self.fail("$.drawn_this_turn", f"expected {self.drawn_now[self.p]} cards (the draw "
                          f"of turn {turn}), got {len(drawn_list)}")
        elif drawn_list is not None:
            self.fail("$.drawn_this_turn", "allowed only in the redraw step (the cards drawn this "
                      "turn matter only for the redraw, R5)")
        self.drawn_list = drawn_list or []
        used = self.used = data["redraw_used"]
        redraw_rule = bool(self.cfg.key[6])
        for s in SIDES:
            if used[s] and not redraw_rule:
                self.fail(f"$.redraw_used.{s}", "expected false: this game has no redraw")
            if used[s] and step == "redraw" and turn == 1:
                self.fail(f"$.redraw_used.{s}", "expected false: no redraw step came before this one")
        choice = data.get("redraw_choice", {})
        self.redraw_choice = [False, False]
        if step == "redraw":
            # The Polish player decides first, in secret; the German second.
            decided = "polish" if (self.p == 0 and self.to_move == "german") else None
            for key in choice:
                if key == self.oname:
                    self.fail(f"$.redraw_choice.{key}", "the opponent's redraw decision is secret "
                              "until both players have decided (R5); leave it out")
                if key != decided:
                    self.fail(f"$.redraw_choice.{key}", f"the {key} player has not decided yet (the "
                              "Polish player decides first, then the German, R5); leave it out")
            if decided is not None:
                if decided not in choice:
                    self.fail("$.redraw_choice", "missing: the polish player has already decided "
                              "(the german player is to move); give {\"polish\": true} if you "
                              "redrew, {\"polish\": false} if you kept")
                if choice[decided]:
                    if used["polish"]:
                        self.fail("$.redraw_choice.polish", "the polish redraw was already used "
                                  "(R5: once per game)")
                    if not redraw_rule or self.deck_after[0] == 0 or self.drawn_now[0] == 0:
                        self.fail("$.redraw_choice.polish", "no redraw is possible this turn (R5)")
                self.redraw_choice[0] = bool(choice[decided])
        else:
            for s in (0, 1):
                if choice.get(SIDES[s]):
                    if not used[SIDES[s]]:
                        self.fail(f"$.redraw_choice.{SIDES[s]}", f"the {SIDES[s]} side redrew this "
                                  "turn, so its redraw is used: set redraw_used too")
                    self.redraw_choice[s] = True

    def chain(self) -> None:
        """R7-R12: who acts, the chain count, the passes, Motorized Column."""
        acts, step, to_move = self.data["actions"], self.step, self.to_move
        pend = self.pend = self.data["pending"]
        allowed = _STEP_KINDS[step]
        if pend is None and allowed != (None,):
            names = " or ".join(_json_kind(k) for k in allowed)
            self.fail("$.pending", f"expected the action being resolved ({names}): step "
                      f"{_q(step)} is part of an action, got null")
        if pend is not None and allowed == (None,):
            self.fail("$.pending", f"expected null: no action is being resolved in the {step} step")
        if pend is not None:
            actor = SIDES.index(pend["actor"])
        elif "actor" in acts:
            actor = SIDES.index(acts["actor"])
        elif step == "actions":
            actor = SIDES.index(to_move)
        else:
            actor = 0
        self.actor = actor
        if "actor" in acts and SIDES.index(acts["actor"]) != actor:
            self.fail("$.actions.actor", f"expected {_q(SIDES[actor])}, the actor of the pending "
                      f"action, got {_q(acts['actor'])}")
        if step == "actions" and actor != SIDES.index(to_move):
            self.fail("$.actions.actor", f"expected {_q(to_move)}: in the action step the player to "
                      "move is the chain's player (R10)")
        if step in _ACTOR_DECIDES and to_move != SIDES[actor]:
            self.fail("$.to_move", f"expected {_q(SIDES[actor])}: {_WHY_DECIDES[step]}")
        if step in ("escort", "nurses") and to_move != SIDES[1 - actor]:
            self.fail("$.to_move", f"expected {_q(SIDES[1 - actor])}: {_WHY_DECIDES[step]}")

        left, passes = self.left, self.passes = acts["left"], acts["passes"]
        mref = acts.get("motorized_refresh", {"counters": [], "due": 0})
        counters, due = self.counters, self.due = mref["counters"], mref["due"]
        kind = self.kind = None if pend is None else (
            "steal" if pend["kind"] in ("spy", "sturmwind") else pend["kind"])
        if step == "actions":
            if left < 1:
                self.fail("$.actions.left", "expected at least 1: the player to move in the action "
                          "step has an action (R10)")
            if passes > 1:
                self.fail("$.actions.passes", "expected 0 or 1: two passes in a row end the action "
                          "step (R7)")
        elif pend is not None and kind != "motorized_refresh":
            if left < 1:
                self.fail("$.actions.left", "expected at least 1: the action being resolved counts "
                          "until it is over (R10)")
            if passes != 0:
                self.fail("$.actions.passes", "expected 0: taking an action resets the run of "
                          "passes (R11)")
        if step in ("redraw", "rocket") and (counters or due):
            self.fail("$.actions.motorized_refresh", "expected no pending refresh between action "
                      "steps (R12: they happen when the chain ends)")
        if counters and left < 1:
            self.fail("$.actions.motorized_refresh.counters", "expected none: the chain is over "
                      "(left 0), so every pending refresh is due (R12)")
        if step not in ("redraw", "rocket"):
            # R10: the count grows only by Volunteers (+2, a Support card: it
            # stays exhausted for the rest of the turn) and Motorized Column
            # (+3, gone).
            volunteers = sum(1 for c, _, exh in self.table if c.side_id == actor and exh
                             and "volunteers" in c.type.abilities)
            motorized = sum(1 for c in self.gone if c.side_id == actor
                            and c.type.effect == "motorized_column")
            most = 1 + 2 * volunteers + 3 * motorized
            if left > most:
                self.fail("$.actions.left", f"expected at most {most}: the chain count grows only "
                          "by Volunteers (+2, exhausted on the table) and Motorized Column (+3, "
                          f"gone) (R10), got {left}")
            if len(counters) + due > motorized:
                self.fail("$.actions.motorized_refresh", f"{len(counters) + due} pending "
                          f"refreshes, but the {SIDES[actor]} player has played {motorized} "
                          "Motorized Column (R12)")
        if (due > 0) != (kind == "motorized_refresh"):
            self.fail("$.actions.motorized_refresh.due",
                      "expected at least 1: the Motorized Column refresh being chosen is due (R12)"
                      if due == 0 else
                      "expected 0: a refresh is due only while its Unit is being chosen (step "
                      "\"refresh\", pending kind \"motorized_refresh\", R12)")

    def pending(self) -> dict:
        """The action being resolved against the step and the table (R14-R21);
        returns the engine's form of it."""
        pend, kind, step, actor = self.pend, self.kind, self.step, self.actor
        table_of = self.table_of
        allowed = _STEP_KINDS[step]
        if kind not in allowed:
            names = " or ".join(_q(_json_kind(k)) for k in allowed)
            self.fail("$.pending.kind", f"expected {names} in step {_q(step)}, got "
                      f"{_q(pend['kind'])}")
        if pend["kind"] == "spy" and actor != 0:
            self.fail("$.pending.kind", "spy is the Polish steal; the German one is \"sturmwind\" "
                      "(R17)")
        if pend["kind"] == "sturmwind" and actor != 1:
            self.fail("$.pending.kind", "sturmwind is the German steal; the Polish one is \"spy\" "
                      "(R17)")
        number = pend.get("card")
        target = pend.get("target")
        defender = pend.get("defender", target)
        zone = pend.get("zone")
        dice = pend.get("dice", [])
        mods = pend.get("modifiers", [0, 0])
        # Once the modifier window has closed its priority passes are cleared.
        closed = 0
        passes = pend.get("window_passes", closed)
        escorted = pend.get("escorted", False)

        if kind == "motorized_refresh":
            if number is not None:
                self.fail("$.pending.card", "expected null: a Motorized Column refresh has no "
                          "acting card (the Motorized Column card is gone)")
        else:
            if number is None:
                self.fail("$.pending.card", f"expected the acting card of the {pend['kind']}, "
                          "got null")
            acting = self.card("$.pending.card", number)
            name = _title(acting)
            if acting.side_id != actor:
                self.fail("$.pending.card", f"expected a {SIDES[actor]} card (the actor's), got "
                          f"{name}")
            if kind in _KIND_EFFECT:
                if acting.type.effect != _KIND_EFFECT[kind]:
                    self.fail("$.pending.card", f"expected the {pend['kind'].replace('_', ' ')} "
                              f"card played, got {name}")
                played = {c.number for c in (self.events if kind == "hidden_fragments"
                                             else self.gone)}
                if number not in played:
                    listed = "events_in_play" if kind == "hidden_fragments" else "gone"
                    self.fail("$.pending.card", f"{name} was played, so it is in {listed}")
            else:
                ability = "spy" if actor == 0 else "sturmwind"
                ability = ability if kind == "steal" else _KIND_ABILITY[kind]
                if ability not in acting.type.abilities:
                    self.fail("$.pending.card", f"{name} has no {ability.title()} ability")
                if number not in table_of:
                    self.fail("$.pending.card", f"{name} is not on the table: an activated card "
                              "stands there")
                if not table_of[number][1]:
                    self.fail("$.pending.card", f"{name} is fresh on the table, but activating it "
                              "exhausted it (R9): mark it exhausted")
                here = table_of[number][0]
                if kind == "search" and here != "periphery":
                    self.fail("$.pending.card", f"{name} stands in the {here}: Search is in the "
                              "Periphery only (R16)")
                if kind == "steal" and here != HOME[1 - actor]:
                    self.fail("$.pending.card", f"{name} stands in the {here}: a steal is made from "
                              f"the enemy home zone, the {HOME[1 - actor]} (R17)")

        if kind == "attack" and step != "target":
            if target is None:
                self.fail("$.pending.target", "expected the enemy card attacked: the target is "
                          "named at the target step (R15a)")
            t = self.card("$.pending.target", target)
            if t.side_id == actor or target not in table_of:
                self.fail("$.pending.target", f"expected an enemy card on the table, got "
                          f"{_q(target)}")
            if table_of[target][0] != table_of[number][0]:
                self.fail("$.pending.target", f"{target} is in the {table_of[target][0]}, not in "
                          "the attacker's zone (R15a)")
            if defender is None:
                self.fail("$.pending.defender", "expected the defending card (the target unless "
                          "escorted)")
            d = self.card("$.pending.defender", defender)
            if escorted:
                if step == "escort":
                    self.fail("$.pending.escorted", "expected false: Escort is being decided now")
                if (defender == target or d.side_id != t.side_id or defender not in table_of
                        or table_of[defender][0] != table_of[target][0]):
                    self.fail("$.pending.defender", "expected the escort: a card of the target's "
                              "side in the same zone, other than the target (R15b)")
                if "escort" not in d.type.abilities or not table_of[defender][1]:
                    self.fail("$.pending.defender", f"{defender} escorts, so it has Escort and is "
                              "exhausted (R15b)")
            elif defender != target:
                self.fail("$.pending.defender", f"expected {_q(target)}, the target: no Escort was "
                          "used (set escorted to true if it was)")
        else:
            for key in ("target", "defender"):
                if pend.get(key) is not None:
                    self.fail(f"$.pending.{key}", "expected null: "
                              + ("the target is being chosen now" if kind == "attack"
                                 else "only an attack has a target"))
            if escorted:
                self.fail("$.pending.escorted", "expected false: only an attack can be escorted, "
                          "once its target is named")

        if kind == "movement":
            if step == "zone" and zone is not None:
                self.fail("$.pending.zone", "expected null: the destination is being chosen now")
            if step == "motorcycle":
                if zone is None:
                    self.fail("$.pending.zone", "expected the destination chosen (R14: Motorcycle "
                              "is played once it is declared)")
                here = table_of[number][0]
                if zone not in _ADJACENT[here]:
                    self.fail("$.pending.zone", f"expected a zone adjacent to the {here} "
                              f"({', '.join(_ADJACENT[here])}, R1), got {_q(zone)}")
        elif zone is not None:
            self.fail("$.pending.zone", "expected null: only a movement has a destination")

        full = 2 if kind == "attack" else 1
        if step == "roll":
            fits = len(dice) < full
        elif step == "modifiers":
            fits = len(dice) == full
        elif step == "nurses":
            fits = len(dice) in (0, 2)  # none after Ambush! (R15c)
        else:
            fits = not dice
        if not fits:
            self.fail("$.pending.dice", f"{len(dice)} dice do not fit the {step} step of a "
                      f"{pend['kind']} ({full} die{'s' * (full > 1)} rolled before the modifier "
                      "window)")
        sides = self.cfg.dice_sides
        for i, v in enumerate(dice):
            if v > sides:
                self.fail(f"$.pending.dice[{i}]", f"expected 1..{sides} (the die has {sides} "
                          f"sides), got {v}")
        if any(mods) and step not in ("modifiers", "nurses"):
            self.fail("$.pending.modifiers", "expected [0, 0]: modifiers are played in the "
                      "modifier window, after the dice (R18)")
        if mods[1] and kind != "attack":
            self.fail("$.pending.modifiers[1]", "expected 0: only an attack has a second roll "
                      "(R18)")
        self.modifiers_played(kind, actor, number, defender if escorted else None, dice, mods)
        if step == "nurses" and passes != closed:
            self.fail("$.pending.window_passes", "expected 0: the modifier window, if any, "
                      "has closed (R18)")
        if passes and step not in ("modifiers", "nurses"):
            self.fail("$.pending.window_passes", "expected 0: priority passes happen in the "
                      "modifier window (R18)")
        if passes > 1 and step == "modifiers":
            self.fail("$.pending.window_passes", "expected 0 or 1: two passes in a row close the "
                      "window (R18)")

        def index(num):
            return -1 if num is None else self.by_number[num].global_index

        named = kind == "attack" and step != "target"
        return {"kind": kind, "actor": actor, "card": index(number),
                "target": index(target) if named else -1,
                "defender": index(defender) if named else -1,
                "zone": zone, "dice": list(dice), "modifiers": list(mods),
                "window_passes": passes, "escorted": bool(escorted)}

    def modifiers_played(self, kind, actor, acting, escort, dice, mods) -> None:
        """R18: each modifier is explained by cards played: Good Luck (+2 to
        your roll) and Bad Luck (-2 to the enemy's) are gone once played,
        Assistance (+1) exhausts a card of yours on the table."""
        if not dice and any(mods):
            self.fail("$.pending.modifiers", "expected [0, 0]: no die was rolled, so no "
                      "modifier window opened (R15c, R18)")
        for k in (0, 1) if kind == "attack" else (0,):
            side = actor if k == 0 else 1 - actor
            good = sum(1 for c in self.gone if c.side_id == side and c.type.effect == "good_luck")
            bad = sum(1 for c in self.gone if c.side_id != side and c.type.effect == "bad_luck")
            assist = sum(1 for c, _, exh in self.table if c.side_id == side and exh
                         and "assistance" in c.type.abilities
                         and c.number not in (acting, escort))
            lo, hi = -2 * bad, 2 * good + assist
            whose = "attacker's" if k == 0 and kind == "attack" else (
                "defender's" if k == 1 else "actor's")
            why = (f"the {SIDES[side]} side has {good} Good Luck gone (+2 each) and {assist} "
                   f"exhausted card{'s' * (assist != 1)} with Assistance (+1 each), the "
                   f"{SIDES[1 - side]} side {bad} Bad Luck gone (-2 each) (R18)")
            if not lo <= mods[k] <= hi:
                self.fail(f"$.pending.modifiers[{k}]", f"expected {lo}..{hi} on the {whose} roll: "
                          f"{why}, got {mods[k]}")
            if not assist and mods[k] % 2:
                self.fail(f"$.pending.modifiers[{k}]", f"expected an even number on the {whose} "
                          f"roll: only Assistance gives an odd one and {why}, got {mods[k]}")

    # -- the position -----------------------------------------------------------

    def build(self, seed: int) -> Core:
        """Core.from_fields of the checked file, the opponent's hidden cards
        resampled (R26), and the R29/R30 check that there is a decision."""
        cfg, step, o = self.cfg, self.step, self.o
        n = len(self.present)
        loc = ["absent"] * n
        exhausted = [False] * n
        drawn = [False] * n
        for c in self.cs.cards:
            if self.present[c.global_index]:
                loc[c.global_index] = "deck"
        for c in self.hand:
            loc[c.global_index] = "hand"
        for c, zone, exh in self.table:
            loc[c.global_index] = zone
            exhausted[c.global_index] = bool(exh)
        for c in self.gone:
            loc[c.global_index] = "gone"
        for c in self.events:
            loc[c.global_index] = "event"
        for number in self.drawn_list:
            drawn[self.by_number[number].global_index] = True
        # The opponent's unseen cards: START cards first (R26), then cards that
        # open the window the opponent may be deciding, then the rest; the
        # split is made uniform by the resampling below.
        wanted = _WINDOW_EFFECTS.get(step, ()) if self.to_move == self.oname else ()
        unseen = sorted(self.unseen, key=lambda c: (not c.start, c.type.effect not in wanted,
                                                    c.global_index))
        opp_hand = unseen[:self.data["hand_sizes"][self.oname]]
        for c in opp_hand:
            loc[c.global_index] = "hand"
        if step == "redraw":
            for c in [c for c in opp_hand if not c.start][:self.drawn_now[o]]:
                drawn[c.global_index] = True
        frag = self.data["fragments"]
        fields = {
            "loc": loc, "exhausted": exhausted, "drawn": drawn,
            "fragments": {"pool": cfg.fragments - self.on_cards,
                          **{k: frag[k] for k in FRAGMENT_KEYS}},
            "rocket_order": self.order, "turn": self.turn, "phase": step,
            "player": self.actor if self.to_move is None else SIDES.index(self.to_move),
            "draw_side": 1, "draw_left": 0, "redeal": False,
            "drawn_count": list(self.drawn_now),
            "redraw_used": [self.used["polish"], self.used["german"]],
            "redraw_choice": self.redraw_choice, "actor": self.actor,
            "actions_left": self.left, "passes": self.passes,
            "motorized": [self.counters.count(k) for k in (1, 2, 3)],
            "refresh_due": self.due,
            "wildhorn_played": "operation_wildhorn" in self.effects_in_play, "winner": -1,
            "pending": self.engine_pending,
        }
        try:
            core = Core.from_fields(cfg, fields)
        except WildhornError as err:
            self.fail(*_engine_path(str(err), self.where, cfg))
        core = core.resample(self.p, seed)

        # R29, R30: the engine never stops where there is nothing to decide.
        if core.is_chance():
            if len(core.chance_outcomes()) < 2:
                self.fail("$.step", f"the {step} step has a single outcome here, which the engine "
                          "applies at once (R30): write the position after it")
            return core
        legal = core.legal_actions()
        mover = core.current_player()
        if not legal:
            self.fail("$.step", f"the {self.to_move} player has no legal option at the {step} "
                      "step of this position")
        if len(legal) < 2:
            if mover == self.p:
                self.fail("$.step", f"the {self.to_move} player has a single option here "
                          f"({core.action_string(mover, legal[0])}), which the engine takes at "
                          "once (R29, R30): there is nothing to decide")
            self.fail("$.step", f"no hand the {self.to_move} player can hold gives a choice here, "
                      "so the engine would not stop at this step (R29, R30)")
        return core


def _title(card) -> str:
    """'PL04 Scouts'."""
    return f"{card.number} {card.type.name}"


def _json_kind(kind: str | None) -> str:
    return "spy or sturmwind" if kind == "steal" else str(kind)


def _engine_path(message: str, where: dict[str, str], cfg) -> tuple[str, str]:
    """Safety net: a JSON path for a message of Core.from_fields."""
    field, _, rest = message.partition(":")
    head = re.match(r"[A-Za-z_]+", field)
    if head and head.group(0) == "pending":
        return "$." + field.strip(), rest.strip() or message
    if head and head.group(0) in _FIELD_PATHS and field != "position":
        path = _FIELD_PATHS[head.group(0)]
        sub = field[len(head.group(0)):]
        if head.group(0) == "fragments" and sub.startswith("."):
            path += sub
        return path, rest.strip() or message
    m = re.search(r"card (\d+)", rest)
    if m:
        g = int(m.group(1))
        for c in cfg.card_set.cards:
            if c.global_index == g and c.number in where:
                return where[c.number], f"{c.number}: {rest.split(':', 2)[-1].strip()}"
    for word, path in (("pending", "$.pending"), ("fragment", "$.fragments"),
                       ("Rocket", "$.rockets"), ("turn", "$.turn"), ("phase", "$.step"),
                       ("player", "$.to_move")):
        if word in rest:
            return path, rest.strip()
    return "$", message


# --------------------------------------------------------------------------
# Random states
# --------------------------------------------------------------------------


def write_random_states(count: int, seed: int, out_dir: str | os.PathLike,
                        params: dict | None = None) -> list[Path]:
    """Writes ``count`` state files from seeded random games; returns their paths.

    Games of ``params`` (default: the rulebook game) are played with uniform
    random decisions and chance drawn with its probabilities, all from
    ``random.Random(seed)``.  At a decision point a file is written, from the
    view of the side to move, with a probability that favours the rarer
    steps (windows, redraw) over the common action step, so the files cover
    every kind of decision.  Files are ``state-0000.json`` ... in
    ``out_dir`` (created if needed); the same seed gives the same files.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ParameterError(f"count: expected a non-negative integer, got {count!r}")
    rng = random.Random(seed)
    cfg = make_config(params)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    games = 0
    while len(paths) < count:
        games += 1
        if games > 1000 + 10 * count:
            raise ParameterError("write_random_states: these games have no decision points")
        core = Core(cfg)
        while not core.is_terminal() and len(paths) < count:
            if core.is_chance():
                outcomes = core.chance_outcomes()
                action = rng.choices([a for a, _ in outcomes], [w for _, w in outcomes])[0]
            else:
                if rng.random() < _WRITE_CHANCE.get(core.phase, _WRITE_CHANCE_DEFAULT):
                    path = out / f"state-{len(paths):04d}.json"
                    dump(core, core.current_player(), path)
                    paths.append(path)
                action = rng.choice(core.legal_actions())
            core.apply(action)
    return paths
