"""The ``wildhorn-solve`` command.

Subcommands: ``demo`` (plays and narrates a seeded game), ``bench core``
(speed against OpenSpiel references, results/bench-core.json), ``bench
variants`` (size of the small presets, results/variant-sizes.json).
Bad input ends with a one-line message on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

from solver.errors import WildhornError


def _cmd_demo(args: argparse.Namespace) -> int:
    import pyspiel

    import solver  # noqa: F401  (registers the game)

    game = pyspiel.load_game("wildhorn", {"variant": args.variant})
    rng = random.Random(args.seed)
    state = game.new_initial_state()
    sides = ("Polish", "German")
    print(f"A game of Operation Wildhorn III ({args.variant}), uniformly random "
          f"play, seed {args.seed}\n")
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            action = rng.choices(actions, probs)[0]
            text = state.action_to_string(pyspiel.PlayerId.CHANCE, action)
            if not text.startswith("draw"):
                print(f"  [chance] {text}")
        else:
            player = state.current_player()
            action = rng.choice(state.legal_actions())
            print(f"  {sides[player]:6s} {state.action_to_string(player, action)}")
        state.apply_action(action)
    print()
    print(state)
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from solver import bench

    if args.what == "core":
        data = bench.bench_core(repeats=args.repeats)
        out = args.out or "results/bench-core.json"
    else:
        data = bench.bench_variants()
        out = args.out or "results/variant-sizes.json"
    bench.write_json(data, out)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        for key, value in data.items():
            print(f"{key}: {value}")
        print(f"(written to {out})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from solver import __version__

    parser = argparse.ArgumentParser(
        prog="wildhorn-solve",
        description="Solver and AI opponent for Days of Honor: Operation Wildhorn III.")
    parser.add_argument("--version", action="version", version=f"wildhorn-solve {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser("demo", help="play and narrate one seeded game with random play")
    demo.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    demo.add_argument("--variant", default="full", choices=("full", "small", "tiny"),
                      help="game preset (default full)")
    demo.set_defaults(func=_cmd_demo)

    bench = sub.add_parser("bench", help="measure speed or size; writes results/*.json")
    bench.add_argument("what", choices=("core", "variants"),
                       help="core: speed vs OpenSpiel references; variants: tree sizes")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--out", help="output file (default results/bench-core.json "
                                     "or results/variant-sizes.json)")
    bench.add_argument("--repeats", type=int, default=5, help="repeats per figure (median)")
    bench.set_defaults(func=_cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return args.func(args)
    except WildhornError as err:
        print(f"wildhorn-solve: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
