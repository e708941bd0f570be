"""Tests of the card-set loader (solver/cards.py) and the default card set.

Layers: the packaged default set against docs/card-sets.md; the Python
API (lookups, class keys, core arrays); and a corpus of bad files, each of
which must be rejected with a one-line CardSetError naming the bad JSON path
(R28 and the typo guards).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from solver.cards import (
    EFFECT_NAMES,
    NUM_CARD_SLOTS,
    Card,
    CardSet,
    default_card_set_path,
    load_card_set,
)
from solver.errors import (
    CardSetError,
    IllegalActionError,
    ParameterError,
    SerializationError,
    StateFormatError,
    WildhornError,
)

# --------------------------------------------------------------------------
# Expected content, transcribed from the card list (docs/card-sets.md)
# --------------------------------------------------------------------------


def _numbers(prefix: str, first: int, last: int) -> list[str]:
    return [f"{prefix}{n:02d}" for n in range(first, last + 1)]


EXPECTED_DISPLAY_NAMES: dict[str, str] = {}
for _prefix, _rows in (
    (
        "PL",
        [
            (1, 1, "Scouts"),
            (2, 2, "Partisans"),
            (3, 3, "Staff"),
            (4, 6, "Scouts"),
            (7, 9, "Partisans"),
            (10, 11, "Unseen and Silent"),
            (12, 12, "Staff"),
            (13, 14, "Volunteers"),
            (15, 15, "Operation Wildhorn III"),
            (16, 16, "Hidden Fragments"),
            (17, 17, "High Morale"),
            (18, 19, "Good Luck"),
            (20, 20, "Bad Luck"),
            (21, 21, "Ambush!"),
            (22, 22, "Witnesses"),
            (23, 23, "Nurses"),
        ],
    ),
    (
        "DE",
        [
            (1, 1, "Recon"),
            (2, 2, "Soldiers"),
            (3, 3, "Staff"),
            (4, 5, "Recon"),
            (6, 8, "Soldiers"),
            (9, 10, "SS Stormtroopers"),
            (11, 11, "Staff"),
            (12, 13, "Volunteers"),
            (14, 14, "Motorized Column"),
            (15, 15, "High Morale"),
            (16, 17, "Good Luck"),
            (18, 19, "Bad Luck"),
            (20, 20, "Ambush!"),
            (21, 21, "Nurses"),
            (22, 23, "Motorcycle"),
        ],
    ),
):
    for _first, _last, _name in _rows:
        for _number in _numbers(_prefix, _first, _last):
            EXPECTED_DISPLAY_NAMES[_number] = _name

BOTH_SIDES = {
    "attack",
    "movement",
    "search",
    "command",
    "volunteers",
    "assistance",
    "escort",
    "good_luck",
    "bad_luck",
    "ambush",
    "nurses",
    "high_morale",
}
POLISH_ONLY = {"spy", "witnesses", "operation_wildhorn", "hidden_fragments"}
GERMAN_ONLY = {"sturmwind", "motorized_column", "motorcycle"}

# (kind, bullets, abilities) per display name of Units and Support (docs/card-sets.md).
EXPECTED_UNITS: dict[tuple[str, str], tuple[str, int, dict[str, Any]]] = {
    ("polish", "Scouts"): ("unit", 1, {"movement": True, "search": 4}),
    ("polish", "Partisans"): ("unit", 2, {"movement": True, "attack": True, "escort": True}),
    ("polish", "Unseen and Silent"): ("unit", 3, {"movement": True, "attack": True, "spy": 5}),
    ("german", "Recon"): ("unit", 1, {"movement": True, "search": 4}),
    ("german", "Soldiers"): ("unit", 2, {"movement": True, "attack": True, "escort": True}),
    ("german", "SS Stormtroopers"): ("unit", 3, {"movement": True, "attack": True, "sturmwind": 5}),
    ("polish", "Staff"): ("support", 0, {"command": True, "assistance": True}),
    ("german", "Staff"): ("support", 0, {"command": True, "assistance": True}),
    ("polish", "Volunteers"): ("support", 0, {"volunteers": True, "assistance": True}),
    ("german", "Volunteers"): ("support", 0, {"volunteers": True, "assistance": True}),
}


@pytest.fixture(scope="module")
def default() -> CardSet:
    return load_card_set()


def _default_data() -> dict[str, Any]:
    return json.loads(default_card_set_path().read_text(encoding="utf-8"))


# --------------------------------------------------------------------------
# Errors module
# --------------------------------------------------------------------------


def test_error_hierarchy() -> None:
    for cls in (
        CardSetError,
        IllegalActionError,
        SerializationError,
        StateFormatError,
        ParameterError,
    ):
        assert issubclass(cls, WildhornError)
        assert cls.__doc__
    assert issubclass(WildhornError, ValueError)


# --------------------------------------------------------------------------
# The default card set against its card list (docs/card-sets.md)
# --------------------------------------------------------------------------


def test_default_loads_from_name_and_path(default: CardSet) -> None:
    assert default.name == "default"
    path = default_card_set_path()
    assert path.is_file() and path.name == "cards-default.json"
    assert default.path == path
    assert load_card_set(path) == default
    assert load_card_set(str(path)) == default


def test_default_counts(default: CardSet) -> None:
    assert len(default.cards) == 46
    for side_id, prefix in ((0, "PL"), (1, "DE")):
        cards = default.side_cards(side_id)
        assert len(cards) == 23
        assert [c.number for c in cards] == _numbers(prefix, 1, 23)
        assert all(c.side_id == side_id for c in cards)


def test_default_start_cards(default: CardSet) -> None:
    starts = [c.number for c in default.cards if c.start]
    assert starts == ["PL01", "PL02", "PL03", "DE01", "DE02", "DE03"]


def test_default_card_list_matches_cards_md(default: CardSet) -> None:
    assert {c.number: c.type.name for c in default.cards} == EXPECTED_DISPLAY_NAMES


def test_default_units_and_support(default: CardSet) -> None:
    seen = set()
    for card in default.cards:
        t = card.type
        key = (t.side, t.name)
        if t.kind in ("unit", "support"):
            assert EXPECTED_UNITS[key] == (t.kind, t.bullets, dict(t.abilities)), card.number
            assert t.effect is None
            seen.add(key)
        else:
            assert t.bullets == 0 and not t.abilities and t.effect is not None
    assert seen == set(EXPECTED_UNITS)


@pytest.mark.parametrize(
    "number,bullets",
    [
        ("PL01", 1),
        ("PL02", 2),
        ("PL03", 0),
        ("PL13", 0),
        ("DE02", 2),
        ("DE06", 2),
        ("DE01", 1),
        ("DE12", 0),
    ],
)
def test_default_bullets(default: CardSet, number: str, bullets: int) -> None:
    assert default.by_number(number).type.bullets == bullets


def test_default_abilities_per_side(default: CardSet) -> None:
    for side_id, only in ((0, POLISH_ONLY), (1, GERMAN_ONLY)):
        names: set[str] = set()
        for card in default.side_cards(side_id):
            names.update(card.type.abilities)
            if card.type.effect:
                names.add(card.type.effect)
        assert names == BOTH_SIDES | only
    assert default.by_number("PL22").type.effect == "witnesses"
    assert {c.number for c in default.cards if c.type.effect == "motorcycle"} == {"DE22", "DE23"}


def test_default_rockets(default: CardSet) -> None:
    assert default.fragments == 15
    assert default.rockets == (1, 2, 3, 4, 5)
    assert sum(default.rockets) == 15


def test_default_types_have_text() -> None:
    data = _default_data()
    for key, t in data["types"].items():
        assert t.get("text", "").strip(), key
    # Every type key is unique by construction (JSON object) and has one side;
    # display names may repeat across sides only.
    names = [(t["side"], t["name"]) for t in data["types"].values()]
    assert len(names) == len(set(names))


# --------------------------------------------------------------------------
# API
# --------------------------------------------------------------------------


def test_card_fields(default: CardSet) -> None:
    card = default.by_number("DE09")
    assert isinstance(card, Card)
    assert (card.number, card.index, card.side, card.side_id, card.start) == (
        "DE09",
        8,
        "german",
        1,
        False,
    )
    assert card.global_index == 23 + 8
    assert [c.global_index for c in default.cards] == list(range(46))


def test_by_number_unknown(default: CardSet) -> None:
    with pytest.raises(CardSetError, match="unknown card number 'PL99'"):
        default.by_number("PL99")


def test_side_cards_rejects_bad_side(default: CardSet) -> None:
    with pytest.raises(ParameterError):
        default.side_cards(2)


def test_objects_are_read_only(default: CardSet) -> None:
    card = default.by_number("PL01")
    with pytest.raises(AttributeError):
        card.start = False  # type: ignore[misc]
    with pytest.raises(TypeError):
        card.type.abilities["attack"] = True  # type: ignore[index]
    hash(card)  # cards can be used in sets and as dict keys


def test_class_key_r27(default: CardSet) -> None:
    pl04, pl05, pl01 = (default.by_number(n) for n in ("PL04", "PL05", "PL01"))
    assert default.class_key(pl04) == default.class_key(pl05)
    assert default.class_key(pl01) != default.class_key(pl04)  # START differs
    assert default.class_key(pl01, with_start=False) == default.class_key(pl04, with_start=False)
    # Same display name, different owner: never interchangeable.
    assert default.class_key(default.by_number("PL18")) != default.class_key(
        default.by_number("DE16")
    )
    hash(default.class_key(pl01))


def test_core_arrays(default: CardSet) -> None:
    a = default.to_core_arrays()
    per_card = [k for k, v in a.items() if isinstance(v, list) and k != "rockets"]
    assert set(per_card) == {
        "present",
        "side",
        "kind",
        "bullets",
        "start",
        "move",
        "attack",
        "command",
        "volunteers",
        "assistance",
        "escort",
        "search",
        "steal",
        "effect",
        "hand_class",
    }
    for name in per_card:
        assert len(a[name]) == NUM_CARD_SLOTS == 46, name
        assert all(type(x) is int for x in a[name]), name
    assert a["rockets"] == [1, 2, 3, 4, 5] and a["fragments"] == 15
    assert a["present"] == [1] * 46
    assert a["side"] == [0] * 23 + [1] * 23
    g = {c.number: c.global_index for c in default.cards}
    assert a["kind"][g["PL01"]] == 0 and a["kind"][g["PL03"]] == 1
    assert a["kind"][g["PL15"]] == 2 and a["kind"][g["DE22"]] == 3
    assert a["search"][g["PL01"]] == 4 and a["steal"][g["PL10"]] == 5 and a["steal"][g["DE09"]] == 5
    assert a["move"][g["PL03"]] == 0 and a["command"][g["PL03"]] == 1
    assert a["volunteers"][g["DE12"]] == 1 and a["escort"][g["DE02"]] == 1
    assert a["effect"][g["PL15"]] == EFFECT_NAMES.index("operation_wildhorn") == 7
    assert a["effect"][g["DE14"]] == 10 and a["effect"][g["DE22"]] == 6
    assert sum(a["start"]) == 6


def test_hand_class(default: CardSet) -> None:
    hc = default.to_core_arrays()["hand_class"]
    g = {c.number: c.global_index for c in default.cards}
    assert hc[g["PL04"]] == hc[g["PL05"]] == hc[g["PL06"]]
    assert hc[g["PL01"]] != hc[g["PL04"]]
    # Equal classes exactly when class keys are equal.
    for x in default.cards:
        for y in default.cards:
            same = default.class_key(x) == default.class_key(y)
            assert (hc[x.global_index] == hc[y.global_index]) == same
    # Dense, numbered from 0 in order of first appearance.
    first_seen: list[int] = []
    for c in hc:
        if c not in first_seen:
            first_seen.append(c)
    assert first_seen == list(range(len(first_seen)))


def test_gaps_and_partial_sides(tmp_path: Path) -> None:
    data = _default_data()
    data["cards"] = [c for c in data["cards"] if c["number"] not in ("PL19", "DE07")]
    path = tmp_path / "gaps.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    cs = load_card_set(path)
    assert len(cs.cards) == 44
    a = cs.to_core_arrays()
    assert a["present"][18] == 0 and a["present"][23 + 6] == 0
    assert a["hand_class"][18] == -1 and a["side"][23 + 6] == 1
    assert a["kind"][18] == 0 and a["effect"][18] == 0 and a["effect"][17] == 1
    assert sum(a["present"]) == 44
    assert len(cs.side_cards(0)) == 22


def test_start_may_be_omitted_and_any_kind(tmp_path: Path) -> None:
    data = _default_data()
    for card in data["cards"]:
        if not card["start"]:
            del card["start"]
    # START on an Immediate card is allowed; only the count is fixed (R28).
    data["cards"][2]["start"] = False
    data["cards"][17]["start"] = True  # PL18 Good Luck
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    cs = load_card_set(path)
    assert [c.number for c in cs.side_cards(0) if c.start] == ["PL01", "PL02", "PL18"]


def test_rockets_at_the_limit_are_accepted(tmp_path: Path) -> None:
    data = _default_data()
    data["rockets"] = [4, 4, 4, 3, 6]  # four largest: 6+4+4+4 = 18 > 15
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CardSetError, match="rockets"):
        load_card_set(path)
    data["rockets"] = [4, 4, 4, 3, 1]  # 15 == fragments
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_card_set(path).rockets == (4, 4, 4, 3, 1)
    data["rockets"] = [7, 8]  # fewer than four: all of them count
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_card_set(path).rockets == (7, 8)


def test_missing_file_and_bad_source(tmp_path: Path) -> None:
    with pytest.raises(CardSetError, match="cannot read"):
        load_card_set(tmp_path / "nope.json")
    with pytest.raises(ParameterError):
        load_card_set(42)  # type: ignore[arg-type]


# --------------------------------------------------------------------------
# Corpus of bad files
# --------------------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], Any]


def _card(data: dict[str, Any], number: str) -> dict[str, Any]:
    return next(c for c in data["cards"] if c["number"] == number)


def _set(obj: dict[str, Any], key: str, value: Any) -> None:
    obj[key] = value


BAD_FILES: list[tuple[str, Mutation | str, str]] = [
    # (id, mutation of the default data or raw file text, expected path in message)
    ("not-json", '{"format": "wildhorn-cards/1", ', "line 1"),
    ("not-json-nan", '{"format": "wildhorn-cards/1", "fragments": NaN}', "NaN"),
    ("top-level-array", "[1, 2]", "(top level)"),
    ("wrong-format", lambda d: _set(d, "format", "wildhorn-cards/2"), "format"),
    ("missing-format", lambda d: d.pop("format"), "format"),
    ("missing-key", lambda d: d.pop("fragments"), "fragments"),
    ("unknown-key", lambda d: _set(d, "fragmnets", 15), "fragmnets"),
    (
        "unknown-type-key",
        lambda d: _set(d["types"]["Scouts"], "bulets", 1),
        'types["Scouts"].bulets',
    ),
    ("unknown-card-key", lambda d: _set(d["cards"][4], "strat", True), "cards[4].strat"),
    ("duplicate-json-key", '{"format": "wildhorn-cards/1", "name": "a", "name": "b"}', "name"),
    ("wrong-type-fragments", lambda d: _set(d, "fragments", "15"), "fragments"),
    ("fragments-bool", lambda d: _set(d, "fragments", True), "fragments"),
    ("fragments-too-many", lambda d: _set(d, "fragments", 64), "fragments"),
    (
        "search-not-int",
        lambda d: _set(d["types"]["Scouts"]["abilities"], "search", "x"),
        'types["Scouts"].abilities.search',
    ),
    (
        "search-float",
        lambda d: _set(d["types"]["Recon"]["abilities"], "search", 4.0),
        'types["Recon"].abilities.search',
    ),
    (
        "flag-false",
        lambda d: _set(d["types"]["Scouts"]["abilities"], "attack", False),
        'types["Scouts"].abilities.attack',
    ),
    ("duplicate-number", lambda d: _set(_card(d, "PL05"), "number", "PL04"), "cards[4].number"),
    ("four-start", lambda d: _set(_card(d, "PL04"), "start", True), "cards[3].start"),
    ("two-start", lambda d: _set(_card(d, "DE03"), "start", False), "cards"),
    (
        "support-movement",
        lambda d: _set(d["types"]["Polish Staff"]["abilities"], "movement", True),
        'types["Polish Staff"].abilities.movement',
    ),
    (
        "support-attack",
        lambda d: _set(d["types"]["German Volunteers"]["abilities"], "attack", True),
        'types["German Volunteers"].abilities.attack',
    ),
    (
        "support-bullets",
        lambda d: _set(d["types"]["German Staff"], "bullets", 1),
        'types["German Staff"].bullets',
    ),
    (
        "unit-command",
        lambda d: _set(d["types"]["Soldiers"]["abilities"], "command", True),
        'types["Soldiers"].abilities.command',
    ),
    (
        "unit-volunteers",
        lambda d: _set(d["types"]["Scouts"]["abilities"], "volunteers", True),
        'types["Scouts"].abilities.volunteers',
    ),
    (
        "spy-on-german",
        lambda d: _set(d["types"]["Recon"]["abilities"], "spy", 5),
        'types["Recon"].abilities.spy',
    ),
    (
        "sturmwind-on-polish",
        lambda d: _set(d["types"]["Scouts"]["abilities"], "sturmwind", 5),
        'types["Scouts"].abilities.sturmwind',
    ),
    (
        "rockets-too-big",
        lambda d: (_set(d, "rockets", [5, 5, 5, 5]), _set(d, "fragments", 15)),
        "rockets",
    ),
    ("rockets-empty", lambda d: _set(d, "rockets", []), "rockets"),
    ("rockets-zero", lambda d: _set(d, "rockets", [1, 0, 3]), "rockets[1]"),
    (
        "unknown-ability",
        lambda d: _set(d["types"]["Partisans"]["abilities"], "stealth", True),
        'types["Partisans"].abilities.stealth',
    ),
    ("unknown-type", lambda d: _set(_card(d, "PL07"), "type", "Partizans"), "cards[6].type"),
    (
        "unused-type",
        lambda d: _set(d["types"], "Spare", dict(d["types"]["Scouts"])),
        'types["Spare"]',
    ),
    ("prefix-mismatch", lambda d: _set(_card(d, "PL04"), "type", "Recon"), "cards[3].number"),
    ("pl24", lambda d: _set(_card(d, "PL23"), "number", "PL24"), "cards[22].number"),
    ("pl00", lambda d: _set(_card(d, "PL23"), "number", "PL00"), "cards[22].number"),
    ("number-lowercase", lambda d: _set(_card(d, "PL23"), "number", "pl23"), "cards[22].number"),
    ("bad-side", lambda d: _set(d["types"]["Scouts"], "side", "british"), 'types["Scouts"].side'),
    ("bad-kind", lambda d: _set(d["types"]["Scouts"], "kind", "elite"), 'types["Scouts"].kind'),
    (
        "effect-on-unit",
        lambda d: _set(d["types"]["Scouts"], "effect", "good_luck"),
        'types["Scouts"].effect',
    ),
    (
        "effect-wrong-kind",
        lambda d: _set(d["types"]["Polish Good Luck"], "effect", "high_morale"),
        'types["Polish Good Luck"].effect',
    ),
    (
        "missing-effect",
        lambda d: d["types"]["Witnesses"].pop("effect"),
        'types["Witnesses"].effect',
    ),
    (
        "bullets-on-immediate",
        lambda d: _set(d["types"]["Motorcycle"], "bullets", 0),
        'types["Motorcycle"].bullets',
    ),
    (
        "abilities-on-action",
        lambda d: _set(d["types"]["Motorized Column"], "abilities", {}),
        'types["Motorized Column"].abilities',
    ),
    (
        "wildhorn-german",
        lambda d: _set(d["types"]["Motorized Column"], "effect", "operation_wildhorn"),
        'types["Motorized Column"].effect',
    ),
    (
        "unit-missing-bullets",
        lambda d: d["types"]["Soldiers"].pop("bullets"),
        'types["Soldiers"].bullets',
    ),
    (
        "multiline-name",
        lambda d: _set(d["types"]["Soldiers"], "name", "Sol\ndiers"),
        'types["Soldiers"].name',
    ),
    ("start-not-bool", lambda d: _set(_card(d, "DE01"), "start", 1), "cards[23].start"),
    ("cards-not-array", lambda d: _set(d, "cards", {}), "cards"),
]


@pytest.mark.parametrize(
    "mutation,expected_path", [b[1:] for b in BAD_FILES], ids=[b[0] for b in BAD_FILES]
)
def test_bad_file_rejected(tmp_path: Path, mutation: Mutation | str, expected_path: str) -> None:
    if isinstance(mutation, str):
        text = mutation
    else:
        data = copy.deepcopy(_default_data())
        mutation(data)
        text = json.dumps(data, indent=1)
    path = tmp_path / "bad-cards.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CardSetError) as info:
        load_card_set(path)
    message = str(info.value)
    assert len(message.splitlines()) == 1, message
    assert message.startswith(f"{path}: "), message
    assert expected_path in message, message


def test_bad_file_message_shape(tmp_path: Path) -> None:
    data = _default_data()
    data["types"]["Scouts"]["abilities"]["search"] = "x"
    path = tmp_path / "cards-default.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CardSetError) as info:
        load_card_set(path)
    assert str(info.value) == (
        f'{path}: types["Scouts"].abilities.search: expected an integer 1..20, got "x"'
    )


def test_corpus_mutations_really_change_the_file() -> None:
    # Guard against a corpus entry that silently does nothing: the unmodified
    # default must load, and every mutation must change the data.
    load_card_set(default_card_set_path())
    for ident, mutation, _ in BAD_FILES:
        if isinstance(mutation, str):
            continue
        data = copy.deepcopy(_default_data())
        mutation(data)
        assert json.dumps(data) != json.dumps(_default_data()), ident
