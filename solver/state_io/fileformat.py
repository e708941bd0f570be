"""The state format's words and shape: the ``format`` tag, the JSON Schema,
the steps and the pending action each step allows, and the first check of
every state (bounded structure, tag, schema), worded for people.

Sides, zones, homes, steps and fragment places are the game's words
(:mod:`solver.vocabulary`); this module adds what only the file format says.
"""

from __future__ import annotations

import difflib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, NoReturn

import jsonschema

from solver.jsonio import find_problem
from solver.errors import StateFormatError, describe_value, one_line, quote
from solver.errors import label as short_label
from solver.vocabulary import (ACTOR_STEPS, CHANCE_STEPS, DECISION_STEPS, FRAGMENT_KEYS, HOMES,
                               SIDES, STEPS, ZONES)
from solver.vocabulary import STEP_KINDS as VOCAB_STEP_KINDS

__all__ = ["FORMAT", "SCHEMA_PATH", "SIDES", "ZONES", "HOME", "FRAGMENT_KEYS", "DECISION_STEPS",
           "CHANCE_STEPS", "STEPS", "STEP_KINDS", "ACTOR_DECIDES", "WHY_DECIDES", "KIND_ABILITY",
           "KIND_EFFECT", "WINDOW_EFFECTS", "ADJACENT", "Problems", "json_path", "schema"]

FORMAT = "wildhorn-state/1"
"""The ``format`` tag of the files this package reads and writes."""

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "data" / "state.schema.json"
"""The JSON Schema (draft 2020-12) of the format: the exact contract."""

HOME = HOMES
"""Each side's home zone (R1), by side number (the name this package always used)."""

# The pending action kinds each step allows (engine names; "steal" is
# written "spy" or "sturmwind" after the actor's side).
# (None: no action under way; solver.vocabulary.STEP_KINDS lists the others)
STEP_KINDS: dict[str, tuple[str | None, ...]] = {
    step: VOCAB_STEP_KINDS.get(step, (None,)) for step in STEPS}
# Who decides at each step: the actor of the chain, the other side, or either.
ACTOR_DECIDES = ACTOR_STEPS
WHY_DECIDES = {
    "actions": "the chain's player acts (R10)", "zone": "the mover chooses the destination (R14)",
    "motorcycle": "the mover plays Motorcycle (R14)", "target": "the attacker names the target (R15a)",
    "ambush": "the attacker plays Ambush! (R15c)", "witnesses": "the searcher plays Witnesses (R16)",
    "refresh": "the actor chooses the Unit to refresh (R12, R19)",
    "number": "the player of Hidden Fragments chooses (R20)",
    "escort": "the defender decides on Escort (R15b)", "nurses": "the defender plays Nurses (R15g)",
}
KIND_ABILITY = {"movement": "movement", "attack": "attack", "search": "search",
                "command": "command"}
KIND_EFFECT = {"high_morale": "high_morale", "hidden_fragments": "hidden_fragments"}
# Effect cards that open the window each step offers (to deal the opponent a
# hand that has a choice before resampling).
WINDOW_EFFECTS = {"motorcycle": ("motorcycle",), "ambush": ("ambush",), "nurses": ("nurses",),
                  "witnesses": ("witnesses",), "modifiers": ("good_luck", "bad_luck")}
# each zone's neighbours: the zones are in a row, forest - periphery - base
ADJACENT = {z: tuple(ZONES[j] for j in (i - 1, i + 1) if 0 <= j < len(ZONES))
            for i, z in enumerate(ZONES)}
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

_q = quote
_describe = describe_value


def json_path(parts) -> str:
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


class Problems:
    """Every failure of one input is one StateFormatError line:
    ``<label>: <JSON path>: <what was expected>``."""

    def __init__(self, label: str) -> None:
        self.label = short_label(label)

    def fail(self, path: str, message: str) -> NoReturn:
        raise StateFormatError(f"{self.label}: {path}: {one_line(message)}")

    def bounded(self, data: Any) -> None:
        """Repeated keys, arrays and objects larger than any state has, and
        deep nesting are refused before the schema looks at the data."""
        problem = find_problem(data)
        if problem is not None:
            self.fail(json_path(problem[0]), problem[1])

    def structure(self, data: Any) -> None:
        """The parsed state as the schema describes it, tagged with :data:`FORMAT`."""
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
        return json_path(parts + [key]), f"missing required key{hint}"
    if v == "additionalProperties" and sch.get("additionalProperties") is False:
        allowed = list(sch.get("properties", {}))
        extra = [k for k in inst if k not in allowed]
        key = extra[0]
        close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.7)
        hint = f"did you mean {_q(close[0])}?" if close else "allowed: " + ", ".join(allowed)
        return json_path(parts + [key]), f"unknown key ({hint})"
    where = json_path(parts)
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
