"""README.md and the documents in docs/ against the code they describe.

Each test reads a document and checks what it claims: README stays short and
gives the two commands CI runs, the example state files load and are the
decisions the table says, every ruling has its section, the functions and
tests named exist, the card table is the default set, the modified card set
differs where the document says, every results file has its command and
every command named exists with its options, links resolve (in README and in
docs/), the index lists every document, and no tracked file (outside tests/)
sends a reader outside the repository.  (The copy of the bots' help in
docs/bots.md is checked by tests/test_registry.py.)
"""

from __future__ import annotations

import json
import argparse
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from solver import state_io
from solver.cards import FORMAT as CARDS_FORMAT, default_card_set_path, load_card_set
from solver.game import make_config

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
README = ROOT / "README.md"


def _text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


# ---------------------------------------------------------------------------
# state-format.md and docs/examples/
# ---------------------------------------------------------------------------

_ROW = re.compile(r"^\| \[([\w.-]+\.json)\]\(examples/([\w.-]+\.json)\) \| (\w+) \| (\w+|-) \| "
                  r"(\w+|-) \| (.+) \|$")


def _example_rows() -> dict[str, tuple[str, str, str]]:
    rows = {}
    for line in _text("state-format.md").splitlines():
        m = _ROW.match(line)
        if m:
            assert m.group(1) == m.group(2), f"link text and target differ: {line}"
            assert m.group(1) not in rows, f"{m.group(1)} listed twice"
            rows[m.group(1)] = (m.group(3), m.group(4), m.group(5))
    return rows


def test_every_example_file_is_listed_and_every_listed_file_exists():
    rows = _example_rows()
    files = {p.name for p in EXAMPLES.glob("*.json")}
    assert len(rows) >= 20
    assert set(rows) == files


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")))
def test_example_loads_and_is_the_decision_the_table_says(name):
    step, to_move, kind = _example_rows()[name]
    path = EXAMPLES / name
    data = json.loads(path.read_text(encoding="utf-8"))
    state = state_io.load(path)
    core = state.core
    assert core.phase == step == data["step"]
    if to_move == "-":
        assert core.is_chance() and data["to_move"] is None
    else:
        assert not core.is_chance()
        assert state_io.SIDES[core.current_player()] == to_move == data["to_move"]
        assert len(core.legal_actions()) >= 2
    pending = core.pending
    if kind == "-":
        assert data["pending"] is None and pending is None
    else:
        assert data["pending"]["kind"] == kind
        engine_kind = "steal" if kind in ("spy", "sturmwind") else kind
        assert pending["kind"] == engine_kind
    # Written by the program itself: dump gives back the same file.
    assert state_io.to_json(state, data["perspective"]) == data


def test_examples_cover_every_step_and_every_pending_kind():
    rows = _example_rows().values()
    assert {step for step, _, _ in rows} == set(state_io.STEPS)
    kinds = state_io.schema()["properties"]["pending"]["properties"]["kind"]["enum"]
    assert {kind for _, _, kind in rows} - {"-"} == set(kinds)
    # The modifier window of each kind of roll, and a chain of each kind.
    assert {k for s, _, k in rows if s == "modifiers"} == {"attack", "search", "spy", "sturmwind"}
    chains = {json.loads((EXAMPLES / n).read_text())["actions"]["left"]
              for n, (s, _, _) in _example_rows().items() if s == "actions"}
    assert max(chains) >= 2


def test_state_format_describes_every_key_of_the_schema():
    text = _text("state-format.md")
    schema = state_io.schema()
    keys = set(schema["properties"])
    keys |= set(schema["properties"]["game"]["properties"])
    keys |= set(schema["properties"]["actions"]["properties"])
    keys |= set(schema["properties"]["pending"]["properties"])
    keys |= set(schema["properties"]["fragments"]["properties"])
    missing = sorted(k for k in keys if f"`{k}`" not in text)
    assert not missing, f"keys of the schema not described in docs/state-format.md: {missing}"
    for step in state_io.STEPS:
        assert f"`{step}`" in text


# ---------------------------------------------------------------------------
# rules.md
# ---------------------------------------------------------------------------


def _sections(text: str) -> dict[str, str]:
    """Heading id ("R9", "D3") -> the text of its section."""
    out: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"^## ([RD]\d+)\. ", line)
        if m:
            current = m.group(1)
            assert current not in out, f"two sections {current}"
            out[current] = ""
        elif line.startswith("## "):
            current = None
        elif current:
            out[current] += line + "\n"
    return out


