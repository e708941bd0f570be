"""State files (solver.state_io): round trips, what a file may reveal, the
bad-file corpus, the schema, random state files and the examples.

The round trip is the central property: for a position s at a decision
point and a player p, ``from_json(to_json(s, p))`` is a position with the
same information state for p (R25, R26), whatever the opponent holds.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from collections import Counter
from pathlib import Path

import jsonschema
import pyspiel
import pytest

import solver  # noqa: F401  (registers the game)
from solver import state_io
from solver._core import Core, encode_action
from solver.cards import default_card_set_path
from solver.errors import ParameterError, StateFormatError
from solver.game import make_config
from solver.state_io.checker import engine_path
from playouts import playout, spots

HERE = Path(__file__).resolve().parent
BAD_STATES = HERE / "data" / "bad_states"
EXAMPLES = HERE.parent / "examples"
CARD_RE = re.compile(r"\b(?:PL|DE)\d\d\b")

# Chance of keeping a position of each step: the common steps rarely, so
# that many games (seeds) and every kind of step fit in a few seconds.
_SPREAD = {"actions": 0.04, "modifiers": 0.08, "roll": 0.1, "zone": 0.2, "redraw": 0.3,
           "refresh": 0.3, "motorcycle": 0.3, "target": 0.3, "ambush": 0.3}


def _positions(params, seeds, rate=_SPREAD, other=0.5):
    """(seed, Core) at the decision points and rocket/roll steps of seeded
    random games of ``params``, each kept with the chance ``rate`` gives
    its step (``other`` for the steps not named)."""
    cfg = make_config(params)
    for seed in seeds:
        rng = random.Random(seed)
        for core in playout(cfg, rng):
            if core.phase in state_io.STEPS and rng.random() < rate.get(core.phase, other):
                yield seed, core.copy()


def _hidden_from(core, player):
    """Card numbers ``player`` cannot see: the opponent's hand and deck."""
    num = {c.global_index: c.number for c in core.config.card_set.cards}
    other = 1 - player
    return {num[g] for g in core.cards_at("hand", other) + core.cards_at("deck", other)}


@pytest.fixture(scope="module")
def validator():
    return jsonschema.Draft202012Validator(state_io.schema())


# --------------------------------------------------------------------------
# Round trips and hidden information
# --------------------------------------------------------------------------


@pytest.mark.parametrize("params, seeds, minimum", [
    (None, range(60), 1000),
    ({"variant": "small"}, range(1000, 1100), 150),
])
def test_round_trip_keeps_the_information_state(params, seeds, minimum, validator):
    game = pyspiel.load_game("wildhorn", params or {})
    done = Counter()
    steps = set()
    for count, (seed, core) in enumerate(_positions(params, seeds)):
        state = game.state_from_core(core)
        for player in (0, 1):
            obj = state_io.to_json(state, player)
            # from_json validates every output against the schema (with its
            # $refs inlined, for speed); the file itself checks a sample.
            if count % 4 == 0:
                validator.validate(obj)
            back = state_io.from_json(obj, seed=seed * 7 + player)
            assert back.get_game().core_config.key == game.core_config.key
            want = state.information_state_string(player)
            assert back.information_state_string(player) == want, (obj, want)
            # Nothing of the opponent's hand or deck is written (R26).
            leaked = set(CARD_RE.findall(json.dumps(obj))) & _hidden_from(core, player)
            assert not leaked, (leaked, obj)
            assert sorted(obj["hand"]) == sorted(
                c.number for c in game.core_config.card_set.cards
                if core.location(c.global_index)[0] == "hand" and c.side_id == player)
            done[player] += 1
        steps.add(core.phase)
    assert min(done.values()) >= minimum
    if params is None:
        # every kind of decision point and both chance steps were written
        assert steps == set(state_io.STEPS), set(state_io.STEPS) - steps


def test_core_and_pyspiel_state_give_the_same_file(full_game):
    for _, core in _positions(None, range(3)):
        for player in (0, 1):
            assert state_io.to_json(core, player) == state_io.to_json(
                full_game.state_from_core(core), player)


def _redraw_pair():
    """Two positions of turn 1 after the Polish redraw decision, one kept,
    one redrew, with the German player to decide."""
    cfg = make_config()
    for seed in range(50):
        core = Core(cfg)
        rng = random.Random(seed)
        while core.is_chance():
            outcomes = core.chance_outcomes()
            core.apply(rng.choices([a for a, _ in outcomes], [w for _, w in outcomes])[0])
        assert core.phase == "redraw" and core.current_player() == 0
        keep = core.applied(encode_action("DECLINE"))
        redraw = core.applied(encode_action("REDRAW"))
        if keep.phase == "redraw" and redraw.phase == "redraw":
            return keep, redraw
    raise AssertionError("no redraw decision found")


