"""Which value network predicts a training run's held-out positions best?
Every network on the same positions, with paired differences.

    python benchmarks/net_compare.py --data results/training/gen4 --nets results/training/gen3/value_net.npz,results/training/gen4/value_net.npz --out results/net-compare-gen4.json

``--data``: a finished training folder (``wildhorn-solve train``) whose
``data/`` exists (its README.md has the command that makes it; the data is
not committed).  Its held-out positions, those of the games ``train.json``
counts that the fit never saw, are evaluated by each network of ``--nets``;
a network trained on another folder's data has not seen them either, so the
rows compare, except for a network that added this run's data to its own
(``train --add-data``, which adds every game, the held-out ones too; known
by the data's bot and seed, so a copy of the folder counts too): its row
says ``"seen": true`` and its figures flatter it.  For each network:

- ``loss_target``: the mean squared error to the run's training target
  (for ``root-first``: the search's root value, else the playouts' mean),
  what ``train.json``'s ``held_out_loss`` is.  The root values were found by a
  search that used the previous generation's network at its leaves, so this
  loss favours that network: read it with care;
- ``brier`` and ``ece`` against the game's result (10 equal-width bins), the
  unbiased check: the result is the same whatever network is asked;
- ``mse_exact``: the squared error to the exact value where the position was
  solved (near the end of the game).

Beside them, the same Brier score and ECE of the run's own estimates of
each position, which need no network: the training target itself (for
``root-first``, what the self-play search believed at the root) and the
16-playout mean.  A network that predicts the results as well as its
training target has learned what the target knows.

Each network after the first, and each of the run's own estimates, gets its
paired difference to the first network (the first's squared error minus
its own, so positive means better than the first) in Brier score (and, for
a network, in ``loss_target``), with a 95% interval whose standard error counts a game's
positions as one cluster (positions of one game are not independent).

Writes ``--out`` (JSON) and prints a table.  No randomness: the same files
give the same figures.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from apps.train import (ECE_BINS, TARGETS, DataParams, TrainError, load_data,  # noqa: E402
                        read_params, read_summary, target_of)
from apps.tournament import calibration  # noqa: E402
from bots import valuenet  # noqa: E402
from solver.errors import WildhornError  # noqa: E402
from solver.jsonio import write_atomic  # noqa: E402

Z95 = 1.959964


def read_run(folder: Path) -> tuple[str, DataParams, dict[str, np.ndarray]]:
    """The training target, the data parameters and the held-out rows of the
    finished training run in ``folder``; a one-line TrainError otherwise."""
    try:
        summary = read_summary(folder)
        games, target = summary["games"], summary["fit"]["target"]
    except TrainError as err:
        raise TrainError(f"--data {folder}: {err}") from None
    except KeyError:
        raise TrainError(f"--data {folder}: not a finished training folder (train.json has "
                         "no fit target)") from None
    if target not in TARGETS:
        raise TrainError(f"--data {folder}: train.json's target {target!r} is not one of "
                         f"{', '.join(TARGETS)}")
    try:
        params = read_params(folder / "data" / "params.json")
        rows = load_data(folder, games, params)
    except TrainError as err:
        raise TrainError(f"--data {folder}: {err} (the data is not committed: the command "
                         "in the folder's README.md makes it)") from None
    hold = np.isfinite(rows["check"])
    if not hold.any():
        raise TrainError(f"--data {folder}: the run has no held-out positions")
    return target, params, {f: v[hold] for f, v in rows.items()}


def clustered_mean(values: np.ndarray, cluster: np.ndarray) -> dict[str, float]:
    """The mean of ``values`` (not empty) and its 95% interval, the standard
    error of a ratio estimator over clusters (each cluster's sum over its
    size), with the small-sample factor g / (g - 1)."""
    ids, inverse = np.unique(cluster, return_inverse=True)
    sums = np.bincount(inverse, weights=values)
    sizes = np.bincount(inverse).astype(float)
    n, g = sizes.sum(), len(ids)
    mean = sums.sum() / n
    if g < 2:
        return {"mean": float(mean), "ci95": None, "clusters": int(g)}
    var = g / (g - 1) * float(np.sum((sums - mean * sizes) ** 2)) / n ** 2
    half = Z95 * math.sqrt(var)
    return {"mean": float(mean), "ci95": [float(mean - half), float(mean + half)],
            "clusters": int(g)}


def seen(net: valuenet.ValueNet, params: DataParams) -> bool:
    """Whether ``net`` was trained with this run's positions added
    (``--add-data``; the data is known by its bot and seed): then it has seen
    the run's held-out games."""
    return any(isinstance(a, dict) and a.get("bot") == params.bot
               and a.get("seed") == params.seed for a in net.meta.get("added_data") or [])


