"""Card sets: load and validate a card-set file (format ``wildhorn-cards/1``).

The engine reads every card number, bullet and ability from data, never from
code, so that owners of the physical game can supply their own card list
(docs/card-sets.md describes the format for them).  The default set ships as ``solver/data/cards-default.json``.

A card-set file is a JSON object::

    {
      "format": "wildhorn-cards/1",
      "name": "default",
      "fragments": 15,
      "rockets": [1, 2, 3, 4, 5],
      "types": {
        "Scouts": {"name": "Scouts", "side": "polish", "kind": "unit",
                   "bullets": 1, "abilities": {"movement": true, "search": 4},
                   "text": "..."},
        "Polish Good Luck": {"name": "Good Luck", "side": "polish",
                             "kind": "immediate", "effect": "good_luck"},
        ...
      },
      "cards": [{"number": "PL01", "type": "Scouts", "start": true}, ...]
    }

Every type key names exactly one type of one side; ``name`` is the display
name used in action strings (the Polish and German "Staff" share it).
Unknown keys are rejected everywhere, so a typo never passes silently, and
every problem raises :class:`~solver.errors.CardSetError` with a single line
``<file>: <JSON path>: <what was expected>``.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, NoReturn

from .jsonio import JsonObject, find_problem, loads, read_bounded
from .errors import CardSetError, ParameterError, describe_value, one_line, quote
from .errors import label as short_label

__all__ = [
    "FORMAT",
    "CARDS_PER_SIDE",
    "NUM_CARD_SLOTS",
    "SIDE_POLISH",
    "SIDE_GERMAN",
    "SIDE_NAMES",
    "SIDE_PREFIXES",
    "KIND_UNIT",
    "KIND_SUPPORT",
    "KIND_ACTION",
    "KIND_IMMEDIATE",
    "KIND_NAMES",
    "FLAG_ABILITIES",
    "NUMBER_ABILITIES",
    "ABILITY_NAMES",
    "EFFECT_NONE",
    "EFFECT_GOOD_LUCK",
    "EFFECT_BAD_LUCK",
    "EFFECT_AMBUSH",
    "EFFECT_WITNESSES",
    "EFFECT_NURSES",
    "EFFECT_MOTORCYCLE",
    "EFFECT_OPERATION_WILDHORN",
    "EFFECT_HIDDEN_FRAGMENTS",
    "EFFECT_HIGH_MORALE",
    "EFFECT_MOTORIZED_COLUMN",
    "EFFECT_NAMES",
    "IMMEDIATE_EFFECTS",
    "ACTION_EFFECTS",
    "CardType",
    "Card",
    "CardSet",
    "load_card_set",
    "default_card_set_path",
]

FORMAT = "wildhorn-cards/1"
"""The value of the ``format`` key this loader reads."""

CARDS_PER_SIDE = 23
"""Card slots per side: the box has 23 cards a side, numbered 01..23."""
NUM_CARD_SLOTS = 2 * CARDS_PER_SIDE
"""Length of every per-card array of :meth:`CardSet.to_core_arrays`."""

SIDE_POLISH = 0
SIDE_GERMAN = 1
SIDE_NAMES = ("polish", "german")
"""Side names as written in the file, indexed by side id."""
SIDE_PREFIXES = ("PL", "DE")
"""Card-number prefixes, indexed by side id."""

KIND_UNIT = 0
KIND_SUPPORT = 1
KIND_ACTION = 2
KIND_IMMEDIATE = 3
KIND_NAMES = ("unit", "support", "action", "immediate")
"""Kind names as written in the file, indexed by kind code."""

FLAG_ABILITIES = ("movement", "attack", "command", "volunteers", "assistance", "escort")
"""Abilities written as ``true``."""
NUMBER_ABILITIES = ("search", "spy", "sturmwind")
"""Abilities written as the number a roll must reach (4 means 4+)."""
ABILITY_NAMES = FLAG_ABILITIES + NUMBER_ABILITIES

EFFECT_NONE = 0
EFFECT_GOOD_LUCK = 1
EFFECT_BAD_LUCK = 2
EFFECT_AMBUSH = 3
EFFECT_WITNESSES = 4
EFFECT_NURSES = 5
EFFECT_MOTORCYCLE = 6
EFFECT_OPERATION_WILDHORN = 7
EFFECT_HIDDEN_FRAGMENTS = 8
EFFECT_HIGH_MORALE = 9
EFFECT_MOTORIZED_COLUMN = 10
EFFECT_NAMES: tuple[str | None, ...] = (
    None,
    "good_luck",
    "bad_luck",
    "ambush",
    "witnesses",
    "nurses",
    "motorcycle",
    "operation_wildhorn",
    "hidden_fragments",
    "high_morale",
    "motorized_column",
)
"""Effect names indexed by effect code; ``EFFECT_NAMES.index(type.effect)`` is the code."""
IMMEDIATE_EFFECTS = frozenset(EFFECT_NAMES[EFFECT_GOOD_LUCK : EFFECT_MOTORCYCLE + 1])
"""Effects allowed on ``immediate`` types."""
ACTION_EFFECTS = frozenset(EFFECT_NAMES[EFFECT_OPERATION_WILDHORN:])
"""Effects allowed on ``action`` (event) types."""

_MAX_FRAGMENTS = 63
_MAX_BULLETS = 20
_MAX_ROLL_NUMBER = 20
_HINT_CUTOFF = 0.75
_DEFAULT_FILE = "cards-default.json"
_NUMBER_RE = re.compile(r"(PL|DE)([0-9]{2})")
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_ROOT_KEYS = ("format", "name", "fragments", "rockets", "types", "cards")
_TYPE_REQUIRED = ("name", "side", "kind")
_TYPE_OPTIONAL = ("bullets", "abilities", "effect", "text")
_CARD_REQUIRED = ("number", "type")
_CARD_OPTIONAL = ("start",)


# --------------------------------------------------------------------------
# Data classes
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class CardType:
    """One type of card of one side, as described under ``types`` in the file.

    ``abilities`` is a read-only mapping from ability name to ``True`` (for
    the flag abilities) or to the number a roll must reach (``search``,
    ``spy``, ``sturmwind``); it is empty for action and immediate types.
    ``bullets`` is 0 for support, action and immediate types; ``effect`` is
    ``None`` for units and support.
    """

    key: str
    name: str
    side: str
    kind: str
    bullets: int
    abilities: Mapping[str, int | bool] = field(hash=False)
    effect: str | None
    text: str = ""


@dataclass(frozen=True)
class Card:
    """One physical card: its number (``PL07``), side, type and START mark.

    ``index`` is the position within its side (number minus one, 0..22) and
    ``side_id`` is 0 for Polish, 1 for German.
    """

    number: str
    index: int
    side: str
    side_id: int
    type: CardType
    start: bool

    @property
    def global_index(self) -> int:
        """Slot of the card in the engine's 46-slot layout: ``side_id * 23 + index``."""
        return self.side_id * CARDS_PER_SIDE + self.index


