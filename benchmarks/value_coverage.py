"""Away from the last turn, do the search's win probability and its 95%
interval mean what they say?  Checked against much longer searches.

    python benchmarks/value_coverage.py --positions 40 --iterations 4000 --reference 64000 --seed 3 [--bot oos] [--eval mix]

Positions: decision points (more than one legal action) of turns 1 to 3,
every ``--every``-th one, of seeded games between two ``ismcts:iterations=300``
bots (the endgame suite's players).  At each, ISMCTS as ``advise`` runs it
(``endgame=exact``, one thread, so a seed gives the same search) reports
the win probability of the side to move and its 95% interval at
``--iterations``; a search of ``--reference`` iterations with another seed
gives the reference value.  The reference is a search too (the same
estimator, much less noise, and a deeper tree so less of the playouts'
bias), not the truth: the last turn, where the truth is known, is checked
by ``wildhorn-solve bench endgame`` (``values``, ``advise``).

Writes results/value-coverage.json: the share of intervals that contain
the reference (with a Wilson interval), the mean and largest absolute
difference, the mean interval width, the same for the sampling-only
interval (1.96 standard errors, without ``bots._budget.VALUE_BIAS``), and
``bias_needed``: the smallest bias scale b for which the interval
1.96 sqrt(p (1 - p) (1/n + b^2)) covers 95% of the references (what
``VALUE_BIAS`` is calibrated from).
Each position's reference value is kept in ``--work`` (default
build/value-coverage), so the same command continues an interrupted run;
with a network ``--eval``, under the packaged network's digest.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

import pyspiel

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import solver  # noqa: F401,E402  (registers the game)
from apps.bench_endgame import quantile, sampling_error  # noqa: E402
from bots.valuenet import packaged_sha256  # noqa: E402
from apps.tournament import wilson  # noqa: E402
from bots import bias_needed, make_bot, valuenet  # noqa: E402
from solver import Core  # noqa: E402
from solver.jsonio import write_atomic  # noqa: E402

PLAYERS = "ismcts:iterations=300,endgame=off"


def positions(count: int, every: int, seed: int) -> list[Core]:
    """``count`` decision points of turns 1-3, every ``every``-th, from
    seeded games (seeds ``seed``, ``seed`` + 1, ...)."""
    game = pyspiel.load_game("wildhorn")
    out: list[Core] = []
    g = seed
    while len(out) < count:
        bots = [make_bot(PLAYERS, 0, g), make_bot(PLAYERS, 1, g + 1)]
        rng = random.Random(g)
        state = game.new_initial_state()
        k = 0
        while not state.is_terminal() and len(out) < count and state.core.turn <= 3:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            else:
                if len(state.legal_actions()) > 1:
                    if k % every == every - 1:
                        out.append(state.core.copy())
                    k += 1
                action = bots[state.current_player()].step(state)
            state.apply_action(action)
        g += 1
    return out


def search(core: Core, iterations: int, seed: int, name: str = "ismcts",
           leaf_eval: str = "playout") -> tuple[float, list[float], float]:
    """(value, reported interval, sampling standard error) of the side to
    move, from a one-thread search (``name``: ismcts or oos) with advise's
    options and the leaf evaluation ``leaf_eval`` (the registry's ``eval``)."""
    player = core.current_player()
    bot = make_bot(f"{name}:iterations={iterations},threads=1,eval={leaf_eval}", player, seed,
                   interactive=True)
    result = bot.analyse(core.copy())
    value = result["value"][player]
    if result.get("exact"):
        return value, [value, value], 0.0
    return value, list(result["value_ci95"][player]), sampling_error(result["stats"], value)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--every", type=int, default=7)
    ap.add_argument("--iterations", type=int, default=4000)
    ap.add_argument("--reference", type=int, default=64000)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--bot", choices=("ismcts", "oos"), default="ismcts",
                    help="the search checked (default ismcts, advise's default)")
    ap.add_argument("--eval", dest="leaf_eval", default="playout",
                    choices=("playout", "net", "mix", "turn"),
                    help="the leaf evaluation of both searches (the registry's eval=; "
                         "default playout)")
    ap.add_argument("--work", default="build/value-coverage")
    ap.add_argument("--out", default="results/value-coverage.json")
    args = ap.parse_args(argv)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    rows = []
    network = valuenet.default().sha256 if args.leaf_eval != "playout" else ""
    for k, core in enumerate(positions(args.positions, args.every, args.seed)):
        # the long reference search is kept (the slow part); the checked
        # search runs again, so the interval is what the bot reports now
        tag = "" if args.bot == "ismcts" else f"{args.bot}-"
        # a network's references are its own: the packaged file's digest is
        # in the name, so a new generation's run does not read the last one's
        tag += "" if args.leaf_eval == "playout" else f"{args.leaf_eval}-{network[:12]}-"
        part = work / f"{tag}{args.seed}-{args.every}-{args.reference}-{k:03d}.json"
        if part.exists():
            ref = json.loads(part.read_text())["reference"]
        else:
            ref, _, _ = search(core, args.reference, args.seed + 1000 + k, args.bot,
                               args.leaf_eval)
            write_atomic(part, json.dumps({"reference": ref}) + "\n")
        value, (lo, hi), se = search(core, args.iterations, args.seed + k, args.bot,
                                       args.leaf_eval)
        row = {"turn": core.turn, "phase": core.phase, "value": round(value, 4),
               "ci95": [round(lo, 4), round(hi, 4)], "stderr": round(se, 4),
               "reference": round(ref, 4)}
        rows.append(row)
        print(f"{k + 1}/{args.positions}: {row}", flush=True)
    n = len(rows)
    inside = sum(r["ci95"][0] <= r["reference"] <= r["ci95"][1] for r in rows)
    sampling = sum(abs(r["value"] - r["reference"]) <= 1.96 * r["stderr"] for r in rows)
    diffs = [abs(r["value"] - r["reference"]) for r in rows]
    b = quantile([bias_needed(r["value"], d, r["stderr"]) for d, r in zip(diffs, rows)], 0.95)
    out = {"bot": args.bot, "eval": args.leaf_eval, "positions": n, "iterations": args.iterations, "reference_iterations": args.reference,
           "coverage": round(inside / n, 4), "coverage_ci95": wilson(inside, n),
           "coverage_sampling_only": round(sampling / n, 4),
           "coverage_sampling_only_ci95": wilson(sampling, n),
           "mean_abs_difference": round(statistics.fmean(diffs), 4),
           "max_abs_difference": round(max(diffs), 4),
           "bias_needed": None if b == float("inf") else round(b, 4),
           "mean_interval_width": round(statistics.fmean(r["ci95"][1] - r["ci95"][0]
                                                         for r in rows), 4),
           "seconds": round(time.time() - t0, 1),
           "packaged_network": packaged_sha256(),   # what a network --eval used
           "command": " ".join(["python", "benchmarks/value_coverage.py", *(argv or sys.argv[1:])])}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out, json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