def test_rules_has_a_section_per_ruling_in_order():
    sections = _sections(_text("rules.md"))
    rulings = [k for k in sections if k.startswith("R")]
    assert rulings == [f"R{n}" for n in range(1, 31)]
    assert [k for k in sections if k.startswith("D")] == [f"D{n}" for n in range(1, 7)]
    for key, body in sections.items():
        assert "- Engine:" in body and "- Tests:" in body, f"{key} says not where it lives"


def test_every_test_named_in_rules_exists():
    text = _text("rules.md")
    named = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", text)
    assert len(named) >= 60
    for path, name in named:
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^def {name}\(", source, re.M), f"{path}::{name} does not exist"


def test_every_function_named_in_rules_exists():
    files = ["_core.pyx", "cards.py", "game.py"]
    files += [f"state_io/{p.name}" for p in sorted((ROOT / "solver" / "state_io").glob("*.py"))]
    files += [p.name for p in sorted((ROOT / "solver").glob("_core*.pxi"))]
    sources = "\n".join((ROOT / "solver" / f).read_text(encoding="utf-8") for f in files)
    names = []
    for line in re.findall(r"^- Engine:.*(?:\n  .*)*", _text("rules.md"), re.M):
        names += [n for n in re.findall(r"`(\w+)`", line)]
    assert len(names) >= 40
    for name in names:
        assert re.search(rf"^\s*(?:cp?def|def)\b[^\n]*\b{name}\(", sources, re.M), (
            f"docs/rules.md names {name}, which solver/ does not define")


def test_every_ruling_cited_in_the_code_has_a_section():
    sections = _sections(_text("rules.md"))
    cited = set()
    for path in _tracked():
        if path.suffix in (".py", ".pyx", ".pxd", ".json") and not path.parts[0] == "tests":
            cited |= set(re.findall(r"\bR(\d{1,2})[a-g]?\b", _read(ROOT / path)))
    assert cited
    unknown = sorted(int(n) for n in cited if f"R{int(n)}" not in sections)
    assert not unknown, f"rulings cited in the code but not in docs/rules.md: {unknown}"


# ---------------------------------------------------------------------------
# card-sets.md and docs/card-sets/
# ---------------------------------------------------------------------------


def test_card_table_is_the_default_set():
    rows = re.findall(r"^\| ((?:PL|DE)\d\d) \| ([^|]+?) \| (\w+) \| (\d*) \| ([^|]*?) \| (START)? ?\|$",
                      _text("card-sets.md"), re.M)
    cs = load_card_set()
    assert [r[0] for r in rows] == [c.number for c in cs.cards]
    for (number, name, kind, bullets, abilities, start), card in zip(rows, cs.cards):
        t = card.type
        assert (name, kind, start == "START") == (t.name, t.kind, card.start), number
        if kind in ("unit", "support"):
            assert int(bullets) == t.bullets, number
            want = [k if v is True else f"{k} {v}+" for k, v in t.abilities.items()]
            assert abilities.split(", ") == want if want else abilities == "", number
        else:
            assert abilities == t.effect, number


def test_modified_card_set_differs_where_the_document_says():
    path = DOCS / "card-sets" / "easier-searches.json"
    mine, default = json.loads(path.read_text()), json.loads(default_card_set_path().read_text())
    assert mine["format"] == CARDS_FORMAT and mine["name"] != default["name"]
    changed = {k for k in default["types"] if mine["types"][k] != default["types"][k]}
    assert changed == {"Scouts", "Recon"}
    for key in changed:
        assert mine["types"][key]["abilities"]["search"] == 3
        assert default["types"][key]["abilities"]["search"] == 4
        rest = lambda t: {k: v for k, v in t.items() if k not in ("abilities", "text")}  # noqa: E731
        assert rest(mine["types"][key]) == rest(default["types"][key])
    assert {k: v for k, v in mine.items() if k not in ("name", "types")} == \
        {k: v for k, v in default.items() if k not in ("name", "types")}
    cs = load_card_set(path)
    assert cs.by_number("PL01").type.abilities["search"] == 3
    assert make_config({"card_set": str(path)}).card_set.by_number("DE01").type.abilities["search"] == 3


def test_state_file_with_the_modified_set_uses_it():
    path = DOCS / "card-sets" / "easier-searches-state.json"
    state = state_io.load(path)
    data = json.loads(path.read_text())
    assert data["card_set"] == "easier-searches.json"
    searcher = state.core.config.card_set.by_number(data["pending"]["card"])
    assert searcher.type.abilities["search"] == 3 <= data["pending"]["dice"][0]


# ---------------------------------------------------------------------------
# Links, and nothing outside the repository
# ---------------------------------------------------------------------------


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _links(path: Path) -> list[str]:
    """The relative link targets of a Markdown file (web links left out)."""
    targets = re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8"))
    return [t for t in targets if not re.match(r"[a-z]+:", t)]


def _check_links(path: Path) -> int:
    """Every relative link of ``path`` names an existing file, and its anchor a
    heading of that file; returns how many links were checked."""
    where = path.relative_to(ROOT)
    targets = _links(path)
    for target in targets:
        file, _, anchor = target.partition("#")
        dest = (path.parent / file) if file else path
        assert dest.exists(), f"{where}: link to {target}: no such file"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", dest.read_text(encoding="utf-8"), re.M)
            assert anchor in {_slug(h) for h in headings}, f"{where}: no anchor #{anchor}"
    return len(targets)


@pytest.mark.parametrize("name", sorted(p.name for p in DOCS.glob("*.md")))
def test_links_in_docs_resolve(name):
    _check_links(DOCS / name)


def test_links_in_readme_resolve():
    assert _check_links(README) >= 10


def test_the_link_check_would_catch_a_bad_link(tmp_path, monkeypatch):
    """A missing file and a missing anchor both fail (the check is not vacuous)."""
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "b.md").write_text("# Some heading\n")
    for text in ("[x](missing.md)", "[x](b.md#other-heading)", "![x](img/none.png)"):
        (tmp_path / "a.md").write_text(text + "\n")
        with pytest.raises(AssertionError):
            _check_links(tmp_path / "a.md")
    (tmp_path / "a.md").write_text("[x](b.md#some-heading) [y](https://example.org/z)\n")
    assert _check_links(tmp_path / "a.md") == 1