def test_the_secret_redraw_decision_is_not_written():
    keep, redraw = _redraw_pair()
    # R5: the German player cannot tell the two apart.
    assert state_io.to_json(keep, 1) == state_io.to_json(redraw, 1)
    assert "redraw_choice" not in state_io.to_json(keep, 1)
    # The Polish player knows their own decision.
    assert state_io.to_json(keep, 0)["redraw_choice"] == {"polish": False}
    assert state_io.to_json(redraw, 0)["redraw_choice"] == {"polish": True}
    assert len(state_io.to_json(keep, 0)["drawn_this_turn"]) == 5
    for core in (keep, redraw):
        for player in (0, 1):
            back = state_io.from_json(state_io.to_json(core, player), seed=3)
            assert back.information_state_string(player) == core.info_string(player)


def test_seeds_give_different_opponent_hands_with_the_same_information():
    picked = next(core for _, core in _positions(None, range(5), rate={}, other=1.0)
                  if core.phase == "actions" and core.turn == 2 and core.current_player() == 0)
    obj = state_io.to_json(picked, 0)
    seen = set(obj["hand"]) | set(obj["gone"]) | {e["card"] for e in obj["table"]}
    german_start = {c.number for c in picked.config.card_set.cards if c.start and c.side_id == 1}
    hands = set()
    for seed in range(20):
        state = state_io.from_json(obj, seed=seed)
        assert state.information_state_string(0) == picked.info_string(0)
        hand = frozenset(c.number for c in picked.config.card_set.cards
                         if c.side_id == 1 and state.core.location(c.global_index)[0] == "hand")
        assert len(hand) == obj["hand_sizes"]["german"]
        assert german_start - seen <= hand  # R26: unseen START cards are in hand
        hands.add(hand)
    assert len(hands) > 5


def test_same_seed_same_position():
    obj = json.loads((EXAMPLES / "german-bad-luck.json").read_text())
    assert state_io.from_json(obj, seed=11).core == state_io.from_json(obj, seed=11).core


# --------------------------------------------------------------------------
# The bad-file corpus
# --------------------------------------------------------------------------

BAD = {
    "not_json.json": "$",
    "not_an_object.json": "$",
    "wrong_version.json": "$.format",
    "missing_format.json": "$.format",
    "missing_key.json": "$.turn",
    "missing_nested_key.json": "$.table[1].exhausted",
    "misspelt_key.json": "$.turn",
    "unknown_key.json": "$.colour",
    "duplicate_key.json": "$.turn",
    "wrong_type.json": "$.turn",
    "wrong_type_nested.json": "$.table[0].exhausted",
    "unknown_card.json": "$.hand[2]",
    "not_a_card_number.json": "$.gone[0]",
    "opponent_card_in_hand.json": "$.hand[0]",
    "card_in_two_places.json": "$.table[7].card",
    "sixteen_fragments.json": "$.fragments",
    "negative_fragments.json": "$.fragments.base",
    "more_fragments_than_fired.json": "$.fragments",
    "hidden_without_hidden_fragments.json": "$.fragments.hidden",
    "wildhorn_not_played.json": "$.fragments.wildhorn",
    "wildhorn_gone.json": "$.gone[2]",
    "rockets_do_not_match_turn.json": "$.rockets",
    "rocket_revealed_twice.json": "$.rockets[1]",
    "turn_beyond_game.json": "$.turn",
    "support_outside_home_zone.json": "$.table[2].zone",
    "immediate_on_table.json": "$.table[7].card",
    "hand_does_not_add_up.json": "$.hand",
    "hand_size_not_hand.json": "$.hand_sizes.polish",
    "opponent_hand_does_not_add_up.json": "$.hand_sizes.german",
    "pending_in_action_step.json": "$.pending",
    "window_without_pending.json": "$.pending",
    "escort_decided_by_attacker.json": "$.to_move",
    "pending_card_in_hand.json": "$.pending.card",
    "die_beyond_sides.json": "$.pending.dice[0]",
    "nothing_to_decide.json": "$.step",
    "too_many_turns_for_rockets.json": "$.game.turns",
    "card_set_not_found.json": "$.card_set",
    "redraw_without_drawn_cards.json": "$.drawn_this_turn",
    "drawn_card_not_in_hand.json": "$.drawn_this_turn[0]",
    "opponent_secret_redraw_choice.json": "$.redraw_choice.german",
}


def test_every_bad_file_is_in_the_table():
    assert sorted(p.name for p in BAD_STATES.glob("*.json")) == sorted(BAD)


