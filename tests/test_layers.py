"""The layers import one way: solver <- exact <- bots <- apps (the bots use
the exact last-turn solver, exact.endgame; exact never imports the bots).

Each package may import only the packages listed for it (and itself, and
third-party modules); no module imports a project package inside a function
(such imports exist to dodge cycles, which the layers rule out).  Python
files are read with ``ast``; Cython files (``.pyx``/``.pxd``/``.pxi``) line by
line, since ``ast`` cannot parse them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# package -> the project packages it may import (besides itself)
ALLOWED = {
    "solver": set(),
    "bots": {"solver", "exact"},
    "exact": {"solver"},
    "apps": {"solver", "bots", "exact"},
}
PROJECT = set(ALLOWED)

_CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+c?import|c?import\s+([\w.]+))")


def _python_imports(path: Path) -> list[tuple[str, int, bool]]:
    """(module, line, inside a function) for every import of ``path``."""
    tree = ast.parse(path.read_text(), str(path))
    found: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:       # relative: inside the same package
                    module = path.relative_to(ROOT).parts[0]
                else:
                    module = child.module or ""
                found.append((module, child.lineno, in_function))
            visit(child, inner)

    visit(tree, False)
    return found


def _cython_imports(path: Path) -> list[tuple[str, int, bool]]:
    found = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        m = _CYTHON_IMPORT.match(line)
        if m:
            found.append((m.group(1) or m.group(2), number, line[:1].isspace()))
    return found


def imports_of(path: Path) -> list[tuple[str, int, bool]]:
    if path.suffix == ".py":
        return _python_imports(path)
    return _cython_imports(path)


def layer_violations(root: Path = ROOT) -> list[str]:
    """Every import that breaks the layering, as 'file:line: message'."""
    problems = []
    for package, allowed in ALLOWED.items():
        for path in sorted((root / package).rglob("*")):
            if path.suffix not in (".py", ".pyx", ".pxd", ".pxi"):
                continue
            for module, line, in_function in imports_of(path):
                top = module.split(".")[0]
                if top not in PROJECT:
                    continue
                where = f"{path.relative_to(root)}:{line}"
                if top != package and top not in allowed:
                    problems.append(f"{where}: {package} may not import {top}")
                elif in_function:
                    problems.append(f"{where}: imports {module} inside a function")
    return problems


def test_layers_import_one_way():
    assert layer_violations() == []


@pytest.mark.parametrize("package, line, expected", [
    ("solver", "from bots import make_bot\n", "solver may not import bots"),
    ("bots", "import apps.cli\n", "bots may not import apps"),
    ("exact", "from bots.base import Bot\n", "exact may not import bots"),
    ("apps", "def f():\n    from solver import game\n", "imports solver inside a function"),
])
def test_a_reverse_import_is_caught(tmp_path, package, line, expected):
    for name in ALLOWED:
        (tmp_path / name).mkdir()
    (tmp_path / package / "bad.py").write_text(line)
    assert [p.split(": ", 1)[1] for p in layer_violations(tmp_path)] == [expected]


def test_cython_imports_are_read():
    (found,) = [m for m, _, _ in _cython_imports(ROOT / "bots" / "_policy.pyx")
                if m == "solver._core"]
    assert found == "solver._core"


# ---- private modules and the tables ----------------------------------------------------

def private_imports(root: Path = ROOT) -> list[str]:
    """Every Python import of another package's private module (``solver._core``
    from ``apps``, ``from bots import _budget``...), as 'file:line: module':
    a package is used through its public names.  Cython's ``cimport`` of a
    ``.pxd`` is the C interface, meant to be shared, and is not counted."""
    found = []
    for folder in ("solver", "bots", "exact", "apps", "benchmarks", "scripts"):
        for path in sorted((root / folder).rglob("*.py")):
            own = path.relative_to(root).parts[0]
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                else:
                    continue
                for name in names:
                    parts = name.split(".")
                    if parts[0] in PROJECT and parts[0] != own and len(parts) > 1 \
                            and parts[1].startswith("_") and not parts[1].startswith("__"):
                        found.append(f"{path.relative_to(root)}:{node.lineno}: {name}")
                        break
    return found


def test_no_module_imports_another_packages_private_module():
    assert private_imports() == []


def test_a_private_import_is_caught(tmp_path):
    for name in ("solver", "bots", "exact", "apps", "benchmarks", "scripts"):
        (tmp_path / name).mkdir()
    (tmp_path / "apps" / "a.py").write_text("from solver._core import Core\n")
    (tmp_path / "apps" / "b.py").write_text("from bots import _budget\n")
    (tmp_path / "bots" / "c.py").write_text("from bots._inference import POOL\n")  # its own
    assert private_imports(tmp_path) == ["apps/a.py:1: solver._core",
                                         "apps/b.py:1: bots._budget"]


def test_no_web_module_imports_the_terminal_table():
    """The web table and the terminal table are views of one record
    (apps.record), never of each other."""
    for path in sorted((ROOT / "apps" / "server").glob("*.py")):
        modules = {m for m, _, _ in _python_imports(path)}
        assert not {"apps.play", "rich"} & modules, path
