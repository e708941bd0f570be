"""The reference the table shows one click away (``GET /api/reference``):
every card of the card set with its full text, and the summary of the
rulings by number.

The rulings' one source is ``docs/rules.md``; an installed package has no
``docs/``, so the summary the server serves is a packaged copy,
``static/rules.json``, made from it by this module::

    python -m apps.server.reference docs/rules.md   # rewrites static/rules.json

(``tests/test_docs.py`` fails when the copy and docs/rules.md disagree.)
Each entry: the ruling's number ("R9", "D1"), its title, the part of the
rulebook it belongs to, and what it says in a player's words (the text
before its Engine and Tests lines, markdown marks removed).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

RULES_JSON = Path(__file__).with_name("static") / "rules.json"
HEADING = re.compile(r"^## ((?:R|D)\d+)\. (.+)$")
PART = re.compile(r"^## ([^RD].*|R[^\d].*|D[^\d].*)$")
LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")


ITEM = re.compile(r"^\s*(?:\d+\.|[-*])\s")


def _plain(text: str) -> str:
    """Markdown to plain words: links to their text, no ** or backticks,
    the lines of a paragraph joined (a list keeps one line per item)."""
    text = LINK.sub(r"\1", text).replace("**", "").replace("`", "")
    lines: list[str] = []
    for line in text.splitlines():
        if lines and not ITEM.match(line):
            lines[-1] += " " + line.strip()
        else:
            lines.append(line.strip())
    return "\n".join(" ".join(ln.split()) for ln in lines if ln.strip())


def summary(markdown: str) -> list[dict[str, str]]:
    """The rulings of ``markdown`` (docs/rules.md's text), in order."""
    out: list[dict[str, str]] = []
    part = ""
    entry: dict[str, Any] | None = None
    for line in markdown.splitlines():
        heading = HEADING.match(line)
        if heading:
            entry = {"id": heading.group(1), "title": heading.group(2).strip(), "part": part,
                     "lines": []}
            out.append(entry)
            continue
        if line.startswith("## "):
            part = line[3:].strip()
            entry = None
            continue
        if entry is None:
            continue
        if line.startswith("- Engine:") or line.startswith("- Tests:") or line.strip() == "---":
            entry["lines"].append(None)  # the player's words end here
            continue
        if None not in entry["lines"]:
            entry["lines"].append(line)
    rules = []
    for e in out:
        words = [ln for ln in e["lines"] if ln is not None]
        paragraphs = "\n".join(words).strip().split("\n\n")
        rules.append({"id": e["id"], "title": _plain(e["title"]), "part": e["part"],
                      "text": "\n\n".join(_plain(p) for p in paragraphs if p.strip())})
    return rules


def rules() -> list[dict[str, str]]:
    """The packaged summary (static/rules.json)."""
    return json.loads(RULES_JSON.read_text(encoding="utf-8"))["rules"]


def write(markdown_path: str) -> Path:
    """Rewrites static/rules.json from ``markdown_path`` (docs/rules.md)."""
    data = {"source": "docs/rules.md", "rules": summary(Path(markdown_path).read_text("utf-8"))}
    RULES_JSON.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return RULES_JSON


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python -m apps.server.reference docs/rules.md", file=sys.stderr)
        sys.exit(2)
    print(f"wrote {write(sys.argv[1])}")