@pytest.mark.parametrize("name, path", sorted(BAD.items()))
def test_bad_file_names_the_json_path(name, path):
    file = BAD_STATES / name
    with pytest.raises(StateFormatError) as info:
        state_io.load(file)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{file}: {path}: "), message
    assert len(message) > len(f"{file}: {path}: ") + 10  # says what was expected


@pytest.mark.parametrize("name, path", sorted(BAD.items()))
def test_bad_state_as_object_or_text_says_state(name, path):
    text = (BAD_STATES / name).read_text()
    if name == "card_set_not_found.json":
        return  # the card set path is relative to the file
    with pytest.raises(StateFormatError, match=rf"^state: {re.escape(path)}: "):
        state_io.from_json(text)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return
    if name == "duplicate_key.json":
        return  # a dict cannot hold a repeated key
    with pytest.raises(StateFormatError, match=rf"^state: {re.escape(path)}: "):
        state_io.from_json(obj)


_ODD_VALUES = [None, True, False, 0, 1, 2, -1, 7, 99, 10**50, 1.5, "", "PL01", "DE23", "PL99",
               "forest", "base", "german", "attack", "modifiers", [], ["PL01"], {}, {"a": 1}]


_spots = spots


def _mutated(obj, rng):
    """``obj`` with one to three random edits (delete, duplicate, retype, nudge)."""
    obj = json.loads(json.dumps(obj))
    for _ in range(rng.randint(1, 3)):
        parent, key = rng.choice(list(_spots(obj)))
        value = parent[key]
        roll = rng.random()
        if roll < 0.2:
            del parent[key]
        elif roll < 0.3 and isinstance(parent, list):
            parent.append(value)
        elif roll < 0.5 and isinstance(value, int) and not isinstance(value, bool):
            parent[key] = value + rng.choice((-2, -1, 1, 2))
        elif roll < 0.6 and isinstance(value, str) and CARD_RE.fullmatch(value):
            parent[key] = f"{rng.choice(('PL', 'DE'))}{rng.randint(1, 23):02d}"
        else:
            parent[key] = rng.choice(_ODD_VALUES)
    return obj


def test_no_other_exception_for_any_mutated_file():
    """No input gives anything but a one-line StateFormatError (or a state)."""
    rng = random.Random(4)
    objs = [state_io.to_json(core, seed % 2) for seed, core in _positions(None, range(4))]
    objs += [state_io.to_json(core, 1) for _, core in _positions({"variant": "small"}, range(9))]
    refused = Counter()
    for i in range(1500):
        try:
            state_io.from_json(_mutated(rng.choice(objs), rng), seed=i)
        except StateFormatError as err:
            message = str(err)
            assert "\n" not in message and message.startswith("state: $"), message
            refused[message.split(": ")[1].split(".")[1] if "." in message.split(": ")[1]
                    else "$"] += 1
    assert sum(refused.values()) > 1000 and len(refused) > 10


def test_unreadable_file(tmp_path):
    # a file error names the file, and no JSON path (nothing of it was read)
    with pytest.raises(StateFormatError, match=r"missing.json: cannot read the file: No such"):
        state_io.load(tmp_path / "missing.json")
    (tmp_path / "latin1.json").write_bytes(b'{"format": "\xff"}')
    with pytest.raises(StateFormatError, match=r"latin1.json: \$: not valid JSON"):
        state_io.load(tmp_path / "latin1.json")


def test_engine_rejections_come_back_with_a_json_path():
    """The safety net for whatever Core.from_fields refuses."""
    cfg = make_config()
    for fields, path in (
        ({"pending": {"kind": "search", "dice": [9]}}, "$.pending.dice[0]"),
        ({"fragments": {"pool": 15, "periphery": 99, "hidden": 0, "forest": 0,
                        "wildhorn": 0, "base": 0}}, "$.fragments.periphery"),
        ({"actions_left": 999}, "$.actions.left"),
    ):
        with pytest.raises(Exception) as info:
            Core.from_fields(cfg, fields)
        got, _ = engine_path(str(info.value), {}, cfg)
        assert got == path


# --------------------------------------------------------------------------
# Schema, files, game parameters
# --------------------------------------------------------------------------


def test_schema_is_valid_and_documented():
    schema = state_io.schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["format"]["const"] == state_io.FORMAT

    def undocumented(node, path):
        if isinstance(node, dict):
            for key, sub in node.get("properties", {}).items():
                if "description" not in sub and not path.endswith(("hand_sizes", "redraw_used",
                                                                   "redraw_choice", "start_fragments")):
                    yield f"{path}.{key}"
                yield from undocumented(sub, f"{path}.{key}")
            for key in ("items", "additionalProperties"):
                if isinstance(node.get(key), dict):
                    yield from undocumented(node[key], path)

    assert list(undocumented(schema, "$")) == []
    # Every key the contract table requires is required by the schema.
    assert set(schema["required"]) == {
        "format", "perspective", "turn", "rockets", "fragments", "hand", "hand_sizes",
        "redraw_used", "table", "gone", "to_move", "step", "actions", "pending"}


