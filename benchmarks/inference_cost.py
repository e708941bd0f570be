"""What opponent-hand inference (``inference=heuristic``, bots/_inference.pyx)
costs a search.

    python benchmarks/inference_cost.py --games 4 --iterations 300 --seed 1

Plays ``--games`` seeded games of the heuristic bot against itself and, at
every decision with a choice, times one ISMCTS search of ``--iterations``
from that decision with the decider's observations, with inference off and
on (same seed), and the building of the weighted pool alone
(``Observations._weights``: 64 worlds resampled and weighed).  Prints and
writes results/inference-cost.json: the mean seconds per search each way,
the relative overhead, the pool's share, and how often the pool was used
(searches whose worlds were not all equally likely) with its mean effective
sample size.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import pyspiel

import solver  # noqa: F401  (registers the game)
from bots import ISMCTS, POOL, Observations
from bots.heuristic import HeuristicBot


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="results/inference-cost.json")
    args = ap.parse_args()
    game = pyspiel.load_game("wildhorn")
    initial = game.new_initial_state().core
    t_off = t_on = t_pool = 0.0
    searches = used = 0
    ess = []
    for g in range(args.games):
        rng = random.Random(args.seed + g)
        bots = [HeuristicBot(p, args.seed + g + p) for p in (0, 1)]
        obs = [Observations(game.core_config, p) for p in (0, 1)]
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                action = rng.choices(actions, probs)[0]
            else:
                p = state.current_player()
                if len(state.legal_actions()) > 1:
                    core = state.core
                    t0 = time.perf_counter()
                    ISMCTS(seed=searches).search(core, iterations=args.iterations)
                    t1 = time.perf_counter()
                    ISMCTS(seed=searches, inference="heuristic").search(
                        core, iterations=args.iterations, observations=obs[p])
                    t2 = time.perf_counter()
                    _, weights = obs[p]._weights(core, searches)
                    t3 = time.perf_counter()
                    t_off += t1 - t0
                    t_on += t2 - t1
                    t_pool += t3 - t2
                    searches += 1
                    if weights:
                        used += 1
                        ess.append(sum(weights) ** 2 / sum(w * w for w in weights))
                action = bots[p].step(state)
            for o in obs:
                o.record(state.core, action)
            state.apply_action(action)
    result = {
        "games": args.games, "iterations": args.iterations, "seed": args.seed,
        "searches": searches, "pool_worlds": POOL,
        "seconds_per_search_off": t_off / searches,
        "seconds_per_search_on": t_on / searches,
        "overhead": t_on / t_off - 1.0,
        "pool_seconds_per_search": t_pool / searches,
        "pool_share_of_search_on": t_pool / t_on,
        "searches_with_weighted_pool": used,
        "mean_effective_worlds": sum(ess) / len(ess) if ess else None,
        "command": f"python benchmarks/inference_cost.py --games {args.games} "
                   f"--iterations {args.iterations} --seed {args.seed}",
    }
    for k, v in result.items():
        print(f"{k}: {v:.6g}" if isinstance(v, float) else f"{k}: {v}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
