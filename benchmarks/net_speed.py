"""The value network's cost in C against a heuristic playout's, from the
same positions, and ISMCTS iterations per second with each ``eval``.

    python benchmarks/net_speed.py [--positions 200] [--repeats 5] [--iterations 4000] [--seed 1] [--out results/bench-net.json]

Positions: ``--positions`` decisions met along seeded uniformly random games
(apps.bench.sample_states).  For each hidden size (2 x 64, 2 x 128, 2 x 256,
seeded random weights: the cost does not depend on what a network learnt) the
microseconds of one evaluation in C, features and forward pass
(bots._net.NetC.time_positions), against the microseconds of one playout
of the search's default policy (rollout=heuristic,
bots._searchtree.time_playouts) from the same positions, and their ratio
(issue 31's target: at least 10).  Then ISMCTS iterations per second from
the opening and from a mid-game position with eval=playout, net, mix and
turn (the 2 x 128 network), and with eval=net valuing a die at a leaf by
one face drawn instead of the expectation over its faces
(``net_sampled_dice``: what the expectation costs).  Every figure is the median of ``--repeats``
interleaved repeats (each repeat measures every variant once, in turn), so a
shared machine's load falls on all of them alike; compare the ratios.
Prints one JSON object and writes it to ``--out``.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import pyspiel

import solver  # noqa: F401  (registers the game)
from apps.bench import _meta, _midgame, _opening, sample_states, write_json
from bots import ISMCTS, load_net, time_playouts, valuenet
from solver import N_FEATURES

HIDDEN = (64, 128, 256)
# (key, eval, how a die at a leaf is valued): "expect" is the searchers' way
# (the network's expectation over the faces), "sample" one face drawn
EVALS = (("playout", "playout", "expect"), ("net", "net", "expect"),
         ("net_sampled_dice", "net", "sample"), ("mix", "mix", "expect"),
         ("turn", "turn", "expect"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="results/bench-net.json")
    args = ap.parse_args(argv)
    game = pyspiel.load_game("wildhorn")
    cores = [s.core.copy() for s in sample_states(game, args.positions, args.seed)]
    nets = {}
    with tempfile.TemporaryDirectory() as folder:
        for h in HIDDEN:
            path = Path(folder) / f"net-{h}.npz"
            weights, biases = valuenet.random_weights((N_FEATURES, h, h, 1), args.seed)
            valuenet.write(path, weights, biases, output="sigmoid", meta={"bench": True})
            nets[h] = load_net(path)
    # per repeat: 50 evaluations of each network and 10 playouts from every position
    net_us = {h: [] for h in HIDDEN}
    playout_us = []
    for r in range(args.repeats):
        for h in HIDDEN:
            seconds, _ = nets[h].time_positions(cores, 50)
            net_us[h].append(seconds / (50 * len(cores)) * 1e6)
        seconds, _ = time_playouts(cores, "heuristic", 10, args.seed + r)
        playout_us.append(seconds / (10 * len(cores)) * 1e6)
    out = {"meta": _meta(), "positions": len(cores), "repeats": args.repeats,
           "iterations": args.iterations, "seed": args.seed,
           "playout_us": round(statistics.median(playout_us), 2)}
    for h in HIDDEN:
        us = statistics.median(net_us[h])
        out[f"net_{h}x{h}_us"] = round(us, 3)
        out[f"playout_over_net_{h}x{h}"] = round(out["playout_us"] / us, 1)
    positions = {"opening": _opening(game, args.seed).core,
                 "midgame": _midgame(game, args.seed).core}
    for where, core in positions.items():
        rates = {key: [] for key, _, _ in EVALS}
        for r in range(args.repeats):
            for key, e, dice in EVALS:
                search = ISMCTS(seed=r, eval=e, net=nets[128])
                search._set_dice(dice)
                stats = search.search(core, iterations=args.iterations)
                rates[key].append(stats["iterations"] / stats["seconds"])
        for key, _, _ in EVALS:
            out[f"ismcts_{key}_iters_per_s_{where}"] = round(statistics.median(rates[key]))
    out["notes"] = ("net_HxH_us: one evaluation in C (features, then the forward pass of a "
                    "734-H-H-1 ReLU/sigmoid network, sparse first layer), median over repeats "
                    "of the mean over the positions; playout_us: one playout of the default "
                    "policy (rollout=heuristic) from the same positions; ISMCTS c 1.4, prior "
                    "3, with each eval and the 2x128 network, from the first decision of the "
                    "seeded game and a turn 2-3 main-step decision; net_sampled_dice: eval=net "
                    "with a die at a leaf sampled instead of averaged over its faces")
    print(json.dumps(out, indent=2))
    write_json(out, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
