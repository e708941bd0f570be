"""Strict JSON reading shared by the card-set and state-file loaders."""

from __future__ import annotations

from typing import Any


class JsonObject(dict):  # type: ignore[type-arg]
    """A parsed JSON object that remembers its first repeated key, if any
    (plain ``json`` would silently keep the last value)."""

    duplicate: str | None = None


def pairs_hook(pairs: list[tuple[str, Any]]) -> JsonObject:
    """``object_pairs_hook`` for ``json.loads``: builds a JsonObject."""
    obj = JsonObject()
    for key, value in pairs:
        if key in obj and obj.duplicate is None:
            obj.duplicate = key
        obj[key] = value
    return obj
