"""The OpenAPI document of the web server's API (``GET /api/openapi.json``).

One source: the route table of :mod:`apps.server.app`'s docstring (what
``GET /api`` lists, one line per route: method, path with an optional
``[?name=V]`` query, and what it does, with the body's fields in braces
first when it takes a JSON object) and the routes the app really serves.
Every route of the app must have a line and every line a route
(:func:`check_table`, run when the app is built and by the tests), so the
document cannot drift from the server.  Starlette's own generator would
need a YAML block in every endpoint's docstring, a second copy of the same
facts.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

TABLE_LINE = re.compile(r"^(GET|POST|DELETE|PUT|PATCH)\s+(\S+)\s+(.*)$")
PARAM = re.compile(r"\{(\w+)\}")
QUERY = re.compile(r"\[\?(\w+)=(\w+)\]$")
BODY = re.compile(r"^\{([\w, ]+)\}")
STREAMS = ("/progress", "/events")     # server-sent events
DOWNLOADS = ("/save", "/export")       # a file to save (JSON)
ERROR = {"type": "object", "required": ["error"],
         "properties": {"error": {"type": "string", "description": "one line: what is wrong"}}}
_OBJ, _STR, _INT, _BOOL = {"type": "object"}, {"type": "string"}, {"type": "integer"}, {"type": "boolean"}
_CARDS = {"type": "array", "items": {"$ref": "#/components/schemas/Card"}}
DIE = {"type": "object", "description": "one die of a roll as the table draws it",
       "properties": {"side": _STR, "card": {"type": ["string", "null"]},
                      "die": {"type": ["integer", "null"], "description": "null: not rolled yet"},
                      "bullets": _INT, "modifier": _INT, "total": {"type": ["integer", "null"]}}}
SCHEMAS: dict[str, Any] = {
    "Error": ERROR,
    "Card": {"type": "object", "description": "a card as a view shows it",
             "properties": {"number": _STR, "name": _STR, "side": _STR, "kind": _STR,
                            "bullets": _INT, "abilities": {"type": "array", "items": _STR},
                            "text": _STR, "exhausted": _BOOL}},
    "Die": DIE,
    "LastMove": {
        "type": "object", "description": "what happened since the human's last decision",
        "properties": {
            "since": {"type": "integer", "description": "the log entry where it begins"},
            "side": {"type": "string", "description": "the bot's side"},
            "moves": {"type": "array", "items": _STR, "description": "the bot's moves in words"},
            "chance": {"type": "array", "items": _STR,
                       "description": "what chance and the rules did (never a bot move)"},
            "cards": {"type": "array", "items": {"type": "object", "properties": {
                "number": _STR, "side": _STR, "role": {"enum": [
                    "placed", "played", "activated", "moved", "attacker", "targeted",
                    "refreshed", "destroyed", "sent_home"]}}}},
            "dice": {"type": "array", "items": {"type": "object", "properties": {
                "action": _STR, "title": _STR, "success": _BOOL, "needed": {"type": ["integer", "null"]},
                "text": _STR, "rolls": {"type": "array", "items": {"$ref": "#/components/schemas/Die"}}}}},
            "alternatives": {"type": ["array", "null"]}}},
    "View": {
        "type": "object", "description": "the game as the human side sees it (api.js's View)",
        "properties": {
            "id": _STR, "version": {"type": "string", "description": "names the position"},
            "status": {"enum": ["human", "bot", "over", "review"]}, "you": _STR, "bot_side": _STR,
            "bot": {"type": "string", "description": "the bot's spec"},
            "bot_label": {"type": "string", "description": "the bot named for people"},
            "turn": _INT, "turns": _INT, "phase": _STR, "zones": {"type": "array"},
            "hand": _CARDS, "in_play": _CARDS, "gone": _CARDS,
            "piles": {"type": "object", "additionalProperties": _CARDS,
                      "description": "the cards gone, by side"},
            "pending": {"type": ["object", "null"], "properties": {
                "kind": _STR, "actor": _STR, "text": _STR,
                "dice": {"type": "array", "items": _INT}, "modifiers": {"type": "array", "items": _INT},
                "rolls": {"type": "array", "items": {"$ref": "#/components/schemas/Die"}}}},
            "last_move": {"$ref": "#/components/schemas/LastMove"},
            "can_undo": _BOOL, "can_resign": _BOOL, "actions": {"type": "array"},
            "log": {"type": "array"}, "log_size": _INT, "score": _OBJ,
            "win_estimates": {"type": "array", "items": {"type": "number"}},
            "result": _OBJ, "review_step": _OBJ, "title": _STR, "prompt": _STR,
            "seed": _INT, "bot_hand": _INT, "decks": _OBJ, "fragments": _OBJ, "rockets": _OBJ,
            "save_error": {"type": ["string", "null"]},
            "undone": {"type": "string", "description": "an undo's answer: what it took back"},
            "thinking": {"type": ["number", "null"],
                         "description": "seconds the bot has been thinking, or null"},
            "pondering": {"type": "boolean",
                          "description": "the bot thinks on the human's time (its search "
                                         "process ponders the human's decision)"}}},
    "Reference": {
        "type": "object", "description": "every card's full text and the rulings by number",
        "properties": {"cards": {"type": "array"}, "source": _STR,
                       "rules": {"type": "array", "items": {"type": "object", "properties": {
                           "id": _STR, "title": _STR, "part": _STR, "text": _STR}}}}},
}


def parse_table(text: str) -> list[dict[str, Any]]:
    """The route table (``METHOD PATH what``, one per line) as dicts with
    ``method``, ``path`` (params as ``{}``), ``query``, ``body`` and ``summary``."""
    rows = []
    for line in text.strip().splitlines():
        match = TABLE_LINE.match(line.strip())
        if match is None:
            raise ValueError(f"route table: not a route line: {line.strip()!r}")
        method, path, summary = match.groups()
        query = QUERY.search(path)
        if query:
            path = path[:query.start()]
        body = BODY.match(summary)
        rows.append({"method": method, "path": path, "shape": PARAM.sub("{}", path),
                     "query": query.group(1) if query else None,
                     "body": [f.strip() for f in body.group(1).split(",")] if body else [],
                     "summary": summary})
    return rows


def served(routes: Iterable[Any]) -> list[tuple[str, str]]:
    """(method, path) of every API route the app serves (``/api/...``; a
    route without methods answers GET)."""
    out = []
    for route in routes:
        path = getattr(route, "path", "")
        if not path.startswith("/api/"):
            continue
        for method in sorted(getattr(route, "methods", None) or {"GET"}):
            if method != "HEAD":
                out.append((method, path))
    return out


def check_table(rows: list[dict[str, Any]], routes: Iterable[Any]) -> dict[tuple[str, str], dict]:
    """{(method, served path): its table row}; ValueError naming the first
    route without a line or line without a route."""
    by_shape = {(r["method"], r["shape"]): r for r in rows}
    out = {}
    for method, path in served(routes):
        row = by_shape.pop((method, PARAM.sub("{}", path)), None)
        if row is None:
            raise ValueError(f"route table: {method} {path} is served but not listed")
        out[(method, path)] = row
    if by_shape:
        method, shape = next(iter(by_shape))
        raise ValueError(f"route table: {method} {shape} is listed but not served")
    return out


def _operation(method: str, path: str, row: dict[str, Any]) -> dict[str, Any]:
    op: dict[str, Any] = {
        "operationId": (method.lower() + "_" + re.sub(r"\W+", "_", path.strip("/"))).strip("_"),
        "summary": row["summary"],
        "parameters": [{"name": name, "in": "path", "required": True,
                        "schema": {"type": "string"}} for name in PARAM.findall(path)],
    }
    if row["query"]:
        op["parameters"].append({"name": row["query"], "in": "query", "required": False,
                                 "schema": {"type": "string"}})
    if row["body"]:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "properties": {name: {} for name in row["body"]}}}}}
    elif method == "POST" and ("load" in path or "import" in path):
        op["requestBody"] = {"required": True, "description": "the file's JSON, uploaded",
                             "content": {"application/json": {"schema": {"type": "object"}}}}
    if path.endswith(STREAMS):
        ok = {"text/event-stream": {"schema": {"type": "string"}}}
    elif "-> view" in row["summary"] or row["summary"].startswith("the view") \
            or "the table at" in row["summary"]:
        ok = {"application/json": {"schema": {"$ref": "#/components/schemas/View"}}}
    elif path == "/api/reference":
        ok = {"application/json": {"schema": {"$ref": "#/components/schemas/Reference"}}}
    else:
        ok = {"application/json": {"schema": {"type": "object"}}}
    op["responses"] = {
        "200": {"description": "a download" if path.endswith(DOWNLOADS) else "OK",
                "content": ok},
        "4XX": {"description": "bad input: nothing changed",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
    }
    if not op["parameters"]:
        del op["parameters"]
    return op


def document(table_text: str, routes: Iterable[Any], version: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the served API."""
    routes = list(routes)
    rows = check_table(parse_table(table_text), routes)
    paths: dict[str, dict[str, Any]] = {}
    for (method, path), row in rows.items():
        paths.setdefault(path, {})[method.lower()] = _operation(method, path, row)
    return {
        "openapi": "3.1.0",
        "info": {"title": "wildhorn-solve serve", "version": version,
                 "description": "The web table and analysis board of wildhorn-solve: JSON over "
                                "HTTP, server-sent events for searches in progress. Every "
                                "error is a 4xx answer {\"error\": message} and changes nothing."},
        "paths": dict(sorted(paths.items())),
        "components": {"schemas": SCHEMAS},
    }
