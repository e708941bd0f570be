"""The game's words are declared once (solver/vocabulary.py): the web page
reads them from ``GET /api`` and declares none itself, and no other module
declares a copy of the sides, zones or steps."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from solver import vocabulary as v
from solver.cards import SIDE_NAMES

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "apps" / "server" / "static"

# The page's words: a list of two or more of them, or an object with two or
# more of them as keys, is a declaration the page must take from the server.
PAGE_WORDS = (set(v.SIDES) | set(v.SIDE_TITLES) | set(v.ZONES) | set(v.ZONE_PLACES.values())
              | set(v.STEPS) | set(v.format_kinds(v.PENDING_KINDS)))


def test_vocabulary_is_consistent_with_the_core_and_the_card_file():
    assert v.SIDES == tuple(SIDE_NAMES) and len(v.SIDE_TITLES) == len(v.SIDES)
    assert sorted(v.TABLE_ORDER) == sorted(v.ZONES) and set(v.HOMES) <= set(v.ZONES)
    assert v.SEARCH_ZONE in v.ZONES and v.SEARCH_ZONE not in v.HOMES
    assert set(v.STEPS) <= set(v.PHASES) and set(v.WINDOW_PHASES) <= set(v.DECISION_STEPS)
    assert set(v.ACTOR_STEPS) <= set(v.DECISION_STEPS) and set(v.DICE_STEPS) <= set(v.STEPS)
    assert len(v.STEAL_KINDS) == len(v.SIDES) and "steal" in v.PENDING_KINDS
    data = v.as_json()
    assert json.loads(json.dumps(data)) == data  # plain JSON
    assert "steal" not in data["pending_kinds"] and set(v.STEAL_KINDS) <= set(data["pending_kinds"])
    for step, kinds in data["step_kinds"].items():
        assert step in data["steps"] and set(kinds) <= set(data["pending_kinds"]), step
    assert [k for k, _ in data["fragments"]] == list(v.FRAGMENT_KEYS)


def test_api_serves_the_vocabulary(tmp_path):
    pytest.importorskip("httpx")
    from starlette.testclient import TestClient

    from apps.server import app as server_app
    with TestClient(server_app.create_app(tmp_path / "data")) as client:
        index = client.get("/api").json()
        assert index["vocabulary"] == json.loads(json.dumps(v.as_json()))
        assert index["routes"]  # still the list of routes
        # the page's modules load only with a JavaScript MIME type
        for path in sorted(STATIC.glob("*.js")):
            res = client.get(f"/static/{path.name}")
            assert res.status_code == 200, path.name
            assert "javascript" in res.headers["content-type"], (path.name, res.headers)


def _strings(text: str) -> list[str]:
    return re.findall(r'"([^"\\]*)"|\'([^\'\\]*)\'', text)


def page_declarations(source: str) -> list[str]:
    """The array literals of two or more page words, and the object literals
    with two or more page words as keys, in a JavaScript or HTML text; and
    HTML options whose values are page words."""
    found = []
    for m in re.finditer(r"\[([^\[\]]*)\]", source):
        words = {a or b for a, b in _strings(m.group(1))}
        if len(words & PAGE_WORDS) >= 2:
            found.append(m.group(0))
    for m in re.finditer(r"\{([^{}]*)\}", source):
        keys = re.findall(r"(?:^|,)\s*[\"']?([A-Za-z_]+)[\"']?\s*:", m.group(1))
        if len(set(keys) & PAGE_WORDS) >= 2:
            found.append(m.group(0))
    found += re.findall(r"<option[^>]*value=\"(?:%s)\"" % "|".join(map(re.escape, PAGE_WORDS)),
                        source)
    return found


def test_the_scan_finds_what_the_page_used_to_declare():
    """The scan below can fail: the declarations of the page before it read
    the vocabulary are found."""
    assert page_declarations('const SIDES = ["polish", "german"];')
    assert page_declarations('const TITLE = { polish: "Polish", german: "German" };')
    assert page_declarations('const KINDS = { zone: ["movement"], motorcycle: ["movement"] };')
    assert page_declarations("if (['rocket', 'roll'].includes(f.step)) return null;")
    assert page_declarations('<select name="side"><option value="polish">Polish</option>')
    assert not page_declarations('el("div", { class: "zone", text: "x" }, ["hand", "Hand"])')


@pytest.mark.parametrize("name", sorted(p.name for p in STATIC.glob("*.js"))
                         + ["index.html"])
def test_the_page_declares_no_sides_zones_steps_or_kinds(name):
    assert page_declarations((STATIC / name).read_text(encoding="utf-8")) == []


def test_every_page_module_is_type_checked_and_imported():
    """Each module says // @ts-check (tsconfig.json checks them in CI), and the
    page loads main.js, which imports the others (directly or not)."""
    modules = {p.name: p.read_text(encoding="utf-8") for p in STATIC.glob("*.js")}
    for name, text in modules.items():
        assert text.startswith("// @ts-check"), name
        # no globals: only main.js hands the page's state to window (for the tests)
        assert name == "main.js" or not re.search(r"window\.\w+\s*=[^=]|Object\.assign\(window", text), name
    assert '<script type="module" src="/static/main.js">' in (STATIC / "index.html").read_text()
    seen, todo = set(), ["main.js"]
    while todo:
        name = todo.pop()
        seen.add(name)
        todo += [m for m in re.findall(r'from "\./([\w.]+)"', modules[name]) if m not in seen]
    assert seen == set(modules)


# Python: no module declares its own copy of the sides, the zones or the
# steps: a module-level name bound to a literal of two sides, two zones or
# three steps (and mostly such words: not a list of a CSV file's columns; a
# dict of numbers by zone is a position, and a dict of texts by step is what
# each step means, not a declaration), except the sources.
SOURCES = {"solver/vocabulary.py": "the one declaration",
           "solver/cards.py": "the card file's names (SIDE_NAMES, effect names)"}


def _copies_in(source: str) -> list[int]:
    """The lines of ``source`` (Python) that bind a module-level name to a
    copy of the vocabulary: a tuple, list or set of sides, zones or steps, or
    a dict from zones to zones or sides to sides (a dict of texts, numbers or
    card effects by step or zone is what each one means: data about the
    vocabulary, not a copy of it)."""
    groups = ((set(v.SIDES) | set(v.SIDE_TITLES), 2), (set(v.ZONES), 2), (set(v.STEPS), 3))

    def words_of(nodes) -> set:
        return {e.value for e in nodes if isinstance(e, ast.Constant)}

    lines = []
    for node in ast.parse(source).body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        for sub in ast.walk(node.value):
            if isinstance(sub, (ast.Tuple, ast.List, ast.Set)):
                words = words_of(sub.elts)
            elif isinstance(sub, ast.Dict):
                # a map of zones to zones (or sides to sides) restates the
                # vocabulary; anything by step or zone is data about it
                keys = words_of(k for k in sub.keys if k is not None)
                values = words_of(x for value in sub.values for x in ast.walk(value))
                if any(len(keys & names) >= n and values and values <= names
                       for names, n in groups[:2]):
                    lines.append(sub.lineno)
                continue
            else:
                continue
            if any(len(words & names) >= n and 2 * len(words & names) >= len(words)
                   for names, n in groups):
                lines.append(sub.lineno)
    return lines


def _copies(path: Path) -> list[int]:
    return _copies_in(path.read_text(encoding="utf-8"))


def test_the_python_scan_finds_copies_and_passes_data():
    """The scan can fail: the copies the modules held before they read the
    vocabulary are found, and data keyed by the vocabulary is not."""
    assert _copies_in('SIDES = ("polish", "german")')
    assert _copies_in('ZONES = ("forest", "periphery", "base")')
    assert _copies_in('STEPS = ["redraw", "actions", "zone", "roll"]')
    assert _copies_in('ADJACENT = {"forest": ("periphery",), "periphery": ("forest", "base"),'
                      ' "base": ("periphery",)}')
    assert _copies_in('TABLE = [("base", "periphery", "forest")]')
    assert not _copies_in('EFFECTS = {"motorcycle": ("motorcycle",), "ambush": ("ambush",),'
                          ' "witnesses": ("witnesses",)}')
    assert not _copies_in('HELP = {"escort": "An attack is declared.", "ambush": "Ambush!",'
                          ' "nurses": "Nurses."}')
    assert not _copies_in('FRAGS = {"forest": 1, "periphery": 2, "base": 0}')
    assert not _copies_in('COLUMNS = ("seed", "winner", "polish", "german", "turns", "moves")')


def test_no_python_module_declares_a_copy_of_the_vocabulary():
    found = {}
    for folder in ("apps", "solver", "bots", "exact", "benchmarks", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel not in SOURCES and _copies(path):
                found[rel] = _copies(path)
    assert found == {}, f"declare these through solver.vocabulary: {found}"
    assert _copies(ROOT / "solver" / "vocabulary.py")  # the scan sees a declaration
