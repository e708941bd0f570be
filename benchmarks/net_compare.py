"""Which value network predicts a training run's held-out positions best?
Every network on the same positions, with paired differences.

    python benchmarks/net_compare.py --data results/training/gen4 --nets results/training/gen3/value_net.npz,results/training/gen4/value_net.npz --out results/net-compare-gen4.json

``--data``: a finished training folder (``wildhorn-solve train``) whose
``data/`` exists (its README.md has the command that makes it; the data is
not committed).  Its held-out positions, those of the games ``train.json``
counts that the fit never saw, are evaluated by each network of ``--nets``;
a network trained on another folder's data has not seen them either, so the
rows compare, except for a network that added this folder's data to its own
(``train --add-data``, which adds every game, the held-out ones too): its row
says ``"seen": true`` and its figures flatter it.  For each network:

- ``loss_root``: the mean squared error to the run's training target
  (``root-first``: the search's root value, else the playouts' mean), what
  ``train.json``'s ``held_out_loss`` is.  The root values were found by a
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

Each network after the first gets its paired difference to the first (the
first minus it, so positive means better than the first) in Brier score and
in ``loss_root``, with a 95% interval whose standard error counts a game's
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

from apps.train import ECE_BINS, TrainError, load_data, read_params, target_of
from apps.tournament import calibration
from bots import valuenet
from solver.errors import WildhornError
from solver.jsonio import write_atomic

Z95 = 1.959964


def held_out_rows(folder: Path) -> tuple[dict[str, np.ndarray], dict]:
    """The held-out rows of the finished training run in ``folder`` and its
    train.json."""
    try:
        summary = json.loads((folder / "train.json").read_text())
        games = summary["games"]
        target = summary["fit"]["target"]
    except (OSError, ValueError, KeyError, TypeError):
        raise TrainError(f"--data {folder}: not a finished training folder (no readable "
                         "train.json)") from None
    try:
        params = read_params(folder / "data" / "params.json")
        rows = load_data(folder, games, params)
    except TrainError as err:
        raise TrainError(f"--data {folder}: {err} (the data is not committed: the command "
                         "in the folder's README.md makes it)") from None
    hold = np.isfinite(rows["check"])
    return {f: v[hold] for f, v in rows.items()}, summary | {"target": target}


def clustered_mean(values: np.ndarray, cluster: np.ndarray) -> dict[str, float]:
    """The mean of ``values`` and its 95% interval, the standard error of a
    ratio estimator over clusters (each cluster's sum over its size)."""
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


def seen(net: valuenet.ValueNet, folder: Path) -> bool:
    """Whether ``net`` was trained with ``folder``'s positions added
    (``--add-data``): then it has seen the folder's held-out games."""
    added = net.meta.get("added_data") or []
    return any(isinstance(a, dict) and Path(str(a.get("folder", ""))).resolve()
               == folder.resolve() for a in added)


def compare(rows: dict[str, np.ndarray], target: str, nets: list[str],
            folder: Path) -> list[dict]:
    """Each network's figures on ``rows``, the held-out positions of
    ``folder`` (see the module's docstring)."""
    y = target_of(rows, target).astype(np.float64)
    result = rows["result"].astype(np.float64)
    exact = rows["exact"].astype(np.float64)
    solved = np.isfinite(exact)
    out, first = [], None
    for path in nets:
        net = valuenet.load(Path(path))
        pred = np.asarray(net.evaluate(rows["x"]), dtype=np.float64)
        cal = calibration(pred.tolist(), result.tolist(), ECE_BINS)
        sq_result, sq_target = (pred - result) ** 2, (pred - y) ** 2
        row = {"net": path, "sha256": net.sha256, "seen": seen(net, folder),
               "loss_root": round(float(sq_target.mean()), 6),
               "brier": round(cal["brier"], 5), "ece": round(cal["ece"], 5),
               "mse_exact": round(float(np.mean((pred[solved] - exact[solved]) ** 2)), 5)
               if solved.any() else None}
        if first is None:
            first = (sq_result, sq_target)
        else:
            row["better_than_first"] = {
                "brier": clustered_mean(first[0] - sq_result, rows["game"]),
                "loss_root": clustered_mean(first[1] - sq_target, rows["game"])}
        out.append(row)
    return out


def estimates(rows: dict[str, np.ndarray], target: str) -> dict[str, dict]:
    """Brier score and ECE against the result of the run's own estimates:
    the training target and the 16-playout mean."""
    result = rows["result"].tolist()
    out = {}
    for name, values in ((f"target ({target})", target_of(rows, target)),
                         ("playouts_16", rows["check"])):
        cal = calibration(np.asarray(values, dtype=np.float64).tolist(), result, ECE_BINS)
        out[name] = {"brier": round(cal["brier"], 5), "ece": round(cal["ece"], 5)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="a finished training folder with data/")
    parser.add_argument("--nets", required=True, help="comma-separated network files; the "
                        "first is the one the others are compared with")
    parser.add_argument("--out", help="the JSON file to write")
    args = parser.parse_args(argv)
    nets = [n for n in args.nets.split(",") if n]
    try:
        rows, summary = held_out_rows(Path(args.data))
        figures = compare(rows, summary["target"], nets, Path(args.data))
    except (WildhornError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    report = {"command": "python benchmarks/net_compare.py " + " ".join(
                  sys.argv[1:] if argv is None else argv),
              "data": args.data, "target": summary["target"],
              "positions": int(len(rows["x"])), "games": int(len(np.unique(rows["game"]))),
              "solved_positions": int(np.isfinite(rows["exact"]).sum()),
              "estimates": estimates(rows, summary["target"]), "nets": figures}
    print(f"{report['positions']} held-out positions of {report['games']} games of "
          f"{args.data} ({report['solved_positions']} solved); better_than_first: "
          f"the first minus this one, 95% interval by game")
    for name, e in report["estimates"].items():
        print(f"{name}: brier {e['brier']:.4f} ece {e['ece']:.4f}")
    for r in figures:
        line = (f"{r['net']}: loss_root {r['loss_root']:.5f} brier {r['brier']:.4f} "
                f"ece {r['ece']:.4f} mse_exact {r['mse_exact']}")
        b = r.get("better_than_first", {}).get("brier")
        if b and b["ci95"]:
            line += f"  brier gain {b['mean']:+.4f} [{b['ci95'][0]:+.4f}, {b['ci95'][1]:+.4f}]"
        if r["seen"]:
            line += "  (trained on these positions: --add-data)"
        print(line)
    if args.out:
        write_atomic(Path(args.out), json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