def test_examples_load_and_validate(validator):
    files = sorted(EXAMPLES.glob("*.json"))
    assert 3 <= len(files) <= 5
    readme = (EXAMPLES / "README.md").read_text()
    for file in files:
        assert file.name in readme
        validator.validate(json.loads(file.read_text()))
        state = state_io.load(file)
        player = state.current_player()
        assert player in (0, 1) and len(state.legal_actions()) >= 2
        obj = json.loads(file.read_text())
        assert state_io.SIDES[player] == obj["to_move"]
        # the file round-trips through to_json with the same information
        again = state_io.to_json(state, obj["perspective"])
        assert set(again["hand"]) == set(obj["hand"])
        assert state_io.from_json(again).information_state_string(
            state_io.SIDES.index(obj["perspective"])) == state.information_state_string(
            state_io.SIDES.index(obj["perspective"]))


def test_dump_and_load(tmp_path, full_game):
    _, core = next(_positions(None, [5], rate={}, other=1.0))
    state = full_game.state_from_core(core)
    path = tmp_path / "state.json"
    state_io.dump(state, 0, path)
    text = path.read_text()
    assert text.endswith("}\n") and json.loads(text) == state_io.to_json(state, 0)
    assert state_io.load(path).information_state_string(0) == state.information_state_string(0)
    with open(path) as handle:
        assert state_io.load(handle).information_state_string(0) == \
            state.information_state_string(0)


def test_to_json_refuses_what_has_no_file_form(full_game):
    with pytest.raises(ParameterError):
        state_io.to_json(full_game.new_initial_state(), 0)  # the draw step
    with pytest.raises(ParameterError):
        state_io.to_json(full_game.new_initial_state(), 2)
    with pytest.raises(ParameterError):
        state_io.to_json("not a state", 0)


@pytest.mark.parametrize("params, game_key", [
    (None, None),
    ({"variant": "small"}, {"variant": "small"}),
    ({"turns": 2, "dice": 4, "draw": 7}, {"turns": 2, "draw": 7, "dice": 4}),
    ({"redraw": 0, "rockets": "2;2;3;4;4"}, {"rockets": [2, 2, 3, 4, 4], "redraw": False}),
])
def test_game_parameters_are_written_and_rebuilt(params, game_key):
    game = pyspiel.load_game("wildhorn", params or {})
    _, core = next(_positions(params, range(3), rate={}, other=1.0))
    obj = state_io.to_json(core, 0)
    assert obj.get("game") == game_key
    assert obj["card_set"] == "default"
    back = state_io.from_json(obj)
    assert back.get_game().core_config.key == game.core_config.key


def test_card_set_path_relative_to_the_state_file(tmp_path):
    shutil.copy(default_card_set_path(), tmp_path / "my-cards.json")
    source = str(tmp_path / "my-cards.json")
    game = pyspiel.load_game("wildhorn", {"card_set": source})
    _, core = next(_positions({"card_set": source}, [1], rate={}, other=1.0))
    obj = state_io.to_json(core, 1)
    assert obj["card_set"] == source and "game" not in obj
    assert state_io.from_json(obj).get_game().core_config.key == game.core_config.key
    obj["card_set"] = "my-cards.json"
    (tmp_path / "state.json").write_text(json.dumps(obj))
    state = state_io.load(tmp_path / "state.json")
    assert state.information_state_string(1) == core.info_string(1)


# --------------------------------------------------------------------------
# Random state files
# --------------------------------------------------------------------------


def test_write_random_states_is_deterministic(tmp_path):
    first = state_io.write_random_states(40, 7, tmp_path / "a")
    second = state_io.write_random_states(40, 7, tmp_path / "b")
    other = state_io.write_random_states(40, 8, tmp_path / "c")
    assert len(first) == len(second) == 40
    assert [p.name for p in first] == [p.name for p in second]
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]
    assert [p.read_bytes() for p in first] != [p.read_bytes() for p in other]
    steps = Counter()
    for path in first:
        obj = json.loads(path.read_text())
        assert obj["perspective"] == obj["to_move"]  # the side to move's view
        steps[obj["step"]] += 1
        state = state_io.load(path)
        assert state.current_player() == state_io.SIDES.index(obj["to_move"])
    assert len(steps) >= 6, steps  # varied kinds of decision points