def grade(pred: np.ndarray, rows: dict[str, np.ndarray], y: np.ndarray) -> dict:
    """One estimate's figures on ``rows``: Brier score and ECE against the
    result, mean squared error to the target ``y`` and to the exact values."""
    exact = rows["exact"].astype(np.float64)
    solved = np.isfinite(exact)
    cal = calibration(pred.tolist(), rows["result"].astype(np.float64).tolist(), ECE_BINS)
    return {"loss_target": round(float(np.mean((pred - y) ** 2)), 6),
            "brier": round(cal["brier"], 5), "ece": round(cal["ece"], 5),
            "mse_exact": round(float(np.mean((pred[solved] - exact[solved]) ** 2)), 5)
            if solved.any() else None}


def compare(rows: dict[str, np.ndarray], target: str, params: DataParams,
            nets: list[str]) -> tuple[dict[str, dict], list[dict]]:
    """The run's own estimates' figures and each network's, on ``rows`` (see
    the module's docstring)."""
    y = target_of(rows, target).astype(np.float64)
    result = rows["result"].astype(np.float64)

    def gains(pred: np.ndarray, first: np.ndarray, with_target: bool) -> dict:
        out = {"brier": clustered_mean((first - result) ** 2 - (pred - result) ** 2,
                                       rows["game"])}
        if with_target:
            out["loss_target"] = clustered_mean((first - y) ** 2 - (pred - y) ** 2,
                                                rows["game"])
        return out

    graded, first = [], None
    for path in nets:
        net = valuenet.load(Path(path))
        pred = np.asarray(net.evaluate(rows["x"]), dtype=np.float64)
        row = {"net": path, "sha256": net.sha256, "seen": seen(net, params),
               **grade(pred, rows, y)}
        if first is None:
            first = pred
        else:
            row["better_than_first"] = gains(pred, first, True)
        graded.append(row)
    own = {}
    for name, values in ((f"target ({target})", y),
                         ("playouts_16", rows["check"].astype(np.float64))):
        e = grade(values, rows, y)
        own[name] = {"brier": e["brier"], "ece": e["ece"],
                     "better_than_first": gains(values, first, False)}
    return own, graded


def print_table(report: dict) -> None:
    """The report as lines of text."""
    print(f"{report['positions']} held-out positions of {report['games']} games of "
          f"{report['data']} ({report['solved_positions']} solved); brier gain: the first "
          "network's squared error minus this one's, 95% interval by game")

    def gain(e: dict) -> str:
        b = e.get("better_than_first", {}).get("brier")
        return (f"  brier gain {b['mean']:+.4f} [{b['ci95'][0]:+.4f}, {b['ci95'][1]:+.4f}]"
                if b and b["ci95"] else "")

    for name, e in report["estimates"].items():
        print(f"{name}: brier {e['brier']:.4f} ece {e['ece']:.4f}{gain(e)}")
    for r in report["nets"]:
        exact = "-" if r["mse_exact"] is None else f"{r['mse_exact']:.5f}"
        print(f"{r['net']}: loss_target {r['loss_target']:.5f} brier {r['brier']:.4f} "
              f"ece {r['ece']:.4f} mse_exact {exact}{gain(r)}"
              + ("  (trained on these positions: --add-data)" if r["seen"] else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="a finished training folder with data/")
    parser.add_argument("--nets", required=True, help="comma-separated network files; the "
                        "first is the one the others are compared with")
    parser.add_argument("--out", help="the JSON file to write")
    args = parser.parse_args(argv)
    nets = [n for n in args.nets.split(",") if n]
    try:
        if not nets:
            raise TrainError(f"--nets {args.nets!r}: no network file named")
        if args.out and not Path(args.out).parent.is_dir():
            raise TrainError(f"--out {args.out}: no such folder {Path(args.out).parent}")
        target, params, rows = read_run(Path(args.data))
        own, graded = compare(rows, target, params, nets)
        report = {"command": "python benchmarks/net_compare.py " + " ".join(
                      sys.argv[1:] if argv is None else argv),
                  "data": args.data, "target": target, "positions": int(len(rows["x"])),
                  "games": int(len(np.unique(rows["game"]))),
                  "solved_positions": int(np.isfinite(rows["exact"]).sum()),
                  "estimates": own, "nets": graded}
        print_table(report)
        if args.out:
            write_atomic(Path(args.out), json.dumps(report, indent=1) + "\n")
    except (WildhornError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
