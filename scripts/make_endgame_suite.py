"""Makes the frozen suite of last-turn positions, results/endgame-suite.json.

Every decision point of the last turn after its V-2 step (more than one
legal action) in seeded games between two bots (by default ISMCTS at 300
iterations: sensible play, so close games reach the last turn), each solved
exactly within a node budget (so the file is the same on any machine; see
apps/bench_endgame.py, which reads it for ``wildhorn-solve bench
endgame``).  Run once, from the repository's root:

    python scripts/make_endgame_suite.py [--games N] [--max-nodes N] [--work DIR] [--out FILE]

Each finished game is kept in the work folder (default
build/endgame-suite/, not tracked), so the same command continues an
interrupted run where it stopped; the suite is written at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from apps.bench_endgame import (SUITE, SUITE_BOTS, SUITE_GAMES, SUITE_NODES,  # noqa: E402
                                make_suite)
from solver.jsonio import write_atomic  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=SUITE_GAMES,
                        help=f"seeded games, seeds 1..N (default {SUITE_GAMES})")
    parser.add_argument("--max-nodes", type=int, default=SUITE_NODES,
                        help=f"the solver's node budget per search (default {SUITE_NODES})")
    parser.add_argument("--bots", nargs=2, default=list(SUITE_BOTS), metavar=("POLISH", "GERMAN"),
                        help="the two bots' specs (default: %(default)s)")
    parser.add_argument("--work", default="build/endgame-suite",
                        help="folder of the finished games, to continue a run (default %(default)s)")
    parser.add_argument("--first", type=int, default=1,
                        help="first seed to play (default 1; a run from another seed only "
                             "fills the work folder, for a run from 1 to read)")
    parser.add_argument("--out", default=str(SUITE))
    args = parser.parse_args(argv)
    try:
        suite = make_suite(args.games, args.max_nodes, log=lambda m: print(m, flush=True),
                           specs=tuple(args.bots), work=Path(args.work), first=args.first)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.first != 1:
        print(f"games {args.first}-{args.games} in {args.work}; the suite is written by a run "
              f"from seed 1")
        return 0
    write_atomic(args.out, json.dumps(suite, indent=0, separators=(",", ":")) + "\n")
    solved = sum(p["solved"] for p in suite["positions"])
    differ = sum(p["solved"] and any(a["optimal"] is False for a in p["actions"].values())
                 for p in suite["positions"])
    print(f"{len(suite['positions'])} positions, {solved} solved, {differ} with a non-optimal "
          f"action: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