def _tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [Path(p) for p in out.stdout.decode().split("\0") if p]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, FileNotFoundError):
        return ""


_OUTSIDE = re.compile(r"\.\./shared|shared/rules|shared/docs")


def _mentions_outside(paths) -> list[str]:
    hits = []
    for path in paths:
        for i, line in enumerate(_read(ROOT / path).splitlines(), 1):
            if _OUTSIDE.search(line):
                hits.append(f"{path}:{i}: {line.strip()[:80]}")
    return hits


def test_no_tracked_file_points_outside_the_repository():
    """Users have the repository only: no file sends them to ../shared/..."""
    paths = [p for p in _tracked() if p.parts[0] != "tests" and p != Path("README.md")]
    assert len(paths) > 50
    hits = _mentions_outside(paths)
    assert not hits, "files outside the repository are cited:\n" + "\n".join(hits)


def test_readme_points_nowhere_outside_the_repository():
    hits = _mentions_outside([Path("README.md")])
    assert not hits, "README.md cites files outside the repository:\n" + "\n".join(hits)


def test_the_outside_check_would_catch_a_mention(tmp_path):
    """The pattern matches the forms used before docs/ existed."""
    for text in ("see ../shared/docs/state-format.md", "(shared/rules/rulings.md)",
                 "shared/docs/x", "`../../shared/rules/cards.md`"):
        assert _OUTSIDE.search(text)
    assert not _OUTSIDE.search("docs/rules.md and solver/jsonio.py (shared by)")


# ---------------------------------------------------------------------------
# Messages citing a ruling say where to read it
# ---------------------------------------------------------------------------


def test_rulings_pointer_names_each_cited_ruling_once():
    from solver.errors import with_rulings_pointer

    assert with_rulings_pointer("x.json: $.turn: expected 1..4, got 5") == \
        "x.json: $.turn: expected 1..4, got 5"
    assert with_rulings_pointer("a (R15b) b (R29, R30) c (R29) d (R14/R28)") == \
        "a (R15b) b (R29, R30) c (R29) d (R14/R28) [R15, R29, R30, R14, R28: see docs/rules.md]"
    # Card numbers and rulings that do not exist are not rulings.
    assert with_rulings_pointer("DE18 Bad Luck, PL04, R31, D7") == "DE18 Bad Luck, PL04, R31, D7"


