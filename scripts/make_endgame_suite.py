"""Makes the frozen suite of last-turn positions, results/endgame-suite.json.

Every decision point of the last turn after its V-2 step (more than one
legal action) in seeded games between two heuristic bots, each solved
exactly within a node budget (so the file is the same on any machine; see
apps/bench_endgame.py, which reads it for ``wildhorn-solve bench
endgame``).  Run once, from the repository's root:

    python scripts/make_endgame_suite.py [--games N] [--max-nodes N] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from apps.bench_endgame import SUITE, SUITE_GAMES, SUITE_NODES, make_suite  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=SUITE_GAMES)
    parser.add_argument("--max-nodes", type=int, default=SUITE_NODES)
    parser.add_argument("--out", default=str(SUITE))
    args = parser.parse_args(argv)
    suite = make_suite(args.games, args.max_nodes, log=lambda m: print(m, flush=True))
    Path(args.out).write_text(json.dumps(suite, indent=0, separators=(",", ":")) + "\n")
    solved = sum(p["solved"] for p in suite["positions"])
    print(f"{len(suite['positions'])} positions, {solved} solved: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
