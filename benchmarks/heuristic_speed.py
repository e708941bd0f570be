"""The heuristic bot's time per decision, and a digest of the games it played.

    PYTHONPATH=. python benchmarks/heuristic_speed.py [--games 20] [--repeats 5] [--oracle] [--out results/bench-heuristic.json]

Plays ``--games`` seeded games on the core (chance from ``random.Random
(seed)``): heuristic against heuristic, then heuristic against the random
bot in both seats, every bot seeded with the game's seed.  Every
``analyse`` of the heuristic bot is timed; a repeat's figure is its mean
time per decision, and the figure printed is the median over ``--repeats``.
``games_sha256`` digests every move of every game, so two runs (another
checkout, another build) played the same games exactly when their digests
are equal.

``--oracle`` also times, in the same run and on the same games, the Python
rule-by-rule version (``tests/heuristic_oracle.py`` of this script's
checkout) and reports its digest and the ratio of the two times.  Run it
with this checkout first on ``sys.path`` (``PYTHONPATH=.`` from the
repository root) so that ``bots`` is this checkout's.

Prints one JSON object and writes it to ``--out``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
import time
from pathlib import Path

import bots
import bots.heuristic
from bots.base import RandomBot
from bots.heuristic import HeuristicBot
from solver.cards import load_card_set
from solver import Core, CoreConfig
from apps.bench import _meta, write_json


def play(bot_class, config, games: int):
    """(moves of every game, seconds spent in the heuristic bot's analyse,
    its decisions) over the seeded games."""
    every: list[list[int]] = []
    spent = 0.0
    decisions = 0
    for k in range(games):
        for pairing in ((bot_class, bot_class), (bot_class, RandomBot), (RandomBot, bot_class)):
            seated = [cls(p, k) for p, cls in enumerate(pairing)]
            rng = random.Random(k)
            core = Core(config)
            moves = []
            while not core.is_terminal():
                if core.is_chance():
                    outs = core.chance_outcomes()
                    a = rng.choices([o for o, _ in outs], [p for _, p in outs])[0]
                else:
                    bot = seated[core.current_player()]
                    if isinstance(bot, RandomBot):
                        a = bot.analyse(core)["action"]
                    else:
                        t = time.perf_counter()
                        a = bot.analyse(core)["action"]
                        spent += time.perf_counter() - t
                        decisions += 1
                    moves.append(a)
                core.apply(a)
            every.append(moves)
    return every, spent, decisions


def digest(games: list[list[int]]) -> str:
    return hashlib.sha256(json.dumps(games).encode()).hexdigest()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--oracle", action="store_true",
                    help="also time the Python rules, tests/heuristic_oracle.py")
    ap.add_argument("--out", default="results/bench-heuristic.json")
    args = ap.parse_args(argv)
    config = CoreConfig(load_card_set())
    contenders = {"heuristic": HeuristicBot}
    if args.oracle:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        from heuristic_oracle import HeuristicOracle
        contenders["oracle"] = HeuristicOracle
    times: dict[str, list[float]] = {name: [] for name in contenders}
    module = Path(bots.heuristic.__file__).resolve()
    if module.is_relative_to(Path.cwd()):
        module = module.relative_to(Path.cwd())
    out = {"meta": _meta(), "module": str(module), "games": 3 * args.games,
           "repeats": args.repeats}
    for _ in range(args.repeats):
        for name, cls in contenders.items():  # interleaved, so both see the same load
            games, spent, decisions = play(cls, config, args.games)
            times[name].append(spent / decisions)
            out[f"{name}_decisions"] = decisions
            out[f"{name}_games_sha256"] = digest(games)
    for name in contenders:
        out[f"{name}_us_per_decision"] = round(1e6 * statistics.median(times[name]), 2)
    if args.oracle:
        out["oracle_over_heuristic"] = round(statistics.median(times["oracle"])
                                             / statistics.median(times["heuristic"]), 1)
    out["notes"] = ("mean time of one HeuristicBot.analyse per repeat, median over the repeats; "
                    "games: heuristic vs heuristic and heuristic vs random in both seats, seeds "
                    "0..games-1")
    print(json.dumps(out, indent=2))
    write_json(out, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