def test_cli_error_citing_a_ruling_points_at_the_rules(tmp_path, capsys):
    from apps.cli import main

    data = json.loads((EXAMPLES / "attack-escort.json").read_text())
    for entry in data["table"]:
        if entry["card"] == "DE03":  # German Staff, a Support card
            entry["zone"] = "periphery"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["advise", str(bad)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "$.table[" in err and "(R1)" in err and err.rstrip().endswith("[R1: see docs/rules.md]")
    assert "R1" in _sections(_text("rules.md"))


# ---------------------------------------------------------------------------
# README: short, the two commands; the index; results and commands named
# ---------------------------------------------------------------------------

# The two commands README promises a newcomer; the second is what .ci/run runs.
SERVE_COMMAND = "pip install . && wildhorn-solve serve --open"
TEST_COMMAND = 'pip install -e ".[test]" && python -m pytest -q -n auto'
README_MAX_LINES = 170


def test_readme_stays_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines (at most {README_MAX_LINES}): "
        "move reference material into docs/")


def test_readme_gives_the_two_commands_and_ci_runs_the_second():
    lines = [line.strip() for line in README.read_text(encoding="utf-8").splitlines()]
    assert SERVE_COMMAND in lines and TEST_COMMAND in lines
    # Both before the tour: the first section after the introduction.
    first = lines.index(next(line for line in lines if line.startswith("## ")))
    assert lines[first] == "## Two commands"
    assert first < lines.index(SERVE_COMMAND) < lines.index(TEST_COMMAND)
    assert not any(line.startswith("## ") for line in lines[first + 1:lines.index(TEST_COMMAND)])
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert TEST_COMMAND in ci, ".ci/run does not run README's test command"
    from apps.cli import build_parser

    args = build_parser().parse_args(SERVE_COMMAND.split("&& ")[1].split()[1:])
    assert args.command == "serve" and args.open


def test_index_lists_every_document():
    """docs/README.md links every document of docs/, and README.md the index."""
    index = set(_links(DOCS / "README.md"))
    docs = {p.name for p in DOCS.glob("*.md")} - {"README.md"}
    missing = sorted(docs - index)
    assert not missing, f"docs/README.md does not list {missing}"
    assert "docs/README.md" in _links(README)


def _documents() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def test_results_doc_names_every_results_file_and_only_existing_ones():
    text = _text("results.md")
    tracked = {p for p in _tracked() if p.parts[0] == "results"}
    top = sorted(str(p) for p in tracked if len(p.parts) == 2)
    assert len(top) >= 15
    missing = [f for f in top if f"`{f}`" not in text]
    assert not missing, f"docs/results.md says nothing of {missing}"
    tracked_dirs = {str(d) for p in tracked for d in p.parents}
    for doc in _documents():
        for name in re.findall(r"\b(results/[\w./-]*\w/?)", doc.read_text(encoding="utf-8")):
            name = name.rstrip("/")
            assert name in {str(p) for p in tracked} | tracked_dirs, (
                f"{doc.relative_to(ROOT)} names {name}, which is not in the repository")


def _code_lines(text: str) -> list[str]:
    """The lines of indented and fenced code blocks of a Markdown text (a
    shell line continued with a backslash joined to the next)."""
    out, fenced, held = [], False, ""
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif fenced or line.startswith("    "):
            line = held + line.strip()
            held = line[:-1] if line.endswith("\\") else ""
            if not held:
                out.append(line)
    return out


def _script_commands(text: str) -> list[str]:
    """`python benchmarks/x.py ...` and `python scripts/x.py ...`, inline (over
    line breaks) or on a code line."""
    inline = re.findall(r"`(python (?:benchmarks|scripts)/[^`]*)`", re.sub(r"\s*\n\s*", " ", text))
    code = [line for line in _code_lines(text) if re.match(r"python (benchmarks|scripts)/", line)]
    return inline + code


def test_every_script_named_exists_with_the_options_given():
    seen = 0
    for doc in _documents():
        for command in _script_commands(doc.read_text(encoding="utf-8")):
            script = ROOT / command.split()[1]
            assert script.is_file(), f"{doc.relative_to(ROOT)}: {command}: no such script"
            source = script.read_text(encoding="utf-8")
            for flag in re.findall(r"(?<![\w-])--[a-z][\w-]*", command):
                assert f'"{flag}"' in source, (
                    f"{doc.relative_to(ROOT)}: {command}: {script.name} has no option {flag}")
            seen += 1
    assert seen >= 12