@dataclass(frozen=True)
class CardSet:
    """A validated card set; ``cards`` is sorted by :attr:`Card.global_index`."""

    name: str
    path: Path | None
    fragments: int
    rockets: tuple[int, ...]
    cards: tuple[Card, ...]
    _by_number: Mapping[str, Card] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.cards, key=lambda c: c.global_index))
        object.__setattr__(self, "cards", ordered)
        object.__setattr__(self, "_by_number", MappingProxyType({c.number: c for c in ordered}))

    def by_number(self, number: str) -> Card:
        """The card with this number; :class:`CardSetError` if there is none."""
        try:
            return self._by_number[number]
        except (KeyError, TypeError):
            raise CardSetError(f"unknown card number {number!r}") from None

    def side_cards(self, side_id: int) -> tuple[Card, ...]:
        """The cards of one side (0 Polish, 1 German), in number order."""
        if side_id not in (SIDE_POLISH, SIDE_GERMAN) or isinstance(side_id, bool):
            raise ParameterError(f"side_id must be 0 (polish) or 1 (german), got {side_id!r}")
        return tuple(c for c in self.cards if c.side_id == side_id)

    def class_key(self, card: Card, with_start: bool = True) -> tuple[Any, ...]:
        """A hashable key of every datum of ``card`` except its number (R27).

        Two cards of the same owner with equal keys are interchangeable when
        they are in the same place.  The key holds the owner and every field
        of the type (its key, display name, kind, bullets, abilities, effect
        and text), plus the START mark when ``with_start`` is true.
        """
        t = card.type
        key: tuple[Any, ...] = (
            card.side,
            t.key,
            t.name,
            t.kind,
            t.bullets,
            tuple(sorted(t.abilities.items())),
            t.effect,
            t.text,
        )
        if with_start:
            key += (card.start,)
        return key

    def to_core_arrays(self) -> dict[str, Any]:
        """Plain Python lists for the compiled core, indexed by global slot.

        Every per-card list has :data:`NUM_CARD_SLOTS` (46) entries.  A slot
        with no card has ``present`` 0, ``side`` the side of the slot,
        ``hand_class`` -1 and 0 everywhere else.  Codes: ``kind`` 0 unit,
        1 support, 2 action, 3 immediate; ``search`` and ``steal`` (Spy or
        Sturmwind) hold the number needed, 0 for none; ``effect`` is an
        ``EFFECT_*`` code.  ``hand_class`` is equal for two cards exactly when
        their :meth:`class_key` (with the START mark) is equal, numbered from 0
        in order of first appearance by slot.  ``rockets`` (list) and
        ``fragments`` (int) are included as well.
        """
        n = NUM_CARD_SLOTS
        arrays: dict[str, Any] = {
            name: [0] * n
            for name in (
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
            )
        }
        arrays["side"] = [slot // CARDS_PER_SIDE for slot in range(n)]
        arrays["hand_class"] = [-1] * n
        classes: dict[tuple[Any, ...], int] = {}
        for card in self.cards:
            i = card.global_index
            t = card.type
            ab = t.abilities
            arrays["present"][i] = 1
            arrays["side"][i] = card.side_id
            arrays["kind"][i] = KIND_NAMES.index(t.kind)
            arrays["bullets"][i] = t.bullets
            arrays["start"][i] = int(card.start)
            arrays["move"][i] = int(bool(ab.get("movement")))
            for name in ("attack", "command", "volunteers", "assistance", "escort"):
                arrays[name][i] = int(bool(ab.get(name)))
            arrays["search"][i] = int(ab.get("search", 0))
            arrays["steal"][i] = int(ab.get("spy", ab.get("sturmwind", 0)))
            arrays["effect"][i] = EFFECT_NAMES.index(t.effect)
            arrays["hand_class"][i] = classes.setdefault(self.class_key(card), len(classes))
        arrays["rockets"] = list(self.rockets)
        arrays["fragments"] = self.fragments
        return arrays


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------


def default_card_set_path() -> Path:
    """Path of the packaged default card set, ``solver/data/cards-default.json``."""
    traversable = resources.files(__package__) / "data" / _DEFAULT_FILE
    if isinstance(traversable, Path):
        return traversable
    return Path(__file__).resolve().parent / "data" / _DEFAULT_FILE


def load_card_set(source: str | os.PathLike[str] = "default") -> CardSet:
    """Load and validate a card-set file; ``"default"`` means the packaged set.

    Raises :class:`CardSetError` (one line: file, JSON path, what was
    expected) if the file cannot be read or breaks any rule, and
    :class:`ParameterError` if ``source`` is neither a string nor a path.
    """
    if isinstance(source, str) and source == "default":
        label = _DEFAULT_FILE
        path = default_card_set_path()
        try:
            text = (resources.files(__package__) / "data" / _DEFAULT_FILE).read_text(
                encoding="utf-8"
            )
        except (OSError, UnicodeDecodeError) as exc:
            raise CardSetError(
                f"{label}: cannot read the packaged default card set: {exc}"
            ) from None
    elif isinstance(source, (str, os.PathLike)):
        raw = os.fspath(source)
        if not isinstance(raw, str):
            raise ParameterError(f"card-set source must be a str path, got {raw!r}")
        label = short_label(raw)
        path = Path(raw)
        def refuse(why: str) -> NoReturn:
            raise CardSetError(f"{label}: {why}")

        try:
            text = read_bounded(path, refuse).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise CardSetError(f"{label}: not valid UTF-8 at byte {exc.start}") from None
    else:
        raise ParameterError(
            f"card-set source must be 'default' or a path, got {type(source).__name__}"
        )
    return _Validator(label).card_set(text, path)


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------


_Obj = JsonObject


_one_line = one_line
_quote = quote
_describe = describe_value


def _child(path: str, key: str) -> str:
    """JSON path of member ``key`` of the object at ``path`` ("" is the root)."""
    if _IDENT_RE.fullmatch(key) and len(key) <= 40:  # a longer key is cut by _quote
        return f"{path}.{key}" if path else key
    return f"{path}[{_quote(key)}]"


def _item(path: str, index: int) -> str:
    return f"{path}[{index}]"


class _Validator:
    """Turns the text of a card-set file into a :class:`CardSet`, or fails."""

    def __init__(self, label: str) -> None:
        self.label = label

    def fail(self, path: str, message: str) -> NoReturn:
        where = path or "(top level)"
        raise CardSetError(f"{self.label}: {where}: {message}")

    # -- generic checks ----------------------------------------------------

    def obj(
        self,
        value: Any,
        path: str,
        required: tuple[str, ...],
        optional: tuple[str, ...] = (),
        what: str = "key",
    ) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(path, f"expected an object, got {_describe(value)}")
        if isinstance(value, _Obj) and value.duplicate is not None:
            self.fail(_child(path, value.duplicate), f"duplicate {what} in the same object")
        allowed = required + optional
        for key in value:
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1, cutoff=_HINT_CUTOFF)
                hint = (
                    f"did you mean {_quote(close[0])}?"
                    if close
                    else "allowed: " + ", ".join(allowed)
                )
                self.fail(_child(path, key), f"unknown {what} ({hint})")
        for key in required:
            if key not in value:
                self.fail(_child(path, key), f"missing required {what}")
        return value

    def integer(self, value: Any, path: str, lo: int, hi: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            self.fail(path, f"expected an integer {lo}..{hi}, got {_describe(value)}")
        return value

    def string(self, value: Any, path: str, *, empty_ok: bool = False) -> str:
        if not isinstance(value, str):
            self.fail(path, f"expected a string, got {_describe(value)}")
        if not value.strip() and not empty_ok:
            self.fail(path, "expected a non-empty string")
        if not value.isprintable():
            self.fail(path, f"expected one line of printable text, got {_describe(value)}")
        return value

    def choice(self, value: Any, path: str, choices: tuple[str, ...]) -> str:
        if not isinstance(value, str) or value not in choices:
            self.fail(
                path,
                f"expected one of {', '.join(_quote(c) for c in choices)}, got {_describe(value)}",
            )
        return value

    # -- the file ------------------------------------------------------------

    def card_set(self, text: str, path: Path | None) -> CardSet:
        try:
            data = loads(text)
        except json.JSONDecodeError as exc:
            self.fail(f"line {exc.lineno} column {exc.colno}", f"not valid JSON: {exc.msg}")
        except (ValueError, RecursionError) as exc:
            self.fail("", f"not valid JSON: {_one_line(str(exc))}")
        problem = find_problem(data, duplicates=False)
        if problem is not None:  # before any work on a huge array or object
            where = ""
            for part in problem[0]:
                where = _item(where, part) if isinstance(part, int) else _child(where, part)
            self.fail(where, problem[1])

        if not isinstance(data, dict):
            self.fail("", f"expected a JSON object, got {_describe(data)}")
        if "format" not in data:
            self.fail("format", f"missing required key (expected {_quote(FORMAT)})")
        if data["format"] != FORMAT:
            self.fail("format", f"expected {_quote(FORMAT)}, got {_describe(data['format'])}")
        self.obj(data, "", _ROOT_KEYS)

        name = self.string(data["name"], "name")
        fragments = self.integer(data["fragments"], "fragments", 1, _MAX_FRAGMENTS)
        rockets = self.rockets(data["rockets"], fragments)

        types_value = data["types"]
        if not isinstance(types_value, dict):
            self.fail("types", f"expected an object, got {_describe(types_value)}")
        if isinstance(types_value, _Obj) and types_value.duplicate is not None:
            self.fail(f"types[{_quote(types_value.duplicate)}]", "duplicate type key")
        types: dict[str, CardType] = {}
        for key, value in types_value.items():
            types[key] = self.card_type(key, value)

        cards = self.cards(data["cards"], types)
        return CardSet(name=name, path=path, fragments=fragments, rockets=rockets, cards=cards)

    def rockets(self, value: Any, fragments: int) -> tuple[int, ...]:
        if not isinstance(value, list) or not value:
            got = "an empty array" if value == [] else _describe(value)
            self.fail("rockets", f"expected a non-empty array of positive integers, got {got}")
        rockets = tuple(
            self.integer(v, _item("rockets", i), 1, _MAX_FRAGMENTS) for i, v in enumerate(value)
        )
        largest = sorted(rockets, reverse=True)[:4]
        if sum(largest) > fragments:
            self.fail(
                "rockets",
                f"the four largest values {largest} add up to {sum(largest)}, "
                f"more than fragments ({fragments}) (R28)",
            )
        return rockets

    def card_type(self, key: str, value: Any) -> CardType:
        path = f"types[{_quote(key)}]"
        if not key.strip() or not key.isprintable():
            self.fail(path, "expected a type key of one line of printable text")
        self.obj(value, path, _TYPE_REQUIRED, _TYPE_OPTIONAL)
        name = self.string(value["name"], f"{path}.name")
        side = self.choice(value["side"], f"{path}.side", SIDE_NAMES)
        kind = self.choice(value["kind"], f"{path}.kind", KIND_NAMES)
        text = self.string(value.get("text", ""), f"{path}.text", empty_ok=True)

        bullets = 0
        abilities: dict[str, int | bool] = {}
        effect: str | None = None
        if kind in ("unit", "support"):
            if "effect" in value:
                self.fail(
                    f"{path}.effect",
                    f"not allowed on a {kind} type "
                    "(only action and immediate types have an effect)",
                )
            for required in ("bullets", "abilities"):
                if required not in value:
                    self.fail(f"{path}.{required}", f"missing required key for a {kind} type")
            bullets = self.integer(value["bullets"], f"{path}.bullets", 0, _MAX_BULLETS)
            if kind == "support" and bullets != 0:
                self.fail(
                    f"{path}.bullets",
                    "expected 0 for a support type (Support defends with zero bullets), "
                    f"got {bullets}",
                )
            abilities = self.abilities(value["abilities"], f"{path}.abilities", side, kind)
        else:
            for forbidden in ("bullets", "abilities"):
                if forbidden in value:
                    self.fail(
                        f"{path}.{forbidden}",
                        f"not allowed on an {kind} type (only units and support have {forbidden})",
                    )
            if "effect" not in value:
                self.fail(f"{path}.effect", f"missing required key for an {kind} type")
            allowed = IMMEDIATE_EFFECTS if kind == "immediate" else ACTION_EFFECTS
            effect = self.choice(
                value["effect"],
                f"{path}.effect",
                tuple(e for e in EFFECT_NAMES if e is not None and e in allowed),
            )
            if effect == "operation_wildhorn" and side != "polish":
                self.fail(
                    f"{path}.effect",
                    f"operation_wildhorn is a Polish effect, not allowed on a {side} type",
                )
        return CardType(
            key=key,
            name=name,
            side=side,
            kind=kind,
            bullets=bullets,
            abilities=MappingProxyType(abilities),
            effect=effect,
            text=text,
        )

    def abilities(self, value: Any, path: str, side: str, kind: str) -> dict[str, int | bool]:
        self.obj(value, path, (), ABILITY_NAMES, what="ability")
        for name, v in value.items():
            where = _child(path, name)
            if name in FLAG_ABILITIES:
                if v is not True:
                    self.fail(
                        where,
                        "expected true (leave the ability out if the card lacks it), "
                        f"got {_describe(v)}",
                    )
            else:
                self.integer(v, where, 1, _MAX_ROLL_NUMBER)
        if kind == "support":
            for name in ("movement", "attack", "search", "spy", "sturmwind"):
                if name in value:
                    self.fail(
                        _child(path, name),
                        "not allowed on a support type (Support cards never leave "
                        "their home zone and cannot attack, R14/R28)",
                    )
        else:
            for name in ("command", "volunteers"):
                if name in value:
                    self.fail(
                        _child(path, name), "allowed only on support types, not on a unit (R28)"
                    )
        if "spy" in value and "sturmwind" in value:
            self.fail(_child(path, "sturmwind"), "a card may have at most one of spy and sturmwind")
        if "spy" in value and side != "polish":
            self.fail(_child(path, "spy"), f"spy is a Polish ability, not allowed on a {side} type")
        if "sturmwind" in value and side != "german":
            self.fail(
                _child(path, "sturmwind"),
                f"sturmwind is a German ability, not allowed on a {side} type",
            )
        return {name: value[name] for name in ABILITY_NAMES if name in value}

    def cards(self, value: Any, types: Mapping[str, CardType]) -> tuple[Card, ...]:
        if not isinstance(value, list):
            self.fail("cards", f"expected an array, got {_describe(value)}")
        seen: dict[str, int] = {}
        cards: list[Card] = []
        start_paths: tuple[list[str], list[str]] = ([], [])
        for i, entry in enumerate(value):
            path = _item("cards", i)
            self.obj(entry, path, _CARD_REQUIRED, _CARD_OPTIONAL)
            number = entry["number"]
            match = _NUMBER_RE.fullmatch(number) if isinstance(number, str) else None
            if match is None or not 1 <= int(match.group(2)) <= CARDS_PER_SIDE:
                self.fail(
                    f"{path}.number",
                    f"expected a card number PL01..PL{CARDS_PER_SIDE} or DE01..DE{CARDS_PER_SIDE}, "
                    f"got {_describe(number)}",
                )
            type_key = entry["type"]
            if not isinstance(type_key, str) or type_key not in types:
                close = (
                    difflib.get_close_matches(type_key, list(types), n=1, cutoff=_HINT_CUTOFF)
                    if isinstance(type_key, str)
                    else []
                )
                hint = f" (did you mean {_quote(close[0])}?)" if close else ""
                self.fail(
                    f"{path}.type",
                    f'expected the key of a type under "types", got {_describe(type_key)}{hint}',
                )
            card_type = types[type_key]
            side_id = SIDE_NAMES.index(card_type.side)
            prefix = SIDE_PREFIXES[side_id]
            if match.group(1) != prefix:
                self.fail(
                    f"{path}.number",
                    f"expected a number starting with {prefix} for the {card_type.side} type "
                    f"{_quote(type_key)}, got {_describe(number)}",
                )
            if number in seen:
                self.fail(
                    f"{path}.number",
                    f"duplicate card number {_quote(number)} (also cards[{seen[number]}])",
                )
            seen[number] = i
            start = entry.get("start", False)
            if not isinstance(start, bool):
                self.fail(f"{path}.start", f"expected true or false, got {_describe(start)}")
            if start:
                start_paths[side_id].append(f"{path}.start")
            cards.append(
                Card(
                    number=number,
                    index=int(match.group(2)) - 1,
                    side=card_type.side,
                    side_id=side_id,
                    type=card_type,
                    start=start,
                )
            )
        # R28: each side has exactly 3 START cards.
        for side_id, paths in enumerate(start_paths):
            side = SIDE_NAMES[side_id]
            if len(paths) > 3:
                self.fail(
                    paths[3],
                    f"the {side} side has {len(paths)} START cards; exactly 3 are required (R28)",
                )
            if len(paths) < 3:
                self.fail(
                    "cards",
                    f"the {side} side has {len(paths)} START cards; exactly 3 are required (R28)",
                )
        # A type no card uses is most likely a typo in a card's "type".
        used = {card.type.key for card in cards}
        for key in types:
            if key not in used:
                self.fail(
                    f"types[{_quote(key)}]",
                    'type is not used by any card (a typo in a card\'s "type"?)',
                )
        return tuple(cards)
