"""The web pages' figures measured in a real browser, written to
results/bench-serve.json (other keys of the file are kept).

    python benchmarks/browser_figures.py [--out results/bench-serve.json]

Runs the browser tests that measure (tests/test_browser.py::test_page_load:
the table's load time; tests/test_board_browser.py: the clicks to build an
example and the checker's server-side time per change) with
``WILDHORN_BENCH_OUT`` naming the output: the tests themselves never write a
tracked file.  Needs Debian's Chromium at /usr/bin/chromium and Playwright.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "results" / "bench-serve.json"),
                        help="the JSON file the figures are added to")
    args = parser.parse_args(argv)
    env = dict(os.environ, WILDHORN_BENCH_OUT=str(Path(args.out).resolve()))
    tests = ["tests/test_browser.py::test_page_load", "tests/test_board_browser.py"]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *tests], cwd=ROOT, env=env)
    if done.returncode == 0:
        print(f"figures written to {args.out}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