def _check_cli_line(line: str) -> None:
    """A `wildhorn-solve ...` code line parses with the CLI's own parser, its
    bot specs parse, and the example files it names exist."""
    from apps.cli import build_parser
    from bots.registry import parse_spec

    tokens = shlex.split(line.split(" # ")[0])
    try:
        args = build_parser().parse_args(tokens[1:])
    except SystemExit:
        raise AssertionError(f"{line}: the CLI refuses it") from None
    for spec in [getattr(args, "bot", None), *(getattr(args, "bots", None) or "").split(";")]:
        if isinstance(spec, str) and spec:
            parse_spec(spec)
    for token in tokens:
        if re.match(r"(examples|docs)/.*\.json$", token):
            assert (ROOT / token).is_file(), f"{line}: no file {token}"


def _cli_commands() -> dict[str, argparse.ArgumentParser]:
    """The CLI's commands: name -> its parser."""
    from apps.cli import build_parser

    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices


def test_every_cli_command_in_the_documents_parses():
    """Code lines parse whole; inline `wildhorn-solve NAME ...` names a command
    (and `bench KIND` a kind of bench)."""
    commands = _cli_commands()
    (kind,) = [a for a in commands["bench"]._actions if a.dest == "what"]
    parsed = inline = 0
    for doc in _documents():
        text = doc.read_text(encoding="utf-8")
        for line in _code_lines(text):
            if line.startswith("wildhorn-solve ") and not re.search(r"\[|\||\.\.\.", line):
                _check_cli_line(line)
                parsed += 1
            elif line.startswith("wildhorn-solve "):  # a synopsis: its options exist
                name = line.split()[1]
                assert name in commands, f"{doc.relative_to(ROOT)}: {line}: no such command"
                options = {s for a in commands[name]._actions for s in a.option_strings}
                for flag in re.findall(r"(?<![\w-])--[a-z][\w-]*", line):
                    assert flag in options, f"{doc.relative_to(ROOT)}: {line}: no option {flag}"
        joined = re.sub(r"\s*\n\s*", " ", text)
        for name, rest in re.findall(r"`wildhorn-solve ([a-z][\w-]*)((?: [a-z]+)?)", joined):
            where = f"{doc.relative_to(ROOT)}: wildhorn-solve {name}{rest}"
            assert name in commands, f"{where}: no such command"
            if name == "bench" and rest:
                assert rest.strip() in kind.choices, f"{where}: no such bench"
            inline += 1
    assert parsed >= 10 and inline >= 30


def test_the_cli_check_would_catch_a_bad_command():
    from solver.errors import BotSpecError

    for line in ("wildhorn-solve servee --open", "wildhorn-solve serve --opne",
                 'wildhorn-solve tournament --bots "ismcts:tme=1;heuristic" --games 2',
                 "wildhorn-solve advise examples/no-such-file.json"):
        with pytest.raises((AssertionError, BotSpecError)):
            _check_cli_line(line)
    _check_cli_line('wildhorn-solve tournament --bots "ismcts:time=1;heuristic" --games 2')


def test_development_doc_describes_every_test_marker():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    markers = [m.split(":")[0] for m in config["tool"]["pytest"]["ini_options"]["markers"]]
    assert {"slow", "fuzz", "bounds", "browser"} <= set(markers)
    text = _text("development.md")
    missing = [m for m in markers if f"`{m}`" not in text]
    assert not missing, f"docs/development.md does not describe the markers {missing}"


def test_the_page_s_rules_summary_is_docs_rules_md_s():
    """The web table's reference (GET /api/reference) serves a packaged copy
    of docs/rules.md's rulings (an installed package has no docs/): it must
    say what the page says.  Regenerate with
    ``python -m apps.server.reference docs/rules.md``."""
    from apps.server import reference
    text = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text("utf-8")
    made = reference.summary(text)
    assert reference.rules() == made, "run: python -m apps.server.reference docs/rules.md"
    numbered = re.findall(r"^## ((?:R|D)\d+)\. ", text, re.M)
    assert [r["id"] for r in made] == numbered and len(numbered) >= 36
