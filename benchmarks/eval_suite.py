"""Each leaf evaluation's error on the frozen last-turn suite (issue 31).

    python benchmarks/eval_suite.py

Grades ISMCTS with each ``eval`` (playout, net, mix, turn; the exact
solver off, so the search itself is graded) on the positions of
results/endgame-suite.json whose actions differ in exact value, through
``apps.bench_endgame.grade_bots`` (the function behind ``bench endgame
--bots``): the share of exactly optimal choices and the mean and largest
loss in win probability per decision.  Twice: at equal iterations (the
evaluations' quality alone) and at equal time per move (what a move's
budget buys with each; not repeatable to the bit, since the clock decides).
Prints and writes results/eval-suite.json.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from apps.bench_endgame import SUITE, grade_bots, suite_cores  # noqa: E402
from bots.valuenet import packaged_sha256  # noqa: E402

EVALS = ("playout", "net", "mix", "turn")


def specs(iterations: int, seconds: float) -> tuple[str, ...]:
    """The graded bots: every eval at ``iterations``, then at ``seconds`` a move."""
    return tuple([f"ismcts:iterations={iterations},endgame=off,eval={e}" for e in EVALS]
                 + [f"ismcts:time={seconds:g},endgame=off,eval={e}" for e in EVALS])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=0.1)
    ap.add_argument("--suite", default=str(SUITE))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="results/eval-suite.json")
    args = ap.parse_args(argv)
    cores = suite_cores(json.loads(Path(args.suite).read_text()))
    graded = grade_bots(cores, specs(args.iterations, args.seconds), seed=args.seed, log=print)
    result = {"command": "python benchmarks/eval_suite.py", "suite": args.suite,
              "iterations": args.iterations, "seconds": args.seconds, "seed": args.seed,
              "load_average": os.getloadavg()[0],
              "packaged_network": packaged_sha256(),   # what eval=net/mix/turn used
              **graded}
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
