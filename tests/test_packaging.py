"""``pip install .`` ships every package: each folder of the project's
packages that holds an ``__init__.py`` is listed in pyproject's
``[tool.setuptools] packages`` (setuptools installs only those), and the
package data the code reads is declared."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP = ("solver", "bots", "exact", "apps")


def _setuptools() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]


def test_every_package_folder_is_shipped():
    listed = set(_setuptools()["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts)
             for top in TOP for p in (ROOT / top).rglob("__init__.py")}
    assert found - listed == set(), "packages pip install . would leave out"
    assert listed - found == set(), "listed packages that do not exist"


def test_the_state_schema_is_package_data():
    schema = ROOT / "solver" / "data" / "state.schema.json"
    assert schema.is_file()
    patterns = _setuptools()["package-data"]["solver"]
    assert any(fnmatch("data/state.schema.json", pattern) for pattern in patterns)
